"""Chunks of periodic text (a run of one character, or of a short unit repeated), replayed.

Invariant: the chunks ``PeriodicReplay.at`` returns are exactly those the chunker's own
steps would make from the state it is given, in order, with the state after them.

Why it is exact.  The chunker's step from a state ``(s, m)`` (the next chunk starts at
``s`` and must end after ``m``) reads only ``T[s : s + horizon]``: the cut ``e_max``
is the largest end whose count fits, and no end with more than ``byte_horizon`` UTF-8
bytes after ``s`` fits (at least one byte per character); the semantic levels and the
grapheme level read at most ``LOOKAHEAD`` characters past ``e_max``; the overlap start
is a function of ``T[s:e]``; ``m`` enters only as ``m - s`` (chunk and overlap offsets
are compared with it).  So with ``horizon = byte_horizon + LOOKAHEAD + 2``, inside a
stretch ``T[a:r]`` of period ``p`` the step from ``(s, m)`` with ``s + horizon <= r``
depends only on the *key* ``((s - a) mod p, m - s)``, and translating the state by a
multiple of ``p`` translates the step's chunks and the next state by the same amount.
The chunker records the chunks it makes from states inside such a stretch; when a key
comes back after a shift ``D`` (a multiple of ``p``), the chunks between the two states
repeat, shifted by ``D``, as long as every start of the repeated ones stays at least
``horizon`` before ``r``.  (The tests compare the chunks with and without the replay.)
Given ``reach``, the horizon of a stretch is its unit's (:mod:`.periodic_reach`: the
budget times the longest token inside the unit's repetition, plus the longest token and
``LOOKAHEAD``), at most the byte horizon's.  When fewer than a whole cycle's chunks fit
before ``r - horizon``, the leading ones that do are replayed (the state after chunk ``i``
of a cycle is the start of chunk ``i + 1`` and the end of chunk ``i``).  A stretch that
reaches the end of the held text goes on being recorded on trust from the states within
``horizon`` of that end (nothing is replayed from them): the records count only if the
next held text resumes the stretch from the chunker's state for at least ``horizon``
characters, overlapping the old one by ``_PROBE`` (more than a period), so that every
recorded step read periodic text only; else they are dropped.

Complexity: finding a stretch is O(its length) string comparisons (galloping, then
bisecting the block that differs), tried at most once every few dozen chunks after a
failure (the back-off keeps the cost on other text under a percent of a chunk's); a
replay is O(the cycle's chunks) here, handed on as a ``RepeatedCuts`` (the cycle, its
shift, the number of chunks) that the compiled ``make_chunks`` expands in O(chunks
replayed), or ``RepeatedCuts.flat`` in C-level iterators.
"""

from __future__ import annotations

from itertools import chain, repeat

__all__ = ["PeriodicReplay", "RepeatedCuts", "periodic_probe", "periodic_stretch"]

_MAX_PERIOD = 8  # periods (in characters) looked for: '!\u0301/', 'a\u0301', '\u3000 ', '/\n'
_PROBE = 16  # characters compared first: most text fails here
_MAX_BACKOFF = 64  # chunks between two failed searches, at most


def periodic_probe(text: str, s: int) -> bool:
    """Whether ``text[s:]`` starts like a periodic stretch: its first ``_PROBE`` characters
    repeat with a period of at most ``_MAX_PERIOD`` (O(_PROBE * _MAX_PERIOD))."""
    head = text[s : s + _PROBE]
    if len(head) < _PROBE:
        return False
    for p in range(1, _MAX_PERIOD + 1):
        if text[s + p : s + p + _PROBE] == head:
            return True
    return False


def periodic_stretch(text: str, s: int, n: int, need: int):
    """``(p, r)`` with ``text[s:r]`` of period ``p`` (the smallest ``p <= 8`` found)
    and ``r - s >= need``, ``r`` as large as the period holds (at most ``n``); else None."""
    if n - s < need:
        return None
    for p in range(1, _MAX_PERIOD + 1):
        if s + p + _PROBE > n or text[s + p : s + p + _PROBE] != text[s : s + _PROBE]:
            continue
        # the longest L with text[s + p : s + p + L] == text[s : s + L]
        length = _PROBE
        step = 64
        while True:
            m = min(step, n - s - p - length)
            if m <= 0:
                break
            a = s + length
            if text[a + p : a + p + m] == text[a : a + m]:
                length += m
                step *= 2
                continue
            lo, hi = 0, m  # text[a + p : a + p + lo] matches, lo + hi does not
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if text[a + p : a + p + mid] == text[a : a + mid]:
                    lo = mid
                else:
                    hi = mid
            length += lo
            break
        r = s + p + length
        if r - s >= need:
            return p, r
        # no longer period holds further (Fine and Wilf: periods p and q over p + q
        # characters make p hold wherever q does)
        return None
    return None


class RepeatedCuts:
    """The chunks a replay repeats, without their flat list: chunk ``i`` (``0 <= i <
    total``) is chunk ``i mod m`` of the flat ``cuts`` (``m`` chunks, as ``[s, e, count,
    ...]``) with its start and end moved by ``(i // m) * shift``.  ``flat()`` is the flat
    list; the compiled ``make_chunks`` takes the three as they are (no int per offset made
    twice), which at a chunk per character is most of the replay's cost."""

    __slots__ = ("cuts", "shift", "total")

    def __init__(self, cuts: list[int], shift: int, total: int):
        self.cuts = cuts
        self.shift = shift
        self.total = total

    def __len__(self) -> int:
        return 3 * self.total

    def flat(self, first: int = 0) -> list[int]:
        """Chunks ``first`` to ``total - 1``, flat ``[s, e, count, ...]``: O(their number),
        in C-level iterators."""
        cuts, shift, m = self.cuts, self.shift, len(self.cuts) // 3
        out: list[int] = []
        i = first
        if i >= self.total:
            return out
        if i % m:  # the rest of a partial repetition
            d = (i // m) * shift
            stop = min(m, i % m + self.total - i)
            out += [x + d if j % 3 < 2 else x for j, x in enumerate(cuts[3 * (i % m) : 3 * stop])]
            i += stop - i % m
        reps = (self.total - i) // m  # whole repetitions, then the leading chunks of one more
        if reps:
            lo, hi = (i // m) * shift, (i // m + reps) * shift
            columns = []
            for j in range(0, len(cuts), 3):
                cs, ce = cuts[j], cuts[j + 1]
                columns += (range(cs + lo, cs + hi, shift), range(ce + lo, ce + hi, shift), repeat(cuts[j + 2], reps))
            out += chain.from_iterable(zip(*columns))
            i += reps * m
        if i < self.total:
            d = (i // m) * shift
            out += [x + d if j % 3 < 2 else x for j, x in enumerate(cuts[: 3 * (self.total - i)])]
        return out


class PeriodicReplay:
    """Records the chunker's steps inside a periodic stretch and replays them (module docstring).

    One per held window; offsets are local to it.
    """

    __slots__ = ("horizon", "base", "a", "p", "r", "seen", "cuts", "wait", "backoff", "reach", "default_horizon",
                 "trust_end", "held")

    def __init__(self, horizon: int, base: int, reach=None):
        self.horizon = self.default_horizon = horizon
        # reach(unit): the horizon inside text of that period (chunk/periodic_reach.py), at
        # most ``horizon``; None: ``horizon`` everywhere
        self.reach = reach
        self.base = base  # the global offset of the held text's start (offsets are local to it)
        self.a = self.p = self.r = -1  # the stretch text[a:r] of period p (p == -1: none)
        # key (period, the period's characters at s, min_end - s) -> (s, index into cuts) of
        # the state with that key: two states with the same key, in stretches of that
        # period, see the same text up to the horizon
        self.seen: dict = {}
        self.cuts: list[int] = []  # chunks made since the stretch was found, as (s, e, count)
        self.wait = 0  # states to let pass before the next search
        # the global end of a stretch that met the end of the held text, steps from there on
        # recorded on trust (at); None: none
        self.trust_end = None
        self.held = -1  # the held text's length at the last state passed to at
        self.backoff = 1

    def rebase(self, base: int) -> None:
        """The held text now starts at global offset ``base``: the recorded states and chunks
        keep their global offsets; the stretch is searched again in the new text."""
        delta = self.base - base
        self.base = base
        self.p = -1
        self.wait = 0
        if not delta:
            return
        if len(self.cuts) > 3 * _MAX_BACKOFF:
            self.seen, self.cuts = {}, []
            return
        self.seen = {key: (s + delta, i) for key, (s, i) in self.seen.items()}
        cuts = self.cuts
        for i in range(0, len(cuts), 3):
            cuts[i] += delta
            cuts[i + 1] += delta

    def at(self, text: str, n: int, s: int, min_end: int):
        """At the state ``(s, min_end)``: ``(cuts, s', min_end')``, the chunks the chunker
        would make from here (flat ``[s, e, count, ...]``) and the state after them, or
        None (the chunker then takes its step and reports it with ``made``)."""
        horizon = self.horizon
        self.held = n
        if self.p >= 0 and s >= self.a and s + horizon > self.r and self.r >= n and self.r - s >= _PROBE:
            # The stretch runs to the end of the held text: the steps from here read text not
            # held yet, so they are recorded on trust (not replayed from).  The records count
            # once the chunker resumes in a held text whose stretch from the resumed state
            # reaches a horizon further (so every recorded step read periodic text only) and
            # overlaps this one by at least a period (so the two are one stretch); else they
            # are dropped with the failed search below.
            self.trust_end = self.base + self.r
            key = (self.p, text[s : s + self.p], min_end - s)
            if key not in self.seen:
                self.seen[key] = (s, len(self.cuts))
            return None
        if self.p < 0 or s < self.a or s + horizon > self.r:
            if self.p >= 0:
                # out of the stretch: the steps from here on are not recorded, so no state
                # recorded so far may start a cycle
                self.p = -1
                self.seen, self.cuts = {}, []
                self.trust_end = None
            if self.wait > 0:
                self.wait -= 1
                return None
            if self.reach is None:
                found = periodic_stretch(text, s, n, horizon + _PROBE)
            else:
                found = periodic_stretch(text, s, n, 2 * _PROBE)
                if found is not None:
                    horizon = min(self.default_horizon, self.reach(text[s : s + found[0]]))
                    if found[1] - s < horizon + _PROBE:
                        found = None
            if found is None:
                self.seen, self.cuts = {}, []  # (kept by rebase for a stretch found again)
                self.trust_end = None
                self.wait = self.backoff
                self.backoff = min(2 * self.backoff, _MAX_BACKOFF)
                return None
            self.backoff = 1
            if self.trust_end is not None and self.trust_end - (self.base + s) < _PROBE:
                self.seen, self.cuts = {}, []  # (records on trust: the stretches barely meet)
            self.trust_end = None
            self.horizon = horizon
            self.p, self.r = found
            self.a = s
        p = self.p
        key = (p, text[s : s + p], min_end - s)
        prev = self.seen.get(key)
        if prev is None:
            self.seen[key] = (s, len(self.cuts))
            return None
        s1, i1 = prev
        cycle = self.cuts[i1:]
        shift = s - s1
        if not cycle or shift <= 0:
            return None
        room = self.r - horizon  # the last start a replayed chunk may have
        reps = max(0, (room - max(cycle[0::3])) // shift)
        # then the leading chunks of one more repetition whose starts stay within the room
        extra = 0
        while extra < len(cycle) and cycle[extra] + (reps + 1) * shift <= room:
            extra += 3
        if reps < 1 and not extra:
            return None
        m = len(cycle) // 3
        cuts = RepeatedCuts([x + shift if j % 3 < 2 else x for j, x in enumerate(cycle)], shift,
                            reps * m + extra // 3)
        if extra:
            # the state after chunk i of a repetition is (start of chunk i + 1, end of chunk i)
            stop = (reps + 1) * shift
            s_after, min_after = cycle[extra] + stop, cycle[extra - 2] + stop
            key = (p, text[s_after : s_after + p], min_after - s_after)
        else:
            s_after, min_after = s + reps * shift, min_end + reps * shift
        # the chunks before s_after repeat those of the shift before it (kept for the next
        # window): that state has the key of s_after; the last cycle's chunks: those of the
        # recorded cycle followed by the replayed ones
        self.seen = {key: (s_after - shift, 0)}
        self.cuts = RepeatedCuts(cycle, shift, cuts.total + m).flat(cuts.total)
        return cuts, s_after, min_after

    def reaches_end(self, n: int, s: int) -> bool:
        """Whether the stretch runs to the end ``n`` of the held text and ``s`` is too close
        to it for a replay: more text held would let the replay go on."""
        return self.p >= 0 and self.r >= n and s + self.horizon > n

    def made(self, cuts) -> None:
        """The chunker made these chunks (flat ``[s, e, count, ...]``) from the last state
        passed to ``at``."""
        if self.p < 0:
            return
        last = max(cuts[0::3])
        if last + self.horizon > self.r and not (self.r >= self.held and self.r - last >= _PROBE):
            # steps past the stretch's reach: no cycle through them can repeat (unless the
            # stretch runs to the end of the held text: recorded on trust, as in at)
            self.p = -1
            self.seen, self.cuts = {}, []
            return
        self.cuts += cuts
