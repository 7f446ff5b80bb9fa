"""Shared strategies and brute-force helpers for the streaming tests (adversarial alphabets)."""

from hypothesis import strategies as st

ATOMS = [" ", "  ", "\n", "\r", "\r\n", "\t", "a", "b", "S", "l", "'", "'ll", "'s", "1", "23", "456",
         "!", "/", "é", "É", "中", "文", "😀", "👍🏽", "ʰ", "\u0301", "x" * 12, " " * 12, "\n" * 6,
         "A" * 9, " the", " word", "Hello", "\u3000"]
text_st = st.lists(st.sampled_from(ATOMS), max_size=25).map("".join)

# Long runs: exercise long pieces (raw records, interval indexes over pieces, periodic runs).
LONG_ATOMS = ATOMS + ["x" * 80, " " * 70, "\n" * 66, " \n" * 40, "\n " * 35, "1" * 70, "12" * 40,
                      "中" * 70, "!" * 70, "!?" * 40, "aB" * 40, "A" * 70, "é" * 70, "'" * 66,
                      "!'/?'" * 20, "!!\n/'" * 15, "." * 40 + "\n//" + "'" * 30]
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


def cross_class_encoding(pattern_name: str):
    """An Encoding with a bundled pre-split pattern over a small vocabulary whose tokens
    cross the pattern's piece boundaries (lower/upper case, marks, newline + space, letter +
    space).  The bundled vocabularies never hold such tokens (they were learned inside
    pieces), so a shortcut that is exact for them only by that accident fails here."""
    from bpe_stream import Encoding
    from bpe_stream.pretokenize import PATTERNS

    tokens = [bytes([i]) for i in range(256)]
    for t in [b"aB", b"xx", b"xxxx", b"\xcc\x81", b"\xcc\x81x", b"Ba", b"a\xcc\x81", b"\n ", b"\n \n", b"x ",
              b" x", b"  ", b"    ", b"\n\n", b"1 ", b"11", b"111", b"!\n", b"!!", b"e\xcc\x81",
              b"\xca\xb0", b"\xca\xb0A", b"\xe4\xb8", b"\xe4\xb8\xad", b"B\xe4\xb8\xad", b"\xe4\xb8\xadA"]:
        tokens.append(t)
    return Encoding("cross-" + pattern_name, pat_str=PATTERNS[pattern_name],
                    mergeable_ranks={t: i for i, t in enumerate(tokens)})


#: The bundled encodings plus each bundled pattern over the cross-boundary vocabulary.
ENCODINGS_WITH_CROSS = ["cl100k_base", "o200k_base", "cross-cl100k_base", "cross-o200k_base"]


def encoding_by_name(name: str):
    """A bundled encoding, or ``cross-<pattern>``: that pattern over the vocabulary of
    :func:`cross_class_encoding` (every shortcut must follow from the pattern alone)."""
    import bpe_stream

    if name.startswith("cross-"):
        return cross_class_encoding(name[len("cross-") :])
    return bpe_stream.get_encoding(name)


def python_lines(action) -> int:
    """Python lines executed by ``action()``: a measure of Python work, not of time."""
    import sys

    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        action()
    finally:
        sys.settrace(old)
    return count
