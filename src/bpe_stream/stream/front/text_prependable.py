r"""Token counts of a ``str`` growing at its front under tiktoken's pre-split (the text
engine of :class:`~bpe_stream.stream.prependable.PrependableEncoder`).

Invariant: the pieces of the text are kept in ``bounds`` as boundaries measured from the
*end* of the text (which prepending does not move), each with the token count of the text
after it; the front (distance ``n``) is always one of them, and ``bounds.last_suf()`` is
the token count.  Boundaries may be missing inside a jumped periodic stretch or a digit
run with a state (``gaps``), never at the front, nor at the end of the first piece unless
a digit-run state stands for the run's groups.  Below a *graft* (a boundary of an earlier
split that a re-split synced on, see :mod:`bpe_stream.stream.front.alts`) the entries are those of
the other split: each is still followed by the end of its own first piece and has the
count of the text after it, which is all a re-split or a truncation reads.

Why the re-split is exact.  Prepending ``u`` re-splits from the new front until a match
starts on a known boundary: from there both splits are identical, because the patterns
have no look-behind, so ``count = new pieces + suffix count at that boundary``
(``_resync``).  A match cut short by the end of the fetched text is final only under
text/appendable.py's stability rule (see ``_resync``).  A truncation keeps the boundaries below
the cut and re-splits the new first piece the same way.

Cost: O(prepended + the pieces re-split before re-synchronising), typically one or two
pieces.  A long first piece would make that O(piece) per edit, so it keeps a *state* that
answers edits at its front in O(1) per character, one module per kind of piece:

- :mod:`bpe_stream.stream.front.words`: a word (letters and marks, with an optional lead);
- :mod:`bpe_stream.stream.front.runs`: a long one-class run or stretch (whitespace, newlines,
  punctuation), edited through a bounded proxy;
- :mod:`bpe_stream.stream.front.digits`: a digit run, its three-digit windows counted by phase.

A state is saved (``saved``, keyed by its piece's distances) when other pieces are put in
front of its piece, and restored when a truncation makes the piece first again: a piece's
text is fixed by its distances for as long as no truncation goes below its start (then
the state is dropped, or cut with the piece when the rest is known to stay one piece).
Three more modules keep the re-split itself bounded when an edit changes the split of a
long stretch: :mod:`bpe_stream.stream.front.merges` (a prepend that merges a stretch into one
piece, and its undo), :mod:`bpe_stream.stream.front.periods` (a prepend that shifts every
piece of a periodic stretch) and :mod:`bpe_stream.stream.front.alts` (one that shifts the pieces
of a stretch that is not periodic, and its undo: the boundaries of the earlier split are
kept to sync on).  :mod:`bpe_stream.stream.front.text` holds the text itself.

Long pieces without a state, or whose state a truncation cut off, are recorded by start
(:mod:`bpe_stream.stream.front.known`), so that a re-split that meets one does not fetch it to
its end.

Every record of these modules is a fact about the text below some distance, and a
truncation below it cuts or drops the record first (``_forget_above``).

Surrogates: a low surrogate starting a prepend is joined with a high surrogate ending the
next one, as tiktoken joins the pair in the whole text.
"""

from __future__ import annotations

from ...bpe.checks import _check_len
from ...bpe.prependable import BytesPrependable
from ...pretokenize.fast_split import (
    LO,
    O200K_FIRST_RUN,
    O200K_FIRST_TAIL,
    OL,
    UP,
    fast_split_for,
)
from ...pretokenize.long_pieces import _COMPRESSIBLE, run_regex_for
from ...pretokenize.patterns import SPACE_CHARS, SPACE_SET
from ...pretokenize.unicode import compile_regex
from ...text.input import fix_surrogates
from ...text.piece_encoder import _CACHEABLE_PIECE_LEN, whole_longer_than
from ...text.records import DistanceRecords
from .alts import DistanceMap, EarlierSplits
from .boundary_stack import BoundaryStack
from .digits import TRAILING_DIGITS, DigitRuns
from .known import KnownPieces
from .merges import MergedStretches
from .periods import PeriodicJumps
from .runs import _ANCHOR_REACH, RunPieces
from .text import FrontText
from .words import WordPieces

__all__ = ["TextPrependable"]

_WORD_REST = compile_regex(r"[\p{L}\p{M}]*")  # what a word match holds after its first character
_LETTER = compile_regex(r"\p{L}")
_WHITESPACE = compile_regex(r"\s*")


class TextPrependable(WordPieces, RunPieces, DigitRuns, MergedStretches, PeriodicJumps, KnownPieces, EarlierSplits,
                      FrontText):
    __slots__ = ("enc", "pattern", "chunks", "bottoms", "n", "bounds", "pending", "word", "wc",
                 "run", "run_re", "mergeable", "dig", "saved", "just_saved", "old_front", "ghosts", "ghost_alts",
                 "puncts", "tails", "gaps", "periods", "blanks", "known", "known_cut", "alts", "grafts")

    # A first piece longer than this gets a state (front/words.py, front/runs.py, front/digits.py), and
    # a re-split keeps the raw prependable of a longer piece it meets (front/merges.py).
    _LONG = 64

    def __new__(cls, enc=None):
        # Pieces of at most _LONG characters are counted through the encoding (its piece
        # cache), longer ones by the states with plain BPE.  A vocabulary with whole-piece
        # tokens (tiktoken emits one for a piece equal to it, which BPE may not build) gets
        # _WholeLong, whose _LONG is at least the longest one's byte length, so a re-split
        # counts every piece that may equal one through the encoding (O(that length) per
        # edit where it is longer than 64), and whose check covers the states' pieces.
        whole_max = whole_longer_than(enc, 0) if enc is not None and cls is TextPrependable else 0
        if whole_max:
            cls = _with_long(max(TextPrependable._LONG, whole_max), whole_max)
        return object.__new__(cls)

    def __reduce__(self):
        return (TextPrependable, (self.enc,), self.__getstate__())

    def __init__(self, enc):
        self.enc = enc
        self.pattern = enc._pattern
        self.chunks: list[str] = []  # chunks[-1] is the front (see front/text.py)
        self.bottoms: list[int] = []  # the distance at which each chunk ends
        self.n = 0
        # piece boundaries as distances from the end, each with the count of the text after it
        self.bounds = BoundaryStack()
        # a lone low surrogate that began the last prepend (stored as U+FFFD): joined with a
        # high surrogate ending the next prepend, as tiktoken joins the pair in the whole text
        self.pending = ""
        # Long first word grown at its front one letter at a time (bundled patterns): ``word`` =
        # (distance of its end, raw BytesPrependable of its bytes), see _prepend_to_word.
        self.word = None

        fast = fast_split_for(enc.pat_str)
        self.wc = None if fast is None else (fast, (LO, UP, OL) if fast.o200k else (LO,), LO)
        # Long first piece holding a long run of one compressible class (whitespace, newline,
        # punctuation runs), see _edit_run.
        self.run = None
        self.dig = None  # long digit run at the front, see _prepend_digits
        # (start, end) distances of a long first piece -> its (word, run, dig) state, kept when a
        # prepend puts other pieces in front of it, restored when truncation makes it first again
        self.saved = DistanceRecords()
        self.just_saved = None  # key of a word state saved by the prepend under way
        # the front's distance before the prepend whose re-split is under way, else None: a
        # ghost that grows from there by the text put in front needs no copy (_ghost_count)
        self.old_front = None
        # Records for a prepend that changes the split of a long stretch (see _resync), each
        # kind in a DistanceRecords (kept within a size budget, dropped by truncation): ghosts,
        # end -> (start, raw prependable over the text at distances (start, end)), left by
        # long pieces (cut with them by truncations); puncts,
        # e -> (top, z): the characters from distance top down to z are [^\s\p{L}\p{N}] and
        # those from z down to e are [\r\n/], the last of their runs (so a punctuation match
        # through the first run ends at e); tails: run-state tail parts of such stretches, by
        # (z, piece end) (see _check_run).  The boundaries a merge covers are hidden in
        # ``bounds`` and come back when a truncation splits the piece.
        self.ghosts = DistanceRecords()
        # (end, start) -> a ghost's bp over the text at distances (start, end) before a long
        # change of its start (see _ghost_count): the undo takes it back
        self.ghost_alts = DistanceRecords()
        self.puncts = DistanceRecords()
        self.tails = DistanceRecords()
        # start -> end distances of the jumps over periodic stretches (see _jump) and of
        # digit-run states: the boundaries between are not kept, and a truncation to such a
        # start re-splits unless the saved state comes back
        self.gaps = DistanceRecords()
        # p -> ([(bottom, top), ...], size): the character at each distance d with bottom + p <
        # d <= top equals the one at d - p (the periodic stretches that were jumped, see _jump)
        self.periods = DistanceRecords()
        self.blanks = DistanceRecords()  # see _blank_end
        # long pieces by start, and those a short truncation cut off (see front/known.py)
        self.known = DistanceRecords()
        self.known_cut = DistanceRecords()
        # boundaries of earlier splits that re-splits discarded, and those grafted back (see
        # front/alts.py)
        self.alts = DistanceMap()
        self.grafts = DistanceMap()
        self.run_re = run_regex_for(enc.pat_str)
        self.mergeable = _COMPRESSIBLE.get(self.run_re, frozenset())

    def __getstate__(self):
        return {"enc": self.enc, "text": self.get_text(), "pending": self.pending}

    def __setstate__(self, state):
        self.__init__(state["enc"])
        self.prepend(state["text"])
        self.pending = state.get("pending", "")

    def __len__(self) -> int:
        return self.n

    @property
    def token_count(self) -> int:
        return self.bounds.last_suf()

    def get_text(self) -> str:
        return "".join(reversed(self.chunks))

    def tokens(self) -> list[int]:
        return self.enc.encode_ordinary(self.get_text())

    def copy(self):
        new = object.__new__(type(self))
        new.enc, new.pattern, new.n, new.pending = self.enc, self.pattern, self.n, self.pending
        new.wc, new.run_re, new.mergeable = self.wc, self.run_re, self.mergeable
        new.run = None if self.run is None else self.run._replace(bp=self.run.bp.copy())
        new.dig = None if self.dig is None else list(self.dig)
        new.word = None if self.word is None else self.word._replace(bp=self.word.bp.copy())
        new.saved = DistanceRecords()
        new.just_saved = None
        new.old_front = None
        new.ghosts, new.puncts, new.tails = DistanceRecords(), DistanceRecords(), DistanceRecords()
        new.ghost_alts = DistanceRecords()
        new.gaps = self.gaps.copy()
        if self.dig is not None:
            new._gap(self.n, self.dig[0])  # the run's groups are not kept
        new.periods = self.periods.copy(lambda record: (list(record[0]), record[1]))  # (changed in place)
        new.blanks = self.blanks.copy()
        new.known = self.known.copy()
        new.known_cut = self.known_cut.copy()
        new.alts = self.alts.copy()
        new.grafts = self.grafts.copy()
        new.chunks = list(self.chunks)
        new.bottoms = list(self.bottoms)
        new.bounds = self.bounds.copy()
        return new

    def prepend(self, s: str) -> None:
        if not s:
            return
        if self.pending:
            pending = self.pending
            if "\ud800" <= s[-1] <= "\udbff":
                self.truncate(self.n - 1)  # drop the U+FFFD that stood for the lone low surrogate
                s = s + pending
            self.pending = ""
        pending = s[0] if "\udc00" <= s[0] <= "\udfff" else ""
        s = fix_surrogates(s)
        self.pending = pending
        if self.word is not None:
            s = self._prepend_to_word(s)
            if not s:
                return
        # A run state takes what is put in front of its piece in parts of at most _CTX
        # characters, the last part first (each decided on a bounded proxy): a longer prepend
        # re-split the front and fetched the piece whole to find its state again, so
        # truncating 70 characters off "\n" * n and putting them back read all n on every
        # pass.
        while self.run is not None and s:
            part = s[-self._CTX :]
            if not self._edit_run(part, 0) and not (self._restate_as_stretch() and self._edit_run(part, 0)):
                break
            s = s[: -len(part)]
        if not s:
            return
        if self.dig is not None:
            # the digits ending s join the run (\p{N}{1,3} is the only alternative taking
            # digits, so the run's start is a boundary whatever precedes it)
            m = TRAILING_DIGITS.search(s)
            if m is not None and self._prepend_digits(s[m.start() :]):
                s = s[: m.start()]
                if not s:
                    return
        self._save_state()
        self._push_text(s)
        self.old_front = self.n
        self.n += len(s)
        try:
            self._resync()
        finally:
            self.old_front = None
        self.just_saved = None
        self._take_state()

    def _take_state(self) -> None:
        """Give the (new) first piece its state after a re-split: a saved one, else one looked
        for, so that the edits after this one do not scan it again, unless the piece is known
        to have none (``known``: the checks would scan it again for nothing)."""
        if self._restore_state():
            return
        bounds = self.bounds
        n = self.n
        piece = None
        if bounds.has(2) and n - bounds.last(2) > self._LONG:
            piece = bounds.last(2), bounds.last_suf() - bounds.last_suf(2)
            if self._known_state(piece):
                return
        self._check_word()
        self._check_run()
        self._check_digits()
        if piece is None:
            return
        # The state found outlives the piece being first (a lead put in front of a word moves
        # it to ``saved`` under the lead's start; an edit of a run may drop it): a truncation
        # that cuts the piece off keeps it with the record, whose bytes are then the ghost
        # left at its end (front/known.py).
        run = self.run
        if self.word is not None:
            state, ghost_start = ("word", self.word._replace(bp=None)), n
        elif run is not None and (run.start, run.end) == (n, piece[0]):
            state, ghost_start = ("run", run._replace(bp=None)), n
        elif run is None and self.dig is None:
            state = ghost_start = None  # (no state applies)
        else:
            return
        self._put_known(n, (*piece, state, ghost_start))

    def _save_state(self) -> None:
        """Keep the long first piece's state for when truncation makes it first again."""
        if (self.word or self.run or self.dig) is None or not self.bounds.has(2):
            return
        # a run state may belong to a piece after the first (see _edit_run)
        key = (self.run.start, self.run.end) if self.run is not None else (self.n, self.bounds.last(2))
        self._save(key, (self.word, self.run, self.dig))
        if self.dig is not None:
            self._gap(key[0], key[1])  # the run's groups are not kept (the state may be lost)
        self.just_saved = key if self.word is not None else None
        self.word = self.run = self.dig = None

    def _save(self, key: tuple, state: tuple) -> None:
        """Keep the (word, run, dig) ``state`` of the piece at distances ``key``."""
        self.saved.put(key, state, key[0], key[0] - key[1], self.n)

    def _gap(self, start: int, end: int) -> None:
        """Record that the boundaries between distances ``start`` and ``end`` are not kept."""
        self.gaps.put(start, end, start, 0, self.n)

    def _restore_state(self) -> bool:
        # A piece's text is fixed by its distances from the end (prepending and truncating
        # only change the front), so a saved state is valid whenever its piece is first again.
        bounds = self.bounds
        if not self.saved or not bounds.has(2):
            return False
        key = (self.n, bounds.last(2))
        state = self.saved.get(key)
        if state is None and bounds.has(3) and self.n - bounds.last(2) <= self._LONG:
            # the second piece's run state (a run state need not be the first piece's), when
            # the first piece is short: _edit_run re-splits the pieces in front of the run's
            # piece on a bounded head, and a long first piece needs its own state (the run
            # state of spaces behind a long word took the word's place, and every edit in
            # front of the word fetched it to its end)
            key = (bounds.last(2), bounds.last(3))
            state = self.saved.get(key)
            if state is not None and state[1] is None:
                state = None
        if state is None:
            return False
        self.saved.pop(key)
        self.word, self.run, self.dig = state
        return True

    def _set_front(self, d: int, count: int) -> None:
        """Replace the front boundary by one at distance ``d`` from the end, the first piece
        (up to the boundary after it) holding ``count`` tokens."""
        self.bounds.set_front(d, count)

    def _forget_above(self, n: int) -> None:
        """A truncation to length ``n``, before the text goes: the records about the text at
        distances beyond ``n`` go or are cut to ``n`` (those about the text below stay true)."""
        # the text at distances beyond n is gone: later prepends put other text there, and a
        # piece there with the same distances must not get the old piece's state back; a
        # word piece cut by the truncation keeps its state when the rest stays one piece
        # (each store is asked only when it holds records: most are empty, and a call costs)
        for key, (word, run, _), _ in (self.saved.drop_above(n) if self.saved else ()):
            if key[1] >= n:
                continue
            own_run = word is None and run is not None and (run.start, run.end) == key
            if own_run and run.absorbs:
                self._save((n, key[1]), (None, self._cut_absorbing_run(run, n), None))
                continue
            if word is not None:
                cut = self._cut_word(word, key[0], n)
                if cut is not None:
                    self._save((n, key[1]), (cut, None, None))
                    continue
            elif not own_run:
                continue
            if n - key[1] > self._LONG and key[1] not in self.ghosts:
                # the rest is not known to be one piece (a word's may join the text after it,
                # o200k "a" + W' where W' + "Ab" was the piece; a run's may be another kind of
                # piece), but its bytes are still the text's: a ghost, for the next piece with
                # that end
                self._set_ghost(key[0], key[1], (word or run).bp, n)
        for e, (top, z), _ in (self.puncts.drop_above(n) if self.puncts else ()):
            # (n == z: the tail alone, for a punctuation run put in front again; a cut into the
            # tail, n < z, leaves the rest of the tail, [\r\n/]* up to e, kept while long: o200k
            # "''" before "\n/\n" + "\n/" * k, after a truncation into the tail of a merged
            # piece, fetched the piece from the next "/" to its end)
            if n >= z or n - e > self._LONG:
                self.puncts.put(e, (n, min(n, z)), n, n - e, self.n)
        if self.tails:
            self.tails.drop_above(n)
        for p, (spans, size), _ in (self.periods.drop_above(n) if self.periods else ()):
            # the text above n goes; below it the intervals stay true
            self._cut_periods(p, spans, size, n)
        for end, (start, bp), _ in (self.ghosts.drop_above(n) if self.ghosts else ()):
            if n > end:
                self._set_ghost(start, end, bp, n)
        for (end, start), bp, _ in (self.ghost_alts.drop_above(n) if self.ghost_alts else ()):
            if n - end > self._LONG:
                # what stays below n is still a copy of that text's bytes: o200k "!" before
                # "\n" * k + "/" * m makes one piece of both runs, and a cut of 70 into the
                # newline run and its undo dropped the copy the next "!" took (O(cut) each)
                self._cut_alt(end, start, bp, n)
        self._forget_known_above(n)
        self._forget_alts_above(n)
        if self.gaps:
            self.gaps.drop_above(n)
        for lo, _, top in (self.blanks.drop_above(n) if self.blanks else ()):
            if n > lo:  # the rest of the blank is still one
                self.blanks.put(lo, lo, n, n - lo, self.n)

    def _cut_absorbing_run(self, run, n: int, bp=None):
        """The state ``run`` of a whitespace piece that takes whitespace in front of it
        (``RunState.absorbs``), cut to what is left of the piece by a truncation to ``n``
        (before the text goes).  What is left is one piece (front/runs.py); its anchor must lie
        in it (a one-class run now starts at n; a stretch's is looked for from n).  With no
        anchor within reach of the new front (a long newline run starts what is left) it
        becomes the whitespace state, without a cut: that still gives the piece and takes
        whitespace edits at its front (the state was dropped, and rebuilt from an older one
        by putting the newline run's bytes in front, in Python).  For the first piece's
        state and for a saved one alike.  ``bp``: the rest's bytes, when given (else
        ``run.bp`` cut)."""
        hi = run.hi
        if hi is not None and n < hi:
            hi = self._anchor_from(run, n, self._window(n, max(0, n - _ANCHOR_REACH(-4) - 2)), 0)
        if bp is None:
            bp = run.bp
            bp.truncate(len(bp) - len(self._window(run.start, n).encode("utf-8")))
        if hi is None:
            return run._replace(start=n, hi=None, d0=None, tailpart=None, group=None, bp=bp)
        return run._replace(start=n, hi=hi, bp=bp)

    def _known_whitespace_under(self, n: int):
        """Before a truncation to ``n`` into P, the long first piece of the run state: the
        state of a whitespace piece W recorded in ``known`` (one that grew at its front into
        P, see _edit_run) that starts above n and ends with P, with its start set, or None.
        What is left of P is then what is left of W (P ends with W), one piece, as for
        _cut_absorbing_run.  O(log records)."""
        run = self.run
        if run.absorbs or not self.known:
            return None
        for d, rec in self.known.starting_in(n + 1, run.start - 1):
            state = rec[2]
            if rec[0] == run.end and isinstance(state, tuple) and state[0] == "run" and state[1].absorbs:
                return state[1]._replace(start=d)
        return None

    def _cut_into_known_whitespace(self, n: int, inner) -> bool:
        """A truncation to ``n`` (text not yet gone) that cuts P, the run state's piece, inside
        the whitespace piece W whose state ``inner`` _known_whitespace_under found: the rest
        is W's rest, one piece with P's end, and its state is W's cut to n with P's bytes cut
        at its front.  O(dropped + anchor reach), instead of re-splitting the rest whole
        (o200k "'" + "\u20ac" * k put in front of a newline run, a punctuation piece with
        the run as its tail, and cut into the run: the re-split and the state checks read
        the run on every pass).  True when done."""
        run, bounds = self.run, self.bounds
        k = bounds.find(run.start)
        if k is None or bounds.prev_dist(k) != run.end:
            # (P, which may lie behind short pieces the cut removes too.)  P need not be a
            # piece of the split now: a saved state of P, from before the text in front split
            # in another phase, and W a piece again ("\n/!\u0301\u0301" * 20 put in front of a
            # newline run makes one punctuation piece of the last unit and the run; text put
            # in front of that shifts the units' phase, so that "!\u0301\u0301" is a word and
            # the run its own piece, and a cut into the run re-split the run's rest and read
            # it for a state on every pass).  The cut goes into W, whose rest is the same,
            # when W is the piece that holds n; P's bytes are W's rest's and more, as before.
            k = bounds.find(inner.start)
            if k is None or bounds.prev_dist(k) != inner.end:
                return False
        # (the anchor is looked for below n, which the cut keeps)
        self.run = self._cut_absorbing_run(inner, n, self._cut_to_state_piece(run, n))
        return True

    def truncate(self, n: int) -> None:
        n = _check_len(n, self.n)
        if n == self.n:
            return
        saved = self.saved
        # A saved digit-run state of a piece the cut goes into (text was put in front of a long
        # digit run): truncate to the run's start first, which gives the state back, so that
        # the cut inside the run subtracts windows (_truncate_digits) instead of re-splitting it.
        start = None
        if saved and saved.top() > n:
            start = max((key[0] for key, state in saved.starting_in(n + 1, self.n - 1)
                         if state[2] is not None and key[1] < n), default=None)
        if start is not None:
            self.truncate(start)
        state_end = (self.word.end if self.word is not None else self.run.end if self.run is not None
                     else self.dig[0] if self.dig is not None else n)
        if n <= state_end and saved and saved.top() > n:
            # A saved run state of the piece the cut goes into (other pieces were put in front
            # of it): the cut is decided on its proxy, as for a state of the first piece.  The
            # state of a piece in front that the cut takes whole goes (a long word or digit run
            # in front of a long run: the run's state was lost, and the cut and every edit
            # after it read the run whole).
            for key, state in saved.starting_in(n + 1, self.n):
                run = state[1]
                if state[0] is None and run is not None and key[1] < n and (run.start, run.end) == key:
                    saved.pop(key)
                    self.run = run
                    self.word = self.dig = None
                    break
        # (looked for before _forget_above moves the records that the cut goes below)
        inner = self._known_whitespace_under(n) if self.run is not None and n > self.run.end else None
        self._forget_above(n)
        if self.dig is not None and self._truncate_digits(n):
            return
        if self.word is not None and self._truncate_word(n):
            return
        run = self.run
        if run is not None and ((inner is not None and self._cut_into_known_whitespace(n, inner))
                                or self._cut_to_newline_tail(n) or self._cut_into_whitespace_piece(n)
                                or self._edit_run("", self.n - n)):
            return
        self.pending = ""
        if run is not None and run.start <= n:
            # a run state of a piece behind the first one (see _edit_run) outlives the cut
            self._save((run.start, run.end), (None, run, None))
        elif run is not None and n > run.end and run.absorbs:
            # the state, cut to what is left, comes back below
            self._save((n, run.end), (None, self._cut_absorbing_run(run, n), None))
        elif run is not None and n > run.end:
            # the cut piece's bytes, kept in case a prepend makes it one piece again, with the
            # state when the text cut goes back (the piece may lie behind the first one, see
            # _edit_run: o200k "\u0301\u02b0" before " '" + "\r\n" * k + "/\n" * m)
            k = self.bounds.find(run.start)
            if k is not None and self.bounds.prev_dist(k) == run.end:
                self._keep_cut_piece(run.start, run.end, run.bp.token_count, ("run", run._replace(bp=None)), n, n)
            self._set_ghost(run.start, run.end, run.bp, n)
        word = self.word
        if (word is not None and n - word.end > self._LONG and word.end not in self.ghosts
                and self.bounds.last(2) == word.end and self.bounds.last() == self.n):
            # so are a cut word's whose rest is not known to be one piece (o200k marks before
            # upper-case letters: the rest is the marks only when a lower-case letter is cut off)
            self._keep_cut_piece(self.n, word.end, word.bp.token_count, ("word", word._replace(bp=None)), n, n)
            self._set_ghost(self.n, word.end, word.bp, n)
        self.word = None
        self.run = None
        self.dig = None
        self._drop_front(self.n - n)
        self.n = n
        bounds = self.bounds
        # (a merged piece cut here gives back the boundaries it hid: see BoundaryStack)
        bounds.drop_above(n)
        gaps = self.gaps
        if gaps:
            if (n in gaps and bounds.last() == n and bounds.has(2) and gaps[n] == bounds.last(2)
                    and (n, gaps[n]) not in saved):
                # the first piece is not known where a jump (or a digit-run state without its
                # saved state: copies do not keep them) starts: re-split it
                bounds.pop()
        if self.grafts and n in self.grafts and bounds.last() == n:
            bounds.pop()  # nor at a graft (front/alts.py): the entry below is the other phase's
        top = bounds.last()
        if top != n:
            state = self.saved.get((n, top))
            if state is not None and state[0] is not None:
                # a saved word state says the first piece ends at the last kept boundary
                self.saved.pop((n, top))
                bounds.push(n, bounds.last_suf() + state[0].bp.token_count)
                self.word = state[0]
                return
            run = None if state is None else state[1]
            if run is not None and run.start == n and run.end == top:
                # so does a saved run state of that piece (see _save_state)
                self.saved.pop((n, top))
                bounds.push(n, bounds.last_suf() + run.bp.token_count)
                self.run = run
                return
            self._resync()
        # the new first piece may be long and have no state (it had none while behind others,
        # or a merge took its state): look for one, as a prepend does
        self._take_state()

    _FETCH = 256  # characters of the front fetched first by a re-split (then 4x as needed)

    def _resync(self) -> None:
        n = self.n
        bounds = self.bounds
        # boundaries beyond the previous front are no longer valid
        pieces = self.enc._pieces
        if self.pattern is None:
            bounds.pop_above(0)
            bounds.push(n, len(self.enc._encode_piece(self.get_text())) if n else 0)
            return
        # A word state just saved for the old first piece W (distances (w0, w1)): when a new
        # piece ends at w0 - 1, W minus its lead is the next piece (see _saved_word_count).
        just = self.just_saved
        o200k = self.wc is not None and self.wc[0].o200k
        k = self._FETCH
        head = []  # pieces before the text fetched now (re-split before a jump or a skip)
        jumps = []  # indices in head of the jumps over periodic stretches (see _jump)
        looked = False  # whether a period was looked for early in a fetch, in vain
        base = n  # distance of front[0]: the front, or where the re-split goes on
        blank_from = None  # where the trailing whitespace of a fetch began (see _note_blank)
        waited = None  # start of a word match that stopped a fetch by reading into its upper tail
        alts = self.alts  # boundaries of earlier splits, where the re-split syncs too (front/alts.py)
        while True:
            front = self._front(k) if base == n else self._window(base, max(0, base - k))
            if blank_from is not None and self._note_blank(front, base, blank_from):
                blank_from = None
            # A match may be cut short by the end of the fetched front (when it is not the
            # whole text): one that ends there, within 4 characters of it (a contraction,
            # a look-ahead), before whitespace up to it (\s*[\r\n]+ backtracks to the
            # last newline it has seen) or, o200k, before upper-word characters up to it
            # ("\u4e2d" + "A" * k: "\u4e2d" until an "x" after the A's makes one word) is
            # only final once more text is fetched (text/appendable.py's stability rule).
            # (The last rule is for word matches whose first part runs into that stretch,
            # see _reads_upper_tail.)
            whole = len(front) == base  # the fetched text runs to the end
            upper = len(front) + 1  # where the trailing upper-word stretch starts
            spaced = len(front) + 1  # where the trailing whitespace starts, if it matters
            scan = front  # what the pattern runs on
            if whole:
                stable = len(front) + 1
            else:
                stable = len(front) - 4
                if front[-1] in SPACE_SET:
                    blank_end = self._blank_end(base - len(front))
                    if blank_end is None:
                        # (only for a match that starts with whitespace: the others end at a
                        # character that their last repetition cannot take, or at a newline
                        # run's end, both fetched)
                        spaced = len(front.rstrip(SPACE_CHARS))
                        blank_from = base - spaced
                    elif blank_end > 0 and self.run_re is not None:
                        # (bundled patterns) The whitespace at the end of the fetch goes on as
                        # a blank (no newline) to a non-space character: cl100k's \s++$ cannot
                        # match there, though it matches at the end of the fetch ("\n" +
                        # "\t" * k + "1": "\n" is the piece, not all the whitespace fetched).
                        # A non-space character after the fetch tells the pattern so; the
                        # matches that end before the last 4 characters fetched are those of
                        # the text (\s*[\r\n] ends at the last newline, which is fetched), the
                        # others are not final anyway.
                        scan = front + "\x00"
                elif o200k:
                    upper = O200K_FIRST_TAIL.search(front).start()
            new = []  # (dist, count of the piece starting there)
            synced = skip = None
            early = False
            for m in self.pattern.finditer(scan):
                a, b = m.span()
                d = base - a
                if bounds.find(d) is not None or d in alts:
                    synced = d
                    break
                # (a match that starts with a space and then a non-space character is a
                # punctuation or word match with its lead, which does not read past a space
                # after its newlines: cl100k " '" + "\n\n" before " \n\n" * k is final)
                if (b > stable
                        or (b > spaced and front[a] in SPACE_SET and (b - a == 1 or front[a + 1] in SPACE_SET))
                        or (b > upper and self._reads_upper_tail(front, a, b))):
                    # a long piece whose start a saved state knows ends where it says
                    got = self._saved_piece_at(d, front, a) if self.saved else None
                    if got is None and (self.known or self.known_cut):
                        got = self._known_piece_at(d, front, a, base)  # (see front/known.py)
                    if got is not None:
                        count, e = got
                        new.append((d, count))
                        synced = e if bounds.find(e) is not None else None
                        skip = e
                        break
                    # a punctuation match into a known stretch ends where the stretch's
                    # piece did (see _merged_count); the re-split goes on from there when no
                    # boundary is known there (the piece after it is new: o200k " '" before
                    # "!\u0301" * n + "x" makes one punctuation piece and "x", where "!\u0301x"
                    # was one word)
                    if b == len(front):
                        count, e = self._merged_count(front, a, b, base)
                        if count is not None:
                            new.append((d, count))
                            synced = e if bounds.find(e) is not None else None
                            skip = e
                    elif b <= stable and b > upper:
                        waited = d  # (a word reading into the upper tail: its end is recorded below)
                    break
                count = None
                if b - a > self._LONG:
                    if self.saved:
                        count = self._saved_word_count(d, base - b, front, a)
                    if count is None:
                        count = self._ghost_count(d, base - b, front, a, base)
                    if count is None and self.saved:
                        count = self._adopt_saved(d, base - b, front, a, base)
                    if (self._note_punct(front, a, b, base) or b - a > _CACHEABLE_PIECE_LEN) and count is None:
                        # a long punctuation piece, or one too long for the piece cache: its
                        # bytes are kept (as a ghost, cut with it by truncations) for the next
                        # re-split that meets it (a merge of the same stretch, an undo)
                        bp = BytesPrependable(self.enc.bpe)
                        bp.prepend(m.group().encode("utf-8"))
                        self._put_ghost(base - b, d, bp)
                        count = bp.token_count
                if count is None:
                    count = len(pieces[m.group()])
                # A long piece, or a short word match that was final only once the fetch ran
                # past the upper-word stretch after it (o200k "\u4e2d" before "\u01c5" * k +
                # "'re": [Lu Lt Lm Lo M]* runs through the stretch and gives back to "\u4e2d"),
                # is recorded: a later re-split that meets it takes its end from here, and a
                # truncation back to it does not read the piece or the stretch again.
                if ((b - a > self._LONG or d == waited)
                        and (not (self.known or self.known_cut) or self._known_piece(d) is None)):
                    self._put_known(d, (base - b, count, "?", None))
                new.append((d, count))
                # Sync where the next match starts, without matching it (it may be a long
                # word): a known boundary, or the rest of a saved word W.
                d = base - b
                if bounds.find(d) is not None or d in alts:
                    synced = d
                    break
                if len(new) == self._PERIOD_PIECES * 2 and not looked:
                    early = True  # look for a period now rather than after the whole fetch
                    break
                if (just is not None and d == just[0] - 1 and d > just[1]
                        and bounds.find(just[1]) is not None):
                    count = self._saved_word_count(d, just[1], front, b)
                    if count is not None:
                        new.append((d, count))
                        synced = just[1]
                        break
            else:
                if whole:
                    synced = 0
            if synced is not None:
                break
            if skip is not None:  # go on after the piece a saved state gave
                head += new
                base = skip
                k = self._FETCH
                continue
            if len(new) >= self._PERIOD_PIECES:
                # (one stretch after another may need a jump: o200k "Ab''-" before
                # "'\u0301" * k + "'s" * m merges the first and shifts the phase of the
                # second, and the truncation back jumps both)
                jump = self._jump(front, new, base)
                if jump is not None:
                    i0, d, count, base = jump
                    head += new[:i0] + [(d, count)]
                    jumps.append(len(head) - 1)
                    k = self._FETCH
                    looked = False
                    continue
                if early:  # none found early: finish this fetch without looking early again
                    looked = True
                    continue
            k *= 4
        new = head + new
        # The entries of a hole that a push below discards (the new boundaries lie among the
        # hidden ones: a shift of phase), the visible ones pop_above removes in bulk (after a
        # jump) and those a graft pops go to alts (front/alts.py).
        bounds.spill = spill = []
        try:
            if bounds.find(synced) is None:
                self._graft(synced)  # synced on a boundary of an earlier split (front/alts.py)
            self._push_new(new, synced, jumps)
        finally:
            bounds.spill = None
        if spill:
            self._keep_alts(spill)

    def _push_new(self, new: list, synced: int, jumps: list) -> None:
        """Replace the boundaries above ``synced`` by those of the re-split's pieces ``new``
        ((distance, count of the piece starting there), from the front)."""
        bounds = self.bounds
        # The old boundaries between the sync point and the old front go; many (a merge of a
        # long stretch), or a few with a jump among them (which stand for a long stretch), are
        # hidden instead, for a truncation that splits the piece again (not after a jump of
        # this re-split: its pieces are not pushed, so that nothing would cover them).
        p = bounds.find(synced)
        hidden = not jumps and (bounds.above(p) > self._LONG or self.gaps.top() > synced)
        if hidden:
            bounds.hide_above(p)
        bounds.pop_above(synced)
        for j in jumps:
            # (a fact about the text after the jump's start, kept until a truncation goes
            # below it: hidden boundaries revealed later may have this gap too)
            self._gap(new[j][0], new[j + 1][0] if len(new) > j + 1 else synced)
        base = bounds.last_suf()
        if not hidden or not new or new[-1][0] > bounds.D[-1]:  # (no new boundary below a hidden one)
            for d, c in reversed(new):
                base += c
                bounds.push(d, base)
            return
        entries = []
        for d, c in reversed(new):
            base += c
            entries.append((d, base))
        # A merged piece that ends above the sync point (o200k " '" before "'\u0301" * n +
        # "\u0301-" * m: one punctuation piece that ends a character into the word after the
        # stretch): the new boundaries below it go under the hidden ones, as the hole's floor
        # (boundary_stack.push_under_hole), so that the hole is not discarded.
        k = bounds.push_under_hole(entries)
        for d, suf in entries[k:]:
            bounds.push(d, suf)

    # A blank: whitespace without a newline that ends a whitespace stretch (a non-space
    # character or the end of the text follows).  A match that ends before whitespace up to
    # the end of the fetched text is final when the rest of that whitespace is (part of) a
    # blank: \s*[\r\n]+ gives back to the stretch's last newline, which it has then seen, and
    # no other alternative reads past whitespace to decide where it ends.  ``blanks`` records,
    # by the distance lo of the character after the blank, the distance hi of its first
    # character: the characters at distances (lo, hi] are the blank.  A re-split that had to
    # fetch a whitespace stretch to its end records the blank it ends with, once, so that the
    # edits after it stop at the fetched text (a short newline piece before a long run of
    # spaces: every edit in front read the whole run before).

    def _blank_end(self, f: int):
        """Where the whitespace stretch holding distance ``f`` ends (its distance, 0 at the
        end of the text) when the characters from ``f`` down to there are a blank (or there
        are none: the stretch ends at ``f``), else None."""
        rec = self.blanks.lowest_top_from(f)
        return rec[0] if rec is not None and rec[0] <= f else None

    def _note_blank(self, front: str, base: int, start: int) -> bool:
        """Record the blank that ends the whitespace stretch starting at distance ``start``
        (a non-space character before it) when ``front`` (from distance ``base``) holds the
        stretch's end; False when it does not (yet)."""
        i = base - start
        if not 0 <= i < len(front):
            return True  # (not in this fetch: forget it)
        j = _WHITESPACE.match(front, i).end()
        if j == len(front) and len(front) < base:
            return False
        last = max(front.rfind("\n", i, j), front.rfind("\r", i, j))
        hi, lo = base - (last + 1 if last >= i else i), base - j
        if hi > lo:
            self.blanks.put(lo, lo, hi, hi - lo, self.n)
        return True

    @staticmethod
    def _reads_upper_tail(front: str, a: int, b: int) -> bool:
        """Whether the o200k match ``front[a:b]``, which ends inside the trailing stretch of
        upper-word characters, may change when more text is fetched: only a word match (all
        letters and marks after its first character; a punctuation match stops at a letter)
        whose first part [Lu Lt Lm Lo M]* runs to the end of the fetched text.  If that part
        stops earlier, at a character it cannot take, it only gives back from there, and the
        second part [Ll Lm Lo M]+ stops where it stops (a match running to the end of the
        fetched text is unstable anyway)."""
        if _WORD_REST.fullmatch(front, a + 1, b) is None:
            return False
        body = a if _LETTER.match(front, a) else a + 1  # after the optional lead
        return O200K_FIRST_RUN.match(front, body).end() == len(front)



class _WholeLong(TextPrependable):
    """TextPrependable for a vocabulary with whole-piece tokens (``_LONG`` is at least the
    longest one's byte length, see ``TextPrependable.__new__``).

    Invariant: as TextPrependable's, with whole-piece tokens counted.  A re-split counts
    every piece of at most ``_LONG`` characters through the encoding (whole-piece rule
    included) and a longer one cannot be such a token; only a state (word, run) counts
    its piece with plain BPE after an edit shrinks it to ``_LONG`` characters or fewer.
    Such a piece is one of the first two after the edit (the state's piece is first, or
    second behind the pieces re-split in front of it), so those two are checked after
    every edit when they have at most ``_WHOLE`` characters: O(_WHOLE)."""

    __slots__ = ()
    _WHOLE = 0  # byte length of the longest whole-piece token

    def prepend(self, s: str) -> None:
        super().prepend(s)
        self._count_whole_front()

    def truncate(self, n: int) -> None:
        super().truncate(n)
        self._count_whole_front()

    def _count_whole_front(self) -> None:
        bounds = self.bounds
        if self.dig is not None or self.pattern is None or not bounds.has(2):
            return  # (a digit-run state may stand for the end of the first piece: no check)
        whole = self.enc._whole
        for k in (1, 2):
            if not bounds.has(k + 1):
                return
            a, b = bounds.last(k), bounds.last(k + 1)  # the piece at distances (b, a]
            c = bounds.last_suf(k) - bounds.last_suf(k + 1)
            if a - b > self._WHOLE or c == 1 or (self.gaps and any(
                    end < a for _, end in self.gaps.starting_in(b + 1, self.n))):
                continue  # (a gap: boundaries between a and b are not kept, more pieces)
            if self._window(a, b).encode("utf-8") not in whole:
                continue
            if k == 1:
                bounds.set_front(a, 1)
            else:
                c1 = bounds.last_suf(1) - bounds.last_suf(2)  # the first piece, in front of it
                bounds.pop()
                bounds.set_front(a, 1)
                bounds.push(self.n, bounds.last_suf() + c1)


_LONGER: dict[tuple[int, int], type] = {}


def _with_long(long: int, whole: int) -> type:
    """_WholeLong with ``_LONG = long`` and ``_WHOLE = whole`` (see ``TextPrependable.__new__``),
    one class per pair."""
    cls = _LONGER.get((long, whole))
    if cls is None:
        cls = _LONGER[long, whole] = type("TextPrependable", (_WholeLong,),
                                          {"__slots__": (), "_LONG": long, "_WHOLE": whole})
    return cls
