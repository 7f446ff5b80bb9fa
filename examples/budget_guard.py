"""Guard a hard token budget before calling an API: exact, no safety margin.

Run: python examples/budget_guard.py
"""

import bpe_stream

enc = bpe_stream.encoding_for_model("gpt-4o")
budget = 50

history = [
    "user: What is byte-pair encoding?",
    "assistant: A way to split text into tokens by repeatedly merging frequent pairs.",
    "user: And why do counts of a prefix not grow monotonically?",
    "assistant: Adding a character can change earlier merges, so a longer text can "
    "sometimes need fewer tokens than a shorter one.",
]
transcript = "\n".join(history)

# Keep the most recent part of the conversation that fits the budget exactly.
kept = enc.truncate_start(transcript, budget)
print(f"{enc.count(transcript)} tokens in full, kept {enc.count(kept)} <= {budget}:")
print(kept)

# Or refuse early: count_till_limit stops as soon as the budget is proven exceeded.
print("fits:", enc.count_till_limit(transcript, budget) is not None)
