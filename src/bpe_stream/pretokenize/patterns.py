"""tiktoken's pre-split patterns, and compiling a pattern for the ``regex`` module.

tiktoken runs its patterns with Rust's ``fancy-regex``; the ``regex`` module
supports the same syntax (``\\p{..}`` classes, possessive quantifiers) and the
same Unicode ``White_Space`` definition of ``\\s``.  Two differences matter: in
Python ``$`` also matches before a final newline, while in Rust it matches only at
the very end, so an unescaped ``$`` outside a character class is rewritten to
``\\Z``; and the ``regex`` module's Unicode tables are those of its release, so
classes are compiled through :mod:`bpe_stream.pretokenize.unicode`, which corrects
them to the reference engines' tables.
"""

from __future__ import annotations

import functools

import regex

from .unicode import compile_regex

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

# The characters of the patterns' ``\s`` (Unicode White_Space).  ``str.isspace()`` and
# ``str.strip()`` also take U+001C..U+001F (the information separators), which ``\s`` does
# not: to the patterns ``"\x1c"`` is punctuation.  Code that reasons about which pieces
# are whitespace uses these instead.
SPACE_CHARS = ("\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
               + "\u2028\u2029\u202f\u205f\u3000")
SPACE_SET = frozenset(SPACE_CHARS)


def is_space(s: str) -> bool:
    """``s.isspace()`` as the patterns see it: ``s`` is non-empty and all ``\\s``.

    >>> is_space(" \\n"), is_space("\\x1c\\n")
    (True, False)
    """
    return s.isspace() and not s.strip(SPACE_CHARS)


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
def compile_pattern(pat_str: str, *, lazy: bool = False) -> "regex.Pattern[str]":
    """Compile a tiktoken pattern string for the ``regex`` module.  With ``lazy`` (for
    the bundled patterns, known to compile) the pattern is compiled on first use."""
    if not isinstance(pat_str, str):
        raise TypeError(f"pattern must be a str, got {type(pat_str).__name__}")
    if lazy and pat_str in PATTERNS.values():
        return compile_regex(_rust_dollar_to_python(pat_str))
    try:
        return compile_regex(_rust_dollar_to_python(pat_str)).compiled()
    except regex.error as e:
        raise ValueError(f"invalid pre-split pattern {pat_str!r}: {e}") from e
