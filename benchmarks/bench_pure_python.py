#!/usr/bin/env python
"""How much slower a pure-Python install is: ``Encoding.count`` of 1 MB texts (a first
pass: fresh Encoding objects, empty piece caches) and raw ``BytePairEncoding.count``,
with the compiled core, and in a child process with ``BPE_STREAM_PURE_PYTHON=1`` (every
table, encoder and helper in pure Python: what an install without a C compiler gives),
and tiktoken beside them.  CPU time of the calling thread; the pure-Python raw count
runs on 100 KB.

    python benchmarks/bench_pure_python.py --markdown benchmarks/results_pure_python.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import corpus  # noqa: E402
from _native_common import tiktoken_encoding, write_results  # noqa: E402

CORPORA = {
    "English (tinyshakespeare)": "tinyshakespeare.txt",
    "Python source (black)": "code_python_black.py.txt",
    "multilingual sentences": "multilingual_sentences.txt",
}


PURE = """
import json, sys, time
sys.path.insert(0, {bench!r})
from _common import corpus
from bpe_stream import get_encoding
out = {{}}
for name in ("cl100k_base", "o200k_base"):
    enc = get_encoding(name)
    assert not enc.bpe.native
    for fname in {files!r}:
        text = corpus(fname).encode()[:1_000_000].decode("utf-8", "ignore")
        t = time.thread_time(); c = enc.count(text); tp = time.thread_time() - t
        small = text.encode()[:100_000]
        t = time.thread_time(); r = enc.bpe.count(small); rp = time.thread_time() - t
        out[name + "/" + fname] = (tp, c, rp, r)
print(json.dumps(out))
"""


def cpu(fn):
    t = time.thread_time()
    result = fn()
    return time.thread_time() - t, result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--markdown")
    args = ap.parse_args()
    from bpe_stream import Encoding, get_encoding

    code = PURE.format(bench=str(Path(__file__).resolve().parent), files=list(CORPORA.values()))
    env = dict(os.environ, BPE_STREAM_PURE_PYTHON="1")
    pure_runs = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                          check=True).stdout.strip().splitlines()[-1])
    rows = ["| vocabulary | text | compiled count MB/s | pure Python count MB/s | slower by | tiktoken MB/s | raw compiled MB/s | raw pure Python MB/s | slower by |",
            "|---|---|---|---|---|---|---|---|---|"]
    for name in ("cl100k_base", "o200k_base"):
        base = get_encoding(name)
        tk = tiktoken_encoding(name)
        for label, fname in CORPORA.items():
            text = corpus(fname).encode()[:1_000_000].decode("utf-8", "ignore")
            n = len(text.encode())
            compiled = Encoding(name, pat_str=base.pat_str, bpe=base.bpe)
            tc, c1 = cpu(lambda: compiled.count(text))
            tp, c2, rp, r2 = pure_runs[name + "/" + fname]
            tt, toks = cpu(lambda: tk.encode_ordinary(text))
            assert c1 == c2 == len(toks)
            data = text.encode()
            rc, r1 = cpu(lambda: base.bpe.count(data))
            small = data[:100_000]
            assert r2 == base.bpe.count(small)
            rows.append(f"| {name} | {label} | {n / tc / 1e6:.1f} | {n / tp / 1e6:.2f} | {tp / tc:.1f}x | {n / tt / 1e6:.1f} "
                        f"| {n / rc / 1e6:.1f} | {len(small) / rp / 1e6:.2f} | {(rp / len(small)) / (rc / n):.0f}x |")
            print(rows[-1], flush=True)
    lines = ["1 MB per text; a first pass (fresh Encoding, empty piece caches); CPU time of the calling thread, "
             "one run each; the pure-Python column in a child process with BPE_STREAM_PURE_PYTHON=1 (its bundled "
             "encoding loaded before timing). Counts checked equal to tiktoken's.", "", *rows]
    write_results(args.markdown, "Compiled core vs a pure-Python install", " ".join(["python", *sys.argv]), lines)


if __name__ == "__main__":
    main()
