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

The set of characters that combine with what precedes them is computed from
:mod:`unicodedata` (about 0.2 s) once per Unicode version and form, and kept in the cache
directory (:mod:`bpe_stream.bpe.cache_dir`, a small JSON list); the test
``tests/test_family.py::test_normalization_boundaries`` checks the invariant on every
character against every other.  Cost: a boundary test is a set lookup.

:func:`normalize` uses the invariant to normalize only what can change: a character is
*unstable* if it combines backward or the form changes it on its own; text without one is
its own normalization (every character is a boundary and stays itself), and each run of
characters that combine backward, with the boundary character before it, and each other
unstable character, is normalized on its own.  Finding them is one bitmap test per
character (``first_in_bitmap``, in C when built).
"""

from __future__ import annotations

import functools
import json
import sys
import threading
import unicodedata

from ..bpe.cache_dir import cache_dir, write_atomically
from ..bpe.native import first_in_bitmap

__all__ = ["combines_backward", "unstable_characters", "is_boundary", "last_boundary", "first_boundary", "normalize"]

# More unstable runs than one per this many characters: normalize the rest in one call.
_DENSE = 16


def normalize(form: str, text: str) -> str:
    """``unicodedata.normalize(form, text)``; the text itself where it is normalized already,
    else only its unstable runs are normalized (see the module doc)."""
    if text.isascii():
        return text
    bits = _unstable_bitmap(form)
    n = len(text)
    i = first_in_bitmap(text, 0, n, bits)
    if i < 0:
        return text
    joins = combines_backward(form)
    out = []
    at = 0
    runs = 0
    while i >= 0:
        # [at, i) holds no unstable character; text[at] is a boundary (or at == 0)
        start = i - 1 if i > at and text[i] in joins else i
        end = i + 1
        while end < n and text[end] in joins:
            end += 1
        out.append(text[at:start])
        out.append(unicodedata.normalize(form, text[start:end]))
        at = end  # a boundary, or the end
        runs += 1
        if runs * _DENSE > end and at < n:
            out.append(unicodedata.normalize(form, text[at:]))
            return "".join(out)
        i = first_in_bitmap(text, at, n, bits) if at < n else -1
    out.append(text[at:])
    return "".join(out)


_store_lock = threading.Lock()


def _store_path(form: str):
    d = cache_dir()
    version = f"{unicodedata.unidata_version}-py{sys.version_info[0]}.{sys.version_info[1]}"
    return None if d is None else d / f"normalization-{form}-{version}-f1.json"


@functools.cache
def _classes(form: str) -> tuple[frozenset[str], frozenset[str]]:
    """(characters that combine backward, unstable characters) under ``form``: read from
    the cache directory, else computed and stored there."""
    path = _store_path(form)
    try:
        with open(path, "rb") as f:  # type: ignore[arg-type]
            raw = json.loads(f.read(1 << 22))
        if isinstance(raw, list) and len(raw) == 2 and all(
            isinstance(part, list) and all(type(x) is int and 0 <= x <= sys.maxunicode and not
                                           0xD800 <= x <= 0xDFFF for x in part) for part in raw
        ):
            joins, unstable = (frozenset(map(chr, part)) for part in raw)
            if joins <= unstable:
                return joins, unstable
    except (OSError, TypeError, ValueError):
        pass
    joins = _combines_backward(form)
    unstable = set(joins)
    for cp in range(0x80, sys.maxunicode + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        if unicodedata.decomposition(c) and unicodedata.normalize(form, c) != c:
            unstable.add(c)
    unstable = frozenset(unstable)
    if path is not None:
        with _store_lock:
            text = json.dumps([sorted(map(ord, joins)), sorted(map(ord, unstable))], separators=(",", ":"))
            write_atomically(path, [text.encode("ascii")])
    return joins, unstable


@functools.cache
def _unstable_bitmap(form: str) -> bytes:
    bits = bytearray(0x110000 // 8)
    for c in _classes(form)[1]:
        cp = ord(c)
        bits[cp >> 3] |= 1 << (cp & 7)
    return bytes(bits)


@functools.lru_cache(maxsize=None)
def combines_backward(form: str = "NFC") -> frozenset[str]:
    """Characters that may join (or reorder with) the character before them under ``form``."""
    return _classes(form)[0]


@functools.lru_cache(maxsize=None)
def unstable_characters(form: str = "NFC") -> frozenset[str]:
    """Characters that combine backward or that ``form`` changes on its own: a character
    outside this set normalizes to itself and splits the normalization at its position."""
    return _classes(form)[1]


def _combines_backward(form: str) -> frozenset[str]:
    """:func:`combines_backward`, computed from :mod:`unicodedata`."""
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
