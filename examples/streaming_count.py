"""Count tokens exactly while text streams in (an LLM response, a user typing).

Run: python examples/streaming_count.py
"""

import bpe_stream

enc = bpe_stream.get_encoding("o200k_base")
counter = bpe_stream.AppendableEncoder(enc)

deltas = ["Hel", "lo", ", wor", "ld! ", "Numbers like 1234", "567 split in threes; ", "emoji 👍🏽 too.\n"]
for delta in deltas:
    counter.append(delta)
    print(f"{len(counter):3d} chars  {counter.token_count:3d} tokens  (after {delta!r})")

text = "".join(deltas)
assert counter.token_count == enc.count(text)

counter.truncate(len(counter) - 1)  # backspace
assert counter.token_count == enc.count(text[:-1])
print("after backspace:", counter.token_count, "tokens")
