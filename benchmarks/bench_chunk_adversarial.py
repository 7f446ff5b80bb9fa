"""Chunking adversarial inputs: long whitespace mixes, huge runs, one endless word.

Shows that chunking cost stays linear in the input on texts made to defeat the
chunker's shortcuts (no word or line boundaries, whitespace that is never a stable
piece boundary, runs that are one pre-split piece).  bpe-stream only: the peers'
cost on such inputs is not what the issue compares.  Prints a Markdown table:
seconds, microseconds per character at two sizes (a linear cost keeps the per-character
figure flat), number of chunks, and a check that every chunk's count equals
``enc.count`` of its text and that the chunks join back to the input.

    python benchmarks/bench_chunk_adversarial.py --out benchmarks/results_chunk_adversarial.md
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import bpe_stream  # noqa: E402
from bpe_stream import Chunker  # noqa: E402


def inputs(n: int) -> dict[str, str]:
    rng = random.Random(n)
    return {
        "random mix of space, tab, newline": "".join(rng.choice(" \t\n") for _ in range(n)),
        "'\\n \\n ' repeated": "\n \n " * (n // 4),
        "'!' + newlines + spaces": "!" + "\n" * (n // 2) + " " * (n // 2),
        "spaces": " " * n,
        "one random-letter word": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n)),
        "lines of 300 spaces": ("a" + " " * 300 + "\n") * (n // 302),
        "'!' repeated": "!" * n,
        "random ASCII punctuation": "".join(rng.choice("!?.,;:-()[]\"'/") for _ in range(n)),
        # non-ASCII stretches and mixed one-piece words (found quadratic in this session)
        "'!\\u0301/' repeated (punctuation with a mark)": ("!\u0301/" * n)[:n],
        "'\\u3000 ' repeated (ideographic space, space)": ("\u3000 " * n)[:n],
        "'/\\n' repeated": ("/\n" * n)[:n],
        "'A中' repeated": ("A中" * n)[:n],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000,400000", help="input sizes in characters")
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--out", help="also write the table to this Markdown file")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    lines = [
        "# Chunking adversarial inputs (bpe-stream, exact mode)",
        "",
        "Command (from the repository root): `python benchmarks/bench_chunk_adversarial.py "
        f"--out benchmarks/results_chunk_adversarial.md` (sizes {args.sizes} characters, "
        f"budget {args.max_tokens}; CPU time of one run, fresh `Chunker` each).",
        "",
        f"Load average at start: {os.getloadavg()}",
        "",
        "| encoding | input | " + " | ".join(f"{n:,} chars: s (µs/char)" for n in sizes) + " | chunks | exact and joined |",
        "|---|---|" + "---|" * len(sizes) + "---|---|",
    ]
    for name in ("cl100k_base", "o200k_base"):
        enc = bpe_stream.get_encoding(name)
        per_size = [inputs(n) for n in sizes]
        for label in per_size[0]:
            cells = []
            ok = True
            n_chunks = 0
            for texts in per_size:
                text = texts[label]
                t0 = time.thread_time()
                chunks = Chunker(enc, args.max_tokens, boundaries="exact").chunks(text)
                dt = time.thread_time() - t0
                cells.append(f"{dt:.2f} ({dt / len(text) * 1e6:.1f})")
                n_chunks = len(chunks)
                ok = ok and "".join(c.text for c in chunks) == text and all(
                    c.token_count == enc.count(c.text) <= args.max_tokens for c in chunks
                )
            row = f"| {name} | {label} | " + " | ".join(cells) + f" | {n_chunks} | {'yes' if ok else 'NO'} |"
            print(row, flush=True)
            lines.append(row)
    lines += ["", f"Load average at end: {os.getloadavg()}", ""]
    if args.out:
        Path(args.out).write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
