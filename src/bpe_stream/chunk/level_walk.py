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
* ``paragraph``: its finder reads ``text[lo:hi]`` through ``pos``/``endpos`` already and
  returns the ends of the kept runs in order (rising: the runs do not overlap); the walk
  runs the same loop and stops at the first end past ``stop`` instead of finding the
  rest and sorting.

Complexity: one ``rfind`` per line position visited; words in blocks of 16, 32, ...
characters below ``stop``; sentence and paragraph one regex scan of ``text[lo:stop]``
(plus up to the next match), as before but without copying the slice or sorting.
"""

from __future__ import annotations

from collections.abc import Iterable

from .boundaries import LINE, MARKDOWN, PARAGRAPH, SENTENCE, WORD, BoundaryLevel
from .boundaries import _paragraph_kept

__all__ = ["descending"]

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


def _paragraph_desc(text: str, lo: int, hi: int, stop: int) -> Iterable[int]:
    found = []
    for p in _paragraph_kept(text, lo, hi):
        if p > stop:
            break
        found.append(p)
    return reversed(found)


_WALKS = {id(LINE): (LINE, _line_desc), id(WORD): (WORD, _word_desc), id(SENTENCE): (SENTENCE, _sentence_desc),
          id(MARKDOWN): (MARKDOWN, _markdown_desc), id(PARAGRAPH): (PARAGRAPH, _paragraph_desc)}


def descending(level: BoundaryLevel, text, lo: int, hi: int, stop: int) -> Iterable[int]:
    """``reversed(level.positions(text, lo, hi, stop))``, lazily where it can be (see above)."""
    walk = _WALKS.get(id(level))
    if walk is None or walk[0] is not level or not isinstance(text, str) or stop >= hi:
        return reversed(level.positions(text, lo, hi, stop))
    return walk[1](text, lo, hi, stop)
