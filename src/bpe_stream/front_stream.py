r"""Token counts of a ``str`` growing at its front under tiktoken's pre-split (the text
engine of :class:`~bpe_stream.prependable.PrependableEncoder`).

Invariant (``Encoding``): the pieces of the text are kept as boundaries measured
from the *end* (which prepending does not move) with the token count of the text
after each boundary.  Prepending ``u`` re-splits from the new front until a match
starts on a known boundary: from there both splits are identical (the patterns
have no lookbehind), so ``count = new pieces + suffix count at that boundary``.
Cost: O(prepended + the pieces re-split before re-synchronising), typically one
or two pieces.  Long first pieces grown at their front keep state so that the
front is not re-split through them: a *word* grown one letter at a time keeps a
raw prependable over its bytes (``_prepend_to_word``, O(1) per letter); a piece
holding a long one-class run (spaces, newlines, punctuation) is re-split only on
a bounded proxy with the run's middle cut out (``_edit_run``, O(1) per
character); a whitespace piece ending at its stretch's last newline (or, for
cl100k, the whole text) absorbs any prepended whitespace (O(prepended)); a long
digit run keeps the counts of its three-digit windows by phase (``_prepend_digits``,
O(1) per digit).
For o200k the word state covers any first piece of letters and marks: letters,
marks and ``Lm``/``Lo`` are prepended in O(1), lower-case letters only while the
word's leading ``[Lu Lt Lm Lo M]`` run holds no upper-case letter, ``Lm``/``Lo``
and marks only when the word is not all upper-case (see ``_prepend_to_word``).
A *lead* (one non-letter, non-digit, non-newline character) in front of the word
joins its piece in O(1) too, and a re-split that gives a long word a lead or
takes it away reads the count from the saved state (``_saved_word_count``)
instead of re-encoding the word: what is left is one C-speed regex scan of the
word (about 2-6 ms per 100K characters).
These states follow multi-character prepends and truncations inside the piece
(``_truncate_word``, ``_edit_run`` with a drop), and a state is saved when other
pieces are put in front of its piece and restored when truncation makes the piece
first again (``saved``): a piece's text is fixed by its distances from the end
for as long as no truncation goes below its start (then the state is dropped, or
cut with the piece when the rest is known to stay one piece).
A long punctuation stretch (after two non-mark characters) or o200k ``[\r\n/]``
stretch (after a ``/``) near the front is handled like a one-class run, with the
proofs of :mod:`bpe_stream.long_pieces`, and the piece holding it may sit behind
short pieces in front (``_edit_run``).  A prepend that changes the split of a long
stretch (o200k: ``"!"`` before ``"!\u0301\u0301" * n`` makes one punctuation piece of
n mark-led words) needs the new piece's raw count, which depends on all of its bytes:
the first time it is encoded (O(stretch), against the O(stretch) of building it).  After
that such an edit and its undo are O(1): the boundaries the merge covers are hidden, not
removed, and a truncation that splits the piece reveals them (:mod:`bpe_stream.boundary_stack`);
the piece's raw prependable is kept cut to what is left (``ghosts``); where the piece's
punctuation run ends is recorded (``puncts``), so the re-split does not scan it
(``_merged_count``); and its run state is set from that record (``_check_merged_stretch``).
A re-split that meets a periodic stretch (o200k: ``" A"`` in front of ``"'s" * n`` moves
every ``'s's`` piece) jumps over it (``_jump``): O(one period + the text compared once)
instead of O(stretch) in Python; one that meets a long piece a saved state knows takes it
from the state (``_saved_piece_at``) instead of scanning it.
Truncating
inside a long digit run at the front subtracts the dropped three-digit windows
(``_truncate_digits``, O(dropped)).  Surrogates: a low surrogate starting a prepend
is joined with a high surrogate ending the next one, as tiktoken joins the pair in
the whole text.
"""

from __future__ import annotations

from typing import NamedTuple

import regex

from .appendable import _check_len
from .boundary_stack import BoundaryStack
from .encoding import _CACHEABLE_PIECE_LEN, fix_surrogates
from .prependable import BytesPrependable
from .split_fastpath import AP, LO, MARK, O200K_FIRST, O200K_FIRST_RUN, OL, P, SL, SP, UP, WS

__all__ = ["TextPrependable"]

_DIGITS = regex.compile(r"\p{N}+")
_TRAILING_DIGITS = regex.compile(r"(?r)\p{N}+\Z")
_O200K_LETTERS = regex.compile(r"[\p{L}\p{M}]+")
_LAST_UPPER = regex.compile(r"(?r)[\p{Lu}\p{Lt}]")
_LAST_LL = regex.compile(r"(?r)\p{Ll}")
_CL100K_CONTRACTION = regex.compile(r"(?i:[sdmt]|ll|ve|re)")
# the trailing stretch of o200k "upper-word" characters, which a word match may read to its
# end and then give back (piece_stream's stability rule)
_UPPER_TAIL = regex.compile(r"(?r)" + O200K_FIRST + r"*\Z")
_WORD_REST = regex.compile(r"[\p{L}\p{M}]*")  # what a word match holds after its first character
_LETTER = regex.compile(r"\p{L}")
_BEFORE_UPPER = regex.compile(r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Lm}\p{Lo}\p{M}]")
# characters after a piece that do not yet make it final (see TextPrependable._jump)
_UNSETTLED = {True: regex.compile(r"[\s" + O200K_FIRST[1:-1] + r"]*"), False: regex.compile(r"\s*")}


class _WordState(NamedTuple):
    """State of a long first word piece (see TextPrependable._check_word); distances from
    the end of the text."""

    end: int  # where the piece ends
    bp: BytesPrependable  # raw prependable over the piece's bytes
    last_upper: int  # last upper-case letter of W's leading [Lu Lt Lm Lo M] run, or 0
    last_ll: int  # W's last Ll, or 0
    lead: int  # 1 if the piece is a lead character and W, else 0
    after_upper: bool  # the character after W is an upper-case letter
    all_upper: bool  # W is all upper-case letters


class TextPrependable:
    __slots__ = ("enc", "pattern", "chunks", "n", "bounds", "pending", "word", "wc",
                 "run", "run_re", "mergeable", "dig", "saved", "just_saved", "ghosts", "puncts", "tails",
                 "gaps", "periods")

    def __init__(self, enc):
        from .pretokenize import compile_pattern

        self.enc = enc
        self.pattern = None if enc.pat_str is None else compile_pattern(enc.pat_str)
        self.chunks: list[str] = []  # chunks[-1] is the front
        self.n = 0
        # piece boundaries as distances from the end, each with the count of the text after it
        self.bounds = BoundaryStack()
        # a lone low surrogate that began the last prepend (stored as U+FFFD): joined with a
        # high surrogate ending the next prepend, as tiktoken joins the pair in the whole text
        self.pending = ""
        # Long first word grown at its front one letter at a time (bundled patterns): ``word`` =
        # (distance of its end, raw BytesPrependable of its bytes), see _prepend_to_word.
        self.word = None
        from .split_fastpath import LO, OL, UP, fast_split_for

        fast = fast_split_for(enc.pat_str)
        self.wc = None if fast is None else (fast, (LO, UP, OL) if fast.o200k else (LO,), LO)
        # Long first piece holding a long run of one compressible class (whitespace, newline,
        # punctuation runs), see _edit_run.
        from .long_pieces import _COMPRESSIBLE, run_regex_for

        self.run = None
        self.dig = None  # long digit run at the front, see _prepend_digits
        # (start, end) distances of a long first piece -> its (word, run, dig) state, kept when a
        # prepend puts other pieces in front of it, restored when truncation makes it first again
        self.saved: dict = {}
        self.just_saved = None  # key of a word state saved by the prepend under way
        # Records for a prepend that changes the split of a long stretch (see _resync), the
        # last _KEPT of each kind: ghosts, end -> (start, raw prependable over the text at
        # distances (start, end)), left by long pieces (cut with them by truncations); puncts,
        # e -> (top, z): the characters from distance top down to z are [^\s\p{L}\p{N}] and
        # those from z down to e are [\r\n/], the last of their runs (so a punctuation match
        # through the first run ends at e); tails: run-state tail parts of such stretches, by
        # (z, piece end) (see _check_run).  The boundaries a merge covers are hidden in
        # ``bounds`` and come back when a truncation splits the piece.
        self.ghosts: dict = {}
        self.puncts: dict = {}
        self.tails: dict = {}
        # start -> end distances of the jumps over periodic stretches (see _jump) and of
        # digit-run states: the boundaries between are not kept, and a truncation to such a
        # start re-splits unless the saved state comes back
        self.gaps: dict = {}
        # p -> (top, bottom): the character at each distance d with bottom + p < d <= top equals
        # the one at d - p (the extent of a periodic stretch that was jumped, see _jump)
        self.periods: dict = {}
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
        new = TextPrependable.__new__(TextPrependable)
        new.enc, new.pattern, new.n, new.pending = self.enc, self.pattern, self.n, self.pending
        new.wc, new.run_re, new.mergeable = self.wc, self.run_re, self.mergeable
        new.run = None if self.run is None else self.run[:5] + (self.run[5].copy(),) + self.run[6:]
        new.dig = None if self.dig is None else list(self.dig)
        new.word = None if self.word is None else self.word._replace(bp=self.word.bp.copy())
        new.saved = {}
        new.just_saved = None
        new.ghosts, new.puncts, new.tails = {}, {}, {}
        new.gaps = dict(self.gaps)
        if self.dig is not None:
            new.gaps[self.n] = self.dig[0]  # the run's groups are not kept
        new.periods = dict(self.periods)
        new.chunks = list(self.chunks)
        new.bounds = self.bounds.copy()
        return new

    _BLOCK = 4096

    def _push_text(self, s: str) -> None:
        """Put ``s`` in front, in chunks of at most _BLOCK characters, so that dropping
        characters from the front copies at most one block; a short ``s`` joins the front
        chunk (so that fetching the front after one-character prepends visits few chunks)."""
        chunks = self.chunks
        if len(s) <= self._BLOCK:
            if chunks and len(chunks[-1]) + len(s) <= self._BLOCK:
                chunks[-1] = s + chunks[-1]
            else:
                chunks.append(s)
            return
        for i in range(len(s), 0, -self._BLOCK):
            chunks.append(s[max(0, i - self._BLOCK) : i])

    def _window(self, hi: int, lo: int) -> str:
        """The characters at distances ``hi`` down to ``lo`` (exclusive) from the end:
        O(hi - lo + the chunks visited from the nearer side)."""
        n = self.n
        if n - lo <= lo:
            return self._front(n - lo)[n - hi :]
        parts = []
        d = 0  # distance of the end of the chunk
        for c in self.chunks:  # from the end of the text
            top = d + len(c)  # distance of c[0]: c[j] lies at distance top - j
            if top > lo:
                parts.append(c[max(0, top - hi) : top - lo])
                if top >= hi:
                    break
            d = top
        parts.reverse()
        return "".join(parts)

    def _front(self, k: int) -> str:
        """The first ``k`` characters: O(k + chunks visited), not O(the chunks' length)."""
        parts = []
        got = 0
        for c in reversed(self.chunks):
            if got + len(c) >= k:
                parts.append(c[: k - got])
                break
            parts.append(c)
            got += len(c)
        return "".join(parts)

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
        if self.run is not None and len(s) <= self._CTX and self._edit_run(s, 0):
            return
        if self.dig is not None:
            # the digits ending s join the run (\p{N}{1,3} is the only alternative taking
            # digits, so the run's start is a boundary whatever precedes it)
            m = _TRAILING_DIGITS.search(s)
            if m is not None and self._prepend_digits(s[m.start() :]):
                s = s[: m.start()]
                if not s:
                    return
        self._save_state()
        self._push_text(s)
        self.n += len(s)
        self._resync()
        self.just_saved = None
        if not self._restore_state():
            self._check_word()
            self._check_run()
            self._check_digits()

    def _save_state(self) -> None:
        """Keep the long first piece's state for when truncation makes it first again."""
        if (self.word or self.run or self.dig) is None or not self.bounds.has(2):
            return
        saved = self.saved
        if len(saved) >= 256:
            saved.clear()
        # a run state may belong to a piece after the first (see _edit_run)
        key = (self.run[6], self.run[0]) if self.run is not None else (self.n, self.bounds.last(2))
        saved[key] = (self.word, self.run, self.dig)
        if self.dig is not None:
            self.gaps[key[0]] = key[1]  # the run's groups are not kept (the state may be lost)
        self.just_saved = key if self.word is not None else None
        self.word = self.run = self.dig = None

    def _restore_state(self) -> bool:
        # A piece's text is fixed by its distances from the end (prepending and truncating
        # only change the front), so a saved state is valid whenever its piece is first again.
        bounds = self.bounds
        if not self.saved or not bounds.has(2):
            return False
        state = self.saved.pop((self.n, bounds.last(2)), None)
        if state is None and bounds.has(3):
            # the second piece's run state (a run state need not be the first piece's)
            key = (bounds.last(2), bounds.last(3))
            state = self.saved.pop(key, None)
            if state is not None and state[1] is None:
                self.saved[key] = state
                state = None
        if state is None:
            return False
        self.word, self.run, self.dig = state
        return True

    # A long first piece W that is a word starting with a letter that continues words
    # (cl100k: any letter; o200k: a lower-case letter, so W is all [Ll Lm Lo M]) and has no
    # apostrophe: a letter c prepended gives the single piece c + W (cl100k: \p{L}++ runs through
    # W to the same end; o200k: [Lu Lt Lm Lo M]* takes c or nothing, then [Ll Lm Lo M]+ runs
    # through W to the same end), and the pieces after W do not change (no look-behind).  Its
    # count comes from a raw prependable over W's bytes: O(1) per letter instead of re-splitting
    # and re-encoding W.  Truncating inside W keeps the state when the rest W' of W is again
    # one piece with W's end: always for cl100k (letters); for o200k when W' holds a
    # lower-case letter (the first part runs to W''s first Ll, the second part from there to
    # W's end, as W's did; without one, W' is all [Lm Lo M] and may run on into an
    # upper-case letter after W) or when W holds none (its first part, and W''s, runs to the
    # end of its [Lu Lt Lm Lo M] stretch, followed by no Ll, and gives back to the same last
    # Lm/Lo/mark, which W ends with) or when the character after W is no upper-case letter
    # (W' is then all [Lm Lo M]: its first part stops at W's end, where W's stopped, and gives
    # back its last character to the second).
    # A *lead*: one character c of [^\r\n\p{L}\p{N}] (cl100k: an apostrophe only when W does
    # not start like a contraction, 's 'll ..., which is a piece of its own and is tried
    # first; o200k: not a mark, which is a word character) prepended to W when
    # W starts with a letter gives the single piece c + W: the word alternative takes c as its
    # optional lead and then tries exactly what it tried on W (whose own lead was empty, W
    # starting with a letter), so it ends where W's match did.  Nothing prepended in front of
    # the lead joins the piece (a second lead is not a letter), so such prepends take the
    # general path, and truncating drops the lead first.  The state is a _WordState.
    # An o200k W that starts with a mark m takes a lead too.  W's match is the first
    # alternative's (which can always match m alone), with m as its optional lead: a leading
    # [Lu Lt Lm Lo M] run R' after m, then [Ll Lm Lo M]+ to W's end.  For c + W the first
    # repetition takes m + R' (m is in its set) and the second tries the same characters from
    # the same place, so it ends at W's end too ("\u0301ABC" is not one piece: its first match
    # is "\u0301", then with a lead "!\u0301"; neither is a long word state).
    # An o200k W that is all upper-case letters is the second alternative's match (the first
    # needs one [Ll Lm Lo M]); an Lm/Lo letter or a mark c in front of it is then a piece of
    # its own (the first alternative gives back to c), so only upper-case letters join it.
    # Any other W ends with an [Ll Lm Lo M] character, and so does every W' left by a cut.
    _LONG = 64

    def _check_word(self) -> None:
        self.word = None
        if self.wc is None or not self.bounds.has(2):
            return
        end = self.bounds.last(2)
        length = self.n - end
        if length <= self._LONG:
            return
        fast, letters, first_class = self.wc
        # a piece that is a lead and a word (see above), decided on the first two characters;
        # reject on them before fetching the piece (it may be a long punctuation piece, see
        # _merged_count): the word's body must start with a letter
        head = self._front(2)
        lead = 1 if fast.char_class(head[0]) in self._leads(fast) and fast.char_class(head[1]) in letters else 0
        if _O200K_LETTERS.match(head, lead) is None if fast.o200k else fast.char_class(head[lead]) != first_class:
            return
        front = self._front(length + 1)
        w = front[:length]
        if "'" in w:
            return
        body = w[lead:]
        last_upper = last_ll = 0
        after_upper = all_upper = False
        if fast.o200k:
            # any piece of letters and marks (see _prepend_to_word)
            if _O200K_LETTERS.fullmatch(body) is None:
                return
            m = _LAST_UPPER.search(O200K_FIRST_RUN.match(body).group())
            last_upper = self.n - lead - m.start() if m else 0
            m = _LAST_LL.search(body)
            last_ll = self.n - lead - m.start() if m else 0
            after_upper = len(front) > length and fast.char_class(front[length]) == UP
            all_upper = fast.char_class(w[-1]) == UP
        elif fast.char_class(body[0]) != first_class:
            return
        bp = self._piece_bp(self.n, end, w)
        if bp.token_count != self.bounds.last_suf() - self.bounds.last_suf(2):  # never expected
            return
        self.word = _WordState(end, bp, last_upper, last_ll, lead, after_upper, all_upper)

    @staticmethod
    def _leads(fast) -> tuple:
        """Classes of the characters that may lead a word piece (see above)."""
        return (SP, WS, P, SL, AP) if fast.o200k else (SP, WS, P, AP)

    def _prepend_to_word(self, s: str) -> str:
        """Prepend the longest suffix of ``s`` that the word state takes; returns the rest."""
        fast, letters, _ = self.wc
        end, bp, last_upper, last_ll, lead, after_upper, all_upper = self.word
        if self.bounds.last(2) != end or self.bounds.last() != self.n or lead:
            return s
        k = len(s)
        while k > 0:
            # (distance of s[k - 1] from the end once prepended)
            joined = self._joins_word(s[k - 1], self.n + len(s) - k + 1, last_upper, last_ll, all_upper)
            if joined is None:
                break
            last_upper, last_ll = joined
            k -= 1
        if k > 0 and fast.char_class(s[k - 1]) in self._leads(fast):
            # a lead, when the piece starts with a letter or (o200k) a mark (see above); for
            # cl100k an apostrophe only when the piece does not start like a contraction
            # ('s 'll ...: a piece of its own)
            first = (s[k:] + self._front(2))[:2]
            if (fast.char_class(first[0]) in letters and (
                fast.o200k or s[k - 1] != "'" or not _CL100K_CONTRACTION.match(first)
            )) or (fast.o200k and MARK.match(first[0])):
                k -= 1
                lead = 1
        if k == len(s):
            return s
        added = s[k:]
        bp.prepend(added.encode("utf-8"))
        self._push_text(added)
        self.n += len(added)
        self._set_front(self.n, bp.token_count)
        self.word = _WordState(end, bp, last_upper, last_ll, lead, after_upper, all_upper)
        return s[:k]

    def _joins_word(self, c: str, d: int, last_upper: int, last_ll: int, all_upper: bool):
        """(last_upper, last_ll) of the word state of W after the character ``c`` (at distance
        ``d``) joins W at its front, or None when c + W is not one piece (W takes no lead)."""
        fast, letters, _ = self.wc
        cls = fast.char_class(c)
        if not fast.o200k:
            return (last_upper, last_ll) if cls in letters else None
        # W is letters and marks, one word match: a leading run X of [Lu Lt Lm Lo M] (the
        # first repetition), then [Ll Lm Lo M] (the second; or none, the first giving back its
        # last character).  c + W is one piece again when c is upper-case, Lm/Lo or a mark
        # (class None: the lead, or part of X), and when c is lower-case only if X holds no
        # upper-case letter (else the second repetition started at c stops at it):
        # last_upper != 0 says it does.
        if cls == LO:
            return None if last_upper else (last_upper, last_ll or d)
        if cls == UP:
            return last_upper or d, last_ll
        if all_upper or not (cls == OL or (cls is None and MARK.match(c))):
            return None
        return last_upper, last_ll

    def _truncate_word(self, n: int) -> bool:
        """Keep the last ``n`` characters when the cut falls inside the long first word W
        and the rest stays one piece with W's end (see above): O(dropped)."""
        if self.bounds.last(2) != self.word.end or self.bounds.last() != self.n:
            return False
        word = self._cut_word(self.word, self.n, n)
        if word is None:
            return False
        self._drop_front(self.n - n)
        self.n = n
        self.pending = ""
        self._set_front(n, word.bp.token_count)
        self.word = word
        return True

    def _cut_word(self, word: _WordState, start: int, n: int) -> _WordState | None:
        """The state of the word piece at distances (``start``, end) cut to (``n``, end), or
        None when the rest is not known to be one piece with that end (see above).  Its raw
        prependable loses the text at distances (n, start], which is still there: O(start - n)."""
        if n - word.end <= self._LONG:
            return None
        last_ll = word.last_ll
        if self.wc[0].o200k and last_ll > n:
            if word.after_upper:
                return None
            last_ll = 0  # W' is all [Lm Lo M] (see above)
        gone = self._window(start, n)
        word.bp.truncate(len(word.bp) - len(gone.encode("utf-8")))
        return word._replace(last_upper=word.last_upper if word.last_upper <= n else 0, last_ll=last_ll, lead=0)

    # A long first piece P holding a long run of one compressible class (bundled patterns; the
    # classes and the argument are those of bpe_stream.long_pieces): deleting the middle of a
    # maximal one-class run (keeping _KEEP characters at each end) moves every match boundary
    # after it by the deleted length and puts none inside it.  So prepending c is decided by
    # splitting the bounded proxy  c + text[:run_start + _KEEP] + text[run_end - _KEEP : P_end + ctx]
    # (the second part is fixed by distance from the end, stored once): new pieces up to a match
    # starting on a known boundary, a match across the cut must be c + P (counted with a raw
    # prependable over P's bytes), a boundary on the cut or a proxy too short to decide (a new
    # piece ending within 4 characters or in trailing whitespace of a truncated proxy, the
    # stability rule of piece_stream) falls back to _resync.  O(_KEEP + ctx) per character.
    _CTX = 64

    def _check_run(self) -> None:
        self.run = None
        if self.word is not None or self.run_re is None or not self.bounds.has(2):
            return
        n = self.n
        end = self.bounds.last(2)
        L1 = n - end
        if L1 <= self._LONG or self._check_merged_stretch(end, L1):
            return
        from .long_pieces import _KEEP, _MIN_CUT

        o200k = self.wc is not None and self.wc[0].o200k
        if not self._may_hold_run(min(n, L1 + self._CTX), L1, o200k):
            return
        front = self._front(min(n, L1 + self._CTX))
        P = front[:L1]
        if P.isspace() and ((L1 == n and not o200k) or P[-1] in "\r\n"):
            # A whitespace piece that is the whole text (cl100k's \s++$; o200k has no such
            # alternative and splits s + P after the last newline of s), or ends at the last newline of its
            # stretch (the stretch goes on without newline to a non-space character or to the
            # end): for any
            # whitespace s, the first piece of s + text is s + P (letter, digit and punctuation
            # alternatives need a non-space character at position 0 or 1; \s++$ holds iff it held
            # before; \s*[\r\n] (o200k: \s*[\r\n]+) backtracks to the same last newline), and
            # the pieces after P do not change.
            rest = front[L1:]
            k = len(rest) - len(rest.lstrip())
            if "\r" not in rest[:k] and "\n" not in rest[:k] and (k < len(rest) or L1 + k == n):
                bp = self._piece_bp(n, end, P)
                if bp.token_count == self.bounds.last_suf() - self.bounds.last_suf(2):
                    self.run = (end, None, None, None, None, bp, n)
            return
        for p0 in (0, 1, 2):
            m = self.run_re.match(front, p0)
            if m is None:
                return
            if m.lastindex in self.mergeable and min(m.end(), L1) - p0 >= 2 * _KEEP + _MIN_CUT:
                rs, re_, group = p0, min(m.end(), L1), m.lastindex
                break
        else:
            found = self._find_stretch(front, L1, o200k)
            if found is None:
                return
            rs, re_, group = found
        bp = self._piece_bp(n, end, front[:L1])
        if bp.token_count != self.bounds.last_suf() - self.bounds.last_suf(2):  # never expected
            return
        tailpart = front[re_ - _KEEP :]
        if group < 0:  # for _check_merged_stretch
            if len(self.tails) >= 64:
                self.tails.clear()
            self.tails[(n - re_, end)] = (n - re_ + _KEEP, tailpart)
        # (end of P, distance of the run start or stretch anchor, distance where tailpart
        #  starts, tailpart, group of the run or stretch kind (< 0), raw prependable over P,
        #  distance of P's start)
        self.run = (end, n - rs, n - re_ + _KEEP, tailpart, group, bp, n)

    # Stretches whose middle may be deleted once an *anchor* is known (bpe_stream.long_pieces
    # gives the arguments): a punctuation stretch after two non-mark characters (cl100k: any
    # two), an o200k [\r\n/] stretch after a "/".  Any later anchor in the same stretch works
    # too, which is what truncation needs.  kind -> (anchor regex, stretch character class).
    _STRETCHES = {
        -1: (regex.compile(r"[^\s\p{L}\p{N}]{2}"), regex.compile(r"[^\s\p{L}\p{N}]*")),
        -2: (regex.compile(r"[^\s\p{L}\p{N}\p{M}]{2}"), regex.compile(r"[^\s\p{L}\p{N}]*")),
        -3: (regex.compile(r"/"), regex.compile(r"[\r\n/]*")),
    }

    def _may_hold_run(self, k: int, L1: int, o200k: bool) -> bool:
        """False when the checks of _check_run on the first ``k`` characters would find no
        state for the first piece (``L1`` characters), decided on a bounded head: a run or
        stretch that ends inside the head is as long as on the whole front, and one that
        reaches the head's end, or a head of only whitespace, needs the whole front."""
        from .long_pieces import _KEEP, _MIN_CUT

        h = 3 * _KEEP + _MIN_CUT + 8
        if k <= h:
            return True
        head = self._front(h)
        need = 2 * _KEEP + _MIN_CUT
        if head[:L1].isspace():
            return True
        for p0 in (0, 1, 2):
            m = self.run_re.match(head, p0)
            if m is not None and m.lastindex in self.mergeable and (m.end() == h or m.end() - p0 >= need):
                return True
        for kind in ((-2, -3) if o200k else (-1,)):
            anchor_re, class_re = self._STRETCHES[kind]
            m = anchor_re.search(head, 0, _KEEP + 2)
            if m is not None and class_re.match(head, 0).end() >= m.start():
                z = class_re.match(head, m.start()).end()
                if z == h or z - m.start() >= need:
                    return True
        return False

    def _check_merged_stretch(self, end: int, L1: int) -> bool:
        """Set the run state of the long first piece P (ending at ``end``, ``L1`` characters)
        in O(_KEEP) when P is a punctuation stretch recorded in ``puncts`` whose tail part is
        known (``tails``) and whose bytes a ghost holds: P was merged by a prepend before
        (see _merged_count), and _check_run would find the same stretch by scanning it."""
        from .long_pieces import _KEEP, _MIN_CUT

        punct, ghost, n = self.puncts.get(end), self.ghosts.get(end), self.n
        if punct is None or ghost is None or ghost[0] != n:
            return False
        top, z = punct
        tail = self.tails.get((z, end))
        if tail is None:
            return False
        head = self._front(min(n, _KEEP + 2))
        for kind in ((-2,) if self.wc[0].o200k else (-1,)):
            anchor_re, class_re = self._STRETCHES[kind]
            m = anchor_re.search(head)
            if m is None:
                continue
            q = m.start()
            # the anchor lies in the stretch at the front, which runs on into the recorded run
            # (from distance top) and so to its end at distance z
            if class_re.match(head).end() < max(q, n - top) or n - q <= z:
                continue
            if n - z - q < 2 * _KEEP + _MIN_CUT:
                continue
            bp = ghost[1]
            if bp.token_count != self.bounds.last_suf() - self.bounds.last_suf(2):  # never expected
                return False
            del self.ghosts[end]
            self.run = (end, n - q, tail[0], tail[1], kind, bp, n)
            return True
        return False

    def _find_stretch(self, front: str, L1: int, o200k: bool):
        """(anchor, stretch end within the first piece, kind) of a long stretch whose anchor
        lies near the front of the first piece ``front[:L1]``, or None."""
        from .long_pieces import _KEEP, _MIN_CUT

        for kind in ((-2, -3) if o200k else (-1,)):
            anchor_re, class_re = self._STRETCHES[kind]
            m = anchor_re.search(front, 0, _KEEP + 2)
            if m is None:
                continue
            q = m.start()
            if class_re.match(front, 0).end() < q:  # the anchor must be in the stretch at the front
                continue
            z1 = min(class_re.match(front, q).end(), L1)
            if z1 - q >= 2 * _KEEP + _MIN_CUT:
                return q, z1, kind
        return None

    def _edit_run(self, c: str, drop: int) -> bool:
        """The text becomes ``c + text[drop:]`` (a prepend, or with ``c == ""`` a truncation);
        decided on the bounded proxy above, O(_KEEP + ctx + len(c)).  The long piece P of the
        state need not be the first piece: pieces in front of it are re-split in the proxy's
        head, and P stays, grows or shrinks at its front.  Returns False (nothing changed;
        the state is kept, or dropped when it can no longer apply) when the proxy cannot decide."""
        from .long_pieces import _KEEP, _MIN_CUT

        end, hi, d0, tailpart, group, bp, ps = self.run
        n_old = self.n
        bounds = self.bounds
        k = bounds.find(ps)
        if k is None or bounds.prev_dist(k) != end or drop >= n_old - end:
            return False
        n_new = n_old - drop + len(c)
        if hi is None:  # whitespace piece ending at a newline (see _check_run): the first piece
            if ps != n_old or not (c.isspace() or c == ""):
                return False
            self._drop_front(drop, bp)
            if c:
                bp.prepend(c.encode("utf-8"))
                self._push_text(c)
            self.n = n_new
            self._set_front(n_new, bp.token_count)
            self.run = (end, hi, d0, tailpart, group, bp, n_new)
            return True
        rs_old = n_old - hi  # run start (stretch anchor) in the old text
        if rs_old - drop > 8:
            return False
        anchor = max(rs_old, drop)  # old coordinates; the run may now start at the front
        if group < 0 and drop > rs_old:  # the anchor was dropped: take a later one
            m = self._STRETCHES[group][0].search(self._front(drop + _KEEP + 2), drop)
            if m is None:
                self.run = None
                return False
            anchor = m.start()
        cut_from = anchor + _KEEP
        if n_old - d0 - cut_from < _MIN_CUT:
            self.run = None  # the run got too short to cut
            return False
        old_head = self._front(cut_from)
        head = c + old_head[drop:]
        proxy = head + tailpart
        h = len(head)
        d_end = d0 - len(tailpart)  # distance of the proxy's end (0: the proxy reaches the end)
        pieces = self.enc._pieces
        new = []
        a_long = -1
        synced = None
        for m in self.pattern.finditer(proxy):
            a, b = m.span()
            if a == h or b == h:
                return False  # a boundary on the cut: never expected
            da = n_new - a if a < h else d0 - (a - h)
            if da < n_new and bounds.find(da) is not None:
                if d_end > 0 and (a > len(proxy) - 4 or proxy[a:].isspace() or (
                        self.wc[0].o200k and a > _UPPER_TAIL.search(proxy).start())):
                    return False  # the piece before may not be final (see _resync)
                synced = da
                break
            if b == len(proxy) and d_end > 0:
                return False
            if a < h < b:
                if d0 - (b - h) != end:
                    return False
                run = self._Q_RUN.match(proxy, a + (proxy[a] == " ")) if group == -2 else None
                if group == -2 and (run is None or run.end() <= len(c) + anchor - drop):
                    # The argument for cutting an o200k punctuation stretch needs the match's
                    # [^\s\p{L}\p{N}]+ repetition to run over the anchor; a match that enters
                    # the stretch in its [\r\n/]* tail ("/" + "\n" + "//!//") stops at the
                    # first character that is not a slash, which the cut may have removed.
                    return False
                a_long = a
                new.append((da, None))
            else:
                new.append((da, len(pieces[m.group()])))
        else:
            if d_end > 0:
                return False
            synced = 0
        if a_long < 0 and synced < ps:
            return False  # P changed without a match across the cut: never expected
        if a_long >= 0:
            # P becomes new_text[a_long:P's end]: adjust bp at its front (bounded: all within head)
            ps_pos = n_old - ps
            if a_long < len(c):
                prefix, cut_old = c[a_long:], drop
            else:
                prefix, cut_old = "", a_long - len(c) + drop
            if cut_old > ps_pos:
                bp.truncate(len(bp) - len(old_head[ps_pos:cut_old].encode("utf-8")))
            elif cut_old < ps_pos:
                bp.prepend(old_head[cut_old:ps_pos].encode("utf-8"))
            if prefix:
                bp.prepend(prefix.encode("utf-8"))
            ps = n_new - a_long
        self._drop_front(drop)
        if c:
            self._push_text(c)
        self.n = n_new
        if drop:
            self.pending = ""
        bounds.pop_above(synced)
        base = bounds.last_suf()
        for d, cnt in reversed(new):
            base += bp.token_count if cnt is None else cnt
            bounds.push(d, base)
        hi = n_old - anchor  # distances do not move
        if a_long == 0:
            if group > 0:
                g = self.run_re.match(c)
                if anchor == drop and g is not None and g.lastindex == group and g.end() == len(c):
                    hi = n_new  # c extends the run at the front
            elif c:
                anchor_re, class_re = self._STRETCHES[group]
                h0 = head[: len(c) + anchor - drop]  # new text up to the anchor
                if anchor_re.match(head) and class_re.match(h0).end() == len(h0):
                    hi = n_new  # an anchor at the new front, in the same stretch
        self.run = (end, hi, d0, tailpart, group, bp, ps)
        return True

    # A long run R of digits at the front (bundled patterns): its pieces are the groups of three
    # digits from its start (\p{N}{1,3}+; no other alternative takes a digit, so the run's end is
    # a boundary whatever precedes it), which all move when a digit is prepended.  Measured from
    # the run's end, the groups of a run of length k end at distances = k (mod 3); A[r] is the
    # token count of all three-digit windows of R ending at distances = r (mod 3), so
    # count(R) = A[k % 3] + count(last k % 3 digits), and a prepended digit adds one window:
    # O(1) per digit.  While this state is kept the group boundaries inside R are not stored
    # (dists holds R's end and the front); dropping it (a non-digit prepend, truncation)
    # re-splits R once.  dig = [end distance of R, k, A0, A1, A2, first two digits, tail count].

    def _check_digits(self) -> None:
        self.dig = None
        if self.wc is None or self.word is not None or self.run is not None or not self.bounds.has(2):
            return
        n = self.n
        if n - self.bounds.last(2) > 3 or _DIGITS.match(self.chunks[-1]) is None:
            return
        k = 256
        while True:
            front = self._front(min(n, k))
            m = _DIGITS.match(front)
            if m is None:
                return
            if m.end() < len(front) or len(front) == n:
                break
            k *= 4
        R = m.group()
        L = len(R)
        if L <= self._LONG:
            return
        e = n - L
        bounds = self.bounds
        p = bounds.find(e)
        if p is None:  # never expected; stay exact
            return
        pieces = self.enc._pieces
        A = [0, 0, 0]
        for d in range(0, L - 2):  # window R[L-d-3 : L-d]
            A[d % 3] += len(pieces[R[L - d - 3 : L - d]])
        r = L % 3
        tail = [0, len(pieces[R[-1:]]), len(pieces[R[-2:]])]
        total = A[r] + tail[r]
        if total != bounds.last_suf() - bounds.S[p]:  # never expected; stay exact
            return
        bounds.pop_above(e)
        bounds.push(n, bounds.last_suf() + total)
        self.dig = [e, L, A, R[:2], tail]

    def _prepend_digits(self, s: str) -> bool:
        e, L, A, head, tail = self.dig
        bounds = self.bounds
        if not bounds.has(2) or bounds.last(2) != e or bounds.last() != self.n:
            self.dig = None
            return False
        if _DIGITS.fullmatch(s) is None:
            return False  # the state stays, to be saved while other pieces are in front
        pieces = self.enc._pieces
        for ch in reversed(s):
            w = ch + head
            L += 1
            A[(L - 3) % 3] += len(pieces[w])
            head = w[:2]
        self._push_text(s)
        self.n += len(s)
        self._set_front(self.n, A[L % 3] + tail[L % 3])
        self.dig = [e, L, A, head, tail]
        return True

    def _truncate_digits(self, n: int) -> bool:
        """Keep the last ``n`` characters when the cut falls inside the long digit run R at
        the front (``dig`` state): subtract the three-digit windows that start in the
        dropped part, O(dropped), instead of re-splitting R."""
        e, L, A, head, tail = self.dig
        bounds = self.bounds
        drop = self.n - n
        if not bounds.has(2) or bounds.last(2) != e or bounds.last() != self.n or L - drop <= self._LONG:
            return False
        R = self._front(drop + 2)
        pieces = self.enc._pieces
        A = list(A)
        for x in range(drop):  # window R[x : x + 3] lies at distance L - x - 3 from R's end
            A[(L - x - 3) % 3] -= len(pieces[R[x : x + 3]])
        L -= drop
        self._drop_front(drop)
        self.n = n
        self.pending = ""
        self._set_front(n, A[L % 3] + tail[L % 3])
        self.dig = [e, L, A, R[drop : drop + 2], tail]
        return True

    def _saved_word_count(self, da: int, db: int):
        """Token count of the piece at distances (``da``, ``db``) from a saved word state of
        that piece, of the piece without its first character (a lead or letter put in front
        of a long word by a re-split: the state takes it, with no more in front), or of the
        piece with one more character in front (a lead that a re-split gave to another
        piece: the state drops it); None without one.  Saves re-encoding a long word."""
        saved = self.saved
        state = saved.get((da, db))
        if state is not None and state[0] is not None:
            return state[0].bp.token_count
        state = saved.get((da + 1, db))
        if state is not None and state[0] is not None:
            word = self._cut_word(state[0], da + 1, da)
            del saved[(da + 1, db)]
            if word is None:
                return None
            saved[(da, db)] = (word, None, None)
            return word.bp.token_count
        state = saved.get((da - 1, db))
        if state is None or state[0] is None or state[0].lead:
            return None
        word = state[0]
        c = self._window(da, da - 1)
        word.bp.prepend(c.encode("utf-8"))
        del saved[(da - 1, db)]
        saved[(da, db)] = (word._replace(lead=self._lead_flag(c)), None, None)
        return word.bp.token_count

    def _saved_piece_at(self, d: int, front: str, a: int):
        """(count, end distance) of the piece that starts at distance ``d`` (at ``front[a]``,
        which a re-split found to be a match start and whose match runs past the fetched
        text), from a saved state, or None; saves scanning a long piece to its end.  The split
        from a piece start depends only on the text after it, which does not change while a
        saved state is kept, so: a state of a piece starting at ``d`` gives that piece; a word
        state of a piece W that ``d`` falls inside gives the rest of W when ``_cut_word``
        proves it one piece (as for a truncation to ``d``); a word state without a lead of W
        starting at ``d - 1`` gives c + W when the character c at ``d`` is a letter or a lead
        W takes (see _joins_word, _takes_lead); an all upper-case W after letters and marks
        X that end with an Lm/Lo letter or a mark (o200k) gives the piece X (see below).  O(saved states + the part of W cut
        off)."""
        saved = self.saved
        for key, (word, run, _) in list(saved.items()):
            s, e = key
            if s == d:
                if word is not None:
                    return word.bp.token_count, e
                if run is not None and run[6] == s and run[0] == e:
                    return run[5].token_count, e
            elif word is None:
                continue
            elif e < d < s:
                cut = self._cut_word(word, s, d)
                if cut is not None:
                    del saved[key]
                    saved[(d, e)] = (cut, None, None)
                    return cut.bp.token_count, e
            elif s < d and not word.lead and a + d - s + 2 <= len(front) and (
                    joined := self._joins_front(word, front, a, d - s, d)) is not None:
                # letters and marks that W takes at its front, one at a time, and maybe a lead
                # before them (see _prepend_to_word, _takes_lead)
                word.bp.prepend(front[a : a + d - s].encode("utf-8"))
                del saved[key]
                saved[(d, e)] = (joined, None, None)
                return word.bp.token_count, e
            elif (s < d and word.all_upper and not word.lead and a + d - s <= len(front)
                    and _BEFORE_UPPER.fullmatch(front, a, a + d - s) is not None):
                # o200k: X = an optional lead and [Lu Lt Lm Lo M]* ending with an Lm/Lo letter or
                # a mark, in front of an all upper-case word W (followed by no letter or mark, as
                # W's match ended there): the first alternative's [Lu Lt Lm Lo M]* runs over X
                # and W, its [Ll Lm Lo M]+ finds nothing in or after W and gives back to X's
                # last character, so X is the piece
                return len(self.enc._pieces[front[a : a + d - s]]), s
        return None

    def _joins_front(self, word: _WordState, front: str, a: int, k: int, d: int):
        """The state of c + W when the ``k`` characters c = ``front[a : a + k]`` (``front[a]``
        at distance ``d``) are put in front of the word W of ``word`` (which has no lead), W
        starting at ``front[a + k]``, and c + W is one piece: each character of c, from the
        last, is a letter or mark W takes (_joins_word), except that the first may be a lead
        (_takes_lead).  Else None."""
        last_upper, last_ll = word.last_upper, word.last_ll
        i = a + k - 1
        while i >= a:
            joined = self._joins_word(front[i], d - (i - a), last_upper, last_ll, word.all_upper)
            if joined is None:
                break
            last_upper, last_ll = joined
            i -= 1
        lead = 0
        if i == a and self._takes_lead(front[a], front[a + 1 : a + 3], word.all_upper):
            lead = self._lead_flag(front[a])
            i -= 1
        if i >= a:
            return None
        return word._replace(last_upper=last_upper, last_ll=last_ll, lead=lead)

    def _lead_flag(self, c: str) -> int:
        """The ``lead`` field of a word state after the lead ``c`` joined the word: 1, but 0
        for an o200k mark, a word character too (the piece is then a word that starts with a
        mark, which takes a lead of its own, as _check_word would find)."""
        return 0 if self.wc[0].o200k and MARK.match(c) else 1

    def _takes_lead(self, c: str, first: str, all_upper: bool) -> bool:
        r"""Whether ``c`` in front of a long word piece starting with ``first`` (its first two
        characters; the piece's match took no lead) joins it as its lead (see
        _prepend_to_word; o200k: any [^\r\n\p{L}\p{N}] character, a mark too, is the first
        alternative's optional lead and the rest matches as before, except that a mark in
        front of an all upper-case piece, the second alternative's, is a piece of its own:
        the first alternative matches the mark alone)."""
        fast = self.wc[0]
        if fast.o200k:
            return _O200K_LETTERS.match(first) is not None and (
                fast.char_class(c) in self._leads(fast) or (MARK.match(c) is not None and not all_upper))
        return fast.char_class(first[0]) == LO and fast.char_class(c) in self._leads(fast) and (
            c != "'" or not _CL100K_CONTRACTION.match(first))

    def _set_front(self, d: int, count: int) -> None:
        """Replace the front boundary by one at distance ``d`` from the end, the first piece
        (up to the boundary after it) holding ``count`` tokens."""
        self.bounds.set_front(d, count)

    def _drop_front(self, drop: int, bp=None) -> None:
        """Remove the first ``drop`` characters; also from the front of the raw
        prependable ``bp`` over the first piece, if given."""
        if bp is not None and drop:
            bp.truncate(len(bp) - len(self._front(drop).encode("utf-8")))
        while drop:
            c = self.chunks[-1]
            if len(c) <= drop:
                self.chunks.pop()
                drop -= len(c)
            else:
                self.chunks[-1] = c[drop:]
                drop = 0

    def _forget_above(self, n: int) -> None:
        """A truncation to length ``n``, before the text goes: the records about the text at
        distances beyond ``n`` go or are cut to ``n`` (those about the text below stay true)."""
        saved = self.saved
        if saved:
            # the text at distances beyond n is gone: later prepends put other text there, and a
            # piece there with the same distances must not get the old piece's state back; a
            # word piece cut by the truncation keeps its state when the rest stays one piece
            for key in [key for key in saved if key[0] > n]:
                word = saved.pop(key)[0]
                if word is not None and key[1] < n:
                    word = self._cut_word(word, key[0], n)
                    if word is not None:
                        saved[(n, key[1])] = (word, None, None)
        puncts = self.puncts
        for e, (top, z) in list(puncts.items()):
            if n < top:
                if n <= z:
                    del puncts[e]
                else:
                    puncts[e] = (n, z)
        if self.tails:
            for key in [key for key, (d0, _) in self.tails.items() if d0 > n]:
                del self.tails[key]
        for p, (top, bottom) in list(self.periods.items()):
            if top > n:  # the text above n goes; below it the record stays true
                if n - p <= bottom:
                    del self.periods[p]
                else:
                    self.periods[p] = (n, bottom)
        for end, (start, bp) in list(self.ghosts.items()):
            if n < start:
                del self.ghosts[end]
                if n > end:
                    self._set_ghost(start, end, bp, n)
        if self.gaps:
            for d in [d for d in self.gaps if d > n]:
                del self.gaps[d]

    def truncate(self, n: int) -> None:
        n = _check_len(n, self.n)
        if n == self.n:
            return
        saved = self.saved
        # A saved digit-run state of a piece the cut goes into (text was put in front of a long
        # digit run): truncate to the run's start first, which gives the state back, so that
        # the cut inside the run subtracts windows (_truncate_digits) instead of re-splitting it.
        start = max((key[0] for key, state in saved.items()
                     if state[2] is not None and key[1] < n < key[0] < self.n), default=None)
        if start is not None:
            self.truncate(start)
        self._forget_above(n)
        if self.dig is not None and self._truncate_digits(n):
            return
        if self.word is not None and self._truncate_word(n):
            return
        run = self.run
        if run is not None and self._edit_run("", self.n - n):
            return
        self.pending = ""
        if run is not None and run[6] <= n:
            # a run state of a piece behind the first one (see _edit_run) outlives the cut
            self.saved[(run[6], run[0])] = (None, run, None)
        elif run is not None and n > run[0]:
            # the cut piece's bytes, kept in case a prepend makes it one piece again
            self._set_ghost(run[6], run[0], run[5], n)
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
        top = bounds.last()
        if top != n:
            state = self.saved.pop((n, top), None)
            if state is not None and state[0] is not None:
                # a saved word state says the first piece ends at the last kept boundary
                bounds.push(n, bounds.last_suf() + state[0].bp.token_count)
                self.word = state[0]
                return
            run = None if state is None else state[1]
            if run is not None and run[6] == n and run[0] == top:
                # so does a saved run state of that piece (see _save_state)
                bounds.push(n, bounds.last_suf() + run[5].token_count)
                self.run = run
                return
            if state is not None:
                self.saved[(n, top)] = state
            self._resync()
        if not self._restore_state():
            # the new first piece may be long and have no state (it had none while behind
            # others, or a merge took its state): look for one, as a prepend does, so that the
            # edits after this one do not scan it again
            self._check_word()
            self._check_run()
            self._check_digits()

    def _piece_bp(self, start: int, end: int, text: str) -> BytesPrependable:
        """A raw prependable over the piece ``text`` at distances (``start``, ``end``): the
        ghost of that piece when there is one (the re-split counted it with it), else a new one."""
        ghost = self.ghosts.get(end)
        if ghost is not None and ghost[0] == start:
            del self.ghosts[end]
            return ghost[1]
        bp = BytesPrependable(self.enc.bpe)
        bp.prepend(text.encode("utf-8"))
        return bp

    def _adopt_saved(self, d: int, e: int, front: str, a: int, n: int):
        """Count of the long piece at distances (``d``, ``e``) from a saved state of a piece
        with the same end that it extends at the front (text put in front of a long piece
        joined it): a copy of the state's raw prependable takes the new bytes and becomes the
        piece's ghost; the state stays (its piece comes back when a truncation drops the new
        text).  None without one.  ``front`` starts at distance ``n``.  O(new bytes + saved
        states), and a copy of the piece's bytes (C speed), once: later re-splits take the
        ghost."""
        for key, (word, run, _) in self.saved.items():
            if key[1] != e or not key[0] <= d or n - key[0] > len(front):
                continue
            bp = word.bp if word is not None else run[5] if run is not None and run[6] == key[0] else None
            if bp is None:
                continue
            bp = bp.copy()
            if d > key[0]:
                bp.prepend(front[a : n - key[0]].encode("utf-8"))
            self._keep(self.ghosts, e, (d, bp))
            return bp.token_count
        return None

    def _ghost_count(self, d: int, e: int, front: str, a: int, n: int):
        """Count of the piece at distances (``d``, ``e``), starting at ``front[a]`` (``front``
        starts at distance ``n``), from the ghost with that end: it takes the bytes in front
        of it, or gives up those before ``d`` (O(difference)); None without one or when the
        difference is not in ``front``."""
        ghost = self.ghosts.get(e)
        if ghost is None or n - ghost[0] > len(front) or ghost[0] > n:
            return None
        start, bp = ghost
        if d > start:
            bp.prepend(front[a : n - start].encode("utf-8"))
        elif d < start:
            bp.truncate(len(bp) - len(front[n - start : a].encode("utf-8")))
        self.ghosts[e] = (d, bp)
        return bp.token_count

    def _set_ghost(self, start: int, end: int, bp, n: int) -> None:
        """Keep ``bp`` (over the text at distances (start, end)) cut to (n, end) as a ghost."""
        gone = self._front(self.n - n)[self.n - start :]
        bp.truncate(len(bp) - len(gone.encode("utf-8")))
        self._keep(self.ghosts, end, (n, bp))

    _KEPT = 8  # ghosts and punctuation records kept (the oldest goes first)

    def _keep(self, records: dict, key, value) -> None:
        if key not in records and len(records) >= self._KEPT:
            del records[next(iter(records))]
        records[key] = value

    _FETCH = 256  # characters of the front fetched first by a re-split (then 4x as needed)

    def _resync(self) -> None:
        n = self.n
        bounds = self.bounds
        # boundaries beyond the previous front are no longer valid
        pieces = self.enc._pieces
        if self.pattern is None:
            bounds.pop_above(0)
            bounds.push(n, self.enc.bpe.count(self.get_text().encode("utf-8")) if n else 0)
            return
        # A word state just saved for the old first piece W (distances (w0, w1)): when a new
        # piece ends at w0 - 1, W minus its lead is the next piece (see _saved_word_count).
        just = self.just_saved
        o200k = self.wc is not None and self.wc[0].o200k
        k = self._FETCH
        head = []  # pieces before the text fetched now (re-split before a jump or a skip)
        jumped = None  # index in head of the jump over a periodic stretch (see _jump)
        looked = False  # whether a period was looked for early in a fetch, in vain
        base = n  # distance of front[0]: the front, or where the re-split goes on
        while True:
            front = self._front(k) if base == n else self._window(base, max(0, base - k))
            # A match may be cut short by the end of the fetched front (when it is not the
            # whole text): one that ends there, within 4 characters of it (a contraction,
            # a look-ahead), before whitespace up to it (\s*[\r\n]+ backtracks to the
            # last newline it has seen) or, o200k, before upper-word characters up to it
            # ("\u4e2d" + "A" * k: "\u4e2d" until an "x" after the A's makes one word) is
            # only final once more text is fetched (piece_stream's stability rule).
            # (The last rule is for word matches whose first part runs into that stretch,
            # see _reads_upper_tail.)
            whole = len(front) == base  # the fetched text runs to the end
            upper = len(front) + 1  # where the trailing upper-word stretch starts
            if whole:
                stable = len(front) + 1
            else:
                stable = len(front) - 4
                if front[-1].isspace():
                    stable = min(stable, len(front.rstrip()))
                elif o200k:
                    upper = _UPPER_TAIL.search(front).start()
            new = []  # (dist, count of the piece starting there)
            synced = skip = None
            early = False
            for m in self.pattern.finditer(front):
                a, b = m.span()
                d = base - a
                if bounds.find(d) is not None:
                    synced = d
                    break
                if b > stable or (b > upper and self._reads_upper_tail(front, a, b)):
                    # a long piece whose start a saved state knows ends where it says
                    got = self._saved_piece_at(d, front, a) if self.saved else None
                    if got is not None:
                        count, e = got
                        new.append((d, count))
                        synced = e if bounds.find(e) is not None else None
                        skip = e
                        break
                    # a punctuation match into a known stretch ends where the stretch's
                    # piece did (see _merged_count)
                    if b == len(front):
                        count, e = self._merged_count(front, a, b, base)
                        if count is not None:
                            new.append((d, count))
                            synced = e
                    break
                count = None
                if b - a > self._LONG:
                    if self.saved:
                        count = self._saved_word_count(d, base - b)
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
                        self._keep(self.ghosts, base - b, (d, bp))
                        count = bp.token_count
                new.append((d, len(pieces[m.group()]) if count is None else count))
                # Sync where the next match starts, without matching it (it may be a long
                # word): a known boundary, or the rest of a saved word W.
                d = base - b
                if bounds.find(d) is not None:
                    synced = d
                    break
                if len(new) == self._PERIOD_PIECES * 2 and jumped is None and not looked:
                    early = True  # look for a period now rather than after the whole fetch
                    break
                if (just is not None and d == just[0] - 1 and d > just[1]
                        and bounds.find(just[1]) is not None):
                    count = self._saved_word_count(d, just[1])
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
            if jumped is None and len(new) >= self._PERIOD_PIECES:
                jump = self._jump(front, new, base)
                if jump is not None:
                    i0, d, count, base = jump
                    head += new[:i0] + [(d, count)]
                    jumped = len(head) - 1
                    k = self._FETCH
                    continue
                if early:  # none found early: finish this fetch without looking early again
                    looked = True
                    continue
            k *= 4
        new = head + new
        # The old boundaries between the sync point and the old front go; many (a merge of a
        # long stretch), or a few with a jump among them (which stand for a long stretch), are
        # hidden instead, for a truncation that splits the piece again (not after a jump of
        # this re-split: its pieces are not pushed, so that nothing would cover them).
        p = bounds.find(synced)
        if jumped is None and (bounds.above(p) > self._LONG or any(d > synced for d in self.gaps)):
            bounds.hide_above(p)
        bounds.pop_above(synced)
        if jumped is not None:
            # (a fact about the text after the jump's start, kept until a truncation goes
            # below it: hidden boundaries revealed later may have this gap too)
            self.gaps[new[jumped][0]] = new[jumped + 1][0] if len(new) > jumped + 1 else synced
        base = bounds.last_suf()
        for d, c in reversed(new):
            base += c
            bounds.push(d, base)

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

    # A periodic stretch (o200k: " A" in front of "'s" * n shifts every "'s's" piece by two
    # characters; a digit run is the same under both patterns, but has its own state): the
    # re-split never meets an old boundary until the stretch ends, and re-splitting it piece by
    # piece is O(stretch) in Python on every such edit.  Jump over it instead.  Let the new pieces
    # from a (not the first piece, which the states look at) to a + p repeat with the text:
    # text[i] == text[i + p] for a <= i < B - p.  The stability rule of the re-split (a match
    # ending at e with a non-space character at or after e and 4 more characters is final
    # whatever follows) says that the piece [s, e) depends only on text[s:t], t = max(e + 4,
    # first non-space at or after e, plus one).  With T the largest such t over one period, the
    # pieces shifted by m * p are the same pieces for every m with T + m * p <= B, so the k =
    # (B - T) // p + 1 periods from a hold k times the period's tokens, and the re-split goes on
    # at a + k * p.  The boundaries inside the jump are not pushed (the first piece, and a
    # piece starting at a, are real pieces; nothing reads the boundaries between but a
    # re-split, which syncs only on real piece starts).  Cost: O(text fetched and compared),
    # at C speed, instead of O(pieces) in Python.
    _PERIOD_PIECES = 8  # new pieces seen before looking for a period
    _MAX_PERIOD = 256

    def _jump(self, front: str, new: list, n: int):
        """(index of the first jumped piece in ``new``, its start distance, the jumped pieces'
        token count, the distance where the re-split goes on) for a periodic stretch at the
        ``new`` pieces of the fetched ``front``, which starts at distance ``n`` (see above),
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
        bottom + p < d <= top equals the one at d - p: from the record of ``p`` when it
        reaches ``top``, else by comparing blocks down from ``top`` (down to the record's top
        when there is one), which then becomes the record.  O(1) with a record, else
        O(characters compared + chunks visited)."""
        rec = self.periods.get(p)
        if rec is not None and rec[0] >= top:
            return rec[1]
        stop = p if rec is None else max(p, rec[0])  # compare the distances (stop, top]
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
        if bottom is None:
            bottom = 0 if rec is None else rec[1]
        self._keep(self.periods, p, (top, bottom))
        return bottom

    # A punctuation match (` ?[^\s\p{L}\p{N}]+` then cl100k `[\r\n]*`, o200k `[\r\n/]*`) takes
    # the whole [^\s\p{L}\p{N}] run it starts in and then the whole newline run after it, so
    # where it ends is a fact about the text after its first character: ``puncts`` records it
    # for the last long such runs seen, which stays true (prepending does not change that text)
    # while no truncation goes below its top.  A match that reaches the end of the fetched front
    # while in such a run, with no newline and a character after its first that no word match
    # can hold (o200k: a non-mark; cl100k: any of the run's class), is a punctuation match and
    # ends at the record's ``e``; its count comes from the ghost of that piece.  Several are kept
    # so that merging one stretch, then another in front of it, then the first again (after
    # truncating the second away) does not re-encode the first.  This is what
    # makes "!" in front of "!\u0301\u0301" * n, and its undo, O(1) after the first time.
    _Q_RUN = regex.compile(r"[^\s\p{L}\p{N}]+")
    _TAILS = {True: regex.compile(r"[\r\n/]*"), False: regex.compile(r"[\r\n]*")}
    _WITNESS = {True: regex.compile(r"[^\s\p{L}\p{N}\p{M}]"), False: regex.compile(r"[^\s\p{L}\p{N}]")}

    def _note_punct(self, front: str, a: int, b: int, n: int) -> bool:
        """Record the long [^\\s\\p{L}\\p{N}] run of the match ``front[a:b]`` (``front``
        starts at distance ``n``, see above); False when the match does not end with such a
        run and its newline run."""
        if self.run_re is None:
            return False
        s0 = a + (front[a] == " ")
        # (unbounded: an o200k word of marks is such a run too, but one that may go on after
        # the match, as in "\u0301" * 65 + ".e", where "." ends the word)
        q = self._Q_RUN.match(front, s0)
        if q is None or q.end() > b or q.end() - s0 <= self._LONG:
            return False
        if self._TAILS[self.wc[0].o200k].match(front, q.end()).end() != b:
            return False
        self._keep(self.puncts, n - b, (n - s0, n - q.end()))
        return True

    def _merged_count(self, front: str, a: int, b: int, n: int):
        """(count, end distance) of the piece whose match ``front[a:b]`` runs past the fetched
        text ``front`` (which starts at distance ``n``), when ``puncts`` and ``ghosts`` give
        them (see above); else (None, None)."""
        x = n - b + 1  # distance of the start of the last fetched character
        e = next((e for e, (top, z) in self.puncts.items() if z < x <= top), None)
        if e is None:
            return None, None
        o200k = self.wc[0].o200k
        text = front[a:b]
        if "\r" in text or "\n" in text or self._WITNESS[o200k].search(front, a + 1, b) is None:
            return None, None
        if self.bounds.find(e) is None:
            return None, None
        count = self._ghost_count(n - a, e, front, a, n)
        if count is None and self.saved:
            count = self._adopt_saved(n - a, e, front, a, n)
        return count, e
