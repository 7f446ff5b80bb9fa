"""Train a small vocabulary on your own text, save it, load it, count and chunk with it.

Run: python examples/train_and_count.py
"""

import os
import tempfile

import bpe_stream

text = ("def add(a, b):\n    return a + b\n\n" * 50) + ("The quick brown fox jumps over the lazy dog. " * 50)
enc = bpe_stream.train(text, 400, pattern="cl100k_base", name="tiny-code")
print(enc, "with", enc.n_vocab, "tokens;", enc.count(text), "tokens for the training text")

path = os.path.join(tempfile.mkdtemp(), "tiny-code.tiktoken")
enc.save(path)
again = bpe_stream.load(path)
assert again.encode(text) == enc.encode(text)

for chunk in bpe_stream.Chunker(again, max_tokens=40).chunks(text[:600]):
    print(chunk.start, chunk.end, chunk.token_count, repr(chunk.text[:30]))
