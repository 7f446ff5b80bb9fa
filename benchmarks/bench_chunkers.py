"""Chunkers on the same texts: speed, fill and budget violations re-counted with tiktoken.

Run from the project root (peers are optional; missing ones are skipped):

    pip install chonkie semchunk semantic-text-splitter langchain-text-splitters
    python benchmarks/bench_chunkers.py --size-mb 1 > benchmarks/results_chunkers.md

Texts: the first ``--size-mb`` MB of ``tinyshakespeare.txt`` (English) and of
``multilingual_sentences.txt`` (25 languages incl. CJK) from ``../shared/corpora``.
Budgets 128 and 512 tokens, cl100k_base.  One run each (no warm-up besides
loading the encodings), wall time.  For every chunker the chunks are re-counted
with tiktoken: "max" is the largest chunk, "viol" the number of chunks over the
budget, "fffd" the chunks holding U+FFFD that the input did not have; "fill" is
the mean of token_count / budget over all chunks but the last.
"""

from __future__ import annotations

import argparse
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

    from bpe_stream.loading import parse_tiktoken
    from bpe_stream.pretokenize import PATTERNS
    from bpe_stream.registry import _BUNDLED, bundled_tiktoken_bytes

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
    """(name, exact?, function text -> list[str]) for every available chunker."""
    import bpe_stream
    from bpe_stream.chunker import Chunker

    enc = bpe_stream.get_encoding("cl100k_base")
    tk = offline_tiktoken()
    out = []
    for mode in ("exact", "semantic"):
        ch = Chunker(enc, budget, boundaries=mode)
        out.append((f"bpe-stream {mode}", True, lambda t, ch=ch: [c.text for c in ch.chunks(t)]))
    tk = offline_tiktoken()
    try:
        from chonkie import RecursiveChunker, TokenChunker

        tc = TokenChunker(tokenizer=tk, chunk_size=budget, chunk_overlap=0)
        out.append(("chonkie TokenChunker", False, lambda t: [c.text for c in tc.chunk(t)]))
        rc = RecursiveChunker(tokenizer=tk, chunk_size=budget)
        out.append(("chonkie RecursiveChunker", True, lambda t: [c.text for c in rc.chunk(t)]))
    except Exception as e:  # noqa: BLE001
        print(f"<!-- chonkie unavailable: {e} -->")
    try:
        import semchunk

        sc = semchunk.chunkerify(tk, budget)
        out.append(("semchunk", True, lambda t: sc(t)))
    except Exception as e:  # noqa: BLE001
        print(f"<!-- semchunk unavailable: {e} -->")
    try:
        from semantic_text_splitter import MarkdownSplitter, TextSplitter

        ts = TextSplitter.from_tiktoken_model("gpt-4", budget)
        out.append(("semantic-text-splitter", True, lambda t: ts.chunks(t)))
        ms = MarkdownSplitter.from_tiktoken_model("gpt-4", budget)
        out.append(("semantic-text-splitter Markdown", True, lambda t: ms.chunks(t)))
    except Exception as e:  # noqa: BLE001
        print(f"<!-- semantic-text-splitter unavailable: {e} -->")
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter, TokenTextSplitter

        lt = TokenTextSplitter(encoding_name="cl100k_base", chunk_size=budget, chunk_overlap=0)
        out.append(("langchain TokenTextSplitter", False, lambda t: lt.split_text(t)))
        lr = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", chunk_size=budget, chunk_overlap=0
        )
        out.append(("langchain RecursiveCharacter (tiktoken)", False, lambda t: lr.split_text(t)))
    except Exception as e:  # noqa: BLE001
        print(f"<!-- langchain-text-splitters unavailable: {e} -->")
    return out, tk


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=float, default=1.0)
    ap.add_argument("--budgets", default="128,512")
    ap.add_argument("--texts", default="english,multilingual")
    ap.add_argument("--only", default="", help="comma-separated name prefixes to run")
    args = ap.parse_args(argv)
    print(f"# Chunkers: {args.size_mb} MB per text, cl100k_base, one run each\n")
    print(f"Python {platform.python_version()} on {platform.machine()}, command: "
          f"`python benchmarks/bench_chunkers.py {' '.join(sys.argv[1:])}`\n")
    print("| text | budget | chunker | s/MB | chunks | mean fill | max tokens | violations | new U+FFFD |")
    print("|---|---|---|---|---|---|---|---|---|")
    for text_name in args.texts.split(","):
        text = load_text(text_name, args.size_mb)
        mb = len(text.encode("utf-8")) / 1e6
        had_fffd = "\ufffd" in text
        for budget in map(int, args.budgets.split(",")):
            runners, tk = chunkers(budget)
            for name, _exact, run in runners:
                if args.only and not any(name.startswith(p) for p in args.only.split(",")):
                    continue
                t0 = time.perf_counter()
                try:
                    pieces = run(text)
                except Exception as e:  # noqa: BLE001
                    print(f"| {text_name} | {budget} | {name} | error: {type(e).__name__} | | | | | |")
                    continue
                dt = time.perf_counter() - t0
                counts = [len(tk.encode_ordinary(p)) for p in pieces] if tk else []
                body = counts[:-1] or counts
                fill = sum(body) / len(body) / budget if body else 0.0
                viol = sum(c > budget for c in counts)
                fffd = 0 if had_fffd else sum("\ufffd" in p for p in pieces)
                print(f"| {text_name} | {budget} | {name} | {dt / mb:.2f} | {len(pieces)} | "
                      f"{fill:.3f} | {max(counts, default=0)} | {viol} | {fffd} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
