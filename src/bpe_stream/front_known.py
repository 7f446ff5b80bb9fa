r"""Long pieces at the front of a :class:`~bpe_stream.front_stream.TextPrependable` that a
re-split would otherwise fetch to their end: ``known`` and ``known_cut``.

A long piece that no state applies to (``"\r\n" * k``, an o200k word holding apostrophes)
was fetched to its end by every re-split that met it and scanned again by the checks for
a state (front_words, front_runs, front_digits): O(piece) at C speed per edit, which
Python line counts do not show.  And a toggle of a short edit that makes a new long piece
of the edit and the piece behind it (o200k ``"x"`` before ``(中 + mark)* + "Ab"``: the word
``"x" + (中 + mark)*`` ends before ``"Ab"``, so the old piece's state cannot answer) lost the
new piece's state with the truncation back, and found it again by a scan on the next edit.

- ``known``, start -> (end, count, state, ghost start): a long piece that a re-split met or
  that was first.  ``state`` is None when no state applies to it (the checks are not run
  on it again), ``"?"`` when none was looked for (a piece met behind the first), or the
  piece's ``("word" | "run", state without its bytes)``, whose bytes are the ghost over
  (ghost start, end) and the text in front of it.
- ``known_cut``, start -> (record of ``known``, text): a record whose start a truncation to
  distance top cut off by at most ``_LONG`` characters, with the text it cut (distances
  top + 1 to start); a further truncation adds what it cuts to that text.

Why a record gives the piece.  The split from a piece start depends only on the text after
it (the patterns have no look-behind), and a record is a fact about the text at distances
up to its start, true while no truncation goes below the start (``_forget_above`` moves the
records it cuts off to ``known_cut``, or drops them).  So a re-split that finds a match
starting at a recorded start takes the piece's end and count from the record, and a record
of ``known_cut`` is true again once its text is back in front of it, which costs a compare
of that text (at most ``_LONG`` characters).

Cost: O(1) per record put or looked up (``DistanceRecords``), plus the compare of a cut
record's text and the bytes put in front of a ghost when a state comes back.
"""

from __future__ import annotations

__all__ = ["KnownPieces"]


class KnownPieces:
    """Mixin of :class:`~bpe_stream.front_stream.TextPrependable`: its ``known`` and
    ``known_cut`` records."""

    __slots__ = ()

    def _known_piece(self, d: int):
        """The record of ``known`` for the long piece that starts at distance ``d`` (when a
        piece starts there), or of ``known_cut`` when the text it cut is back in front (then
        it is in ``known`` again); else None."""
        rec = self.known.get(d)
        if rec is None and self.known_cut:
            cut = self.known_cut.get(d)
            if cut is not None and d <= self.n and self._window(d, d - len(cut[1])) == cut[1]:
                self.known_cut.pop(d)
                rec = cut[0]
                self.known.put(d, rec, d, d - rec[0], self.n)
        return rec

    def _keep_cut_piece(self, start: int, end: int, count: int, state, ghost_start, n: int) -> None:
        """A truncation to ``n`` (before the text goes) cuts off the start of the long piece
        at distances (start, end): keep its record for when the text cut is put back."""
        if start - n <= self._LONG:
            self.known_cut.put(start, ((end, count, state, ghost_start), self._window(start, n)), n,
                               start - end, self.n)

    def _forget_known_above(self, n: int) -> None:
        """A truncation to ``n``, before the text goes: the records it cuts off go to
        ``known_cut`` (a state's only while its bytes are still its ghost's, that is, while
        the cut does not go below the ghost's start); those of ``known_cut`` above n take the
        text cut in front of theirs while they stay within ``_LONG`` of n."""
        for d, rec, _ in (self.known.drop_above(n) if self.known else ()):
            state = rec[2]
            if state is not None and state != "?" and rec[3] > n:
                state = "?"
            self._keep_cut_piece(d, rec[0], rec[1], state, rec[3], n)
        if self.known_cut:
            for d, (rec, cut), top in self.known_cut.drop_above(n):
                # cut further: the record comes back once the longer text is put back (a
                # toggle that cuts off the edit and then the text behind it)
                if d - n <= self._LONG:
                    self.known_cut.put(d, (rec, cut + self._window(top, n)), n, d - rec[0], self.n)

    def _known_state(self, piece) -> bool:
        """For the first piece ``piece`` = (end, count) after a re-split: True when ``known``
        says no state applies to it, or gives back the state it had when a truncation cut
        it off (its bytes from the ghost it left and the text put back in front, O(that
        text)); False when the checks for a state must run."""
        n = self.n
        rec = self._known_piece(n) if self.known or self.known_cut else None
        if rec is None or rec[:2] != piece or rec[2] == "?":
            return False
        if rec[2] is None:
            return True
        # (the re-split that met the piece may have moved the ghost to its start)
        ghost = self.ghosts.get(rec[0])
        bp = self._take_ghost(ghost[0], rec[0]) if ghost is not None and rec[3] <= ghost[0] <= n else None
        if bp is None:
            return False
        bp.prepend(self._window(n, ghost[0]).encode("utf-8"))
        self.known.pop(n)
        if bp.token_count != piece[1]:  # never expected
            return False
        kind, state = rec[2]
        if kind == "word":
            self.word = state._replace(bp=bp)
        else:
            self.run = state._replace(bp=bp)
        return True

    def _known_piece_at(self, d: int, front: str, a: int, base: int):
        """(count, end) of the long piece starting at distance ``d`` (at ``front[a]``,
        ``front`` starting at distance ``base``) from its record, or None.  The piece gets
        its bytes as a fetched one does: the ghost of its end takes the bytes in front of
        it, or a copy of a saved state's bytes becomes its ghost (a state looked for later
        takes them from there)."""
        piece = self._known_piece(d)
        if not piece:
            return None
        if self.ghosts and piece[0] in self.ghosts:
            self._ghost_count(d, piece[0], front, a, base)
        elif self.saved:
            self._adopt_saved(d, piece[0], front, a, base)
        return piece[1], piece[0]
