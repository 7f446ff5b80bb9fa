"""Chunk a Markdown file for retrieval: exact token budgets, semantic cuts, streamed.

    python examples/chunk_markdown.py [FILE.md] [MAX_TOKENS]
"""

import sys
from pathlib import Path

import bpe_stream
from bpe_stream.chunk.chunker import Chunker

path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "corpora" / "markdown_docs.md"
max_tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 256

enc = bpe_stream.get_encoding("cl100k_base")
chunker = Chunker(enc, max_tokens, overlap=max_tokens // 8)  # semantic boundaries by default


def blocks(p, size=1 << 16):
    with open(p, encoding="utf-8") as f:
        while block := f.read(size):
            yield block


n = 0
for chunk in chunker.chunk_stream(blocks(path)):  # each chunk is yielded as soon as it is final
    assert chunk.token_count <= max_tokens
    n += 1
    if n <= 3:
        first_line = chunk.text.strip().splitlines()[0] if chunk.text.strip() else ""
        print(f"[{chunk.start}:{chunk.end}] {chunk.token_count} tokens, starts {first_line[:60]!r}")
print(f"{n} chunks of at most {max_tokens} tokens")
