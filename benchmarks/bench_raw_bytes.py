#!/usr/bin/env python
"""Raw BPE over bytes (no pre-split): ``BytePairEncoding.count`` / ``encode`` (the
backtracking encoder) and ``encode(method="table")`` (the prefix-table pass), compiled
and pure Python, against rs-bpe's raw backtracking encoder (``bpe().count`` /
``encode_via_backtracking``) on the same bytes, measured in the same run.  Clock: CPU
time of the calling thread, best of ``--repeat``; pure Python runs on a 100 KB slice.

    python benchmarks/bench_raw_bytes.py --markdown benchmarks/results_raw_bytes.md
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import corpus  # noqa: E402
from _native_common import rs_bpe_encoding, write_results  # noqa: E402

CORPORA = {
    "English (tinyshakespeare)": "tinyshakespeare.txt",
    "Python source (black)": "code_python_black.py.txt",
    "multilingual sentences": "multilingual_sentences.txt",
}


def best_time(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.thread_time()
        result = fn()
        best = min(best, time.thread_time() - t)
    return best, result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--markdown")
    args = ap.parse_args()
    from bpe_stream import get_encoding

    rows = ["| vocabulary | text | count MB/s | encode MB/s | table MB/s | rs-bpe count | rs-bpe encode | count vs rs-bpe | pure Python count (100 KB) | C / Python |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for name in ("cl100k_base", "o200k_base"):
        bpe = get_encoding(name).bpe
        py = bpe._python_twin()
        rs = rs_bpe_encoding(name).bpe()
        for label, fname in CORPORA.items():
            data = corpus(fname).encode()[:1_000_000]
            n = len(data)
            t_count, c = best_time(lambda: bpe.count(data), args.repeat)
            t_enc, toks = best_time(lambda: bpe.encode(data), args.repeat)
            t_table, toks_t = best_time(lambda: bpe.encode(data, method="table"), max(1, args.repeat // 2))
            t_rs, c_rs = best_time(lambda: rs.count(data), args.repeat)
            t_rse, _ = best_time(lambda: rs.encode_via_backtracking(data), args.repeat)
            assert c == len(toks) == c_rs and toks == toks_t, (name, label)
            small = data[:100_000]
            t_py, c_py = best_time(lambda: py.count(small), 1)
            assert c_py == bpe.count(small)
            mb = lambda t, m=n: m / t / 1e6  # noqa: E731
            rows.append(
                f"| {name} | {label} | {mb(t_count):.1f} | {mb(t_enc):.1f} | {mb(t_table):.1f} | {mb(t_rs):.1f} "
                f"| {mb(t_rse):.1f} | {t_rs / t_count:.2f}x | {mb(t_py, len(small)):.2f} "
                f"| {mb(t_count) / mb(t_py, len(small)):.0f}x |"
            )
            print(rows[-1], flush=True)
    lines = [
        "1 MB of each text (the first 1,000,000 bytes), no pre-split; CPU time of the calling thread, "
        f"best of {args.repeat}. encode builds the Python list of ids (most of the gap to count). "
        "Counts checked equal to rs-bpe's and between the encoders.",
        "",
        *rows,
    ]
    write_results(args.markdown, "Raw BPE over bytes (compiled core)", " ".join(["python", *sys.argv]), lines)


if __name__ == "__main__":
    main()
