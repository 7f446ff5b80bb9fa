#!/usr/bin/env python
"""IntervalCounter: cost of ``count(i, j)`` per query, by range length, and memory.

An ``IntervalCounter`` over 200 KB of text (Encoding: pre-split text; and raw bytes
with a BytePairEncoding), then random queries of each range length; microseconds per
query (CPU time of the calling thread, queries timed in batches of 2,000, the best
batch of 5: the machine is shared, and other processes' cache traffic inflates CPU
time too), ``memory_bytes()`` per input byte, and the build time.  Compiled core
and pure Python side by side; answers checked against ``count`` of the slice.  The
reference row, measured in the same run: tiktoken counting the slice
(``len(encode_ordinary(text[i:j]))``), what a caller without an index does.

    python benchmarks/bench_interval.py --markdown benchmarks/results_interval.md
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import corpus  # noqa: E402
from _native_common import tiktoken_encoding, write_results  # noqa: E402

LENGTHS = [1, 10, 100, 1_000, 10_000, 100_000]


class SliceCount:
    """The reference: slice the text and count the slice with tiktoken."""

    def __init__(self, tt, text):
        self.tt, self.text = tt, text

    def count(self, i, j):
        return len(self.tt.encode_ordinary(self.text[i:j]))


def per_query(counter, n, length, rng, batches=5, size=2000):
    times = []
    for _ in range(batches):
        qs = [(i, i + length) for i in (rng.randrange(n - length + 1) for _ in range(size))]
        t = time.thread_time()
        for i, j in qs:
            counter.count(i, j)
        times.append((time.thread_time() - t) / size)
    return min(times) * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=200_000)
    ap.add_argument("--markdown")
    args = ap.parse_args()
    from bpe_stream import Encoding, IntervalCounter, get_encoding

    rows = ["| vocabulary | input | implementation | build (s) | memory bytes / input byte | " + " | ".join(
        f"µs/query len {n:,}" for n in LENGTHS) + " |", "|---|---|---|---|---|" + "---|" * len(LENGTHS)]
    for name in ("cl100k_base", "o200k_base"):
        enc = get_encoding(name)
        pure = Encoding(name, pat_str=enc.pat_str, bpe=enc.bpe._python_twin())
        for label, fname in (("English", "tinyshakespeare.txt"), ("multilingual", "multilingual_sentences.txt")):
            text = corpus(fname)[: args.size]
            data = text.encode()[: args.size]
            tt = tiktoken_encoding(name)
            if tt is not None:
                ref = SliceCount(tt, text)
                us = [per_query(ref, len(text), n, random.Random(n), batches=3, size=max(20, 2000 // max(1, n // 100)))
                      for n in LENGTHS if n <= len(text)]
                rows.append(f"| {name} | {label} text | tiktoken, slice and count | – | – | "
                            + " | ".join(f"{u:.2f}" for u in us) + " |")
                print(rows[-1], flush=True)
            for impl, e in (("compiled", enc), ("pure Python", pure)):
                for kind, obj, src in (("text", e, text), ("raw bytes", e.bpe, data)):
                    t = time.thread_time()
                    counter = IntervalCounter(obj, src)
                    build = time.thread_time() - t
                    rng = random.Random(1)
                    for _ in range(200):  # exactness spot check
                        i = rng.randrange(len(src))
                        j = rng.randrange(i, min(len(src), i + 3000) + 1)
                        assert counter.count(i, j) == obj.count(src[i:j])
                    us = [per_query(counter, len(src), n, random.Random(n)) for n in LENGTHS if n <= len(src)]
                    mem = counter.memory_bytes() / len(src.encode() if isinstance(src, str) else src)
                    rows.append(f"| {name} | {label} {kind} | {impl} | {build:.3f} | {mem:.2f} | "
                                + " | ".join(f"{u:.2f}" for u in us) + " |")
                    print(rows[-1], flush=True)
    lines = [f"{args.size:,} characters (raw: bytes) per row; CPU time of the calling thread.", "", *rows]
    write_results(args.markdown, "IntervalCounter queries", " ".join(["python", *sys.argv]), lines)


if __name__ == "__main__":
    main()
