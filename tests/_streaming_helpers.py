"""Shared strategies and brute-force helpers for the streaming tests (adversarial alphabets)."""

from hypothesis import strategies as st

ATOMS = [" ", "  ", "\n", "\r", "\r\n", "\t", "a", "b", "S", "l", "'", "'ll", "'s", "1", "23", "456",
         "!", "/", "é", "É", "中", "文", "😀", "👍🏽", "ʰ", "\u0301", "x" * 12, " " * 12, "\n" * 6,
         "A" * 9, " the", " word", "Hello", "\u3000"]
text_st = st.lists(st.sampled_from(ATOMS), max_size=25).map("".join)

# Long runs: exercise long pieces (raw records, interval indexes over pieces, periodic runs).
LONG_ATOMS = ATOMS + ["x" * 80, " " * 70, "\n" * 66, " \n" * 40, "\n " * 35, "1" * 70, "12" * 40,
                      "中" * 70, "!" * 70, "!?" * 40, "aB" * 40, "A" * 70, "é" * 70, "'" * 66]
long_text_st = st.lists(st.sampled_from(LONG_ATOMS), max_size=8).map("".join)

# One character per class of bpe_stream.split_fastpath (cl100k and o200k), contraction
# letters, and characters the fast path must hand to the regex (apostrophe, mark, surrogate-free
# non-ASCII letters and whitespace).
CLASS_ALPHABET = "aB1 \n\r\t!/'s\u0301中ʰ\u3000"
LETTER_ALPHABET = "aB中ʰ\u0301 !'"  # o200k's letter sets, marks and prefixes
SMALL_ALPHABET = "aB1 \n\t!'s"


def all_strings(alphabet: str, max_len: int):
    """Every string over ``alphabet`` of length 1..max_len, depth first (parents before children)."""
    stack = [""]
    while stack:
        s = stack.pop()
        if len(s) < max_len:
            for ch in alphabet:
                yield s + ch
                if len(s) + 1 < max_len:
                    stack.append(s + ch)
