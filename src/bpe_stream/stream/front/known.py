r"""Long pieces at the front of a :class:`~bpe_stream.stream.front.text_prependable.TextPrependable` that a
re-split would otherwise fetch to their end: ``known`` and ``known_cut``.

A long piece that no state applies to (``"\r\n" * k``, an o200k word holding apostrophes)
was fetched to its end by every re-split that met it and scanned again by the checks for
a state (front/words.py, front/runs.py, front/digits.py): O(piece) at C speed per edit, which
Python line counts do not show.  And a toggle of a short edit that makes a new long piece
of the edit and the piece behind it (o200k ``"x"`` before ``(中 + mark)* + "Ab"``: the word
``"x" + (中 + mark)*`` ends before ``"Ab"``, so the old piece's state cannot answer) lost the
new piece's state with the truncation back, and found it again by a scan on the next edit.

- ``known``, start -> (end, count, state, ghost start): a long piece that a re-split met or
  that was first.  ``state`` is None when no state applies to it (the checks are not run
  on it again), ``"?"`` when none was looked for (a piece met behind the first), or the
  piece's ``("word" | "run", state without its bytes)``.  Its bytes are those of the ghost
  at its end, when there is one whose start lies at or above ghost start (and at or below
  the piece's start), with the text in front of the ghost; else the state is looked for
  again.  A record stays when its state is taken: the state may move on (a lead put in
  front of a word saves it under the lead's start) while the record still describes the
  piece for the next truncation that cuts it off.  A short o200k word is recorded too when
  its end took a long read: a match whose first part ``[Lu Lt Lm Lo M]*`` runs through a
  long upper-word stretch after it and gives back (``"\u4e2d"`` before ``"\u01c5" * k +
  "'re"``) is final only once the stretch's end is fetched.
- ``known_cut``, start -> alternatives (record of ``known``, text, top), most recent first: a
  record whose start a truncation to distance top cut off by at most ``_LONG`` characters,
  with the text it cut (distances top + 1 to start); a further truncation adds what it cuts
  to that text.  Up to ``_CUT_ALTS`` texts per start: an edit sequence may put different
  text at the same start in turn (a lead ``"<"``, later ``"'"``, before the same word), and
  each comes back.

Why a record gives the piece.  The split from a piece start depends only on the text after
it (the patterns have no look-behind), and a record is a fact about the text at distances
up to its start, true while no truncation goes below the start (``_forget_above`` moves the
records it cuts off to ``known_cut``, or drops them).  So a re-split that finds a match
starting at a recorded start takes the piece's end and count from the record, and a record
of ``known_cut`` is true again once its text is back in front of it, which costs a compare
of that text (at most ``_LONG`` characters).

Size.  A record holds no bytes (a state's are the ghost's, a cut text is at most ``_LONG``
characters), so it counts ``_LONG`` characters in the records' budget (``text/records.py``), not
its piece's length: a truncation into a long piece and text put back make records at several
starts of the same piece, and counted at the piece's length four of them filled the budget
and pushed each other out, so that one was fetched to its end on every pass (o200k ``"_1"``,
a truncation of 5, ``"1<a\u0301"``, ... before ``"\u4e2d\u0301\xe9" * k + "'s"``).

Cost: O(1) per record put or looked up (``DistanceRecords``), plus the compare of a cut
record's text and the bytes put in front of a ghost when a state comes back.
"""

from __future__ import annotations

__all__ = ["KnownPieces"]


class KnownPieces:
    """Mixin of :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`: its ``known`` and
    ``known_cut`` records."""

    __slots__ = ()
    _CUT_ALTS = 4  # texts kept per start in known_cut

    def _known_piece(self, d: int):
        """The record of ``known`` for the long piece that starts at distance ``d`` (when a
        piece starts there), or of ``known_cut`` when the text it cut is back in front (then
        it is in ``known`` again); else None."""
        rec = self.known.get(d)
        if rec is None and self.known_cut:
            alts = self.known_cut.get(d)
            if alts is not None and d <= self.n:
                # (one read for all: each text is a prefix of the text from d on)
                front = self._window(d, max(0, d - max(len(cut) for _, cut, _ in alts)))
                for i, (cut_rec, cut, _) in enumerate(alts):
                    if front.startswith(cut):
                        rec = cut_rec
                        self._put_cut_alts(d, alts[:i] + alts[i + 1 :])
                        self._put_known(d, rec)
                        break
        return rec

    def _put_known(self, d: int, rec: tuple) -> None:
        """Hold ``rec`` as the ``known`` record of the piece starting at distance ``d``
        (counted ``_LONG`` characters in the budget: see *Size* above)."""
        self.known.put(d, rec, d, self._LONG, self.n)

    def _put_cut_alts(self, d: int, alts: tuple) -> None:
        """Hold the ``known_cut`` alternatives ``alts`` of start ``d``, their texts distinct
        (none: drop them)."""
        if not alts:
            self.known_cut.pop(d)
            return
        top = alts[0][2] if len(alts) == 1 else max(top for _, _, top in alts)
        self.known_cut.put(d, alts, top, self._LONG * len(alts), self.n)

    def _keep_cut_piece(self, start: int, end: int, count: int, state, ghost_start, n: int) -> None:
        """A truncation to ``n`` (before the text goes) cuts off the start of the long piece
        at distances (start, end): keep its record for when the text cut is put back."""
        if start - n <= self._LONG:
            rec = (end, count, state, ghost_start)
            old = self.known_cut.get(start, ()) if self.known_cut else ()
            cut = self._window(start, n)
            if old and old[0][1] == cut and old[0][0] == rec:
                return  # (kept already by this truncation: _forget_known_above, then truncate)
            if not old:
                self._put_cut_alts(start, ((rec, cut, n),))
                return
            alts = (rec, cut, n), *(a for a in old if a[1] != cut)
            self._put_cut_alts(start, alts[: self._CUT_ALTS])

    def _forget_known_above(self, n: int) -> None:
        """A truncation to ``n``, before the text goes: the records it cuts off go to
        ``known_cut``, a state's with its ghost start lowered to n (the ghost its end has
        after the cut, if any, has its bytes); those of ``known_cut`` above n take the
        text cut in front of theirs while they stay within ``_LONG`` of n."""
        if self.known_cut:
            # (first: a record of known cut off below joins the alternatives of its start)
            for d, alts, _ in self.known_cut.drop_above(n):
                # cut further: the record comes back once the longer text is put back (a
                # toggle that cuts off the edit and then the text behind it)
                if d - n <= self._LONG:
                    alts = tuple((rec, cut + self._window(top, n), n) if top > n else (rec, cut, top)
                                 for rec, cut, top in alts)
                    if len({cut for _, cut, _ in alts}) < len(alts):  # (texts cut further became equal)
                        alts = tuple(a for i, a in enumerate(alts) if all(b[1] != a[1] for b in alts[:i]))
                    self._put_cut_alts(d, alts)
        for d, rec, _ in (self.known.drop_above(n) if self.known else ()):
            # a state's bytes are then those of the ghost its end has after the cut, if any (a
            # state cut off with its piece leaves one: _forget_above, truncate); _known_state
            # looks for it
            ghost_start = rec[3] if rec[3] is None or rec[3] <= n else n
            self._keep_cut_piece(d, rec[0], rec[1], rec[2], ghost_start, n)

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
        # (the record stays: a truncation that cuts the piece off keeps the state with it
        # again, whether the state is then the first piece's or saved under a lead's start)
        if bp.token_count != piece[1]:  # never expected
            return False
        kind, state = rec[2]
        if kind == "word":
            self.word = state._replace(bp=bp)
        else:
            self.run = state._replace(bp=bp)
        return True

    def _known_piece_at(self, d: int, front: str, a: int, base: int):
        """(count, end) of the recorded piece starting at distance ``d`` (at ``front[a]``,
        ``front`` starting at distance ``base``) from its record, or None.  The piece gets
        its bytes as a fetched one does: the ghost of its end takes the bytes in front of
        it, or a copy of a saved state's bytes becomes its ghost (a state looked for later
        takes them from there)."""
        piece = self._known_piece(d)
        if not piece:
            return None
        if d - piece[0] > self._LONG:  # (a short piece, recorded for its long read, needs no bytes)
            if self.ghosts and piece[0] in self.ghosts:
                self._ghost_count(d, piece[0], front, a, base)
            elif self.saved:
                self._adopt_saved(d, piece[0], front, a, base)
        return piece[1], piece[0]
