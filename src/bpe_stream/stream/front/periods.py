"""Jumps over periodic stretches in the re-split of a :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`.

o200k: ``" A"`` in front of ``"'s" * n`` shifts every ``'s's`` piece by two characters (a
digit run behaves the same under both patterns, but has its own state, ``front/digits.py``):
the re-split meets no old boundary until the stretch ends, and re-splitting it piece by
piece is O(stretch) in Python on every such edit.  The re-split jumps over it instead.

Why the jump is exact.  Let the new pieces from a (not the first piece, which the states
look at) to a + p repeat with the text: text[i] == text[i + p] for a <= i < B - p.  The
stability rule of the re-split (a match ending at e with a non-space, and for o200k
non-upper-word, character at or after e and 4 more characters after e is final whatever
follows) says that the piece [s, e) depends only on text[s:t], t = max(e + 4, first
settled character at or after e, plus one).  With T the largest such t over one period,
the pieces shifted by m * p are the same pieces for every m with T + m * p <= B, so the
k = (B - T) // p + 1 periods from a hold k times the period's tokens, and the re-split
goes on at a + k * p.  The boundaries inside the jump are not pushed: the first piece,
and the piece starting at a, are real pieces, and nothing reads the boundaries between
but a re-split, which syncs only on real piece starts.  ``gaps`` records the jump so that a
truncation to its start re-splits there.

Invariant of ``periods``: for p -> ([(bottom, top), ...], size), intervals sorted by
bottom whose ranges (bottom + p, top] are disjoint, the character at each distance d with
bottom + p < d <= top equals the one at d - p, and size is the sum of top - bottom.  It
stays true while no truncation goes below a top (``_forget_above`` cuts the intervals), and
is kept within the size budget of :mod:`bpe_stream.text.records` (the record's size is
``size``, its top the last interval's).  A text can hold
several stretches of one period (o200k ``"'S" * k + "'s" * m``: the mark in front of it
shifts both, and both are jumped), so a period keeps an interval per stretch it met.

Cost: O(one period + the characters compared), the comparison by doubling blocks and
bisection at C speed and done once per stretch (later jumps read the record), instead of
O(pieces) in Python.  The list of a period's intervals is changed in place, only where it
changes: a mix of units can make thousands of short stretches of one period, and a new
tuple of them on every jump and truncation was O(intervals) at C speed (a cl100k mix at
2.2M characters: 8,833 intervals, 1.8 ms per pass against 0.8 ms at 140K).  So a record
is never shared: a copy of the stream copies the lists (``TextPrependable.copy``).
"""

from __future__ import annotations

from bisect import bisect_left

from ...pretokenize.fast_split import O200K_FIRST
from ...pretokenize.unicode import compile_regex

__all__ = ["PeriodicJumps"]

# characters after a piece that do not yet make it final (the stability rule, see the module doc)
_UNSETTLED = {True: compile_regex(r"[\s" + O200K_FIRST[1:-1] + r"]*"), False: compile_regex(r"\s*")}


class PeriodicJumps:
    """Mixin of :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`: its ``periods``."""

    __slots__ = ()

    _PERIOD_PIECES = 8  # new pieces seen before looking for a period
    _MAX_PERIOD = 256

    def _jump(self, front: str, new: list, n: int):
        """(index of the first jumped piece in ``new``, its start distance, the jumped pieces'
        token count, the distance where the re-split goes on) for a periodic stretch at the
        ``new`` pieces of the fetched ``front``, which starts at distance ``n`` (see the module doc),
        or None."""
        starts = [n - d for d, _ in new]
        i0 = len(new) // 2  # into the stretch, past whatever the edit changed in front of it
        a = starts[i0]
        T = a
        unsettled = _UNSETTLED[self.wc is not None and self.wc[0].o200k]
        for j in range(i0 + 1, len(starts)):
            e = starts[j]  # the piece before ends here
            # text[:t] ends with a character after which the piece is final: 4 on, and
            # neither whitespace nor (o200k) an upper-word character
            t = unsettled.match(front, e + 3).end() + 1
            T = max(T, t)
            p = e - a
            if p > self._MAX_PERIOD or T + p > len(front):
                return None
            if front[a:T] != front[a + p : T + p]:
                continue
            B = n - self._periodic_bottom(p, n - a)
            periods = (B - T) // p + 1
            if periods < 2:
                return None
            count = sum(c for _, c in new[i0:j]) * periods
            return i0, n - a, count, n - a - periods * p
        return None

    def _periodic_bottom(self, p: int, top: int) -> int:
        """The least ``bottom`` such that the character at each distance d with
        bottom + p < d <= top equals the one at d - p: from the interval of ``p`` that holds
        ``top`` when there is one, else by comparing blocks down from ``top`` (down to the top
        of the highest interval below it, which it then extends), which then becomes an
        interval.  O(log intervals) with an interval, else O(characters compared + chunks
        visited), plus a C memmove of the intervals above the new one (none in the usual
        case: the new interval is the highest, nearest the front)."""
        spans, size = self.periods.get(p) or ([], 0)
        i = bisect_left(spans, (top - p,))  # spans[:i]: bottom + p < top
        if i and spans[i - 1][1] >= top:
            return spans[i - 1][0]
        below = spans[i - 1] if i else None  # the highest interval ending below top
        stop = p if below is None else max(p, below[1])  # compare the distances (stop, top]
        hi = top
        step = 256
        bottom = None
        while hi > stop:
            lo = max(stop, hi - step)
            w = self._window(hi, lo - p)  # distances (lo - p, hi]
            m = len(w) - p  # w[i] (distance hi - i) against w[i + p], for i < m
            if w[:m] != w[p:]:
                i0, i1 = 0, m  # the first mismatch is in [i0, i1)
                while i1 - i0 > 1:
                    mid = (i0 + i1) // 2
                    if w[i0:mid] == w[i0 + p : mid + p]:
                        i0 = mid
                    else:
                        i1 = mid
                bottom = hi - i0 - p
                break
            hi = lo
            step *= 2
        if bottom is None:  # periodic down to the interval below, which it extends
            bottom = 0 if below is None else below[0]
        lo = i
        if below is not None and bottom == below[0]:  # extended: it replaces below
            lo -= 1
            size -= below[1] - below[0]
        spans[lo:i] = [(bottom, top)]  # (in place: the record's list, see the module doc)
        self._put_periods(p, spans, size + top - bottom)
        return bottom

    def _put_periods(self, p: int, spans: list, size: int) -> None:
        """Hold the intervals ``spans`` of ``p`` (see the module doc), whose sizes sum to
        ``size``, or forget ``p``.  The record is ``(spans, size)``: the size is kept, not
        summed again, and the last interval has the highest top (their ranges of checked
        distances are disjoint and sorted), so a put is O(1) in Python however many
        intervals there are (a mix of units can make many short stretches of one period)."""
        if spans:
            self.periods.put(p, (spans, size), spans[-1][1], size, self.n)
        else:
            self.periods.pop(p)

    def _cut_periods(self, p: int, spans: list, size: int, n: int) -> None:
        """Keep what stays true of the intervals ``spans`` of ``p`` (sizes summing to
        ``size``; the record's list, cut in place) after a truncation to ``n``: those that
        start below n - p, the one across n cut to n.  Only the last kept can reach past n:
        each interval's checked distances (bottom + p, top] lie below the next one's.
        O(log intervals + the intervals that go, each made once by a jump): walking them
        all, or copying them, on every truncation grew with the text."""
        j = bisect_left(spans, (n - p,))  # spans[:j]: bottom < n - p
        size -= sum(top - bottom for bottom, top in spans[j:])
        del spans[j:]
        if spans and spans[-1][1] > n:
            bottom, top = spans[-1]
            size -= top - n
            spans[-1] = (bottom, n)
        self._put_periods(p, spans, size)
