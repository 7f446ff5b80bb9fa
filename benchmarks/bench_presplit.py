#!/usr/bin/env python
"""The compiled pre-split scanner (``_native/presplit.c``) against the ``regex`` split, and
``Encoding.count`` with it against tiktoken and tokie.

Three tables, every time CPU time (``time.process_time``: the whole process, threads
included), peers measured in the same run on the same text:

1. *Scanner alone*: ``presplit(text, spec)`` (pieces as ``str``) against the regex split it
   replaces (``PreSplitter.findall`` with the scanner turned off: the ``regex`` module with
   the reference classes, and the ``re`` fast path on ASCII stretches for cl100k/o200k), for
   every member, on the multilingual corpus, on random text of each script (words of
   letters of the script between spaces, digits and punctuation) and on ASCII (black's
   source).  Median of ``--repeat`` calls.
2. *First count in a fresh process*: ``get_encoding(name)`` then one timed
   ``count`` of 1 MB of multilingual text (the corpus, repeated to 1 MB), each in a new
   Python process (median of ``--runs``); tiktoken (``encode_ordinary``, the same ranks and
   pattern) and tokie (``count_tokens``, a tokenizer.json of the same vocabulary) likewise.
   tokie spreads work over threads; its CPU time counts them all.
3. *Every member's count* with cl100k's ranks on the same 1 MB, against cl100k's own
   (median of ``--repeat`` counts, each on a new ``Encoding`` with the core's piece cache
   emptied: the first call; the members take turns, one count each per round).

    python benchmarks/bench_presplit.py --markdown benchmarks/results_presplit.md
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import corpus, head_bytes, package_version
from _native_common import write_results

MB = 1_000_000

# Letters of each script for the random text (code point ranges of letters).
SCRIPTS = {
    "Latin": [(0x61, 0x7A), (0x41, 0x5A), (0xE0, 0xFF)],
    "Greek": [(0x3B1, 0x3C9), (0x391, 0x3A9)],
    "Cyrillic": [(0x430, 0x44F), (0x410, 0x42F)],
    "Arabic": [(0x627, 0x64A)],
    "Hebrew": [(0x5D0, 0x5EA)],
    "Devanagari": [(0x915, 0x939), (0x93E, 0x94C)],
    "Thai": [(0xE01, 0xE2E), (0xE31, 0xE3A)],
    "Han": [(0x4E00, 0x9FA5)],
    "Kana": [(0x3041, 0x3096), (0x30A1, 0x30FA)],
    "Hangul": [(0xAC00, 0xD7A3)],
    "emoji": [(0x1F600, 0x1F64F), (0x1F300, 0x1F5FF)],
}


def random_text(script: str, nbytes: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    ranges = SCRIPTS[script]
    letters = [chr(c) for lo, hi in ranges for c in range(lo, hi + 1)]
    out, size = [], 0
    while size < nbytes:
        word = "".join(rng.choice(letters) for _ in range(rng.randint(1, 9)))
        sep = rng.choice([" ", " ", " ", ", ", ". ", "\n", " 12 ", "'s ", " — ", "  "])
        out.append(word + sep)
        size += len((word + sep).encode())
    return head_bytes("".join(out), nbytes)


def cpu(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def scanner_table(repeat: int, size: int) -> list[str]:
    from bpe_stream._native._core import presplit_count

    from bpe_stream.bpe.native import presplit
    from bpe_stream.pretokenize.family import MEMBERS, native_spec
    from bpe_stream.pretokenize.splitter import PreSplitter

    texts = {"multilingual corpus": head_bytes(corpus("multilingual_sentences.txt"), size),
             "ASCII (Python source)": head_bytes(corpus("code_python_black.py.txt"), size)}
    texts.update({f"random {s}": random_text(s, size // 4) for s in SCRIPTS})
    rows = []
    ratios: dict[str, list[float]] = {}
    for tname, text in texts.items():
        for name, member in MEMBERS.items():
            t = member.normalize(text)
            nb = len(t.encode())
            regex_split = PreSplitter(member)
            regex_split.native = None
            spec = native_spec(member)
            assert presplit(t, spec) == regex_split.findall(t), (tname, name)
            slow = cpu(lambda t=t, r=regex_split: r.findall(t), repeat)
            assert presplit_count(t, spec) == len(regex_split.findall(t))
            fast = cpu(lambda t=t, spec=spec: presplit(t, spec), repeat)
            scan = cpu(lambda t=t, spec=spec: presplit_count(t, spec), repeat)
            ratios.setdefault(tname, []).append(slow / fast)
            rows.append(f"| {tname} | {name} | {nb / MB / slow:.1f} | {nb / MB / fast:.1f} | {slow / fast:.1f} | "
                        f"{nb / MB / scan:.0f} |")
    lines = ["## Scanner alone vs the regex split", "",
             (f"Median of {repeat} calls; MB/s of UTF-8 input; ratio = regex time ÷ scanner time, both making "
              "the pieces as `str` (`PreSplitter.findall` / `presplit`); *scan only*: the scanner without making "
              "them (`presplit_count`, what `count` runs). "
              f"Text sizes: {size:,} bytes (corpus, ASCII), {size // 4:,} bytes (each script)."), "",
             "| text | member | regex split MB/s | compiled scanner MB/s | ratio | scan only MB/s |",
             "|---|---|---|---|---|---|", *rows, "",
             "Lowest / median ratio per text: " + "; ".join(
                 f"{t} {min(r):.1f} / {statistics.median(r):.1f}" for t, r in ratios.items()), ""]
    return lines


CHILD = r"""
import json, os, sys, time
name, impl, path = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path, encoding="utf-8").read()
sys.path.insert(0, {bench!r})
if impl == "bpe-stream":
    import bpe_stream
    enc = bpe_stream.get_encoding(name)
    enc.count("x")  # the compiled table is built on the first call: not the text's count
    t = time.process_time(); n = enc.count(text); dt = time.process_time() - t
elif impl == "bpe-stream (regex split)":
    os.environ["BPE_STREAM_REGEX_SPLIT"] = "1"
    import bpe_stream
    enc = bpe_stream.get_encoding(name)
    enc.count("x")
    t = time.process_time(); n = enc.count(text); dt = time.process_time() - t
elif impl == "tiktoken":
    from _native_common import tiktoken_encoding
    enc = tiktoken_encoding(name)
    enc.encode_ordinary("x")
    t = time.process_time(); n = len(enc.encode_ordinary(text)); dt = time.process_time() - t
else:
    from _native_common import tokie_tokenizer
    tok = tokie_tokenizer(name)
    tok.count_tokens("x")
    t = time.process_time(); n = tok.count_tokens(text); dt = time.process_time() - t
print(json.dumps([n, dt]))
"""

IMPLS = ["bpe-stream", "bpe-stream (regex split)", "tiktoken", "tokie"]


def first_count_table(runs: int, text_path: str, nbytes: int) -> tuple[list[str], dict]:
    code = CHILD.replace("{bench!r}", repr(str(Path(__file__).resolve().parent)))
    results: dict = {}
    lines = ["## First count in a fresh process, 1 MB multilingual", "",
             (f"CPU seconds of the one `count` call (tiktoken: `encode_ordinary`), median of {runs} fresh "
              "processes; MB/s = 1 MB ÷ that; ratio = peer's time ÷ bpe-stream's."), "",
             "| encoding | implementation | tokens | CPU s | MB/s | bpe-stream's speed ÷ this |", "|---|---|---|---|---|---|"]
    for name in ["cl100k_base", "o200k_base"]:
        per = {}
        for impl in IMPLS:
            times, counts = [], set()
            for _ in range(runs):
                out = subprocess.run([sys.executable, "-c", code, name, impl, text_path], capture_output=True,
                                     text=True, check=True, env={**os.environ, "RAYON_NUM_THREADS": "2"})
                n, dt = json.loads(out.stdout.strip().splitlines()[-1])
                times.append(dt)
                counts.add(n)
            per[impl] = (counts, statistics.median(times))
        ours = per["bpe-stream"][1]
        for impl, (counts, dt) in per.items():
            lines.append(f"| {name} | {impl} | {', '.join(map(str, sorted(counts)))} | {dt:.3f} | "
                         f"{nbytes / MB / dt:.1f} | {dt / ours:.2f} |")
        results[name] = per
    return lines + [""], results


def members_table(repeat: int, text: str) -> tuple[list[str], dict]:
    import bpe_stream
    from bpe_stream.pretokenize.family import MEMBERS

    base = bpe_stream.get_encoding("cl100k_base")
    nb = len(text.encode())

    def one(member):
        enc = bpe_stream.Encoding("x", pretokenizer=member, bpe=base.bpe, special_tokens={})
        core = getattr(base.bpe, "_core", None)
        if core is not None and hasattr(core, "clear_piece_cache"):
            core.clear_piece_cache()  # the core keeps its piece cache across calls and encodings
        t = time.process_time()
        enc.count(text)
        return time.process_time() - t

    samples: dict[str, list[float]] = {name: [] for name in MEMBERS}
    for member in MEMBERS.values():
        one(member)
    # round robin: each round counts with every member, so a change of the machine's load
    # falls on all of them alike
    for _ in range(repeat):
        for name, member in MEMBERS.items():
            samples[name].append(one(member))
    times = {name: statistics.median(ts) for name, ts in samples.items()}
    ref = times["cl100k_base"]
    lines = ["## Every member's count, cl100k's ranks, the same 1 MB multilingual text", "",
             (f"First `count` on a new `Encoding`, the core's piece cache emptied (median of {repeat}, the members "
              "taking turns); ratio = the member's time ÷ cl100k_base's "
              "(the target: at most 1.15). qwen2 and qwen3.5 include their NFC normalization."), "",
             "| member | CPU s | MB/s | time ÷ cl100k_base's |", "|---|---|---|---|"]
    for name, dt in times.items():
        lines.append(f"| {name} | {dt:.3f} | {nb / MB / dt:.1f} | {dt / ref:.2f} |")
    return lines + [""], times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--size", type=int, default=MB, help="bytes of corpus text for the scanner table")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    import tempfile

    text = corpus("multilingual_sentences.txt")
    text = head_bytes(text * (MB // len(text.encode()) + 1), MB)
    path = Path(tempfile.mkdtemp()) / "multilingual_1mb.txt"
    path.write_text(text, encoding="utf-8")
    load = os.getloadavg()
    lines = [(f"CPU time (`time.process_time`). bpe-stream {package_version('bpe-stream')}, tiktoken "
              f"{package_version('tiktoken')}, tokie {package_version('tokie')}, regex {package_version('regex')}. "
              f"Load average at the start {load[0]:.2f}/{load[1]:.2f}/{load[2]:.2f} (a shared machine: expect "
              "about ±10 % between runs). MB = 10^6 bytes."), ""]
    lines += scanner_table(args.repeat, args.size)
    first, _ = first_count_table(args.runs, str(path), len(text.encode()))
    lines += first
    members, _ = members_table(args.repeat, text)
    lines += members
    write_results(args.markdown, "The compiled pre-split scanner", " ".join(["python", *sys.argv]), lines)


if __name__ == "__main__":
    main()
