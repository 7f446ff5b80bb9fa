"""Chunking against counting: chunk time / count time per input family, encoding and budget.

The chunker's promise is to cost about what counting the text costs, on every input.
For each family of ``_families.py`` (about ``--size`` UTF-8 bytes each) and each
encoding, this measures ``enc.count(text)`` (first call: a fresh process, no piece
cached) and ``Chunker(enc, budget, overlap=..., boundaries=mode).chunks(text)`` (also a
fresh process each) for every budget, in four settings: exact, exact with overlap,
semantic, semantic with overlap (overlap = budget // 4; none at budget 1).  Each cell
is the ratio chunk time / count time, with the chunk time in seconds; a cell whose run
passes ``--timeout`` CPU seconds is killed and shown as ``>T s``; a budget below
what one character needs is refused (``CharacterOverBudget``), shown with the time to refuse.  After timing, each
run checks its chunks (the text is the input's slice, the count equals ``enc.count``
and fits, the chunks cover the input in order); ``NO`` in the last column means a
check failed.  CPU time of the calling thread (``time.thread_time``), one run per cell.

    python benchmarks/bench_chunk_vs_count.py --out benchmarks/results_chunk_vs_count.md
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpe_stream  # noqa: E402
from _common import end_table, in_child, load_average, machine_info, results_head  # noqa: E402
from _families import FAMILIES, family_text  # noqa: E402
from bpe_stream import Chunker  # noqa: E402
from bpe_stream.chunk.chunker import CharacterOverBudget  # noqa: E402

SETTINGS = [("exact", False), ("exact", True), ("semantic", False), ("semantic", True)]


def _overlap(budget: int, with_overlap: bool) -> int:
    return budget // 4 if with_overlap else 0


def _check(enc, text: str, chunks, budget: int, overlap: int) -> bool:
    if not chunks:
        return text == ""
    if chunks[0].start != 0 or chunks[-1].end != len(text):
        return False
    prev = None
    for c in chunks:
        if text[c.start : c.end] != c.text or not c.text or c.token_count != enc.count(c.text) or c.token_count > budget:
            return False
        if prev is not None:
            if overlap == 0 and c.start != prev.end:
                return False
            if not (prev.start < c.start <= prev.end < c.end):
                return False
        prev = c
    return True


def _run_count(conn, enc, text):
    t0 = time.thread_time()
    enc.count(text)
    conn.send((time.thread_time() - t0, None, True))


def _run_chunk(conn, enc, text, budget, overlap, mode, check):
    t0 = time.thread_time()
    try:
        chunks = Chunker(enc, budget, overlap=overlap, boundaries=mode).chunks(text)
    except CharacterOverBudget as e:
        conn.send((time.thread_time() - t0, f"refused: a character needs {e.tokens}", True))
        return
    dt = time.thread_time() - t0
    ok = _check(enc, text, chunks, budget, overlap) if check else True
    conn.send((dt, len(chunks), ok))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=1_000_000, help="bytes of UTF-8 per text")
    ap.add_argument("--budgets", default="1,16,512,8192")
    ap.add_argument("--encodings", default="cl100k_base,o200k_base")
    ap.add_argument("--families", default=None, help="comma-separated family names (default: all)")
    ap.add_argument("--timeout", type=int, default=120, help="CPU seconds per run before it is killed")
    ap.add_argument("--settings", default="exact,exact+overlap,semantic,semantic+overlap",
                    help="comma-separated subset of the four settings")
    ap.add_argument("--no-check", action="store_true", help="skip the check of the chunks")
    ap.add_argument("--out", help="also write the table to this Markdown file")
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    names = ["exact", "exact+overlap", "semantic", "semantic+overlap"]
    settings = [SETTINGS[names.index(x)] for x in args.settings.split(",")]
    families = list(FAMILIES) if args.families is None else args.families.split(",")
    lines = results_head(
        "Chunking against counting, per input family",
        f"{machine_info()}; {args.size:,} bytes per text; CPU time, one run per cell, each in a "
        f"fresh process (no piece cached); cells: chunk time / `enc.count` time (first call), "
        f"chunk seconds in parentheses; overlap = budget // 4.  Load average at start: "
        f"{load_average()}.",
    ) + [
        "| encoding | family | count s | budget | " + " | ".join(f"{m}{' + overlap' if o else ''}" for m, o in settings)
        + " | max ratio | within 3x | checked |",
        "|---|---|---|---|" + "---|" * len(settings) + "---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    worst = {}
    for name in args.encodings.split(","):
        enc = bpe_stream.get_encoding(name)
        enc.count("warm the tables: ünïcode 中文 123 !! \n")
        for fam in families:
            text = family_text(fam, args.size)
            res = in_child(_run_count, (enc, text), args.timeout)
            count_s = res[0] if res else float("nan")
            for budget in budgets:
                cells = []
                ok = True
                ratios = []
                for mode, with_overlap in settings:
                    overlap = _overlap(budget, with_overlap)
                    if with_overlap and overlap == 0:
                        cells.append("—")
                        continue
                    res = in_child(_run_chunk, (enc, text, budget, overlap, mode, not args.no_check), args.timeout)
                    if res is None:
                        cells.append(f">{args.timeout} s")
                        ratios.append(float("inf"))
                        continue
                    dt, n_chunks, good = res
                    ok = ok and good
                    if isinstance(n_chunks, str):
                        cells.append(f"{n_chunks} ({dt:.2f})")
                        continue
                    ratios.append(dt / count_s)
                    cells.append(f"{dt / count_s:.1f} ({dt:.2f})")
                top = max(ratios, default=0.0)
                worst[(name, fam)] = max(worst.get((name, fam), 0), top)
                row = (f"| {name} | {fam} | {count_s:.3f} | {budget} | " + " | ".join(cells)
                       + f" | {top:.1f} | {'met' if top <= 3 else 'missed'} | {'yes' if ok else 'NO'} |")
                print(row, flush=True)
                lines.append(row)
    end_table(lines, args.out)


if __name__ == "__main__":
    main()
