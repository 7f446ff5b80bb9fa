r"""Boundaries of an earlier split at the front of a
:class:`~bpe_stream.stream.front.text_prependable.TextPrependable`, for a prepend that shifts the phase of a
long stretch that is not periodic: ``alts`` and ``grafts``.

The case.  Under o200k a word takes one contraction after it, so a stretch of contractions
(``"'m'Ve'm'm're..."``) splits into pairs, ``"'m'Ve" "'m'm" ...``, and one character put in
front (``"r"``: ``"r'm"``, then ``"'Ve'm" "'m're"`` ...) pairs them the other way all along
the stretch.  The two splits share no boundary until the stretch ends, so every such
prepend re-split the whole stretch (the old boundaries were hidden as for a merge, then
discarded, since the new ones lie among them), and so did its undo.  A periodic stretch is
jumped (front/periods.py); this one is not periodic.  Prepending such units one at a time was
quadratic: 0.49 s for 1,000 and 7.6 s for 4,000 (now 15 and 25 ms).

Why an earlier boundary is enough to sync.  A boundary's suffix count is the token count of
the text after it: a fact about that text alone, true until a truncation goes below it.  The
re-split runs the pattern from the new front; when one of its matches starts at a distance
whose suffix count is known, the rest of the split is the split of the text after it (the
patterns have no look-behind), whether or not that distance was a boundary of the text just
before the prepend.  So the boundaries that a re-split discards are kept in ``alts``
(distance -> suffix count), and the re-split syncs on them as on the kept ones.  A stretch
flipped once has the boundaries of both phases; every later flip syncs after a piece or two.

- ``alts``: distance -> suffix count: the entries of a hole that a re-split discarded and
  the visible entries it popped, more than ``boundary_stack._SPILL_MIN`` at once (a re-split
  that jumped a periodic part of the stretch pops instead of hiding), both as a
  ``BoundaryStack`` spill; and the boundaries a graft pops.
- ``grafts``: the distances of ``bounds`` entries that came from ``alts``.  A re-split that
  syncs on one pushes it on the boundary stack (popping the entries above it, which go to
  ``alts`` in turn); the entries below it are those of the other phase, still true facts
  but not the next boundaries of its split.  Every other entry's neighbour below it is the
  end of its first piece; a graft's is not.  So a truncation to exactly a graft re-splits its
  first piece instead of taking the neighbour as the piece's end, and syncs again after it.

Both are :class:`DistanceMap`: a dict with its keys sorted, not a ``DistanceRecords``.  At
most one entry per distance, so they hold at most n entries without a budget, and an
entry costs about 40 bytes (its key is the boundary stack's int) instead of the 265 of a
record with its size, age and top.  A stretch of contractions keeps about one entry of
each per pair: prepending 20,000 of them one at a time now leaves 132 bytes per character
in the stream, 323 with records (tracemalloc, the vocabulary's tables left out).

Cost: O(1) per entry put (in distance order, the usual case; else a list shift, a C
memmove), looked up or grafted; ``drop_above`` O(log k + entries dropped).  A spill is
O(entries) once, when the re-split that discards them has re-split about as many pieces.
"""

from __future__ import annotations

from bisect import bisect_right, insort

__all__ = ["DistanceMap", "EarlierSplits"]


class DistanceMap(dict):
    """A dict keyed by distances from the text's end, changed through ``put`` and
    ``drop_above`` (a truncation to n makes the entries above n false).

    >>> m = DistanceMap()
    >>> m.put(30, 7); m.put(10, 3); m.put(20, 5)
    >>> m.drop_above(15)
    >>> dict(m), m.copy() == m
    ({10: 3}, True)
    """

    __slots__ = ("_keys",)

    def __init__(self):
        super().__init__()
        self._keys: list = []  # the keys, ascending

    def put(self, d: int, value) -> None:
        if d not in self:
            keys = self._keys
            if not keys or keys[-1] < d:
                keys.append(d)  # the usual case: about the text nearest the front
            else:
                insort(keys, d)
        dict.__setitem__(self, d, value)

    def drop_above(self, n: int) -> None:
        keys = self._keys
        if keys and keys[-1] > n:
            i = bisect_right(keys, n)
            for d in keys[i:]:
                dict.__delitem__(self, d)
            del keys[i:]

    def copy(self) -> DistanceMap:
        new = DistanceMap()
        dict.update(new, self)
        new._keys = list(self._keys)
        return new

    def __setitem__(self, key, value):
        raise TypeError("DistanceMap: use put(distance, value)")

    __delitem__ = setdefault = update = clear = pop = popitem = __setitem__

    def __reduce__(self):
        raise TypeError("DistanceMap is not pickled (its owner pickles its text)")


class EarlierSplits:
    """Mixin of :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`: its ``alts`` and ``grafts``."""

    __slots__ = ()

    def _keep_alts(self, entries) -> None:
        """Keep the (distance, suffix count) ``entries`` (true of the text) in ``alts``."""
        alts, n = self.alts, self.n
        for d, suf in entries:
            if 0 < d < n:
                alts.put(d, suf)

    def _graft(self, synced: int) -> None:
        """Push the boundary of ``alts`` at distance ``synced``, where a re-split synced, on
        the boundary stack; the visible entries above it go to ``alts``."""
        bounds = self.bounds
        popped = []
        while bounds.last() > synced:
            popped.append((bounds.last(), bounds.last_suf()))
            bounds.pop()  # (a hole at the top goes to the spill)
        bounds.push(synced, self.alts[synced])
        self.grafts.put(synced, True)
        self._keep_alts(popped)

    def _forget_alts_above(self, n: int) -> None:
        if self.alts:
            # (and the front's own: a graft there would leave the first piece unknown)
            self.alts.drop_above(n - 1)
        if self.grafts:
            self.grafts.drop_above(n)
