r"""Merged stretches at the front of a :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`.

A prepend may change the split of a long stretch: o200k ``"!"`` in front of
``"!\u0301\u0301" * n`` makes one punctuation piece of what were n mark-led words.  The new
piece's raw count depends on all of its bytes, so the first such edit encodes it:
O(stretch), against the O(stretch) of building the stretch.  After that the edit and its
undo are O(1), with three records, each fixed by distances from the end of the text:

- the boundaries the merge covers are hidden in ``bounds``, not removed, and a truncation
  that splits the piece reveals them (:mod:`bpe_stream.stream.front.boundary_stack`);
- ``ghosts``, end -> (start, bp): ``bp`` is a raw prependable over exactly the text at
  distances (start, end), left by a long piece there; a re-split that meets a piece with
  that end takes it, adding or dropping bytes at its front (``_ghost_count``), and a
  truncation cuts it (``_set_ghost``);
- ``ghost_alts``, (end, start) -> bp: a ghost as it was before a change of its start by
  more than 64 characters (a copy, C speed, once), which the undo takes back in O(1)
  instead of re-adding the part in Python, and which a piece starting a few characters
  from it takes when the ghost itself lies far (``_near_alt``: o200k ``"\r\n.-"`` before
  ``"\r\n" * k + "/\r\n" * m`` makes one piece from ``"."``, two characters before the
  piece the undo kept);
- ``puncts``, e -> (top, z): the characters from distance top down to z are
  ``[^\s\p{L}\p{N}]``, and those from z down to e are ``[\r\n/]`` (cl100k ``[\r\n]``), the
  last of their runs.

Why ``puncts`` gives the piece's end.  A punctuation match (`` ?[^\s\p{L}\p{N}]+`` then
cl100k ``[\r\n]*``, o200k ``[\r\n/]*``) takes the whole ``[^\s\p{L}\p{N}]`` run it starts in
and then the whole newline run after it, so where it ends is a fact about the text after
its first character.  A match that reaches the end of the fetched front inside a recorded
run, with no newline and a character after its first that no word match can hold (o200k:
a non-mark; cl100k: any of the run's class), is a punctuation match and ends at the
record's e (``_merged_count``).  So is a match that reaches the end of the fetched front
inside a recorded tail, when it is a punctuation run that ends in the fetched text and then
tail characters only: its tail runs on to e (o200k ``"'_"`` before ``"\n/\n" * n``, whose
``"/" + [\r\n/]*`` piece sits behind the short piece ``"\n"``).  A record is kept when the
run or the tail is long, and a merge found through a record keeps one for its own piece
(from its punctuation run), so that the next merge finds it in the first text fetched.
The records are kept within a size budget (:mod:`bpe_stream.text.records`), so that
merging one stretch, then others in front of it, then the first again (after truncating
the others away) does not re-encode the first.

Invariant: each record is true of the text (``_forget_above`` cuts or drops it when a
truncation goes below its top or start).

Cost: O(bytes added or dropped at a ghost's front + records) per use; a saved state's
bytes are copied once when a longer piece adopts them (``_adopt_saved``, C speed).
"""

from __future__ import annotations

from ...bpe.prependable import BytesPrependable
from ...pretokenize.unicode import compile_regex

__all__ = ["MergedStretches"]

PUNCT_RUN = compile_regex(r"[^\s\p{L}\p{N}]+")
_TAILS = {True: compile_regex(r"[\r\n/]*"), False: compile_regex(r"[\r\n]*")}
_WITNESS = {True: compile_regex(r"[^\s\p{L}\p{N}\p{M}]"), False: compile_regex(r"[^\s\p{L}\p{N}]")}


class MergedStretches:
    """Mixin of :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`: its ``ghosts`` and ``puncts``."""

    __slots__ = ()

    def _piece_bp(self, start: int, end: int, text: str) -> BytesPrependable:
        """A raw prependable over the piece ``text`` at distances (``start``, ``end``): the
        ghost of that piece when there is one (the re-split counted it with it), else a new one."""
        bp = self._take_ghost(start, end)
        if bp is not None:
            return bp
        bp = BytesPrependable(self.enc.bpe)
        bp.prepend(text.encode("utf-8"))
        return bp

    def _take_ghost(self, start: int, end: int):
        """The ghost over exactly the text at distances (``start``, ``end``), taken out of
        ``ghosts`` (a piece's state that owns it keeps it true), or None."""
        ghost = self.ghosts.get(end)
        if ghost is None or ghost[0] != start:
            return None
        self.ghosts.pop(end)
        return ghost[1]

    def _put_ghost(self, end: int, start: int, bp) -> None:
        """Keep ``bp`` (over the text at distances (start, end)) as the ghost of that end."""
        self.ghosts.put(end, (start, bp), start, start - end, self.n)

    def _adopt_saved(self, d: int, e: int, front: str, a: int, n: int):
        """Count of the long piece at distances (``d``, ``e``) from a saved state of a piece
        with the same end that it extends at the front (text put in front of a long piece
        joined it): a copy of the state's raw prependable takes the new bytes and becomes the
        piece's ghost; the state stays (its piece comes back when a truncation drops the new
        text).  A state of a longer piece with the same end that starts in ``front`` above
        ``d`` gives the count of its suffix from its raw prependable (``counts``), with no
        copy and no ghost: the state stays whole.  None without one.  ``front`` starts at
        distance ``n``.  O(bytes added or skipped + saved states), and for a state below ``d``
        a copy of the piece's bytes (C speed), once: later re-splits take the ghost."""
        # the state nearest d (a state of a longer piece with the same end may lie far below,
        # from before text was put in front of it).  One that starts above d, in the fetched
        # text, is of a piece the new one is a suffix of: the text in front split in another
        # phase and took its first characters (o200k "\u0301" + "\r/!\u0301\u0301" * 59 +
        # "\r/!\u0301" before "!" * k: the run's state took the last part, "/!\u0301" + "!" *
        # k, and the whole re-split makes the piece "!\u0301" + "!" * k, which was encoded
        # from its bytes in Python on every such prepend; a copy of the state instead was
        # O(piece) at C speed on every one).
        found = self.saved.starting_in(n - len(front), n)
        for key, (word, run, _) in sorted(found, key=lambda item: abs(item[0][0] - d)):
            if key[1] != e:
                continue
            bp = word.bp if word is not None else run.bp if run is not None and run.start == key[0] else None
            if bp is None:
                continue
            if d < key[0]:
                return bp.counts[len(bp) - len(front[n - key[0] : a].encode("utf-8"))]
            bp = bp.copy()
            if d > key[0]:
                bp.prepend(front[a : n - key[0]].encode("utf-8"))
            self._put_ghost(e, d, bp)
            return bp.token_count
        return None

    def _ghost_count(self, d: int, e: int, front: str, a: int, n: int):
        """Count of the piece at distances (``d``, ``e``), starting at ``front[a]`` (``front``
        starts at distance ``n``), from the ghost with that end: it takes the bytes in front
        of it, or gives up those before ``d`` (O(difference)); None without one or when the
        difference is not in ``front``.  A long difference keeps a copy of the ghost before
        it (``ghost_alts``, C speed, once), which an undo takes back in O(1)."""
        ghost = self.ghosts.get(e)
        alts = self.ghost_alts
        if alts:
            alt = alts.pop((e, d))
            if alt is not None:
                alt = d, alt
            elif ghost is None or abs(d - ghost[0]) > self._LONG:
                # one that lies a few characters from d, when the ghost lies far (o200k
                # "\r\n.-" before "\r\n" * k + "/\r\n" * m makes one piece from ".", and
                # the undo kept the piece from the newline run's start, two characters on)
                alt = self._near_alt(d, e, n - len(front), n)
            if alt is not None:
                if ghost is not None:
                    alts.put((e, ghost[0]), ghost[1], ghost[0], ghost[0] - e, self.n)
                ghost = alt
        if ghost is None or n - ghost[0] > len(front) or ghost[0] > n:
            return None
        start, bp = ghost
        if abs(d - start) > self._LONG and not (start == self.old_front and d > start) and not any(
                end == e for (end, _), _ in alts.starting_in(start - self._LONG, start + self._LONG)):
            # (not when an alternative lies within _LONG of that start already, as the ghost
            # that a near one replaced does: a copy every pass made a toggle O(piece) at C
            # speed, o200k "\u20ac?" * 100 before "\n/" * k; nor when the ghost started at
            # the front before the prepend under way and takes only text it put in front: the
            # undo is a truncation of that text, which cuts the ghost back in O(removed), and
            # a copy on every such prepend of more than _LONG characters was O(piece), o200k
            # "a" * 70 before "\u4e2d" * k + "A" * k + "a" * k, cut and put back)
            alts.put((e, start), bp.copy(), start, start - e, self.n)
        if d > start:
            bp.prepend(front[a : n - start].encode("utf-8"))
        elif d < start:
            bp.truncate(len(bp) - len(front[n - start : a].encode("utf-8")))
        self._put_ghost(e, d, bp)
        return bp.token_count

    def _near_alt(self, d: int, e: int, lo: int, n: int):
        """(start, bp) of the ghost alternative with end ``e`` whose start is nearest ``d``
        and in [``lo``, ``n``] (the characters between are in the fetched text, and putting
        them in front or cutting them costs no more than fetching them did), taken out of
        ``ghost_alts``; or None.  O(log k + alternatives there)."""
        alts = self.ghost_alts
        best = None
        for (end, start), bp in alts.starting_in(lo, n):
            if end == e and (best is None or abs(start - d) < abs(best[0] - d)):
                best = start, bp
        if best is not None:
            alts.pop((e, best[0]))
        return best

    def _cut_to(self, bp, start: int, n: int):
        """``bp`` (over the text from distance ``start`` down) without its bytes above
        distance ``n``, before a truncation to ``n``: O(start - n)."""
        gone = self._front(self.n - n)[self.n - start :]
        bp.truncate(len(bp) - len(gone.encode("utf-8")))
        return bp

    def _cut_alt(self, end: int, start: int, bp, n: int) -> None:
        """Keep the ghost alternative ``bp`` (over the text at distances (start, end)) cut to
        (n, end), before a truncation to ``n``."""
        self.ghost_alts.put((end, n), self._cut_to(bp, start, n), n, n - end, self.n)

    def _set_ghost(self, start: int, end: int, bp, n: int) -> None:
        """Keep ``bp`` (over the text at distances (start, end)) cut to (n, end) as a ghost."""
        self._put_ghost(end, n, self._cut_to(bp, start, n))

    def _note_punct(self, front: str, a: int, b: int, n: int) -> bool:
        """Record the long [^\\s\\p{L}\\p{N}] run of the match ``front[a:b]`` (``front``
        starts at distance ``n``, see the module doc); False when the match does not end with such a
        run and its newline run."""
        if self.run_re is None:
            return False
        s0 = a + (front[a] == " ")
        # (unbounded: an o200k word of marks is such a run too, but one that may go on after
        # the match, as in "\u0301" * 65 + ".e", where "." ends the word)
        q = PUNCT_RUN.match(front, s0)
        if q is None or q.end() > b:
            return False
        if _TAILS[self.wc[0].o200k].match(front, q.end()).end() != b:
            return False
        if q.end() - s0 <= self._LONG and b - q.end() <= self._LONG:
            return False  # neither the run nor its newline (o200k: and slash) run is long
        self.puncts.put(n - b, (n - s0, n - q.end()), n - s0, b - s0, self.n)
        return True

    def _merged_count(self, front: str, a: int, b: int, n: int):
        """(count, end distance) of the piece whose match ``front[a:b]`` runs past the fetched
        text ``front`` (which starts at distance ``n``), when ``puncts`` and ``ghosts`` give
        them (see the module doc); else (None, None)."""
        x = n - b + 1  # distance of the start of the last fetched character
        # (a record holding x, if any, is usually the one with the lowest top at or above x:
        # records of different pieces overlap only where one's tail holds a slash that is
        # another's punctuation)
        rec = self.puncts.lowest_top_from(x)
        if rec is None:
            return None, None
        e, (top, z), _ = rec
        if not e < x <= top:
            return None, None
        o200k = self.wc[0].o200k
        s0 = a + (front[a] == " ")
        if x > z:
            # in the recorded [^\s\p{L}\p{N}] run: a match with no newline and a character no
            # word match can hold is a punctuation match, which takes the whole run and tail
            text = front[a:b]
            if "\r" in text or "\n" in text or _WITNESS[o200k].search(front, a + 1, b) is None:
                return None, None
        else:
            # in the recorded tail ([\r\n/]* or [\r\n]*, which ends at e): a match that is a
            # punctuation run ending inside the fetched text, then tail characters up to its
            # end, is a punctuation match whose tail runs on to e
            q = PUNCT_RUN.match(front, s0)
            if q is None or q.end() >= b or _TAILS[o200k].match(front, q.end()).end() != b:
                return None, None
            z = n - q.end()
        count = self._ghost_count(n - a, e, front, a, n)
        if count is None and self.saved:
            count = self._adopt_saved(n - a, e, front, a, n)
        if count is not None and n - s0 > top:
            # the merged piece's own record, from its punctuation run: the next merge into
            # the same stretch finds it from the first characters fetched (o200k "!" before
            # "\n" * k + "/\n\n" * m: the record of the "/" piece lies k characters in)
            self.puncts.put(e, (n - s0, z), n - s0, n - s0 - e, self.n)
        return count, e
