r"""Cut and overlap start inside periodic text that pre-splits into a short head and one long piece.

Invariant: for ``T[s:e]`` of period ``p <= 8`` (cl100k_base / o200k_base patterns, no
normalizer, no whole-piece tokens), ``periodic_overlap_start(enc, T, s, e, k)`` is the
smallest ``i`` in ``[s, e]`` with ``enc.count(T[i:e]) <= k`` and ``periodic_cut(enc, T,
s, B)`` (``T[s:]`` of period ``p``) the largest ``j`` in ``[s, len(T)]`` with
``enc.count(T[s:j]) <= B``, with that count -- or None, when the text is not of the
shape below (the caller then takes its general path; nothing here is a guess).  With
more text to come, ``periodic_cut`` answers only once the unit's reach
(:mod:`.periodic_reach`: no end past ``s + B * L`` fits while the periodic text runs
``B * L + M + 1`` characters past ``s``) is held, and says ``WAIT`` before.

Why it is exact.  Every string the two need is a prefix of some ``Y = v * infinity``,
``v`` a rotation of the unit: ``T[s:j]`` is a prefix of ``T[s:]``, and for ``i`` in one
class ``i = s + c (mod p)`` the suffixes ``T[i:e]`` are prefixes of ``T[s + c : e]``.
Write ``F(l) = enc.count(Y[:l])`` for ``l <= N`` (``Y[:N]`` the longest one needed).

1. *One piece.*  ``one_piece_unit`` names unit shapes whose every prefix is one pre-split
   piece (the argument per pattern is at ``_RULES``; tests/test_periodic_counts.py
   checks it by brute force).  If ``Y`` has such a shape, ``F(l)`` is the raw BPE count
   of ``Y[:l]``'s bytes.  Else split ``Y[:N]`` once: when its last piece ``[g, N)``
   (``g`` short) has such a shape and starts with a non-whitespace character, the
   stability rule of :mod:`bpe_stream.chunk.counts` (point 2: a boundary ``g <= l -
   margin`` with a non-whitespace character in ``Y[g:l]`` is a boundary of the split of
   ``Y[:l]`` with the same pieces before it) and the absence of look-behind give
   ``F(l) = H + raw(Y[g:l])`` for ``l >= g + margin``, ``H`` the count of the pieces
   before ``g``; shorter prefixes are counted directly.
2. *Raw counts.*  ``Y[g:]`` is the bytes of its unit repeated, so ``raw(Y[g:l])`` is a
   prefix count of :class:`~bpe_stream.bpe.intervals._PeriodicRun`: a verified period
   ``P`` (bytes) with ``d`` tokens per period after a transient ``n0``, so in each
   residue of the byte length mod ``P`` the count grows by ``d`` per period and the
   largest length that fits a budget is arithmetic (``largest_fit``).  A byte length is
   a candidate only at a character boundary of ``Y`` (its residue mod the unit's bytes)
   and, for an overlap class, at the lengths of that class.

Complexity: a split of the first few dozen characters per class (it rejects most text
of other shapes, e.g. many short pieces), O(e - s) character comparisons and, when the
head is not empty, one split of ``T[s + c : e]`` per class (compiled where the encoding
has it); then O(P) per class (one periodic run per rotation of the unit, cached by the
vocabulary), plus at most ``margin + g`` direct counts of short prefixes.
"""

from __future__ import annotations

import functools
from bisect import bisect_right

from ..bpe.intervals import _periodic_run
from ..pretokenize.patterns import CL100K_PATTERN, O200K_PATTERN
from ..pretokenize.stability import stable_margin
from ..pretokenize.unicode import reference_ranges
from ..text.piece_encoder import whole_longer_than
from ..text.periodic_tokens import MAX_PERIOD

__all__ = ["WAIT", "largest_fit", "one_piece_unit", "periodic_cut", "periodic_overlap_start"]

_HEAD_MAX = 16  # longest head (characters) before the long piece


_ASCII_SPACE = "\t\n\x0b\x0c\r "  # White_Space in ASCII (not \x1c-\x1f, which str.isspace takes)


def _in(name: str, cp: int) -> bool:
    ranges = reference_ranges(name)
    k = bisect_right(ranges, (cp, 0x110000)) - 1
    return k >= 0 and ranges[k][0] <= cp <= ranges[k][1]


@functools.lru_cache(maxsize=4096)
def _char_classes(ch: str) -> int:
    """Bits: 1 punctuation (``[^\\s\\p{L}\\p{N}]``), 2 non-mark punctuation, 4 letter,
    8 o200k word tail (``[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]``), 16 whitespace, 32 ``\\r``/``\\n``;
    from the reference engines' classes (``pretokenize/unicode.py``'s tables: no regular
    expression to compile)."""
    cp = ord(ch)
    if cp < 0x80:  # (the tables agree: tests/test_periodic_counts.py)
        if ch in _ASCII_SPACE:
            return 16 | (32 if ch in "\r\n" else 0)
        if ch.isalpha():
            return 4 | (8 if ch.islower() else 0)
        return 0 if ch.isdigit() else 1 | 2
    if _in("White_Space", cp):
        return 16 | (32 if ch in "\r\n" else 0)
    if _in("L", cp):
        return 4 | (8 if _in("Ll", cp) or _in("Lm", cp) or _in("Lo", cp) else 0)
    if _in("N", cp):
        return 0
    return 1 | (8 if _in("M", cp) else 2)


# Unit shapes whose every non-empty prefix of ``unit * infinity`` (unit: the periodic
# string's first period, as it starts) is one piece, per pattern.  ``all`` bits: every
# character of the unit has one of them; ``lead`` bits: the first two characters of the
# repetition have one of them (0: no condition).
#
# cl100k (``'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|...``):
# * punctuation only: the contractions and ``\p{L}++`` need a letter, digits a digit, and
#   `` ?[^\s\p{L}\p{N}]++`` (no space lead: none is whitespace) takes every character;
# * letters only: the possessive lead cannot take a letter, ``\p{L}++`` takes all;
# * whitespace only: every alternative before ``\s++$`` needs a non-whitespace character
#   (the lead of ``\p{L}++`` takes a blank, then finds no letter), and ``\s++$`` takes all.
# o200k (``[^\r\n\p{L}\p{N}]?[Lu Lt Lm Lo M]*[Ll Lm Lo M]+...|...|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+``):
# * punctuation (marks allowed) whose first two characters are not marks: the word
#   alternatives need a letter or mark right after a one-character lead (or at the start),
#   digits a digit, and the punctuation alternative takes every character (no space lead);
# * ``/`` then only ``/``, ``\r``, ``\n``: the same lead failure, then ``[^\s..]+`` takes the
#   ``/`` and ``[\r\n/]*`` the rest;
# * ``[Ll Lm Lo M]`` only: the first word alternative takes all (its ``*`` gives back to
#   its ``+``, the lead at most the first character);
# * blanks without ``\r``/``\n``: the alternatives before ``\s+(?!\S)`` need a letter, mark,
#   non-whitespace or a newline; it takes all, the end of the text after it;
# * ``\r``/``\n`` only: ``\s*[\r\n]+`` takes all (its ``*`` gives back one).
_RULES = {
    CL100K_PATTERN: ((1, 0), (4, 0), (16, 0)),
    O200K_PATTERN: ((1, 2), ("slash", 0), (8, 0), ("blank", 0), (32, 0)),
}


def one_piece_unit(pat_str: str, y: str, p: int) -> bool:
    """Whether every non-empty prefix of ``y[:p] * infinity`` is one piece of ``pat_str``
    (``y`` of period ``p``, at least two characters: the rules at ``_RULES``)."""
    rules = _RULES.get(pat_str)
    if rules is None or len(y) < 2:
        return False
    bits = [_char_classes(ch) for ch in y[:p]]
    lead = _char_classes(y[0]) & _char_classes(y[1])
    for every, first in rules:
        if every == "slash":
            if y[0] == "/" and all(ch in "\r\n/" for ch in y[:p]):
                return True
            continue
        if every == "blank":
            if all(b & 16 and not b & 32 for b in bits):
                return True
            continue
        if all(b & every for b in bits) and (not first or lead & first):
            return True
    return False


def largest_fit(prun, low: int, top: int, budget: int, unit: int = 1, residues=(0,)) -> int:
    """Largest byte length ``b`` in ``[low, top]`` with ``b % unit`` in ``residues`` and
    ``prun.count(b) <= budget``; -1 when none (module docstring, point 2)."""
    if top < low or budget < 0:
        return -1
    period = prun.period
    if not period:
        prun.count(top)  # no period proven: the table grows to the length asked for
    counts = prun.counts
    n0 = prun.n0 if period else top
    best = -1
    if period and top > n0:
        d = prun.d
        for r in range(period):
            if (n0 + r) % unit not in residues:
                continue
            base_count = counts[n0 + r]
            if base_count > budget:
                continue
            q = (budget - base_count) // d if d > 0 else (top - n0 - r) // period
            q = min(q, (top - n0 - r) // period)
            if q >= 0:
                best = max(best, n0 + r + q * period)
    if best < 0:  # the transient (and short runs): every length up to n0 there
        for length in range(min(top, n0), low - 1, -1):
            if length % unit in residues and counts[length] <= budget:
                best = length
                break
    return best if best >= low else -1


class _Shape:
    """``F(l) = count(y[:l])`` for the prefixes of one periodic string ``y = text[a:]``
    (module docstring)."""

    __slots__ = ("text", "a", "g", "head", "lmin", "run", "p", "ubytes", "pre")

    def __init__(self, text, a, g, head, lmin, run, p, ubytes, pre):
        self.text, self.a, self.g, self.head, self.lmin, self.run = text, a, g, head, lmin, run
        self.p, self.ubytes, self.pre = p, ubytes, pre

    def nbytes(self, m: int) -> int:
        """Bytes of the long piece's first ``m`` characters."""
        q, r = divmod(m, self.p)
        return q * self.ubytes + self.pre[r]

    def chars(self, b: int) -> int:
        """Characters of the long piece's first ``b`` bytes (``b`` at a character boundary)."""
        q, r = divmod(b, self.ubytes)
        return q * self.p + self.pre.index(r)


def _shape(enc, text: str, a: int, b: int, p: int):
    """The :class:`_Shape` of ``y = text[a:b]`` (taken to have period ``p``: the callers
    check it), or None."""
    pat = enc.pat_str
    g = 0
    head = 0
    lmin = 1
    # most periodic text that is not of this shape (many short pieces) shows it in its first
    # characters: rejected there, before the split of all of y
    probe = text[a : min(b, a + _HEAD_MAX + 4 * p + 8)]
    g = len(probe) - len(enc._split(probe)[-1])
    if g > _HEAD_MAX or len(probe) - g < 2 or not one_piece_unit(pat, probe[g : g + p + 2], p):
        return None
    if g and one_piece_unit(pat, text[a : a + p + 2], p):
        return None  # (not seen: every prefix of such a y is one piece)
    if g:
        pieces = enc._split(text[a:b])
        g = b - a - len(pieces[-1])
        if len(pieces) < 2 or g > _HEAD_MAX or b - a - g < 2 or _char_classes(text[a + g]) & 16:
            return None
        if not one_piece_unit(pat, text[a + g : a + g + p + 2], p):
            return None
        head = sum(enc._piece_count_list(pieces[:-1]))
        lmin = g + stable_margin(enc.pretokenizer)
    unit = text[a + g : a + g + p]
    data = unit.encode("utf-8")
    pre = [0]
    for ch in unit:
        pre.append(pre[-1] + len(ch.encode("utf-8")))
    pre.pop()
    return _Shape(text, a, g, head, lmin, _periodic_run(enc.bpe, data), p, len(data), pre)


def _head_period(text: str, s: int, e: int) -> int:
    """The smallest ``p <= MAX_PERIOD`` with which ``text[s:e]`` (at least ``2 *
    MAX_PERIOD`` characters) starts periodic for ``2 * MAX_PERIOD`` characters, else 0."""
    if e - s < 2 * MAX_PERIOD:
        return 0
    head = text[s : s + MAX_PERIOD]
    for p in range(1, MAX_PERIOD + 1):
        if text[s + p : s + p + MAX_PERIOD] == head:
            return p
    return 0


def _periodic(text: str, s: int, e: int, p: int) -> bool:
    """Whether all of ``text[s:e]`` has period ``p``: blocks of growing length compared, so
    that text periodic only near ``s`` (code's indentation) costs little."""
    a, step = s, 64
    while a < e - p:
        b = min(e - p, a + step)
        if text[a + p : b + p] != text[a:b]:
            return False
        a, step = b, 2 * step
    return True


def _applies(enc) -> bool:
    return (getattr(enc, "pat_str", None) in _RULES and getattr(enc, "_normalize", None) is None
            and getattr(enc, "bpe", None) is not None and not whole_longer_than(enc, 0))


def _largest(enc, shape: _Shape, l_hi: int, budget: int, step: int):
    """Largest ``l <= l_hi`` with ``l = l_hi (mod step)`` (``step`` 1: any) and
    ``F(l) <= budget``, with ``F(l)``; None when no ``l >= 1`` fits."""
    g, p = shape.g, shape.p
    if l_hi >= shape.lmin:
        m_hi = l_hi - g
        m_lo = shape.lmin - g
        if step == 1:
            residues = set(shape.pre)
        else:  # one class: m = m_hi (mod p)
            residues = {shape.pre[m_hi % p]}
        b = largest_fit(shape.run, shape.nbytes(m_lo), shape.nbytes(m_hi), budget - shape.head, shape.ubytes,
                        residues)
        if b >= 0:
            return g + shape.chars(b), shape.head + shape.run.count(b)
        l_hi = shape.lmin - 1 - ((shape.lmin - 1 - l_hi) % step)  # the largest one below lmin in the class
    text, a = shape.text, shape.a
    for length in range(l_hi, 0, -step):
        c = enc.count(text[a : a + length])
        if c <= budget:
            return length, c
    return None


WAIT = object()  # periodic_cut: the held text cannot decide the cut yet


def periodic_cut(enc, text: str, s: int, budget: int, reach=None):
    """``(j, count(text[s:j]))`` for the largest ``j`` with ``count(text[s:j]) <= budget``,
    when ``text[s:]`` is periodic of the shape above; else None.  ``reach`` None: the end
    of the text is the end of the input.  Else more text may follow: ``reach(unit)`` is the
    unit's horizon (:mod:`.periodic_reach`), past which no end fits while the periodic
    text reaches it, so with that much held the cut is the held text's, and with less
    the answer is ``WAIT``."""
    n = len(text)
    if not _applies(enc):
        return None
    p = _head_period(text, s, n)
    if not p:
        return None
    shape = _shape(enc, text, s, n, p)
    if shape is None or not _periodic(text, s, n, p):
        return None
    if reach is not None and n - s < reach(text[s : s + p]):
        return WAIT
    best = _largest(enc, shape, n - s, budget, 1)
    if best is None:
        return None
    return s + best[0], best[1]


def periodic_overlap_start(enc, text: str, s: int, e: int, k: int) -> int | None:
    """Smallest ``i`` in ``[s, e]`` with ``count(text[i:e]) <= k`` when ``text[s:e]`` is
    periodic of the shape above; else None."""
    if not _applies(enc):
        return None
    p = _head_period(text, s, e)
    if not p:
        return None
    shapes = []
    for c in range(p):
        shape = _shape(enc, text, s + c, e, p)
        if shape is None:
            return None
        shapes.append(shape)
    if not _periodic(text, s, e, p):
        return None
    best = 0  # the longest suffix that fits (0: the empty one)
    for c, shape in enumerate(shapes):
        got = _largest(enc, shape, e - s - c, k, p)
        if got is not None and got[0] > best:
            best = got[0]
    return e - best
