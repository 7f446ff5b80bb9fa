"""What text the encoders see, and offsets back into what the caller passed.

tiktoken encodes a ``str`` after joining surrogate pairs into the characters they
stand for and replacing lone surrogates (not Unicode scalar values, so not UTF-8
encodable) with U+FFFD; :func:`fix_surrogates` does the same.  Offsets the cuts, the
interval counter and the chunker take and return are indices into the caller's
string: :func:`caller_offsets` maps back.  :func:`check_text` is the type check every
text entry point shares (bytes get a message that points to the raw interface).
"""

from __future__ import annotations

import regex

_SURROGATE = regex.compile(r"[\ud800-\udfff]")


def fix_surrogates(text: str) -> str:
    """Join surrogate pairs and replace lone surrogates with U+FFFD, as tiktoken does."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def caller_offsets(text: str, fixed: str) -> list[int] | None:
    """For ``fixed = fix_surrogates(text)``: ``offs[k]`` is the index in ``text`` where
    ``fixed[k]`` starts (``offs[len(fixed)] == len(text)``), or None if they are the same
    string.  A surrogate pair is one character of ``fixed`` and two of ``text``; a lone
    surrogate is one U+FFFD.  Offsets that APIs return or take refer to the caller's
    ``text``; an offset between the two halves of a pair is inside a character."""
    if fixed is text:
        return None
    offs = []
    i = 0
    n = len(text)
    while i < n:
        offs.append(i)
        i += 2 if "\ud800" <= text[i] <= "\udbff" and i + 1 < n and "\udc00" <= text[i + 1] <= "\udfff" else 1
    offs.append(n)
    return offs


def check_text(text) -> str:
    if isinstance(text, str):
        return fix_surrogates(text)
    if isinstance(text, (bytes, bytearray, memoryview)):
        raise TypeError(
            "expected str, got bytes: decode it first, or use enc.bpe for raw bytes"
        )
    raise TypeError(f"expected str, got {type(text).__name__}")
