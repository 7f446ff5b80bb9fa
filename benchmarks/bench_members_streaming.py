"""Streaming on every family member: does a pre-tokenizer other than the bundled two cost
more when text grows or is chunked?

Each member runs over the same ranks (cl100k_base's), so only the pre-tokenizer differs.
For each: the CPU time of appending a text one character at a time to an
`AppendableEncoder` (µs per character), of `Chunker(enc, 256)` over it (s per MB), and of
one `count` of it; the ratio is the member's time ÷ cl100k_base's (the target: at most 1.5).
Every final count is checked against `enc.count` of the whole text.

    python benchmarks/bench_members_streaming.py --markdown benchmarks/results_members_streaming.md
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpe_stream  # noqa: E402
from _common import clear_piece_caches, corpus, head_bytes  # noqa: E402
from bpe_stream.pretokenize.family import MEMBERS  # noqa: E402

TEXTS = [("English", "tinyshakespeare.txt"), ("multilingual", "multilingual_sentences.txt")]


def cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def member_encoding(name: str, ranks) -> bpe_stream.Encoding:
    if name == "cl100k_base":
        return bpe_stream.get_encoding("cl100k_base")
    return bpe_stream.Encoding(f"cl100k-{name}", pretokenizer=MEMBERS[name], mergeable_ranks=ranks)


def measure(enc, text: str) -> dict:
    # every run starts from empty piece and split caches (cl100k_base's encoding is shared)
    clear_piece_caches(enc)
    getattr(enc, "_bpe_stream_split_cache", {}).clear()
    counter = bpe_stream.AppendableEncoder(enc)

    def append_all():
        for ch in text:
            counter.append(ch)

    append_s = cpu(append_all)
    expected = enc.count(text)
    assert counter.token_count == expected, (enc.name, counter.token_count, expected)
    chunker = bpe_stream.Chunker(enc, 256)
    chunks = []
    chunk_s = cpu(lambda: chunks.extend(chunker.chunks(text)))
    if enc.pretokenizer is None or enc.pretokenizer.normalizer is None:  # NFC members chunk the normalized text
        assert "".join(c.text for c in chunks) == text
    assert all(c.token_count <= 256 for c in chunks)
    clear_piece_caches(enc)
    count_s = cpu(lambda: enc.count(text))
    return {"append": append_s, "chunk": chunk_s, "count": count_s, "tokens": expected}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=200_000, help="UTF-8 bytes of each text")
    parser.add_argument("--markdown", metavar="PATH")
    parser.add_argument("--repeat", type=int, default=1, help="runs per cell; the median of each time is shown")
    args = parser.parse_args(argv)
    ranks = bpe_stream.get_encoding("cl100k_base")._mergeable_ranks
    command = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(__file__, ROOT),
                                                             *(argv if argv is not None else sys.argv[1:])])
    lines = ["# Streaming on every family member (bench_members_streaming.py)", "",
             f"Command (from the repository root): `{command}`", "",
             f"CPU time (`time.process_time`), the median of {args.repeat} run(s) per cell (each from empty piece caches), {args.size:,}-byte texts, cl100k_base's ranks "
             f"under each member's pre-tokenizer; load average at the start {os.getloadavg()[0]:.2f} "
             "(a shared 2-core machine). *append*: µs per character appended one at a time to an "
             "`AppendableEncoder`; *chunk*: s per MB for `Chunker(enc, 256).chunks`; *count*: a first "
             "`count`, s per MB. Ratios: the member's time ÷ cl100k_base's on the same text (target ≤ 1.5).",
             "", "| text | member | tokens | append µs/char | ratio | chunk s/MB | ratio | count s/MB | ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    worst = 0.0
    for label, name in TEXTS:
        text = head_bytes(corpus(name), args.size)
        mb = len(text.encode("utf-8")) / 1e6
        base = None
        for member in ["cl100k_base", *(m for m in MEMBERS if m != "cl100k_base")]:
            enc = member_encoding(member, ranks)
            enc.count("warm up")
            runs = [measure(enc, text) for _ in range(args.repeat)]
            r = {key: statistics.median(run[key] for run in runs) for key in ("append", "chunk", "count")}
            r["tokens"] = runs[0]["tokens"]
            if base is None:
                base = r
            ra, rc, rn = r["append"] / base["append"], r["chunk"] / base["chunk"], r["count"] / base["count"]
            worst = max(worst, ra, rc)
            lines.append(f"| {label} | {member} | {r['tokens']:,} | {1e6 * r['append'] / len(text):.2f} | {ra:.2f} | "
                         f"{r['chunk'] / mb:.3f} | {rc:.2f} | {r['count'] / mb:.4f} | {rn:.2f} |")
            print(lines[-1], flush=True)
    lines += ["", f"Worst append / chunk ratio against cl100k_base: {worst:.2f} "
              f"({'met' if worst <= 1.5 else 'missed'}: target ≤ 1.5).", ""]
    if args.markdown:
        Path(args.markdown).write_text("\n".join(lines), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
