"""The semantic step's candidates, level by level, last first, without re-scanning the chunk.

Invariant: for a built-in level ``L`` of :mod:`bpe_stream.chunk.boundaries`, a str
``text`` and ``lo <= stop < hi <= len(text)``, ``descending(L, text, lo, hi, stop)``
yields exactly ``reversed(L.positions(text, lo, hi, stop))``: the cut positions that
``L``'s pattern finds in the slice ``text[lo:hi]`` (as if it were the whole string),
those in ``(lo, stop]``, last first.  Any other level, bytes text or ``stop >= hi`` is
handed to ``L.positions`` itself.  The chunker's step (``Chunker._plan``) walks these
positions from the last one and usually stops at the first or second, so the walk is
lazy where the positions are dense (lines, words).

Why each walk equals the slice's scan (the slice reads nothing before ``lo`` and
nothing from ``hi`` on; every position used is at most ``stop < hi``):

* ``line`` (``\\n``): the ends ``i + 1`` of the newlines ``lo <= i < stop``, found by
  ``str.rfind`` from the top: a one-character match with no context.
* ``word`` (``\\S(?=\\s)``): ``i + 1`` for ``lo <= i < stop`` with ``text[i]`` no
  whitespace and ``text[i + 1]`` whitespace (``i + 1 <= stop < hi``, inside the slice).
  One-character matches without look-behind, so the matches of ``text[x:top + 1]``
  (``pos``/``endpos``, which cut the look-ahead as the slice does) are the slice's
  positions in ``(x, top]``; the walk reads blocks of growing length downwards.
* ``sentence``: its only context before a match is the look-behind
  ``(?<![.!?\\u2026])`` at the match's first character.  With ``pos = lo`` the regex
  engine reads ``text[lo - 1]`` there, which the slice does not have; when that
  character is none of ``.!?\\u2026`` the look-behind passes either way, and every
  other attempt reads the same characters, so ``finditer(text, lo, hi)`` gives the
  slice's matches.  Otherwise (a chunk starting right after ``.``) the level scans its
  slice as before.  Matches are non-empty, so their ends rise and the scan stops at the
  first end past ``stop``.
* ``markdown``: every match holds one of its ``required`` literals, which the level
  itself looks for in ``text[lo:hi]`` first; when none is there the answer is empty, as
  ``positions`` finds it, else ``positions`` runs.
* ``paragraph``: its finder scans ``text[lo:hi]`` (``pos``/``endpos``) for
  ``\\n(?:[^\\S\\n]*+\\n)++``.  The scan tries each newline at or after ``lo`` that no
  earlier match took; a match goes on over every following blank line (whitespace but
  newlines, then a newline before ``hi``).  So the matches are the maximal chains of at
  least two newlines ``n0 < ... < nk`` in ``[lo, hi)`` with only blank lines between
  them, and a match ends at ``nk + 1``.  The walk reads the newlines below ``stop``
  from the top: a newline whose next line (up to the next newline before ``hi``) is no
  blank line ends a chain, the chain's first newline is found by going back over blank
  lines (not below ``lo``), and the chain is a match when it has two newlines or more.
  The heading test is the finder's: the line before ``n0``, from the last newline in
  ``[lo, n0)`` or from ``lo``.  Each newline below ``stop`` is read once.

The overlap start searches the other way: ``ascending(L, text, lo, hi, start)`` yields
exactly the positions ``p`` of ``L.positions(text, lo, hi)`` with ``start <= p < hi``,
first first (``lo < start``), again for the built-in levels and str text, else from
``L.positions`` itself.  The search takes the first position that fits, so the walks stop
where it does instead of reading the whole overlap:

* ``line``: ``str.find`` of the newlines ``start - 1 <= i < hi - 1``, as above.
* ``word``: its matches have no context before them, so ``finditer(text, start - 1, hi)``
  (``start - 1 >= lo``) gives the slice's positions from ``start`` on, lazily.
* ``sentence``: ``finditer(text, lo, hi)`` lazily, under the look-behind condition above
  (from ``lo``: a later ``pos`` could split a run of ``.!?`` that a match takes whole).
* ``paragraph``: the finder's own scan (``finditer`` of the run pattern with
  ``pos``/``endpos``, which has no anchors or look-arounds, and the same heading test),
  lazily and from ``lo`` (a run starting before ``start`` may end after it).
* ``markdown``: as above (the ``required`` test, then ``positions``).

Complexity: one ``rfind`` per line position visited (paragraph: and a blank-line test
of the lines around it); words in blocks of 16, 32, ... characters below ``stop``;
sentence one regex scan of ``text[lo:stop]`` (plus up to the next match), as before but
without copying the slice.
"""

from __future__ import annotations

from collections.abc import Iterable

import regex

from .boundaries import LINE, MARKDOWN, PARAGRAPH, SENTENCE, WORD, BoundaryLevel
from .boundaries import _BLANK_RUN, _HEADING_START

# the characters of a blank line (whitespace but the newline), as the paragraph level's
# run pattern classes them
_BLANKS = regex.compile(r"[^\S\n]*+")

__all__ = ["ascending", "descending"]

_WORD_BLOCK = 16  # characters below the top that the word walk reads first
_SENTENCE_BEHIND = frozenset(".!?\u2026")  # the sentence level's look-behind class


def _line_desc(text: str, lo: int, hi: int, stop: int) -> Iterable[int]:
    i = text.rfind("\n", lo, stop)
    while i >= 0:
        yield i + 1
        i = text.rfind("\n", lo, i)


def _word_desc(text: str, lo: int, hi: int, stop: int) -> Iterable[int]:
    finditer = WORD._compiled.finditer  # type: ignore[attr-defined]
    top = stop
    width = _WORD_BLOCK
    while top > lo:
        x = max(lo, top - width)
        # matches i in [x, top): the look-ahead at i + 1 <= top reads inside endpos
        found = [m.end() for m in finditer(text, x, top + 1)]
        yield from reversed(found)
        top = x
        width *= 2


def _sentence_desc(text: str, lo: int, hi: int, stop: int) -> Iterable[int]:
    if lo and text[lo - 1] in _SENTENCE_BEHIND:
        return reversed(SENTENCE.positions(text, lo, hi, stop))
    found = []
    for m in SENTENCE._compiled.finditer(text, lo, hi):  # type: ignore[attr-defined]
        p = m.end()
        if p > stop:
            break
        found.append(p)
    return reversed(found)


def _markdown_desc(text: str, lo: int, hi: int, stop: int) -> Iterable[int]:
    for r in MARKDOWN.required:
        if text.find(r, lo, hi) >= 0:
            return reversed(MARKDOWN.positions(text, lo, hi, stop))
    return ()


def _blank(text: str, a: int, b: int) -> bool:
    """Whether ``text[a:b]`` is all ``[^\\S\\n]``.  Every character of that class is one
    ``str.isspace`` accepts (the tests check all code points), so a line whose first
    character is none is no blank line without running the pattern."""
    return a == b or (text[a].isspace() and _BLANKS.fullmatch(text, a, b) is not None)


def _paragraph_desc(text: str, lo: int, hi: int, stop: int) -> Iterable[int]:
    blank = _blank
    j = text.rfind("\n", lo, stop)
    while j >= 0:
        # j: the last newline of a chain of blank lines when the line after it is no
        # complete blank line (text up to the next newline before hi: blanks only)
        q = text.find("\n", j + 1, hi)
        chain_end = q < 0 or not blank(text, j + 1, q)
        # the chain's first newline n0 >= lo: back over the blank lines before j
        n0 = j
        p = text.rfind("\n", lo, n0)
        while p >= 0 and blank(text, p + 1, n0):
            n0 = p
            p = text.rfind("\n", lo, n0)
        if chain_end and n0 < j:
            # a run: kept unless the line before it (from lo at most) is a heading line
            line_start = p + 1 if p >= 0 else lo
            if _HEADING_START.match(text, line_start, n0 + 1) is None:
                yield j + 1
        j = p


_WALKS = {id(LINE): (LINE, _line_desc), id(WORD): (WORD, _word_desc), id(SENTENCE): (SENTENCE, _sentence_desc),
          id(MARKDOWN): (MARKDOWN, _markdown_desc), id(PARAGRAPH): (PARAGRAPH, _paragraph_desc)}


def descending(level: BoundaryLevel, text, lo: int, hi: int, stop: int) -> Iterable[int]:
    """``reversed(level.positions(text, lo, hi, stop))``, lazily where it can be (see above)."""
    walk = _WALKS.get(id(level))
    if walk is None or walk[0] is not level or not isinstance(text, str) or stop >= hi:
        return reversed(level.positions(text, lo, hi, stop))
    return walk[1](text, lo, hi, stop)


def _line_asc(text: str, lo: int, hi: int, start: int) -> Iterable[int]:
    i = text.find("\n", start - 1, hi - 1)
    while i >= 0:
        yield i + 1
        i = text.find("\n", i + 1, hi - 1)


def _word_asc(text: str, lo: int, hi: int, start: int) -> Iterable[int]:
    for m in WORD._compiled.finditer(text, start - 1, hi):  # type: ignore[attr-defined]
        p = m.end()
        if p >= hi:
            return
        yield p


def _sentence_asc(text: str, lo: int, hi: int, start: int) -> Iterable[int]:
    if lo and text[lo - 1] in _SENTENCE_BEHIND:
        yield from (p for p in SENTENCE.positions(text, lo, hi) if start <= p < hi)
        return
    for m in SENTENCE._compiled.finditer(text, lo, hi):  # type: ignore[attr-defined]
        p = m.end()
        if p >= hi:
            return
        if p >= start:
            yield p


def _markdown_asc(text: str, lo: int, hi: int, start: int) -> Iterable[int]:
    for r in MARKDOWN.required:
        if text.find(r, lo, hi) >= 0:
            return [p for p in MARKDOWN.positions(text, lo, hi) if start <= p < hi]
    return ()


def _paragraph_asc(text: str, lo: int, hi: int, start: int) -> Iterable[int]:
    heading = _HEADING_START.match
    for m in _BLANK_RUN.finditer(text, lo, hi):
        p = m.end()
        if p >= hi:
            return
        if p < start:
            continue
        a = m.start()
        line_start = text.rfind("\n", lo, a) + 1
        if line_start == 0:
            line_start = lo
        if heading(text, line_start, a + 1) is None:
            yield p


_UP_WALKS = {id(LINE): (LINE, _line_asc), id(WORD): (WORD, _word_asc), id(SENTENCE): (SENTENCE, _sentence_asc),
             id(MARKDOWN): (MARKDOWN, _markdown_asc), id(PARAGRAPH): (PARAGRAPH, _paragraph_asc)}


def ascending(level: BoundaryLevel, text, lo: int, hi: int, start: int) -> Iterable[int]:
    """The positions ``p`` of ``level.positions(text, lo, hi)`` with ``start <= p < hi``,
    ascending, lazily where it can be (``lo < start``; see above)."""
    walk = _UP_WALKS.get(id(level))
    if walk is None or walk[0] is not level or not isinstance(text, str) or start <= lo:
        return [p for p in level.positions(text, lo, hi) if start <= p < hi]
    return walk[1](text, lo, hi, start)
