"""Records about the text at the front of a :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`,
kept within a size budget and dropped by truncation.

Every record of the front engine (a saved state of a long piece, a ghost, a punctuation
run, a tail part) is a fact about the text at distances up to its *top* (distances are
measured from the end, see :mod:`bpe_stream.stream.front.text`), so it stays true until a
truncation goes below its top.  :class:`DistanceRecords` holds the records of one kind.

Invariant: every record held is true of the text (``drop_above`` hands back those a
truncation makes false, for the caller to cut or forget), and after each ``put`` the
sizes of the records (the characters each one describes) sum to at most
``max(2 * n, _MIN_BUDGET)``, n being the text's length, the oldest records going first.
So memory stays O(n).

Why a budget and not a count.  An edit at the front is O(1) only while the records of
the long pieces it meets are kept.  With a cap on their number, enough short long pieces
put in front of a long one push the long one's records out, and every return to it
(truncating the short ones away) re-encodes it: O(long piece) for O(short pieces) of new
text, on every round (9 merged stretches, or 257 long words, did this before).  The
records of the pieces of one split describe disjoint text and sum to at most n, so under
the budget a record is pushed out only by others that describe the same text again.

Cost (k records): ``get`` O(1); ``put`` O(1) for a record above all others
(the usual case: records are made about the text nearest the front), else O(log k +
shift of a list, a C memmove), plus O(1) per record pushed out; ``drop_above`` and
``starting_in`` O(log k + the records they return); ``pop`` O(1) for the record above
all others, else O(log k + shift).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections import OrderedDict

__all__ = ["DistanceRecords"]

_MIN_BUDGET = 1 << 16  # characters described by the records of a short text


class DistanceRecords(dict):
    """Records of one kind, each with a key, a value, a *top* distance and a size: a dict
    from keys to values for reading, changed only through ``put``, ``pop`` and ``drop_above``.

    >>> r = DistanceRecords()
    >>> r.put("a", "fact about distances 0..10", top=10, size=10, n=100)
    >>> r.put("b", "fact about distances 40..50", top=50, size=10, n=100)
    >>> [key for key, _ in r.starting_in(0, 20)]
    ['a']
    >>> r.drop_above(30)
    [('b', 'fact about distances 40..50', 50)]
    >>> r.get("a"), r.get("b")
    ('fact about distances 0..10', None)
    """

    __slots__ = ("_meta", "_tops", "_size", "_seq")

    # The records' values are the dict's own items, so that looking one up is a plain dict
    # lookup; ``put`` and ``pop`` keep the rest in step.
    def __init__(self):
        super().__init__()
        self._meta: OrderedDict = OrderedDict()  # key -> (top, size, seq), oldest first
        # (top, seq, key) of every record, sorted (seq: the order of puts, unique)
        self._tops: list = []
        self._size = 0
        self._seq = 0

    def __setitem__(self, key, value):
        raise TypeError("DistanceRecords: use put(key, value, top, size, n)")

    __delitem__ = setdefault = update = clear = popitem = __setitem__

    def __reduce__(self):
        raise TypeError("DistanceRecords is not pickled (its owner pickles its text)")

    def put(self, key, value, top: int, size: int, n: int) -> None:
        """Hold ``value`` under ``key`` (replacing a record with that key), a fact about the
        text up to distance ``top`` describing ``size`` characters; the text is ``n``
        characters long.  The oldest records go while the sizes exceed the budget."""
        meta = self._meta
        if key in meta:
            self.pop(key)
        self._seq += 1
        dict.__setitem__(self, key, value)
        meta[key] = (top, size, self._seq)
        tops = self._tops
        if not tops or tops[-1][0] <= top:
            tops.append((top, self._seq, key))  # the usual case: about the text nearest the front
        else:
            insort(tops, (top, self._seq, key))
        self._size += size
        budget = max(2 * n, _MIN_BUDGET)
        while self._size > budget and len(meta) > 1:
            self.pop(next(iter(meta)))

    def pop(self, key, default=None):
        m = self._meta.pop(key, None)
        if m is None:
            return default
        top, size, seq = m
        self._size -= size
        tops = self._tops
        if tops[-1][1] == seq:  # the usual case: the record nearest the front
            tops.pop()
        else:
            del tops[bisect_left(tops, (top, seq))]
        return dict.pop(self, key)

    def copy(self, copy_value=None) -> DistanceRecords:
        """A copy of the records; ``copy_value(value)`` copies each value, for values that
        their owner changes in place (the default shares them)."""
        new = DistanceRecords()
        if copy_value is None:
            dict.update(new, self)
        else:
            for key, value in self.items():
                dict.__setitem__(new, key, copy_value(value))
        new._meta = OrderedDict(self._meta)
        new._tops = list(self._tops)
        new._size, new._seq = self._size, self._seq
        return new

    def top(self) -> int:
        """The highest top of the records (0 without any)."""
        return self._tops[-1][0] if self._tops else 0

    def drop_above(self, n: int) -> list:
        """Remove the records whose top lies beyond distance ``n`` (a truncation to ``n``
        makes them false, or true only of part of what they describe) and return their
        (key, value, top), for the caller to cut and put back what stays true."""
        tops = self._tops
        if not tops or tops[-1][0] <= n:  # the usual case: nothing above n
            return []
        i = bisect_right(tops, (n, _INF))
        gone = tops[i:]
        del tops[i:]
        meta = self._meta
        out = []
        for top, _, key in gone:
            self._size -= meta.pop(key)[1]
            out.append((key, dict.pop(self, key), top))
        return out

    def starting_in(self, lo: int, hi: int) -> list:
        """(key, value) of the records whose top lies in [``lo``, ``hi``], by top."""
        tops = self._tops
        i, j = bisect_left(tops, (lo,)), bisect_right(tops, (hi, _INF))
        return [(key, self[key]) for _, _, key in tops[i:j]]

    def lowest_top_from(self, lo: int):
        """(key, value, top) of the record with the lowest top at or above ``lo``, or None."""
        tops = self._tops
        i = bisect_left(tops, (lo,))
        if i == len(tops):
            return None
        top, _, key = tops[i]
        return key, self[key], top


_INF = float("inf")  # (d, _INF) follows every (d, seq, key)
