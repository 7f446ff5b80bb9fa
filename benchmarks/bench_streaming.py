"""Streaming benchmarks: appending, interval counts, exact cuts.

Run: python benchmarks/bench_streaming.py [--size 100000]
Prints a Markdown table.  tiktoken is the baseline (built from the bundled ranks).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

import tiktoken

import bpe_stream
from bpe_stream.appendable import AppendableEncoder
from bpe_stream.interval import IntervalCounter

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def oracle(enc):
    return tiktoken.Encoding(enc.name + "_bench", pat_str=enc.pat_str, mergeable_ranks=enc.bpe.ranks, special_tokens={})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=100_000)
    args = ap.parse_args()
    text = (CORPORA / "tinyshakespeare.txt").read_text()
    rows = []
    print(f"load average at start: {os.getloadavg()}")
    for name in ("cl100k_base", "o200k_base"):
        enc = bpe_stream.get_encoding(name)
        tt = oracle(enc)
        t = text[: args.size]
        data = t.encode()
        # raw BPE, one byte at a time
        ae = AppendableEncoder(enc.bpe)
        t0 = time.perf_counter()
        for i in range(len(data)):
            ae.append(data[i : i + 1])
        dt = time.perf_counter() - t0
        assert ae.token_count == enc.bpe.count(data)
        rows.append((name, f"append raw BPE, 1 byte at a time, {len(data)} B", f"{dt:.2f} s", f"{dt / len(data) * 1e6:.2f} us/byte"))
        # pre-split, one character at a time
        ae = AppendableEncoder(enc)
        t0 = time.perf_counter()
        for ch in t:
            ae.append(ch)
        dt = time.perf_counter() - t0
        assert ae.token_count == len(tt.encode_ordinary(t))
        rows.append((name, f"append with pre-split, 1 char at a time, {len(t)} chars", f"{dt:.2f} s", f"{dt / len(t) * 1e6:.2f} us/char"))
        # tiktoken recount after each append: measured on the first 5,000 chars, extrapolated (quadratic)
        m = 5000
        t0 = time.perf_counter()
        for k in range(1, m + 1):
            tt.encode_ordinary(t[:k])
        dtm = time.perf_counter() - t0
        est = dtm * (len(t) / m) ** 2
        rows.append((name, f"tiktoken re-count after each append: measured to {m} chars", f"{dtm:.2f} s", f"extrapolated to {len(t)} chars: ~{est:.0f} s (quadratic)"))
        # intervals
        t0 = time.perf_counter()
        ic = IntervalCounter(enc, t)
        build = time.perf_counter() - t0
        t0 = time.perf_counter()
        ib = IntervalCounter(enc.bpe, data)
        build_raw = time.perf_counter() - t0
        rows.append((name, "interval index build (pre-split / raw)", f"{build / len(data) * 1e6:.2f} / {build_raw / len(data) * 1e6:.2f} s per MB", f"raw arrays {ib.memory_bytes() / len(data):.0f} B per input byte"))
        rng = random.Random(1)
        for length in (10, 100, 1000, 10000):
            qs = [(i, i + length) for i in (rng.randrange(len(t) - length) for _ in range(2000))]
            t0 = time.perf_counter()
            for i, j in qs:
                ic.count(i, j)
            dq = (time.perf_counter() - t0) / len(qs) * 1e6
            qb = [(i, i + length) for i in (rng.randrange(len(data) - length) for _ in range(2000))]
            t0 = time.perf_counter()
            for i, j in qb:
                ib.count(i, j)
            dqb = (time.perf_counter() - t0) / len(qb) * 1e6
            t0 = time.perf_counter()
            for i, j in qs[:500]:
                tt.encode_ordinary(t[i:j])
            dtt = (time.perf_counter() - t0) / 500 * 1e6
            rows.append((name, f"interval query, range {length}", f"pre-split {dq:.1f} us, raw {dqb:.1f} us", f"tiktoken slice {dtt:.1f} us"))
        # cuts on 1 MB
        big = text[:1_000_000]
        for budget in (512, 8192):
            t0 = time.perf_counter()
            j = enc.split_at(big, budget)
            d1 = time.perf_counter() - t0
            t0 = time.perf_counter()
            s = enc.truncate_start(big, budget)
            d2 = time.perf_counter() - t0
            t0 = time.perf_counter()
            tt.encode_ordinary(big)
            d3 = time.perf_counter() - t0
            rows.append((name, f"split_at / truncate_start on 1 MB, budget {budget}", f"{d1 * 1e3:.1f} ms / {d2 * 1e3:.1f} ms", f"tiktoken whole text {d3 * 1e3:.0f} ms"))
    print("| encoding | measurement | result | comparison |")
    print("|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
