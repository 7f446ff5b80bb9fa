r"""Long word pieces at the front of a :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`.

A long first piece W that is a word starting with a letter that continues words
(cl100k: any letter; o200k: any piece of letters and marks) and has no apostrophe but, in
o200k, the one of a contraction that ends it (what follows is said of the letters before it;
see ``_check_word``).

Why a letter joins W.  cl100k: a letter c prepended gives the single piece c + W
(``\p{L}++`` runs through W to the same end).  o200k: W is one word match, a leading run
X of ``[Lu Lt Lm Lo M]`` (the first repetition), then ``[Ll Lm Lo M]`` to W's end (the
second; or none, the first giving back its last character).  c + W is one piece again
when c is upper-case, ``Lm``/``Lo`` or a mark (part of X), and when c is lower-case only if
X holds no upper-case letter (else the second repetition started at c stops at it).  The
pieces after W do not change (the patterns have no look-behind).

Why a cut keeps W one piece.  Truncating inside W leaves W' with W's end: always one piece
for cl100k (letters); for o200k when W' holds a lower-case letter (the first part runs to
W''s first Ll, the second from there to W's end, as W's did), or when W holds none (its
first part, and W''s, runs to the end of its ``[Lu Lt Lm Lo M]`` stretch, followed by no
Ll, and gives back to the same last Lm/Lo/mark, which W ends with), or when the character
after W is no upper-case letter (W' is then all ``[Lm Lo M]``: its first part stops at W's
end, where W's stopped, and gives back its last character to the second), or when the
stretch of ``[Lu Lt Lm Lo M]`` after W is upper-case letters only and no Ll follows it (the
first part runs over it, the second finds nothing there and the first gives back to W''s
end; ``_may_run_on`` reads that stretch once, when the state is made).  Otherwise W' is
all ``[Lm Lo M]`` and may run on past W's end: the state goes.

Why a lead joins W.  A *lead* is one character c of ``[^\r\n\p{L}\p{N}]`` (cl100k: an
apostrophe only when W does not start like a contraction, ``'s 'll ...``, which is a piece
of its own and is tried first; o200k: a mark too, see below).  Prepended to W when W
starts with a letter it gives the single piece c + W: the word alternative takes c as
its optional lead and then tries exactly what it tried on W (whose own lead was empty),
so it ends where W's match did.  Nothing in front of the lead joins the piece (a second
lead is not a letter), and truncating drops the lead first.  An o200k W that starts with
a mark m takes a lead too: W's match is the first alternative's with m as its optional
lead, then a leading ``[Lu Lt Lm Lo M]`` run R' and ``[Ll Lm Lo M]+`` to W's end; for
c + W the first repetition takes m + R' (m is in its set) and the second tries the same
characters from the same place.  A mark joined as a lead makes a mark-led word again
(``_lead_flag``).  An o200k W that is all upper-case letters is the second alternative's
match (the first needs one ``[Ll Lm Lo M]``): an Lm/Lo letter or a mark in front of it is
a piece of its own (the first alternative gives back to it), so only upper-case letters
join it.  Any other W ends with an ``[Ll Lm Lo M]`` character, and so does every W' left
by a cut.

Invariant of the state ``word`` (a :class:`_WordState`): the first piece of the text is
the word at distances (n, word.end), ``bounds`` holds both ends, ``word.bp`` is a raw
prependable over exactly its bytes, and the other fields describe it as their comments
say.  A state saved in ``saved`` (key: the piece's distances) describes its piece the
same way, the piece being anywhere in the text: a piece's text is fixed by its distances
for as long as no truncation goes below its start.

Cost: O(1) per letter or lead prepended (``_prepend_to_word``), O(dropped) per truncation
inside W (``_truncate_word``), O(W) once to build the state.  A re-split that reaches the
start of a piece a saved state knows, or a start inside it or a few letters before it,
takes the piece from the state instead of scanning it (``_saved_piece_at``,
``_saved_word_count``): O(saved states + characters added or cut).  So does, o200k, one
that meets text with a lower-case letter in front of W when W's leading run holds an
upper-case letter: the piece is that text and W up to its first upper-case letter
(``_lower_led_piece``; the state keeps where that letter is, ``uppers``).  When more than
``_LONG`` characters are added or cut, the state is copied first (C speed) and both are
kept: an edit and its undo that make the piece longer and shorter again then take one or
the other as it is, instead of adding the part back in Python on every round.
"""

from __future__ import annotations

from typing import NamedTuple

from ...bpe.prependable import BytesPrependable
from ...pretokenize.fast_split import (
    AP,
    LO,
    MARK,
    O200K_FIRST_RUN,
    OL,
    SL,
    SP,
    UP,
    WS,
    P,
)
from ...pretokenize.patterns import is_space
from ...pretokenize.unicode import compile_regex

__all__ = ["WordPieces"]

_O200K_LETTERS = compile_regex(r"[\p{L}\p{M}]+")
_LAST_UPPER = compile_regex(r"(?r)[\p{Lu}\p{Lt}]")
_LAST_LL = compile_regex(r"(?r)\p{Ll}")
_CL100K_CONTRACTION = compile_regex(r"(?i:[sdmt]|ll|ve|re)")
_O200K_CONTRACTION_END = compile_regex(r"(?i:'s|'t|'re|'ve|'m|'ll|'d)\Z")
_UPPER = compile_regex(r"[\p{Lu}\p{Lt}]")
_UPPERS = compile_regex(r"[\p{Lu}\p{Lt}]*")
# an optional lead is not part of it: (c, lead) is matched from after the lead
_LOWER_LED = compile_regex(r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*\p{Ll}[\p{Ll}\p{Lm}\p{Lo}\p{M}]*")
_BEFORE_UPPER = compile_regex(r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Lm}\p{Lo}\p{M}]")


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
    # upper-case letters of that run from its first, as a chain (distance, rest): the first
    # and those put in front later (a cut that drops those falls back on the first); () when
    # the run holds none (last_upper == 0) or when the first is not known (a cut went past
    # it and none lay within reach, see _cut_word)
    uppers: tuple


class WordPieces:
    """Mixin of :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`: its ``word`` state."""

    __slots__ = ()
    # the characters a word piece may take at its front, but a lead (_joins_word: cl100k
    # letters, o200k letters and marks)
    _JOINS = {False: compile_regex(r"\p{L}*"), True: compile_regex(r"[\p{L}\p{M}]*")}

    def _check_word(self) -> None:
        self.word = None
        if self.wc is None or not self.bounds.has(2):
            return
        end = self.bounds.last(2)
        length = self.n - end
        if length <= self._LONG:
            return
        fast, letters, first_class = self.wc
        # a piece that is a lead and a word (see the module doc), decided on the first two characters;
        # reject on them before fetching the piece (it may be a long punctuation piece, see
        # _merged_count): the word's body must start with a letter
        head = self._front(2)
        lead = 1 if fast.char_class(head[0]) in self._leads(fast) and fast.char_class(head[1]) in letters else 0
        if _O200K_LETTERS.match(head, lead) is None if fast.o200k else fast.char_class(head[lead]) != first_class:
            return
        front = self._front(length + 1)
        w = front[:length]
        tail = 0
        if "'" in w:
            # o200k: a word may end with a contraction (the optional last part of its match),
            # which the body's repetitions stop before: W is then its body B and the
            # contraction, and everything said of W holds of B (c + W and a cut W' take the
            # same contraction after the same end of B; nothing runs on past B, an apostrophe
            # follows it).  A long mixed word before a contraction chain had no state, so every
            # edit in front of it read it whole ("\u017f\u4e2d" mixed + "'Re" * k).
            m = _O200K_CONTRACTION_END.search(w) if fast.o200k else None
            if m is None or "'" in w[: m.start()]:
                return
            tail = length - m.start()
        body = w[lead : length - tail]
        last_upper = last_ll = 0
        uppers = ()
        after_upper = all_upper = False
        if fast.o200k:
            # any piece of letters and marks (see _prepend_to_word)
            if _O200K_LETTERS.fullmatch(body) is None:
                return
            run = O200K_FIRST_RUN.match(body).group()
            m = _LAST_UPPER.search(run)
            last_upper = self.n - lead - m.start() if m else 0
            m = _UPPER.search(run)
            uppers = (self.n - lead - m.start(), ()) if m else ()
            m = _LAST_LL.search(body)
            last_ll = self.n - lead - m.start() if m else 0
            after_upper = (not tail and len(front) > length and fast.char_class(front[length]) == UP
                           and self._may_run_on(end, 4 * length))
            all_upper = fast.char_class(body[-1]) == UP
        elif fast.char_class(body[0]) != first_class:
            return
        bp = self._piece_bp(self.n, end, w)
        if bp.token_count != self.bounds.last_suf() - self.bounds.last_suf(2):  # never expected
            return
        self.word = _WordState(end, bp, last_upper, last_ll, lead, after_upper, all_upper, uppers)

    def _may_run_on(self, end: int, limit: int) -> bool:
        """o200k: whether a piece W' of [Lm Lo M] characters ending at distance ``end``,
        before an upper-case letter, may run on past ``end`` (see the module doc).  Its
        match's first repetition runs over W' and the stretch S of [Lu Lt Lm Lo M] after
        it; the second needs an [Ll Lm Lo M] character: one after S (an Ll) or the last
        [Lm Lo M] of S would carry the match past ``end``, else it gives back to W''s last
        character.  Reads S and one more character, up to ``limit`` (C speed); True when S
        is longer."""
        k = min(end, limit)
        after = self._window(end, end - k)
        s = O200K_FIRST_RUN.match(after).end()
        if s == len(after) and k < end:
            return True  # S not read to its end
        if _UPPERS.fullmatch(after, 0, s) is None:
            return True
        return s < len(after) and self.wc[0].char_class(after[s]) == LO

    @staticmethod
    def _leads(fast) -> tuple:
        """Classes of the characters that may lead a word piece (see the module doc)."""
        return (SP, WS, P, SL, AP) if fast.o200k else (SP, WS, P, AP)

    def _prepend_to_word(self, s: str) -> str:
        """Prepend the longest suffix of ``s`` that the word state takes; returns the rest."""
        fast, letters, _ = self.wc
        end, bp, last_upper, last_ll, lead, after_upper, all_upper, uppers = self.word
        if self.bounds.last(2) != end or self.bounds.last() != self.n or lead:
            return s
        k = len(s)
        while k > 0:
            # (distance of s[k - 1] from the end once prepended)
            joined = self._joins_word(s[k - 1], self.n + len(s) - k + 1, last_upper, last_ll, all_upper, uppers)
            if joined is None:
                break
            last_upper, last_ll, uppers = joined
            k -= 1
        if k > 0 and fast.char_class(s[k - 1]) in self._leads(fast):
            # a lead, when the piece starts with a letter or (o200k) a mark (see the module doc); for
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
        self.word = _WordState(end, bp, last_upper, last_ll, lead, after_upper, all_upper, uppers)
        return s[:k]

    def _joins_word(self, c: str, d: int, last_upper: int, last_ll: int, all_upper: bool, uppers: tuple):
        """(last_upper, last_ll, uppers) of the word state of W after the character ``c``
        (at distance ``d``) joins W at its front, or None when c + W is not one piece (W
        takes no lead)."""
        fast, letters, _ = self.wc
        cls = fast.char_class(c)
        if not fast.o200k:
            return (last_upper, last_ll, uppers) if cls in letters else None
        # W is letters and marks, one word match: a leading run X of [Lu Lt Lm Lo M] (the
        # first repetition), then [Ll Lm Lo M] (the second; or none, the first giving back its
        # last character).  c + W is one piece again when c is upper-case, Lm/Lo or a mark
        # (class None: the lead, or part of X), and when c is lower-case only if X holds no
        # upper-case letter (else the second repetition started at c stops at it):
        # last_upper != 0 says it does.
        if cls == LO:
            return None if last_upper else (last_upper, last_ll or d, uppers)
        if cls == UP:
            return last_upper or d, last_ll, (d, uppers)
        if all_upper or not (cls == OL or (cls is None and MARK.match(c))):
            return None
        return last_upper, last_ll, uppers

    def _truncate_word(self, n: int) -> bool:
        """Keep the last ``n`` characters when the cut falls inside the long first word W
        and the rest stays one piece with W's end (see the module doc): O(dropped)."""
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
        None when the rest is not known to be one piece with that end (see the module doc).  Its raw
        prependable loses the text at distances (n, start], which is still there: O(start - n)."""
        if self._cut_refused(word, n):
            return None
        last_ll = word.last_ll
        if self.wc[0].o200k and last_ll > n:
            last_ll = 0  # W' is all [Lm Lo M] (see the module doc)
        gone = self._window(start, n)
        word.bp.truncate(len(word.bp) - len(gone.encode("utf-8")))
        last_upper = word.last_upper if word.last_upper <= n else 0
        uppers = word.uppers if last_upper else ()
        while uppers and uppers[0] > n:
            uppers = uppers[1]
        if last_upper and not uppers:
            # the cut went past the first upper-case letter known but not the last (or the
            # first was not known): the new first is looked for within reach, else it is not
            # known (only _lower_led_piece asks for it)
            m = _UPPER.search(self._window(n, max(last_upper - 1, n - 4 * self._CTX)))
            uppers = (n - m.start(), ()) if m else ()
        return word._replace(last_upper=last_upper, last_ll=last_ll, lead=0, uppers=uppers)

    def _cut_refused(self, word: _WordState, n: int) -> bool:
        """Whether ``_cut_word`` refuses to cut ``word`` to distance ``n``: the rest is short,
        or (o200k) all [Lm Lo M] and may run on past W's end (see the module doc)."""
        return n - word.end <= self._LONG or (self.wc[0].o200k and word.last_ll > n and word.after_upper)

    def _saved_word_count(self, d: int, e: int, front: str, a: int):
        """Token count of the piece at distances (``d``, ``e``), which a re-split found
        starting at ``front[a]`` and ending at ``e``, from a saved state (its own, or one that
        ``_saved_piece_at`` cuts or extends to it), or None.  Saves re-encoding a long word."""
        state = self.saved.get((d, e))
        if state is not None and state[0] is not None:
            return state[0].bp.token_count
        got = self._saved_piece_at(d, front, a, e)
        return got[0] if got is not None and got[1] == e else None

    def _saved_piece_at(self, d: int, front: str, a: int, end: int | None = None):
        """(count, end distance) of the piece that starts at distance ``d`` (at ``front[a]``,
        which a re-split found to be a match start and whose match runs past the fetched
        text), from a saved state, or None; saves scanning a long piece to its end.  The split
        from a piece start depends only on the text after it, which does not change while a
        saved state is kept, so: a state of a piece starting at ``d`` gives that piece; a word
        state of a piece W that ``d`` falls inside gives the rest of W when ``_cut_word``
        proves it one piece (as for a truncation to ``d``; the state is cut when W starts in
        the fetched text, else the rest is counted without a cut, ``_rest_of_saved_word``); a
        word state without a lead of W starting below ``d`` gives c + W when the characters c
        from ``d`` to W are letters and marks W takes, the first maybe a lead
        (``_joins_front``); an all upper-case W after letters and marks X that end with an
        Lm/Lo letter or a mark (o200k) gives the piece X (see below); a run state of a
        whitespace piece that takes whitespace in front (``RunState.absorbs``) gives the
        piece from ``d`` when whitespace lies between, or when ``d`` falls inside it.  ``end``, when given, is where the piece is known to end:
        states of other pieces are skipped.  O(saved states + the part of W cut off or added)."""
        saved = self.saved
        base = d + a  # distance of front[0]: the states whose pieces start in the fetched text
        # (and those that start above it, within its length: see _rest_of_saved_word)
        found = saved.starting_in(base - len(front), base + len(front))
        # a state of the piece itself first: one of a longer or shorter piece would be cut or
        # extended to it (states are kept for both when that part is long, see below)
        found.sort(key=lambda item: item[0][0] != d)
        lower_led = []
        above = []
        for key, (word, run, _) in found:
            s, e = key
            if s > base:
                if word is not None and e < d < s and (end is None or e == end):
                    above.append((word, s, e))  # (tried last, as it reads W's part above d)
                continue
            if end is not None and e != end and not (word is not None and (word.all_upper or word.uppers and word.uppers[0] == end)):
                continue
            if s == d:
                if word is not None:
                    return word.bp.token_count, e
                if run is not None and run.start == s and run.end == e:
                    return run.bp.token_count, e
            elif word is None:
                if run is None or not run.absorbs or run.start != s or run.end != e:
                    continue
                # a whitespace piece P that takes whitespace put in front of it (front/runs.py,
                # RunState.absorbs) gives the piece from here, as it does from the front:
                # whitespace and P, or what is left of P
                # (P's state is kept too when the part added or cut is long, see the word cut)
                hi = run.hi
                keep = abs(d - s) > self._LONG
                if s < d and a + d - s <= len(front) and is_space(front[a : a + d - s]):
                    bp = run.bp.copy() if keep else run.bp
                    bp.prepend(front[a : a + d - s].encode("utf-8"))
                elif e < d < s and a >= s - d:
                    if hi is not None and d < hi:
                        # the cut goes past the anchor: P's cut is kept only from a new one
                        hi = self._anchor_from(run, d, front, a)
                        if hi is None:
                            continue
                    bp = run.bp.copy() if keep else run.bp
                    bp.truncate(len(bp) - len(front[a - (s - d) : a].encode("utf-8")))
                else:
                    continue
                if not keep:
                    saved.pop(key)
                self._save((d, e), (None, run._replace(start=d, hi=hi, bp=bp), None))
                return bp.token_count, e
            elif e < d < s:
                # a long part cut off is kept: the piece W comes back when the text that split
                # it goes (a copy at C speed, once, against re-adding the part in Python on
                # every undo)
                # (not copied for a cut that _cut_word refuses)
                keep = s - d > self._LONG and not self._cut_refused(word, d)
                cut = self._cut_word(word._replace(bp=word.bp.copy()) if keep else word, s, d)
                if cut is not None:
                    if not keep:
                        saved.pop(key)
                    self._save((d, e), (cut, None, None))
                    return cut.bp.token_count, e
            elif s < d and not word.lead and a + d - s + 2 <= len(front) and (
                    joined := self._joins_front(word, front, a, d - s, d)) is not None:
                # letters and marks that W takes at its front, one at a time, and maybe a lead
                # before them (see _prepend_to_word, _takes_lead); W's state is kept when they
                # are many (see the cut above)
                keep = d - s > self._LONG
                bp = word.bp.copy() if keep else word.bp
                bp.prepend(front[a : a + d - s].encode("utf-8"))
                if not keep:
                    saved.pop(key)
                self._save((d, e), (joined._replace(bp=bp), None, None))
                return bp.token_count, e
            elif s < d and word.uppers and not word.lead and not word.all_upper and a + d - s <= len(front):
                # (tried last: another state may give the piece without building its bytes)
                lower_led.append((word, s))
            elif (s < d and word.all_upper and not word.lead and a + d - s <= len(front)
                    and _BEFORE_UPPER.fullmatch(front, a, a + d - s) is not None):
                # o200k: X = an optional lead and [Lu Lt Lm Lo M]* ending with an Lm/Lo letter or
                # a mark, in front of an all upper-case word W (followed by no letter or mark, as
                # W's match ended there): the first alternative's [Lu Lt Lm Lo M]* runs over X
                # and W, its [Ll Lm Lo M]+ finds nothing in or after W and gives back to X's
                # last character, so X is the piece; a long X is counted on a ghost, kept
                if d - s <= self._LONG:
                    return len(self.enc._pieces[front[a : a + d - s]]), s
                count = self._ghost_count(d, s, front, a, base)
                if count is None:
                    bp = BytesPrependable(self.enc.bpe)
                    bp.prepend(front[a : a + d - s].encode("utf-8"))
                    self._put_ghost(s, d, bp)
                    count = bp.token_count
                return count, s
        for word, s in lower_led:
            got = self._lower_led_piece(word, s, d, front, a)
            if got is not None:
                return got
        if not above:
            # (W may start far above: the piece in front of d took a long part of it)
            far = saved.lowest_top_from(base + len(front) + 1)
            if far is not None:
                (s, e), (word, _, _), _ = far
                if word is not None and e < d < s and (end is None or e == end):
                    above.append((word, s, e))
        for word, s, e in above:
            if not self._cut_refused(word, d):
                got = self._rest_of_saved_word(word, s, e, d, len(front))
                if got is not None:
                    return got
        return None

    def _rest_of_saved_word(self, word: _WordState, s: int, e: int, d: int, reach: int):
        """(count, end) of the rest from distance ``d`` of the word W at distances (``s``,
        ``e``) whose saved state is ``word``, W starting above the fetched text (``reach``
        characters long) and ``_cut_word`` proving the rest one piece with W's end; or None.
        The count is W's raw prependable's count of that suffix (``counts``), without a cut:
        the state stays W's, for the undo, and no copy of it is made.  It needs the bytes of
        W's part above ``d``: from the saved word state of a piece that ends at ``d`` and
        starts at or above W's start, less the bytes of its part above W (o200k letters c put
        in front of W take it up to its first upper-case letter, ``_lower_led_piece``, which
        saves the state of c + W[:f]: W[:f] may be long, "x" before "\u4e2d" * k + "A" * k +
        "a" * k), else from the text when that part is at most twice ``reach``.  (W is split
        in the same prepend, so no record of the rest outlives the pass: it was fetched to its
        end on every pass.)  O(that piece's part above W, or W's part above ``d``)."""
        size = None
        for (s2, e2), (piece, _, _) in self.saved.starting_in(s, s + reach):
            if e2 == d and piece is not None and piece.end == d:
                size = len(piece.bp) - len(self._window(s2, s).encode("utf-8"))
                break
        if size is None:
            if s - d > 2 * reach:
                return None
            size = len(self._window(s, d).encode("utf-8"))
        bp = word.bp
        return bp.counts[len(bp) - size], e

    def _lower_led_piece(self, word: _WordState, s: int, d: int, front: str, a: int):
        """o200k: (count, end) of the piece c + W[:f] that starts at distance ``d`` (at
        ``front[a]``), where c = ``front[a : a + d - s]`` holds a lower-case letter and is
        followed by the long word W of ``word`` (no lead, starting at distance ``s``, not all
        upper-case), whose first upper-case letter is at distance f = ``word.uppers[0]``;
        or None when c is not such a text.  The piece's state is saved.

        Why.  W's leading run X of [Lu Lt Lm Lo M] holds its upper-case letters, so W[:f] is
        [Lm Lo M] characters.  c is an optional lead, [Lu Lt Lm Lo M]*, a lower-case letter,
        then [Ll Lm Lo M]*: the first alternative's lead and first repetition stop at c's
        first lower-case letter, the second repetition runs from there over the rest of c and
        over W[:f] and stops at W's upper-case letter (in neither of its classes), where no
        contraction starts.  So c + W[:f] is one piece, whatever follows; the next piece
        starts at f (the re-split goes on there, and a state of W cut to f gives it).

        The count comes from the ghost of end f when it lies near (the bytes put in front of
        it or cut off are read, as _ghost_count does), else from the piece's text, read once;
        the state keeps those bytes (``_restore_state`` gives it when the piece is first), so
        the checks do not read the piece again, nor the upper-case stretch after it (its
        ``after_upper`` is decided on a bounded read, True when that does not reach the
        stretch's end: a cut then refused takes the general path).  O(len(c) + the
        difference to the ghost's start), O(piece) once without a ghost."""
        fast = self.wc[0]
        f = word.uppers[0]
        k = d - s
        c = front[a : a + k]
        lead = 1 if fast.char_class(c[0]) in self._leads(fast) else 0
        if lead and (k < 2 or fast.char_class(c[1]) not in (LO, UP, OL)):
            return None  # (no word state would apply: its body must start with a letter)
        if _LOWER_LED.fullmatch(c, lead) is None:
            return None
        if d - f <= self._LONG:
            return len(self.enc._pieces[c + self._window(s, f)]), f
        count = self._ghost_count(d, f, front, a, d + a)
        ghost = self.ghosts.get(f) if count is None else None
        if ghost is not None and ghost[0] <= self.n and abs(ghost[0] - d) < d - f:
            # (a ghost whose start lies outside the fetched text)
            hi = max(d, ghost[0])
            count = self._ghost_count(d, f, self._window(hi, min(d, ghost[0])), hi - d, hi)
        bp = self._take_ghost(d, f) if count is not None else None
        if bp is None:
            bp = BytesPrependable(self.enc.bpe)
            bp.prepend((c + self._window(s, f)).encode("utf-8"))
        body = c[lead:]
        run = O200K_FIRST_RUN.match(body).group()
        m = _LAST_UPPER.search(run)
        last_upper = d - lead - m.start() if m else 0
        uppers = ()
        for m in reversed(list(_UPPER.finditer(run))):
            uppers = (d - lead - m.start(), uppers)
        last_ll = d - lead - _LAST_LL.search(body).start()
        after_upper = self._may_run_on(f, 4 * self._CTX)
        state = _WordState(f, bp, last_upper, last_ll, lead, after_upper, False, uppers)
        self._save((d, f), (state, None, None))
        return bp.token_count, f

    def _joins_front(self, word: _WordState, front: str, a: int, k: int, d: int):
        """The state of c + W when the ``k`` characters c = ``front[a : a + k]`` (``front[a]``
        at distance ``d``) are put in front of the word W of ``word`` (which has no lead), W
        starting at ``front[a + k]``, and c + W is one piece: each character of c, from the
        last, is a letter or mark W takes (_joins_word), except that the first may be a lead
        (_takes_lead).  Else None."""
        if k > 1 and self._JOINS[self.wc[0].o200k].fullmatch(front, a + 1, a + k) is None:
            return None  # (decided in C: c after its first character holds a non-letter)
        last_upper, last_ll, uppers = word.last_upper, word.last_ll, word.uppers
        i = a + k - 1
        while i >= a:
            joined = self._joins_word(front[i], d - (i - a), last_upper, last_ll, word.all_upper, uppers)
            if joined is None:
                break
            last_upper, last_ll, uppers = joined
            i -= 1
        lead = 0
        if i == a and self._takes_lead(front[a], front[a + 1 : a + 3], word.all_upper):
            lead = self._lead_flag(front[a])
            i -= 1
        if i >= a:
            return None
        return word._replace(last_upper=last_upper, last_ll=last_ll, lead=lead, uppers=uppers)

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
