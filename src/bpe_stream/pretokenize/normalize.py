"""Unicode normalization of a text in parts: where NFC (or NFKC) of a text is the
normalization of its pieces, concatenated.

Invariant: for a *boundary* ``p`` of ``text`` (``text[p]`` is a character that never
combines with what precedes it: combining class 0, not the second character of a canonical
composition, not a Hangul vowel or final jamo, and its decomposition does not start with
one of those), ``normalize(text) == normalize(text[:p]) + normalize(text[p:])``, and this
holds for every text that starts with ``text[:p + 1]``.  Streaming counters of a
pre-tokenizer that normalizes (Qwen's NFC) keep the normalized text of everything before
the last boundary and re-normalize only what follows it; cuts and chunk boundaries fall on
boundaries (grapheme clusters, which normalization may join, are never split).

The set of characters that combine with what precedes them is computed once per process
from :mod:`unicodedata` (about 0.3 s, on first use); the test
``tests/test_family.py::test_normalization_boundaries`` checks the invariant on every
character against every other.  Cost: a boundary test is a set lookup.
"""

from __future__ import annotations

import functools
import sys
import unicodedata

__all__ = ["combines_backward", "is_boundary", "last_boundary", "first_boundary", "normalize"]


def normalize(form: str, text: str) -> str:
    """``unicodedata.normalize(form, text)``, skipping texts that are normalized already."""
    if text.isascii() or unicodedata.is_normalized(form, text):
        return text
    return unicodedata.normalize(form, text)


@functools.lru_cache(maxsize=None)
def combines_backward(form: str = "NFC") -> frozenset[str]:
    """Characters that may join (or reorder with) the character before them under ``form``."""
    compat = form in ("NFKC", "NFKD")
    second: set[str] = set()
    nonstarter: set[str] = set()
    decomposes: dict[str, str] = {}
    for cp in range(sys.maxunicode + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        if unicodedata.combining(c):
            nonstarter.add(c)
        d = unicodedata.decomposition(c)
        if not d:
            continue
        is_compat = d.startswith("<")
        if is_compat and not compat:
            continue
        parts = d.split(">")[-1].split() if is_compat else d.split()
        chars = "".join(chr(int(x, 16)) for x in parts)
        if not is_compat and len(chars) == 2:
            second.add(chars[1])
        decomposes[c] = chars
    out = nonstarter | second
    # Hangul: a vowel jamo joins a leading consonant, a final jamo joins an LV syllable
    out |= {chr(cp) for cp in range(0x1161, 0x1176)} | {chr(cp) for cp in range(0x11A8, 0x11C3)}
    # a character whose (full) decomposition starts with a character that combines backward
    for c in decomposes:
        first = unicodedata.normalize("NFKD" if compat else "NFD", c)[:1]
        if first in out or unicodedata.combining(first):
            out.add(c)
    return frozenset(out)


def is_boundary(text: str, p: int, form: str = "NFC") -> bool:
    """Whether ``0 <= p < len(text)`` is a boundary (see the module doc); 0 always is."""
    return p == 0 or text[p] not in combines_backward(form)


def last_boundary(text: str, lo: int, hi: int, form: str = "NFC") -> int:
    """The largest boundary ``p`` with ``lo <= p < hi``, or ``lo`` if none (``lo`` is taken
    as a boundary).  O(hi - p)."""
    joins = combines_backward(form)
    p = hi - 1
    while p > lo and text[p] in joins:
        p -= 1
    return max(p, lo)


def first_boundary(text: str, lo: int, hi: int, form: str = "NFC") -> int:
    """The smallest boundary ``p`` with ``lo < p < hi``, or ``hi`` if none.  O(p - lo)."""
    joins = combines_backward(form)
    p = lo + 1
    while p < hi and text[p] in joins:
        p += 1
    return min(p, hi)
