"""IntervalCounter: memory retained and at peak per input byte, build speed, per input kind.

For each input kind (prose, random letters, spaces, CJK without spaces, raw random bytes
with the BytePairEncoding) and encoding, an ``IntervalCounter`` over ``--mib`` MiB is
built in a fresh process (and queried over the whole text once, which builds the
lazily built parts: the index of each long piece), twice: once timed (CPU time of the process, no tracing), once
measured by the RSS and then under ``tracemalloc`` (bytes allocated by the build and still held once it returns:
"retained"; the highest traced total during the build: "peak"; both over the input's
UTF-8 bytes, the input itself not included; the traced build is the third in its process, so that the
encoding's caches it fills (pieces, splits, lazily built vocabulary tables: the
encoding's, not the counter's) are filled already; the timed build is the first).  The RSS growth of an
untraced build in the same process, after the cache-filling one (``/proc/self/statm``
before and after, the free pages of the C heap returned first, see ``_trim``; and
``ru_maxrss`` with the peak reset to the size before the build, see ``_rss_baseline``), is
shown beside it.
``memory_bytes()`` is compared with the retained bytes (the target: within 10 %).
Each build ends with exactness checks: random intervals against ``enc.count`` of the
slice.  Targets: retained <= 4 and peak <= 8 bytes per input byte, build >= 5 MB/s.

    python benchmarks/bench_interval_memory.py --out benchmarks/results_interval_memory.md
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import random
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpe_stream  # noqa: E402
from _common import end_table, in_child, load_average, machine_info, results_head  # noqa: E402
from _families import family_text  # noqa: E402
from bpe_stream import IntervalCounter  # noqa: E402

KINDS = {
    "prose": lambda n: family_text("prose", n),
    "random letters": lambda n: family_text("one random-letter word", n),
    "spaces": lambda n: family_text("spaces", n),
    "CJK without spaces": lambda n: family_text("CJK without spaces", n),
    "raw bytes": lambda n: random.Random(9).randbytes(n),
}


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _trim() -> None:
    """Free pages of the C heap back to the system (glibc ``malloc_trim``): the build's
    transients (piece lists of a block, grown arrays) leave free holes that glibc keeps
    resident (4.4 bytes a byte after a prose build), held by no one."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _rss_baseline() -> int:
    """The resident size before the build, with the process's high-water mark reset to it.

    ``ru_maxrss`` is the process's peak since it started: without the reset it holds the
    making of the input (``_families._random`` keeps a list of one pointer per character,
    8 bytes a byte, before the join), not the build.  Memory freed before the build goes
    back to the system first (``malloc_trim``), else the build reuses it unseen and the RSS
    growth reads 0.  Linux only (``/proc/self/clear_refs``, 5: reset the peak)."""
    _trim()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    return _rss()


def _check(ic, enc, text, rng) -> bool:
    n = len(text)
    for _ in range(30):
        i = rng.randrange(n)
        j = min(n, i + rng.choice([1, 10, 1000, 100_000]))
        want = enc.count(text[i:j]) if isinstance(text, str) else enc.bpe.count(text[i:j])
        if ic.count(i, j) != want:
            return False
    return True


def _build(target, text):
    """The counter, with its lazily built parts (long pieces' indexes) built by two
    queries over the whole text."""
    ic = IntervalCounter(target, text)
    ic.count(0, len(text))
    ic.count(1, len(text) - 1)
    return ic


def _run(conn, kind, name, nbytes, traced):
    enc = bpe_stream.get_encoding(name)
    target = enc.bpe if kind == "raw bytes" else enc
    text = KINDS[kind](nbytes)
    enc.count("warm: ünïcode 中文 123 !! \n")
    IntervalCounter(target, text[:1000])  # lazily built tables: not what is measured
    if kind == "raw bytes":
        enc.bpe.count(text[:1000])
    gc.collect()
    if traced:
        # a first build fills the encoding's caches (pieces, splits, lazily built vocabulary
        # tables: the encoding's, shared, not the counter's); the second one is measured by
        # the RSS (untraced: tracemalloc's own records of many small blocks are resident
        # too), the third by tracemalloc
        _build(target, text)
        gc.collect()
        rss0 = _rss_baseline()
        ic = _build(target, text)
        gc.collect()
        rss_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - rss0
        _trim()
        rss_after = _rss() - rss0
        del ic
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        ic = _build(target, text)
        gc.collect()
        cur, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        conn.send((cur - base, peak - base, rss_after, rss_peak, ic.memory_bytes(),
                   _check(ic, enc, text, random.Random(1))))
    else:
        t0 = time.process_time()
        ic = _build(target, text)
        dt = time.process_time() - t0
        conn.send((dt, _check(ic, enc, text, random.Random(2))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=float, default=10)
    ap.add_argument("--encodings", default="cl100k_base,o200k_base")
    ap.add_argument("--kinds", default=None, help="comma-separated kinds (default: all)")
    ap.add_argument("--out", help="also write the table to this Markdown file")
    args = ap.parse_args()
    nbytes = int(args.mib * (1 << 20))
    kinds = list(KINDS) if args.kinds is None else args.kinds.split(",")
    lines = results_head(
        "IntervalCounter memory and build speed, per input kind",
        f"{machine_info()}; {nbytes:,} bytes per input; each figure from a fresh process.  "
        "Bytes per input byte: retained (tracemalloc, held after the build), peak (tracemalloc, "
        "during the build), RSS growth after the build (free heap pages returned by `malloc_trim`) and at its peak (the high-water mark reset before the build); `memory_bytes()` over "
        "the retained bytes; build MB/s from CPU time without tracing.  Targets: retained <= 4, "
        "peak <= 8, `memory_bytes()` within 10 % of retained, build >= 5 MB/s.  Load average at "
        f"start: {load_average()}.",
    ) + [
        "| encoding | kind | retained B/B | peak B/B | RSS after B/B | RSS peak B/B | memory_bytes / retained "
        "| build MB/s | targets | exact |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for name in args.encodings.split(","):
        for kind in kinds:
            if kind == "raw bytes" and name != args.encodings.split(",")[0]:
                continue  # raw BPE: the vocabulary of the first encoding only
            mem = in_child(_run, (kind, name, nbytes, True))
            tim = in_child(_run, (kind, name, nbytes, False))
            if mem is None or tim is None:
                row = f"| {name} | {kind} | failed | | | | | | | |"
            else:
                ret, peak, rss_after, rss_peak, mb, ok1 = mem
                dt, ok2 = tim
                mbps = nbytes / dt / 1e6
                r, p = ret / nbytes, peak / nbytes
                ratio = mb / ret if ret else float("nan")
                # memory_bytes() within 10 % (or both under 0.05 bytes per input byte: a text
                # that is one run of a character keeps next to nothing)
                close = abs(mb - ret) <= 0.1 * ret or max(mb, ret) <= 0.05 * nbytes
                met = r <= 4 and p <= 8 and close and mbps >= 5
                row = (f"| {name} | {kind} | {r:.2f} | {p:.2f} | {rss_after / nbytes:.2f} | "
                       f"{rss_peak / nbytes:.2f} | {ratio:.2f} | {mbps:.1f} | {'met' if met else 'missed'} | "
                       f"{'yes' if ok1 and ok2 else 'NO'} |")
            print(row, flush=True)
            lines.append(row)
    end_table(lines, args.out)


if __name__ == "__main__":
    main()
