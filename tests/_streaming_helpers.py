"""Shared strategies for the streaming tests (adversarial alphabets)."""

from hypothesis import strategies as st

ATOMS = [" ", "  ", "\n", "\r", "\r\n", "\t", "a", "b", "S", "l", "'", "'ll", "'s", "1", "23", "456",
         "!", "/", "é", "É", "中", "文", "😀", "👍🏽", "ʰ", "\u0301", "x" * 12, " " * 12, "\n" * 6,
         "A" * 9, " the", " word", "Hello", "\u3000"]
text_st = st.lists(st.sampled_from(ATOMS), max_size=25).map("".join)
