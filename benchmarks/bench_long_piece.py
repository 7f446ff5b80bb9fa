#!/usr/bin/env python
"""One long piece: 1 MB that the pre-split pattern leaves whole, counted by every peer.

Inputs (each one piece under the pattern): random letters (cl100k), random CJK
(o200k: a letter run), one repeated letter, base64 without '+' and '/' (letters and
digits alternate, so under cl100k's digit rule it is many pieces: counted as a text).
bpe-stream ``Encoding.count`` (compiled core: backtracking in C; and pure Python on a
100 KB slice, scaled) against tiktoken ``encode_ordinary`` (len), rs-bpe ``count``,
tokie ``count_tokens``.  Clock: CPU time of the calling thread (``time.thread_time``),
best of ``--repeat`` runs, peers measured in the same run.

    python benchmarks/bench_long_piece.py --markdown benchmarks/results_long_piece.md
"""

from __future__ import annotations

import argparse
import base64
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _native_common import rs_bpe_encoding, tiktoken_encoding, tokie_tokenizer, write_results  # noqa: E402


def best_time(fn, repeat):
    best = float("inf")
    result = None
    for _ in range(repeat):
        t = time.thread_time()
        result = fn()
        best = min(best, time.thread_time() - t)
    return best, result


def inputs(size: int):
    rng = random.Random(1)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    yield "cl100k_base", "random letters", "".join(rng.choice(letters) for _ in range(size))
    yield "o200k_base", "random letters", "".join(rng.choice(letters) for _ in range(size))
    yield "cl100k_base", "random CJK", "".join(chr(rng.randrange(0x4E00, 0x9FFF)) for _ in range(size // 3))
    yield "o200k_base", "random CJK", "".join(chr(rng.randrange(0x4E00, 0x9FFF)) for _ in range(size // 3))
    yield "cl100k_base", "one repeated letter", "a" * size
    yield "o200k_base", "one repeated letter", "a" * size
    b64 = base64.b64encode(rng.randbytes(size * 3 // 4)).decode()
    yield "cl100k_base", "base64", b64
    yield "o200k_base", "base64", b64


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--markdown")
    args = ap.parse_args()
    from bpe_stream import Encoding, get_encoding

    rows = ["| vocabulary | input | bpe-stream MB/s | tiktoken | rs-bpe | tokie | vs tiktoken | vs rs-bpe | pure Python MB/s (100 KB) | C / pure Python |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    peers = {}
    for name, label, text in inputs(args.size):
        enc = get_encoding(name)
        if name not in peers:
            peers[name] = (tiktoken_encoding(name), rs_bpe_encoding(name), tokie_tokenizer(name),
                           Encoding(name, pat_str=enc.pat_str, bpe=enc.bpe._python_twin()))
        tk, rs, tok, pure = peers[name]
        nbytes = len(text.encode())
        t_ours, c_ours = best_time(lambda: enc.count(text), args.repeat)
        t_tk, toks = best_time(lambda: tk.encode_ordinary(text), args.repeat)
        t_rs, c_rs = best_time(lambda: rs.count(text), args.repeat)
        try:
            t_tok, c_tok = best_time(lambda: tok.count_tokens(text), args.repeat)
        except BaseException as e:  # tokie 0.1.4 panics on some 1 MB pieces
            if isinstance(e, KeyboardInterrupt):
                raise
            t_tok, c_tok = float("nan"), None
        assert c_ours == len(toks), (name, label, c_ours, len(toks))
        small = text[: len(text) // 10]
        t_pure, c_pure = best_time(lambda: pure.count(small), 1)
        assert c_pure == len(tk.encode_ordinary(small))
        note = "" if c_rs == c_ours else f" (rs-bpe count {c_rs})"
        if c_tok is None:
            note += " (tokie panicked)"
        elif c_tok != c_ours:
            note += f" (tokie count {c_tok})"
        mb = lambda t, n=nbytes: n / t / 1e6  # noqa: E731
        pure_mb = len(small.encode()) / t_pure / 1e6
        rows.append(
            f"| {name} | {label}{note} | {mb(t_ours):.1f} | {mb(t_tk):.1f} | {mb(t_rs):.1f} | {mb(t_tok):.1f} "
            f"| {t_tk / t_ours:.2f}x | {t_rs / t_ours:.2f}x | {pure_mb:.2f} | {mb(t_ours) / pure_mb:.0f}x |"
        )
        print(rows[-1], flush=True)
    lines = [
        f"One piece of {args.size:,} bytes per row (CJK: {args.size // 3:,} characters), counted; "
        f"CPU time of the calling thread, best of {args.repeat}. "
        "'vs tiktoken' / 'vs rs-bpe' = their time / ours (above 1: bpe-stream faster). "
        "Counts checked equal to tiktoken's.",
        "",
        *rows,
    ]
    write_results(args.markdown, "One long piece (compiled core)", " ".join(["python", *sys.argv]), lines)


if __name__ == "__main__":
    main()
