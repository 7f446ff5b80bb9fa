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
its own normalization (every character is a boundary and stays itself).  Most unstable
characters of real text change nothing where they stand: *plain marks* (Devanagari
viramas, Arabic vowel signs: nonzero combining class, no decomposition, second in no
composition) and *quiet seconds* (Bengali and Tamil vowel sign AA: second in a
composition, no decomposition, the form keeps them alone).  A quick check (Unicode's
NFC_QC / NFKC_QC, its reordering test reduced to "a character that combines backward
after a *tail* character: one that combines backward or whose decomposition ends in a
mark") finds the characters that may change the text: unstable ones other than those
two kinds; any character that combines backward right after a tail character; a quiet
second right after a *first* character (first in a composition, or precomposed).  Text
before the first of them is its own normalization: it splits at boundaries into a stable
character followed by at most one plain mark (after a non-tail character) or quiet
second (after a non-tail, non-first character), which neither reorders nor composes.
The run around each found character (back to the boundary before it, on through the
characters that combine backward after it) is normalized on its own.  Finding them is a
few bitmap tests per character (``normalization_runs``, in C when built); on the
multilingual corpus a tenth as many runs as unstable characters.
"""

from __future__ import annotations

import functools
import json
import sys
import threading
import unicodedata

from ..bpe.cache_dir import cache_dir, write_atomically
from ..bpe.native import normalization_runs

__all__ = ["combines_backward", "unstable_characters", "is_boundary", "last_boundary", "first_boundary", "normalize"]

# More unstable runs than one per this many characters: normalize the rest in one call.
_DENSE = 16


def normalize(form: str, text: str) -> str:
    """``unicodedata.normalize(form, text)``; the text itself where it is normalized already,
    else only the runs the quick check finds are normalized (see the module doc)."""
    if text.isascii():
        return text
    runs = normalization_runs(text, _check_table(form))
    if not runs:
        return text
    out = []
    at = 0
    for k in range(0, len(runs), 2):
        # [at, start) is its own normalization; text[start] is a boundary (or start == at)
        start, end = runs[k], runs[k + 1]
        out.append(text[at:start])
        out.append(unicodedata.normalize(form, text[start:end]))
        at = end  # a boundary, or the end
        if (k + 2) * _DENSE > 2 * end and at < len(text):
            out.append(unicodedata.normalize(form, text[at:]))
            return "".join(out)
    out.append(text[at:])
    return "".join(out)


_store_lock = threading.Lock()


def _store_path(form: str):
    d = cache_dir()
    version = f"{unicodedata.unidata_version}-py{sys.version_info[0]}.{sys.version_info[1]}"
    return None if d is None else d / f"normalization-{form}-{version}-f3.json"


@functools.cache
def _classes(form: str) -> tuple[frozenset[str], ...]:
    """(characters that combine backward, unstable characters, and the quick check's sets:
    unstable characters that are neither plain marks nor quiet seconds, tail characters,
    quiet seconds, first characters) under ``form`` (see the module doc): read from the
    cache directory, else computed and stored there."""
    path = _store_path(form)
    try:
        with open(path, "rb") as f:  # type: ignore[arg-type]
            raw = json.loads(f.read(1 << 22))
        if isinstance(raw, list) and len(raw) == 6 and all(
            isinstance(part, list) and all(type(x) is int and 0 <= x <= sys.maxunicode and not
                                           0xD800 <= x <= 0xDFFF for x in part) for part in raw
        ):
            joins, unstable, alone, tail, second, first = (frozenset(map(chr, part)) for part in raw)
            if joins <= unstable and alone <= unstable and unstable - alone <= joins and joins <= tail and \
                    second <= joins:
                return joins, unstable, alone, tail, second, first
    except (OSError, TypeError, ValueError):
        pass
    joins, seconds = _combines_backward(form)
    unstable = set(joins)
    decomposed = "NFKD" if form in ("NFKC", "NFKD") else "NFD"
    tail = set(joins)
    first = set()
    for cp in range(0x80, sys.maxunicode + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        d = unicodedata.decomposition(c)
        if d:
            first.add(c)  # a precomposed character may compose further
            if not d.startswith("<") and len(d.split()) == 2:
                first.add(chr(int(d.split()[0], 16)))
            if unicodedata.normalize(form, c) != c:
                unstable.add(c)
            if unicodedata.combining(unicodedata.normalize(decomposed, c)[-1]):
                tail.add(c)
    # plain marks and quiet seconds: no decomposition, the form keeps them alone; plain
    # marks have a nonzero combining class and are second in no composition
    keeps = {c for c in joins if not unicodedata.decomposition(c) and unicodedata.normalize(form, c) == c}
    plain = {c for c in keeps if unicodedata.combining(c) and c not in seconds}
    second = frozenset(c for c in keeps if c in seconds)
    unstable = frozenset(unstable)
    alone = unstable - plain - second
    tail = frozenset(tail)
    first = frozenset(first)
    if path is not None:
        with _store_lock:
            text = json.dumps([sorted(map(ord, part)) for part in (joins, unstable, alone, tail, second, first)],
                              separators=(",", ":"))
            write_atomically(path, [text.encode("ascii")])
    return joins, unstable, alone, tail, second, first


@functools.cache
def _check_table(form: str) -> bytes:
    """The quick check's flags of every code point, in ``normalization_runs``' two-stage
    table: a block number per 256 code points, then the distinct blocks of flags."""
    from ..bpe.native import NC_ALONE, NC_FIRST, NC_JOINS, NC_SECOND, NC_TAIL

    joins, _, alone, tail, second, first = _classes(form)
    flags = bytearray(0x110000)
    for chars, flag in ((alone, NC_ALONE), (joins, NC_JOINS), (tail, NC_TAIL), (second, NC_SECOND),
                        (first, NC_FIRST)):
        for c in chars:
            flags[ord(c)] |= flag
    blocks: dict[bytes, int] = {}
    index = bytearray()
    for b in range(0x1100):
        block = bytes(flags[256 * b:256 * (b + 1)])
        index.append(blocks.setdefault(block, len(blocks)))
    return bytes(index) + b"".join(blocks)


@functools.lru_cache(maxsize=None)
def combines_backward(form: str = "NFC") -> frozenset[str]:
    """Characters that may join (or reorder with) the character before them under ``form``."""
    return _classes(form)[0]


@functools.lru_cache(maxsize=None)
def unstable_characters(form: str = "NFC") -> frozenset[str]:
    """Characters that combine backward or that ``form`` changes on its own: a character
    outside this set normalizes to itself and splits the normalization at its position."""
    return _classes(form)[1]


def _combines_backward(form: str) -> tuple[frozenset[str], frozenset[str]]:
    """:func:`combines_backward`, computed from :mod:`unicodedata`, and the characters
    that are second in a canonical decomposition into two (those that may compose)."""
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
    return frozenset(out), frozenset(second)


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
