"""Chunkers on the same texts: speed, fill and budget violations re-counted with tiktoken.

Run from the project root (peers are optional; missing ones are skipped):

    pip install chonkie semchunk semantic-text-splitter langchain-text-splitters
    python benchmarks/bench_chunkers.py --size-mb 1 > benchmarks/results_chunkers.md

Texts: the first ``--size-mb`` MB of ``tinyshakespeare.txt`` (English) and of
``multilingual_sentences.txt`` (25 languages incl. CJK) from ``../shared/corpora``.
Budgets 128 and 512 tokens, cl100k_base.  Each chunker runs ``--repeat`` times
(default 3) on each text; "s/MB" is the minimum wall time over the repeats
(robust on a shared machine), "1st s/MB" the first run's.  Every run builds a
fresh chunker object, so per-instance memo caches (semchunk's) start empty each
time.  bpe-stream's piece cache (per Encoding, process-wide) is emptied before
the first run of each of its rows, so "1st s/MB" is a cold start (every distinct
piece encoded anew, by the compiled merge loop where it is built), and warm in the
later runs, as in any long-running process.  The load average is
printed before and after.  For every chunker the chunks are re-counted
with tiktoken: "max" is the largest chunk, "viol" the number of chunks over the
budget, "fffd" the chunks holding U+FFFD that the input did not have; "fill" is
the mean of token_count / budget over all chunks but the last.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
TEXTS = {"english": "tinyshakespeare.txt", "multilingual": "multilingual_sentences.txt"}


def load_text(name: str, size_mb: float) -> str:
    data = (CORPORA / TEXTS[name]).read_bytes()[: int(size_mb * 1_000_000)]
    return data.decode("utf-8", "ignore")


def offline_tiktoken():
    """tiktoken's cl100k_base built from bpe-stream's bundled file (no network).

    ``tiktoken.get_encoding`` is patched to return it, so peers that ask tiktoken
    by name (langchain) work offline too.
    """
    import tiktoken

    from bpe_stream.bpe.ranks import parse_tiktoken
    from bpe_stream.pretokenize.patterns import PATTERNS
    from bpe_stream.encoding.registry import _BUNDLED, bundled_tiktoken_bytes

    global _TK
    if _TK is None:
        _TK = tiktoken.Encoding(
            "cl100k_base",
            pat_str=PATTERNS["cl100k_base"],
            mergeable_ranks=parse_tiktoken(bundled_tiktoken_bytes("cl100k_base")),
            special_tokens=_BUNDLED["cl100k_base"]["special_tokens"],
        )
        tiktoken.get_encoding = lambda name: _TK
    return _TK


_TK = None


def chunkers(budget: int):
    """(name, exact?, make, cold) for every available chunker.

    ``make()`` builds a fresh chunker and returns its function text -> list[str]
    (so per-instance memo caches, e.g. semchunk's, start empty on every run);
    ``cold()`` empties process-wide caches (bpe-stream's piece cache) or is None.
    """
    import bpe_stream
    from bpe_stream.chunk.chunker import Chunker

    enc = bpe_stream.get_encoding("cl100k_base")
    tk = offline_tiktoken()
    out = []

    def bpe_stream_cold():
        from _common import clear_piece_caches

        clear_piece_caches(enc)

    for mode in ("exact", "semantic"):
        def make(mode=mode):
            ch = Chunker(enc, budget, boundaries=mode)
            return lambda t: [c.text for c in ch.chunks(t)]

        out.append((f"bpe-stream {mode}", True, make, bpe_stream_cold))
    try:
        from chonkie import RecursiveChunker, TokenChunker

        def make_tc():
            tc = TokenChunker(tokenizer=tk, chunk_size=budget, chunk_overlap=0)
            return lambda t: [c.text for c in tc.chunk(t)]

        def make_rc():
            rc = RecursiveChunker(tokenizer=tk, chunk_size=budget)
            return lambda t: [c.text for c in rc.chunk(t)]

        out.append(("chonkie TokenChunker", False, make_tc, None))
        out.append(("chonkie RecursiveChunker", True, make_rc, None))
    except Exception as e:  # noqa: BLE001
        print(f"<!-- chonkie unavailable: {e} -->")
    try:
        import semchunk

        out.append(("semchunk", True, lambda: semchunk.chunkerify(tk, budget), None))
    except Exception as e:  # noqa: BLE001
        print(f"<!-- semchunk unavailable: {e} -->")
    try:
        from semantic_text_splitter import MarkdownSplitter, TextSplitter

        ts = TextSplitter.from_tiktoken_model("gpt-4", budget)
        ms = MarkdownSplitter.from_tiktoken_model("gpt-4", budget)
        out.append(("semantic-text-splitter", True, lambda: ts.chunks, None))
        out.append(("semantic-text-splitter Markdown", True, lambda: ms.chunks, None))
    except Exception as e:  # noqa: BLE001
        print(f"<!-- semantic-text-splitter unavailable: {e} -->")
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter, TokenTextSplitter

        def make_lt():
            lt = TokenTextSplitter(encoding_name="cl100k_base", chunk_size=budget, chunk_overlap=0)
            return lt.split_text

        def make_lr():
            lr = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
                encoding_name="cl100k_base", chunk_size=budget, chunk_overlap=0
            )
            return lr.split_text

        out.append(("langchain TokenTextSplitter", False, make_lt, None))
        out.append(("langchain RecursiveCharacter (tiktoken)", False, make_lr, None))
    except Exception as e:  # noqa: BLE001
        print(f"<!-- langchain-text-splitters unavailable: {e} -->")
    return out, tk


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=float, default=1.0)
    ap.add_argument("--budgets", default="128,512")
    ap.add_argument("--texts", default="english,multilingual")
    ap.add_argument("--only", default="", help="comma-separated name prefixes to run")
    ap.add_argument("--repeat", type=int, default=3, help="runs per cell; s/MB is the minimum")
    args = ap.parse_args(argv)
    print(f"# Chunkers: {args.size_mb} MB per text, cl100k_base, min of {args.repeat} runs\n")
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs, command: "
          f"`python benchmarks/bench_chunkers.py {' '.join(sys.argv[1:])}`\n")
    print("Load average (1, 5, 15 min) at start: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()) + "\n")
    print("| text | budget | chunker | s/MB | 1st s/MB | chunks | mean fill | max tokens | violations | new U+FFFD |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for text_name in args.texts.split(","):
        text = load_text(text_name, args.size_mb)
        mb = len(text.encode("utf-8")) / 1e6
        had_fffd = "\ufffd" in text
        for budget in map(int, args.budgets.split(",")):
            runners, tk = chunkers(budget)
            for name, _exact, make, cold in runners:
                if args.only and not any(name.startswith(p) for p in args.only.split(",")):
                    continue
                times = []
                try:
                    for r in range(max(1, args.repeat)):
                        run = make()
                        if r == 0 and cold is not None:
                            cold()
                        t0 = time.perf_counter()
                        pieces = run(text)
                        times.append(time.perf_counter() - t0)
                except Exception as e:  # noqa: BLE001
                    print(f"| {text_name} | {budget} | {name} | error: {type(e).__name__} | | | | | | |")
                    continue
                dt = min(times)
                counts = [len(tk.encode_ordinary(p)) for p in pieces] if tk else []
                body = counts[:-1] or counts
                fill = sum(body) / len(body) / budget if body else 0.0
                viol = sum(c > budget for c in counts)
                fffd = 0 if had_fffd else sum("\ufffd" in p for p in pieces)
                print(f"| {text_name} | {budget} | {name} | {dt / mb:.3f} | {times[0] / mb:.3f} | {len(pieces)} | "
                      f"{fill:.3f} | {max(counts, default=0)} | {viol} | {fffd} |", flush=True)
    print("\nLoad average (1, 5, 15 min) at end: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
