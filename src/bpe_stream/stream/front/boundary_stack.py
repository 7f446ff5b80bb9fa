r"""The piece boundaries of a text that grows at its front, with segments that can be hidden.

:class:`~bpe_stream.stream.front.text_prependable.TextPrependable` keeps the pre-split pieces of its text
as boundaries measured from the *end* (prepending does not move them), each with the
token count of the text after it.  New boundaries are pushed at the front and old ones
popped from there, so a stack is enough, except for one edit: a prepend can merge a long
stretch of short pieces into one (o200k: ``"!"`` in front of ``"!\u0301\u0301" * n`` makes
one punctuation piece of n mark-led words), and truncating it away splits them back.
Removing and re-adding the n boundaries made each such toggle O(n).  Here they are
*hidden* instead, and *revealed* by the truncation that undoes the merge.

Invariant.  Physically the stack is two lists, ``D`` (distances, strictly increasing) and
``S`` (suffix counts), and ``index`` maps every distance in ``D`` to its position (entries
never move).  Some segments ``D[h0:h1]`` are *holes*; the *visible* entries (those in no
hole) are the boundaries kept for the current text, each with the token count of the text
after it.  A hole is made by :meth:`hide_above` when a re-split syncs at a visible entry
``x = D[h0 - 1]`` and its new first piece ``P`` covers everything above: the hidden
entries are the boundaries that an earlier text ``U`` had between ``P``'s end ``x`` and
``U``'s front.  They stay true facts about ``U``, and their suffix counts stay right,
since the text at distances up to ``U``'s front is unchanged until a truncation goes below
it.  A truncation that drops ``P``'s start (:meth:`drop_above`) leaves a suffix of ``U``
(or of text put in front of ``U``'s tail), whose split agrees with ``U``'s from any of
``U``'s boundaries on (the patterns have no look-behind): so the hidden entries at or
below the cut are revealed and the rest, being above it, are dropped.  Holes nest (a later
merge may swallow an earlier merged piece) or are disjoint; only the outermost are in
``holes`` (sorted), each with its ``children``, which come back as holes when it is
revealed.

A hole's *floor*.  ``P`` may end above ``x``, with pieces ``Q`` between (o200k ``"0 '"`` in
front of ``"'\u0301" * n + "\u0301-" * m`` makes one punctuation piece that ends one
character into the word after the stretch, and the rest of that word is ``Q``).  The
boundaries of ``Q`` lie below every hidden one, and they are visible: they are the hole's
floor (:meth:`push_under_hole`).  They are true of the text while ``P`` is; a truncation
that reveals the hole removes them, since ``U``'s split has the hidden boundaries there
instead.  Physically the floor *borrows* the slots of the hole's lowest entries: those
``k`` entries move to the hole's ``stash`` and the floor is written over them, so that
``D`` stays sorted and no entry changes position; the reveal writes the stash back.  (A
floor inserted below the hole moved the whole hole in the lists, O(hole) on every merge
and undo.)  The hole keeps at least one entry in the lists, so that ``D[-1]`` is its top.

Complexity: push, pop, lookups and hiding are O(1) (hiding also moves the holes it
swallows, O(swallowed)); a floor and its removal are O(floor); a truncation is O(dropped
entries), at C speed; a visible-entry lookup by position from the top walks over at most
``k`` holes.  A push below hidden entries that cannot go under the hole (a re-split whose
pieces lie among them: o200k contractions whose pairs a prepend shifts) discards the hole,
O(hole) at C speed; while ``spill`` is a list, the discarded entries go there, for the
caller to keep (front/alts.py: they are true of the text and a later re-split syncs on them).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import deque
from operator import itemgetter

__all__ = ["BoundaryStack"]

_H0 = itemgetter(0)
_SPILL_MIN = 8  # fewer visible entries popped at once are not spilled (cheap to find again)


class BoundaryStack:
    __slots__ = ("D", "S", "index", "holes", "spill")

    def __init__(self):
        self.D = [0]  # distances from the end, increasing; D[0] == 0 is the text's end
        self.S = [0]  # token count of the text after each boundary
        self.index = {0: 0}
        # outermost holes [h0, h1, children, stash], sorted and disjoint; stash: the
        # (distance, suffix count) of the hole's lowest entries, whose slots
        # D[h0 - len(stash):h0] its floor borrows (see push_under_hole)
        self.holes: list = []
        # when a list: a hole that a push or pop discards leaves its (distance, suffix count)
        # entries here, and so do the visible entries that pop_above removes (more than
        # _SPILL_MIN at once, or any among holes): still true of the text, see front/alts.py
        self.spill = None

    def copy(self) -> BoundaryStack:
        new = BoundaryStack.__new__(BoundaryStack)
        new.D, new.S, new.index = list(self.D), list(self.S), dict(self.index)
        new.holes = _copy_holes(self.holes)
        new.spill = None
        return new

    # -- reading ---------------------------------------------------------------------

    def _pos(self, k: int) -> int:
        """Physical position of the ``k``-th visible entry from the top (1-based), or -1."""
        i = len(self.D) - 1
        holes = self.holes
        j = len(holes) - 1
        while True:
            while j >= 0 and holes[j][0] > i:
                j -= 1
            if j >= 0 and holes[j][1] > i:
                i = holes[j][0] - 1
                j -= 1
            k -= 1
            if k == 0 or i < 0:
                return i
            i -= 1

    def last(self, k: int = 1) -> int:
        """Distance of the ``k``-th visible boundary from the front (1: the front)."""
        if not self.holes:
            return self.D[-k]
        return self.D[self._pos(k)]

    def last_suf(self, k: int = 1) -> int:
        """Token count after the ``k``-th visible boundary from the front (1: the whole text)."""
        if not self.holes:
            return self.S[-k]
        return self.S[self._pos(k)]

    def has(self, k: int) -> bool:
        """Whether there are at least ``k`` visible boundaries."""
        if not self.holes:
            return len(self.D) >= k
        return self._pos(k) >= 0

    def find(self, d: int):
        """Physical position of the visible boundary at distance ``d``, or None."""
        p = self.index.get(d)
        if p is None or not self.holes:
            return p
        holes = self.holes
        j = bisect_right(holes, p, key=_H0) - 1
        if j >= 0 and holes[j][1] > p:
            return None
        return p

    def prev_dist(self, p: int) -> int:
        """Distance of the visible boundary below the visible one at position ``p``."""
        holes = self.holes
        if holes:
            j = bisect_right(holes, p - 1, key=_H0) - 1
            if j >= 0 and holes[j][1] > p - 1:
                return self.D[holes[j][0] - 1]
        return self.D[p - 1]

    def above(self, p: int) -> int:
        """Physical entries above position ``p`` (visible or hidden, stashes not counted)."""
        return len(self.D) - 1 - p

    def visible(self) -> list[tuple[int, int]]:
        """The visible (distance, suffix count) pairs, from the end to the front."""
        out = []
        i = 0
        for h0, h1, *_ in self.holes:
            out.extend(zip(self.D[i:h0], self.S[i:h0]))
            i = h1
        out.extend(zip(self.D[i:], self.S[i:]))
        return out

    # -- changing --------------------------------------------------------------------

    def push(self, d: int, suf: int) -> None:
        """Put a boundary at distance ``d`` (above every visible one) with suffix count ``suf``."""
        D = self.D
        while self.holes and self.holes[-1][1] == len(D) and D[-1] >= d:
            self._discard_top_hole()  # (see the module docstring)
        D.append(d)
        self.S.append(suf)
        self.index[d] = len(D) - 1

    def push_under_hole(self, entries: list) -> int:
        """Put the first boundaries of ``entries`` ((distance, suffix count), by distance,
        all above the visible front), those below every entry of the hole just above the
        front, between the two; returns how many (0: nothing done, also when a later one
        would lie among the hidden entries, which ``push`` then discards, or when the hole
        has no more entries in the lists than that).  For a re-split whose merged piece P
        ends above its sync point x: the hole holds the boundaries that the earlier text U
        had above x (hidden on x), and P's split has others between x and P's end.  They are
        the hole's *floor*: true of the text while P is, they go when a truncation reveals
        the hole (U's split comes back, which has the hidden ones instead).  They take the
        slots of the hole's lowest entries, which go to its stash: O(floor), against
        discarding the hole and re-splitting U on the undo."""
        holes, D = self.holes, self.D
        if not entries or not holes or holes[-1][1] != len(D):
            return 0
        hole = holes[-1]
        h0, stash = hole[0], hole[3]
        lowest = stash[0][0] if stash else D[h0]  # (the lowest hidden entry)
        k = bisect_left(entries, (lowest,))
        if (k == 0 or k >= len(D) - h0 or not D[h0 - 1] < entries[0][0]
                or (k < len(entries) and entries[k][0] <= D[-1])):
            return 0
        S, index = self.S, self.index
        h1 = h0 + k
        stash.extend(zip(D[h0:h1], S[h0:h1]))
        _unindex(index, D[h0:h1])
        # (slices of equal length: written in place, nothing above them moves)
        D[h0:h1] = [d for d, _ in entries[:k]]
        S[h0:h1] = [suf for _, suf in entries[:k]]
        index.update(zip(D[h0:h1], range(h0, h1)))
        hole[0] = h1
        return k

    def pop(self) -> None:
        """Remove the visible boundary at the front."""
        if self.holes and self.holes[-1][1] == len(self.D):
            self._discard_top_hole()
        del self.index[self.D.pop()]
        self.S.pop()

    def pop_above(self, x: int) -> None:
        """Remove the visible boundaries at distances above ``x``."""
        D = self.D
        if not self.holes:
            j = bisect_right(D, x)  # in one slice (a re-split may replace many pieces)
            if j == len(D) - 1:  # (the usual case, inline: one entry)
                del self.index[D[j]]
                del D[j], self.S[j]
            elif j < len(D):
                if self.spill is not None and len(D) - j > _SPILL_MIN:
                    self.spill.extend(zip(D[j:], self.S[j:]))
                _unindex(self.index, D[j:])
                del D[j:], self.S[j:]
            return
        while self.last() > x:
            if self.spill is not None:
                self.spill.append((self.last(), self.last_suf()))
            self.pop()

    def set_front(self, d: int, count: int) -> None:
        """Replace the front boundary by one at ``d``, the first piece holding ``count`` tokens."""
        self.pop()
        self.push(d, self.last_suf() + count)

    def hide_above(self, p: int) -> None:
        """Hide every entry above the visible one at position ``p`` (a merge, see above)."""
        D = self.D
        if p + 1 >= len(D):
            return
        holes = self.holes
        j = len(holes)
        while j > 0 and holes[j - 1][0] > p:
            j -= 1
        children = holes[j:]
        del holes[j:]
        holes.append([p + 1, len(D), children, []])

    def drop_above(self, n: int) -> None:
        """A truncation to length ``n``: entries at distances above ``n`` are gone, and the
        hidden entries of a merged piece whose start is gone are revealed."""
        D, S = self.D, self.S
        j = bisect_right(D, n)
        if j < len(D):
            _unindex(self.index, D[j:])
            del D[j:], S[j:]
        holes = self.holes
        while holes and holes[-1][1] >= j:
            h0, _, children, stash = holes.pop()
            if stash:
                if stash[0][0] > n:  # all hidden entries are gone; the floor stays
                    continue
                # reveal: the floor's slots get the stashed entries at or below n back (when
                # some are above n, so is every entry above the floor: j == h0)
                a = h0 - len(stash)
                b = a + bisect_right(stash, n, key=_H0)
                _unindex(self.index, D[a:h0])
                del D[b:h0], S[b:h0]
                D[a:b] = [d for d, _ in stash[: b - a]]
                S[a:b] = [suf for _, suf in stash[: b - a]]
                self.index.update(zip(D[a:b], range(a, b)))
                j = len(D)
            elif h0 >= j:  # its merged piece is gone with every entry it hid
                continue
            holes.extend(c for c in children if c[0] < j)

    def _discard_top_hole(self) -> None:
        """Physically remove the hole at the top (its merged piece is gone; a floor stays):
        O(hole), at C speed."""
        h0, _, _, stash = self.holes.pop()
        D = self.D
        if self.spill is not None:
            self.spill.extend(stash)
            self.spill.extend(zip(D[h0:], self.S[h0:]))
        _unindex(self.index, D[h0:])
        del D[h0:], self.S[h0:]


def _unindex(index: dict, distances: list) -> None:
    """Delete ``distances`` from ``index``, looping in C (a re-split or a truncation may drop
    thousands of entries at once)."""
    if len(distances) < 16:  # (the usual case: a few; a deque costs more than the loop)
        for d in distances:
            del index[d]
    else:
        deque(map(index.__delitem__, distances), maxlen=0)


def _copy_holes(holes: list) -> list:
    return [[h0, h1, _copy_holes(children), list(stash)] for h0, h1, children, stash in holes]
