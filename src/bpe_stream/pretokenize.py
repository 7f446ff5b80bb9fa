"""Pre-splitting text into pieces with tiktoken's patterns.

tiktoken runs its patterns with Rust's ``fancy-regex``; the ``regex`` module
supports the same syntax (``\\p{..}`` classes, possessive quantifiers) and the
same Unicode ``White_Space`` definition of ``\\s``.  One difference matters: in
Python ``$`` also matches before a final newline, while in Rust it matches only
at the very end, so an unescaped ``$`` outside a character class is rewritten to
``\\Z``.
"""

from __future__ import annotations

import functools

import regex

__all__ = ["PATTERNS", "compile_pattern"]

CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

#: tiktoken's pre-split patterns by encoding name (cl100k's is the "GPT-4 pattern").
PATTERNS = {"cl100k_base": CL100K_PATTERN, "o200k_base": O200K_PATTERN}


def _rust_dollar_to_python(pattern: str) -> str:
    out = []
    in_class = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            # a ']' right after '[' or '[^' is literal
            if pattern[i + 1 : i + 2] == "^":
                out.append("[^")
                i += 2
                if pattern[i : i + 1] == "]":
                    out.append("]")
                    i += 1
                continue
            if pattern[i + 1 : i + 2] == "]":
                out.append("[]")
                i += 2
                continue
        elif c == "$":
            out.append(r"\Z")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=64)
def compile_pattern(pat_str: str) -> "regex.Pattern[str]":
    """Compile a tiktoken pattern string for the ``regex`` module."""
    if not isinstance(pat_str, str):
        raise TypeError(f"pattern must be a str, got {type(pat_str).__name__}")
    try:
        return regex.compile(_rust_dollar_to_python(pat_str))
    except regex.error as e:
        raise ValueError(f"invalid pre-split pattern {pat_str!r}: {e}") from e
