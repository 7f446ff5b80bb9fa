"""Exact prefix counts for the descent of a cut that ends inside one long piece.

Invariant: ``DescentIntervals(enc, text).count(i, j) == enc.count(text[i:j])`` (it is the
interval index of :mod:`bpe_stream.text.intervals`), with one change of method: a long piece
``text[a:b]`` that a query's re-split finds is counted from a
:class:`~bpe_stream.bpe.table.PrefixTable` over ``text[a:]`` kept for its start ``a`` (the raw
BPE count of every prefix of the bytes from ``a``), so the queries whose re-split ends in a
piece from the same start share one table pass.  A piece of at most ``whole_max`` characters
may be a whole-piece token and keeps the index's own count.

Why: ``cuts._descend_long_piece`` asks ``count(0, j)`` for ``j = L, L - 1, ...`` down to the
first that fits; where the tail is one long piece ``text[a:j]`` (a pattern or a piece the
chunker has no run rule for), the index re-counted it from ``a`` for every ``j``: O(tail) BPE
work per candidate, O(tail^2) per cut.  Work now: one table pass per distinct long-piece start
(typically one per cut), grown lazily to the longest piece asked; the re-split of the tail by
the regex per query remains (in C).
"""

from __future__ import annotations

from itertools import accumulate

from ..bpe.table import PrefixTable
from .intervals import _TextIntervals

__all__ = ["DescentIntervals"]


class DescentIntervals(_TextIntervals):
    """:class:`~bpe_stream.text.intervals._TextIntervals` whose long pieces share prefix tables."""

    def __init__(self, enc, text: str):
        super().__init__(enc, text)
        self.prefix_tables: dict[int, tuple[PrefixTable, list | None]] = {}

    def _prefix_count(self, a: int, b: int) -> int:
        entry = self.prefix_tables.get(a)
        if entry is None:
            rest = self.text[a:]
            data = rest.encode("utf-8")
            offs = None if len(data) == len(rest) else list(accumulate(map(len, map(str.encode, rest)), initial=0))
            entry = self.prefix_tables[a] = (PrefixTable(self.enc.bpe, data), offs)
        table, offs = entry
        p = b - a if offs is None else offs[b - a]
        table.extend_to(p)
        return table.counts[p]

    def _long_piece_count(self, a: int, b: int) -> int:
        if b - a <= self.whole_max:  # may be a whole-piece token: the index's own count
            return super()._long_piece_count(a, b)
        return self._prefix_count(a, b)
