r"""Long one-class runs and stretches at the front of a :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`.

A long piece P holding a long run of one compressible class (whitespace, newlines,
punctuation; the classes and the argument are those of :mod:`bpe_stream.pretokenize.long_pieces`):
deleting the middle of a maximal one-class run, keeping _KEEP characters at each end,
moves every match boundary after it by the deleted length and puts none inside it.  The
same holds for a *stretch* once an *anchor* in it is known: a punctuation stretch after
two non-mark characters (cl100k: any two), an o200k ``[\r\n/]`` stretch after a ``/``, a
whitespace stretch of mixed spaces and newlines after two whitespace characters, up to
_KEEP characters before its last newline (for a match across the cut that starts with two
whitespace characters: it reads the stretch to its end and gives back to the last
newline, to the last character or not at all); any later anchor in the same stretch
works too, which is what truncation needs.

So an edit ``c + text[drop:]`` is decided by splitting the bounded proxy
``c + text[drop : anchor + _KEEP] + text[run_end - _KEEP : P_end + _CTX]`` (the second part
is fixed by distance from the end and stored once): new pieces up to a match starting on
a known boundary, where both splits agree; a match across the cut must be P, grown or
shrunk at its front (counted with a raw prependable over P's bytes); a boundary on the
cut, or a proxy too short to decide (a new piece ending within 4 characters, or in
trailing whitespace or o200k upper-word characters, of a proxy that stops before the end
of the text: the stability rule of text/appendable.py), falls back to the full re-split.  P
need not be the first piece: pieces in front of it are re-split in the proxy's head.

A whitespace piece that is the whole text (cl100k's ``\s++$``) or ends at the last
newline of its stretch absorbs any prepended whitespace while it is the first piece: for
any whitespace s, the first piece of s + text is s + P (see ``_check_run``; ``absorbs``).
Such a piece is also cut as a run or stretch when it is long enough, so that other
prepends (``"\u0301"`` before ``"\n" * n`` under cl100k, whose punctuation match takes the
newline run) are decided on the proxy too.

Invariant of the state ``run`` (a :class:`RunState`): P is the piece of the text at
distances (``start``, ``end``), ``bp`` is a raw prependable over exactly P's bytes, the run
(``group`` > 0, a group of the run regex) or stretch (``group`` < 0, a key of
``_STRETCHES``) starts at distance ``hi`` (an anchor), and ``tailpart`` is the text from
distance ``d0`` down, the last _KEEP characters of the run and up to _CTX more.  For the
whitespace state without a cut (``hi`` None) P is the first piece.  The anchor lies in P
(``hi <= start``), except after a truncation that cut P's front away with it, when P is the
first piece and ``_edit_run`` takes the front (a one-class run) or the first anchor after
it (a stretch) instead.  ``_edit_run`` checks that ``bounds`` still holds P (a boundary at
``start`` followed by one at ``end``) before using the state.

Cost: O(_KEEP + _CTX + len(c)) per edit (``_edit_run``), O(P) once to build the state
(``_check_run``; O(_KEEP + _CTX) for a merged piece that ``puncts`` and a ghost already
know: a punctuation stretch, ``_check_merged_stretch``; a short punctuation run before a
newline tail, ``_check_merged_tail``; a long one, ``_check_merged_run``, O(run)).
"""

from __future__ import annotations

from typing import NamedTuple

from ...pretokenize.fast_split import O200K_FIRST_TAIL
from ...pretokenize.patterns import SPACE_SET, is_space
from ...pretokenize.unicode import compile_regex
from .merges import PUNCT_RUN

__all__ = ["RunPieces", "RunState"]

# The newline tail of a punctuation piece (its last part, [\r\n]* in cl100k; in o200k
# [\r\n/]*, from the first newline: the slashes before it are the punctuation's own).
_NEWLINE_TAIL = {False: compile_regex(r"[\r\n]+\Z"), True: compile_regex(r"[\r\n][\r\n/]*\Z")}
_SPACES_NO_NL = compile_regex(r"[^\S\r\n]*")
_SLASH_TAIL = compile_regex(r"/[\r\n/]*")
_LETTER = compile_regex(r"\p{L}")
_NOT_WORD_CHAR = compile_regex(r"[^\p{L}\p{M}]")


def _ANCHOR_REACH(group: int) -> int:  # noqa: N802 (a constant of the current _KEEP, _MIN_CUT)
    """How far from the front an anchor may lie (the proxy's head is that long, plus _KEEP):
    a whitespace stretch's anchor follows the newline run that starts it, shorter than a
    one-class run worth cutting."""
    from ...pretokenize.long_pieces import _KEEP, _MIN_CUT

    return 2 * _KEEP + _MIN_CUT + 8 if group == -4 else 8


class RunState(NamedTuple):
    """State of a long piece P holding a run or stretch (see the module doc); distances
    from the end of the text."""

    end: int  # where P ends
    hi: int | None  # where the run starts, or the stretch's anchor (None: the whitespace state)
    d0: int | None  # where tailpart starts
    tailpart: str | None  # the run's last _KEEP characters and up to _CTX more
    group: int | None  # the run regex's group of the run (> 0) or the stretch kind (< 0)
    bp: object  # raw prependable over P's bytes
    start: int  # where P starts
    absorbs: bool = False  # whitespace put in front of P, while P is first, joins it (see _check_run)
    # P's end is the last newline of its whitespace stretch (P was a whitespace piece ending at
    # a newline, or see _cut_to_newline_tail): a fact about the text after P's end, so it holds
    # for as long as the state does, whatever P's front becomes (see _edit_run)
    nl_last: bool = False


class RunPieces:
    """Mixin of :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`: its ``run`` state."""

    __slots__ = ()

    _CTX = 64

    def _check_run(self) -> None:
        self.run = None
        if self.word is not None or self.run_re is None or not self.bounds.has(2):
            return
        n = self.n
        end = self.bounds.last(2)
        L1 = n - end
        if (L1 <= self._LONG or self._check_merged_stretch(end, L1) or self._check_merged_tail(end)
                or self._check_merged_run(end)):
            return
        from ...pretokenize.long_pieces import _KEEP, _MIN_CUT

        o200k = self.wc is not None and self.wc[0].o200k
        if not self._may_hold_run(min(n, L1 + self._CTX), L1, o200k):
            return
        front = self._front(min(n, L1 + self._CTX))
        P = front[:L1]
        absorbs = False
        whitespace = is_space(P)  # (O(P): asked three times below)
        if whitespace and ((L1 == n and not o200k) or P[-1] in "\r\n"):
            # A whitespace piece that is the whole text (cl100k's \s++$; o200k has no such
            # alternative and splits s + P after the last newline of s), or ends at a newline:
            # for any whitespace s, the first piece of s + text is s + P (letter, digit and
            # punctuation alternatives need a non-space character at position 0 or 1; \s++$
            # holds iff it held before; \s*[\r\n] (o200k: \s*[\r\n]+) backtracks to the same
            # last newline), and the pieces after P do not change.  A whitespace piece that ends
            # at a newline ends at the last newline of its whitespace stretch (\s*[\r\n] comes
            # before the other whitespace alternatives and takes the stretch back to its last
            # newline), so the rest of the stretch, however long, need not be read to know it.
            absorbs = True
        # A whitespace piece is also cut, as the one-class run it starts with or as a stretch
        # (kind -4), so that any other prepend is decided on a proxy too.  (A punctuation
        # match may take a newline run at P's start, "!" + "\n" * k: only the run's argument
        # covers that.)
        found = None
        if whitespace:
            m = self.run_re.match(front, 0)
            if m.lastindex in self.mergeable and min(m.end(), L1) >= 2 * _KEEP + _MIN_CUT:
                found = 0, min(m.end(), L1), m.lastindex
                if L1 - found[1] > 2 * self._CTX and P[0] not in "\r\n":
                    # the stretch cuts more of P when P goes on long after the run, as for
                    # punctuation below (" " * k + "\n" * m: the run's tail part held the
                    # newlines, O(m) per edit); not a newline run, which a punctuation match
                    # in front may take
                    stretch = self._find_whitespace_stretch(P)
                    if stretch is not None and stretch[1] > found[1]:
                        found = stretch
            else:
                found = self._find_whitespace_stretch(P)
        if found is not None:
            rs, re_, group = found
        elif absorbs:
            bp = self._piece_bp(n, end, P)
            if bp.token_count == self.bounds.last_suf() - self.bounds.last_suf(2):
                self.run = RunState(end, None, None, None, None, bp, n, True, P[-1] in "\r\n")
            return
        else:
            for p0 in (0, 1, 2):
                m = self.run_re.match(front, p0)
                if m is None:
                    return
                if m.lastindex in self.mergeable and min(m.end(), L1) - p0 >= 2 * _KEEP + _MIN_CUT:
                    rs, re_, group = p0, min(m.end(), L1), m.lastindex
                    if L1 - re_ > 2 * self._CTX:
                        # a punctuation stretch that goes on past the run cuts more of P: the
                        # tail part, split by every edit, holds what follows the cut ("€" * 377
                        # before "\u0301'" * k, one o200k punctuation piece: the run's tail
                        # part held the marks, O(k) per edit)
                        found = self._find_stretch(front, L1, o200k)
                        if found is not None and found[1] > re_:
                            rs, re_, group = found
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
        if len(tailpart) > _KEEP + 3 * self._CTX and not is_space(P[re_ - 1]):
            # P is punctuation with a long newline tail T after the run or stretch cut
            # ("!" * k + "\n" * m): the tail part stops _CTX characters into T (see _edit_run)
            # instead of holding all of T, which every edit re-split (O(m) per "!" prepended)
            t = _NEWLINE_TAIL[o200k].search(P, re_)
            if t is not None and L1 - t.start() > 2 * self._CTX:
                tailpart = front[re_ - _KEEP : t.start() + self._CTX]
        elif L1 - re_ > 2 * self._CTX and (
                # o200k P = Z + T, a punctuation run and its [\r\n/]* tail, whose newline run
                # is cut and whose rest after it goes on from a slash ("!" before "\n" * k +
                # "/" * m)
                (o200k and group > 0 and P[re_ - 1] in "\r\n" and _SLASH_TAIL.fullmatch(P, re_) is not None)
                # whitespace ending at the last newline of its stretch, or (cl100k) at the end
                # of the text, one \s++$ piece, cut in a run or stretch ("\n" * k + " " * m +
                # "\n", cl100k " " * j + "\n" * k + " " * m)
                or (whitespace and (group > 0 or group == -4) and (P[-1] in "\r\n" or (not o200k and end == 0)))):
            # the rest after the cut is long: the tail part stops _CTX characters past the
            # cut (see _edit_run) instead of holding all of the rest, which every edit re-split
            tailpart = front[re_ - _KEEP : re_ + self._CTX]
        if group < 0:  # for _check_merged_stretch
            self.tails.put((n - re_, end), (n - re_ + _KEEP, tailpart), n - re_ + _KEEP, len(tailpart), n)
        self.run = RunState(end, n - rs, n - re_ + _KEEP, tailpart, group, bp, n, absorbs,
                            whitespace and P[-1] in "\r\n")

    def _anchor_from(self, run: RunState, d: int, front: str, a: int):
        """The distance of an anchor for the state ``run`` of a whitespace piece that now
        starts at distance ``d`` (at ``front[a]``), past its old anchor, or None: ``d`` itself
        while it lies in the one-class run, the first anchor from ``d`` of a whitespace
        stretch; with room for a cut before the tail part."""
        from ...pretokenize.long_pieces import _KEEP, _MIN_CUT

        if run.group > 0:
            anchor = d
        else:
            m = self._STRETCHES[-4][0].search(front, a, a + _ANCHOR_REACH(-4) + 2)
            anchor = None if m is None else d - (m.start() - a)
        if anchor is None or anchor - _KEEP - run.d0 < _MIN_CUT:
            return None
        return anchor

    @staticmethod
    def _find_whitespace_stretch(P: str):
        """(anchor, last newline, -4) for the whitespace piece ``P`` when the text strictly
        between _KEEP characters after its anchor and _KEEP characters before its last newline
        is long enough to cut (kind -4, see _STRETCHES), else None.  The anchor is the first
        space that another whitespace character follows: a punctuation match before P takes
        the newlines that start P ([\r\n]*) and stops there."""
        from ...pretokenize.long_pieces import _KEEP, _MIN_CUT

        m = RunPieces._STRETCHES[-4][0].search(P, 0, _ANCHOR_REACH(-4))
        last_nl = max(P.rfind("\n"), P.rfind("\r"))
        if m is None or last_nl - m.start() - 2 * _KEEP < _MIN_CUT:
            return None
        return m.start(), last_nl, -4

    # Stretches whose middle may be deleted once an *anchor* is known (bpe_stream.pretokenize.long_pieces
    # gives the arguments): a punctuation stretch after two non-mark characters (cl100k: any
    # two), an o200k [\r\n/] stretch after a "/", a whitespace stretch after two whitespace
    # characters, up to _KEEP characters before its last newline (_ws_piece_cut: a match that
    # starts with two whitespace characters reads the stretch to its end and gives back to its
    # last newline, to its last character or not at all; _edit_run checks that the match
    # across the cut is such a match).  Any later anchor in the same stretch works too, which
    # is what truncation needs.  kind -> (anchor regex, stretch character class).
    _STRETCHES = {
        -1: (compile_regex(r"[^\s\p{L}\p{N}]{2}"), compile_regex(r"[^\s\p{L}\p{N}]*")),
        -2: (compile_regex(r"[^\s\p{L}\p{N}\p{M}]{2}"), compile_regex(r"[^\s\p{L}\p{N}]*")),
        -3: (compile_regex(r"/"), compile_regex(r"[\r\n/]*")),
        -4: (compile_regex(r"[^\S\r\n]\s"), compile_regex(r"\s*")),
    }

    def _may_hold_run(self, k: int, L1: int, o200k: bool) -> bool:
        """False when the checks of _check_run on the first ``k`` characters would find no
        state for the first piece (``L1`` characters), decided on a bounded head: a run or
        stretch that ends inside the head is as long as on the whole front, and one that
        reaches the head's end, or a head of only whitespace, needs the whole front."""
        from ...pretokenize.long_pieces import _KEEP, _MIN_CUT

        h = 3 * _KEEP + _MIN_CUT + 8
        if k <= h:
            return True
        head = self._front(h)
        need = 2 * _KEEP + _MIN_CUT
        if is_space(head[:L1]):
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
        from ...pretokenize.long_pieces import _KEEP, _MIN_CUT

        punct, n = self._merged_record(end), self.n
        if punct is None:
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
            return self._set_merged_state(end, n - q, tail[0], tail[1], kind)
        return False

    def _merged_record(self, end: int):
        """(top, z) of the ``puncts`` record of the first piece P, ending at ``end``, when a
        ghost holds P's bytes (a merge counted it), else None."""
        if not self.puncts:
            return None
        punct, ghost = self.puncts.get(end), self.ghosts.get(end)
        return punct if ghost is not None and ghost[0] == self.n else None

    def _set_merged_state(self, end: int, hi: int, d0: int, tailpart: str, group: int) -> bool:
        """Set the run state of the first piece P (ending at ``end``) that the checks of a
        merged piece found, with P's bytes from its ghost; False (the ghost kept) if they do
        not count what the boundaries say (never expected)."""
        n = self.n
        bp = self._take_ghost(n, end)
        if bp.token_count != self.bounds.last_suf() - self.bounds.last_suf(2):
            self._put_ghost(end, n, bp)
            return False
        self.run = RunState(end, hi, d0, tailpart, group, bp, n)
        return True

    def _check_merged_tail(self, end: int) -> bool:
        r"""Set the run state of the long first piece P (ending at ``end``) in O(_KEEP +
        _CTX) when P = Z + T, a short punctuation run Z and its long newline tail T (cl100k
        [\r\n]*, o200k [\r\n/]*), recorded in ``puncts``, whose bytes a ghost holds: the
        state _check_run makes, T's newline run R cut, instead of reading P to find it on
        every merge ("!" before "\n" * k + " " * m, one cl100k \s++$ piece that the merge
        splits; "!" before "\n" * k + "/" * m, two o200k pieces that it joins).

        cl100k: T is R, one run up to P's end; the tail part is read there.  o200k: T may
        hold slashes, so R is known only from a saved run state of a piece P1 at T's start,
        cut in R, which is P1 or all of T: either T is R, or P1 is R and T goes on after it
        a short way, P1's tail part holding T's end ("!" before "\r" * k + "\n" * m + "/x"),
        or long, from a slash ("!" before "\n" * k + "/" * m), P1's tail part holding _CTX
        characters of that (the undo saved P1's state).  P's state is then P1's with P's
        bytes and the tail part that _check_run would make (see _edit_run)."""
        from ...pretokenize.long_pieces import _KEEP, _MIN_CUT

        punct, n = self._merged_record(end), self.n
        if punct is None:
            return False
        top, z = punct
        newline = self.run_re.match("\n").lastindex
        if n - z > _ANCHOR_REACH(newline):  # (the proxy's head holds Z)
            return False
        if not self.wc[0].o200k:
            if z - end < 2 * _KEEP + _MIN_CUT:
                return False
            tailpart = self._window(end + _KEEP, max(0, end - self._CTX))
            return self._set_merged_state(end, z, end + _KEEP, tailpart, newline)
        for (s, e1), (word, run, _) in self.saved.starting_in(z, z) if self.saved else ():
            if (word is not None or run is None or run.group != newline or run.start != s
                    or run.hi != s or run.end != e1 or run.tailpart is None):
                continue
            r_end = run.d0 - _KEEP  # where R ends
            d_end = run.d0 - len(run.tailpart)
            if (end == r_end or r_end == e1) and d_end <= max(0, end - self._CTX // 2):
                # P1's tail part holds P's end and _CTX characters after it, or at least half
                # as many (up to _CTX after P1's end), or all up to the end of the text: T is R,
                # or R and a short rest
                tailpart = run.tailpart[: run.d0 - max(d_end, end - self._CTX)]
            elif r_end == e1 and end + 2 * self._CTX < d_end < e1:
                tailpart = run.tailpart  # (it stops in T, after P1)
            else:
                continue
            return self._set_merged_state(end, s, run.d0, tailpart, newline)
        return False

    def _check_merged_run(self, end: int) -> bool:
        r"""Set the run state of the long first piece P (ending at ``end``) when P = Z + T, a
        punctuation run Z and its long newline tail T, recorded in ``puncts``, whose bytes a
        ghost holds, Z from its first, second or third character on is one run of the run
        regex, long enough to cut (the run _check_run finds), and T starts with a newline
        ("\u20ac?" * 100 put in front of "\n/" * k: a merge with the long piece behind the
        short first piece "\n"; cl100k "'" + "\u20ac" * 100 in front of "\r" * k + " " * m,
        which splits one \s++$ piece).  The state is the one _check_run makes, Z cut, its
        tail part stopping _CTX characters into T (the record says T is [\r\n]*, o200k
        [\r\n/]*, up to P's end; see _edit_run), from Z and those characters, instead of
        reading T on every merge.  O(Z + _CTX)."""
        from ...pretokenize.long_pieces import _KEEP, _MIN_CUT

        punct, n = self._merged_record(end), self.n
        if punct is None:
            return False
        top, z = punct
        if n - top > 1 or z - end <= 2 * self._CTX:  # (0, or 1 after the match's optional space)
            return False
        head = self._front(n - z + self._CTX)
        for rs in (0, 1, 2):  # the run _check_run finds: one of the first three may start it
            m = self.run_re.match(head, rs)
            if m is None:
                return False
            if m.lastindex in self.mergeable and min(m.end(), n - end) - rs >= 2 * _KEEP + _MIN_CUT:
                break
        else:
            return False
        if m.end() != n - z or head[n - z] not in "\r\n":
            return False
        return self._set_merged_state(end, n - rs, z + _KEEP, head[n - z - _KEEP :], m.lastindex)

    def _restate_as_stretch(self) -> bool:
        """Give the long first piece P a punctuation-stretch state in place of its run state
        or o200k [\r\n/] stretch state (or, when P is whitespace ending at a newline, mark its
        state as taking whitespace), from a bounded head, when P starts with a stretch of
        punctuation long enough to cut and its newline tail follows within the head (a
        prepend in parts put punctuation in front of a long newline run or "/\n" * k: the
        anchor went out of reach, and P was fetched whole to find this state).  The rest of
        P after the stretch is its tail (P is one punctuation match: the stretch's anchor is
        two non-mark punctuation characters), so the tail part needs only its first _CTX
        characters (see _edit_run).  True when the state was replaced."""
        from ...pretokenize.long_pieces import _KEEP, _MIN_CUT

        run, n, bounds = self.run, self.n, self.bounds
        if (run is None or run.hi is None or run.group is None or (run.group < 0 and run.group != -3)
                or run.start != n or not bounds.has(2) or bounds.last() != n or bounds.last(2) != run.end):
            return False
        o200k = self.wc is not None and self.wc[0].o200k
        L1 = n - run.end
        k = min(L1, 2 * self._CTX + 2 * _KEEP + 8)
        front = self._front(min(n, k + self._CTX))
        if not run.absorbs and n - run.hi <= k and self._whitespace_to_newline(run):
            # ending at a newline, P takes any whitespace put in front of it (see _check_run),
            # anchor or not (a prepend of "\x85" * 100 in parts before "\r\n" * k, whose
            # state had lost the flag)
            self.run = run._replace(absorbs=True, nl_last=True)
            return True
        found = self._find_stretch(front, min(L1, k), o200k)
        if found is None or found[2] == -3:
            return False
        q, z1, kind = found
        if z1 >= k or z1 - q - 2 * _KEEP < _MIN_CUT:
            return False  # the stretch's end is not seen, or it is too short to cut
        if L1 - z1 > 2 * self._CTX:
            if _NEWLINE_TAIL[o200k].match(front, z1, z1 + self._CTX) is None:
                return False
            tailpart = front[z1 - _KEEP : z1 + self._CTX]
        else:
            tailpart = self._front(min(n, L1 + self._CTX))[z1 - _KEEP :]
        self.run = RunState(run.end, n - q, n - z1 + _KEEP, tailpart, kind, run.bp, n, False, run.nl_last)
        return True

    def _cut_to_newline_tail(self, n: int) -> bool:
        r"""cl100k: a truncation to length ``n`` that removes the whole punctuation stretch of
        the long first piece P = Z + T (its state cuts Z; T, its [\r\n]* tail, is long and
        held only in part, see _check_run) leaves T' = the rest of T: one piece with P's end
        when no newline follows in the whitespace after it (``\s*[\r\n]`` runs over T' and
        that whitespace and gives back to T''s last newline), a newline run.  Its run state
        is made from a bounded window at P's end and P's raw prependable cut at its front,
        O(dropped + _CTX), instead of fetching T' whole.  (o200k's tail [\r\n/]* may hold
        slashes that split T', which are not known without reading it.)  True when done."""
        from ...pretokenize.long_pieces import _KEEP, _MIN_CUT

        run, bounds = self.run, self.bounds
        if (run is None or run.group != -1 or run.tailpart is None
                or run.d0 - len(run.tailpart) <= run.end or n > run.d0 - _KEEP
                or n - run.end < 2 * _KEEP + _MIN_CUT + 1):
            return False
        k = bounds.find(run.start)
        if k is None or bounds.prev_dist(k) != run.end:
            return False  # (P, which may lie behind short pieces the cut removes too)
        end = run.end
        after = self._window(end, max(0, end - self._CTX))
        w = _SPACES_NO_NL.match(after).end()
        if (w == len(after) and end > 0) or (w < len(after) and after[w] in "\r\n"):
            # a newline may follow in that whitespace, or it goes on unread, or it runs to the
            # end of the text (\s++$ would take T' with it)
            return False
        tailpart = self._window(end + _KEEP, max(0, end - self._CTX))
        bp = self._cut_to_state_piece(run, n)
        self.run = RunState(end, n, end + _KEEP, tailpart, self.run_re.match("\n").lastindex, bp, n, True, True)
        return True

    def _cut_into_whitespace_piece(self, n: int) -> bool:
        r"""A truncation to length ``n`` that removes the pieces in front of P, the long piece
        of the run state, and maybe the start of P, when P is whitespace up to a newline:
        ``\s*[\r\n]`` (o200k ``\s*[\r\n]+``) from any start inside P's whitespace stretch
        runs to the stretch's end and gives back to its last newline, P's end, so the rest
        of P is the first piece with P's end and the state goes on with its front cut:
        O(dropped).  (The run's state was dropped when short pieces lay in front of P and a
        whitespace run followed it, because the re-split could not tell P final on its
        proxy, and P was fetched whole.)  P is whitespace when the part before its run, the
        run's first character (a run is one class) and P's part of the tail part are.  True
        when done."""
        from ...pretokenize.long_pieces import _KEEP, _MIN_CUT

        run, bounds = self.run, self.bounds
        if (run is None or run.hi is None or run.group is None or run.group < 0 or run.tailpart is None
                or n > run.start or run.start - run.hi > 2 * _KEEP or run.d0 <= run.end):
            return False
        hi = min(run.hi, n)
        if hi - run.d0 - _KEEP < _MIN_CUT:
            return False  # too short to cut
        k = bounds.find(run.start)
        if k is None or bounds.prev_dist(k) != run.end or not self._whitespace_to_newline(run):
            return False
        self.run = run._replace(hi=hi, bp=self._cut_to_state_piece(run, n), start=n, absorbs=True, nl_last=True)
        return True

    def _whitespace_to_newline(self, run: RunState) -> bool:
        """Whether the piece of the run state ``run`` (its run starting near its start) is
        whitespace ending at a newline: the part before the run, the run's first character
        (a run is one class) and the piece's part of the tail part are whitespace, and that
        part ends with a newline.  O(start - hi + _KEEP)."""
        if run.d0 <= run.end:
            return False
        p_tail = run.tailpart[: run.d0 - run.end]
        return is_space(self._window(run.start, run.hi - 1)) and is_space(p_tail) and p_tail[-1] in "\r\n"

    def _cut_to_state_piece(self, run: RunState, n: int):
        """Truncate the text to length ``n``, at or inside P, the piece of the run state
        ``run``, which the boundaries hold: the pieces in front of P and P's part above ``n``
        go, from the text and from P's raw prependable, and P's rest is the first piece.
        Returns that prependable.  O(dropped)."""
        bp = run.bp
        bp.truncate(len(bp) - len(self._window(run.start, n).encode("utf-8")))
        self._drop_front(self.n - n)
        self.n = n
        self.pending = ""
        self.bounds.pop_above(run.end)
        self.bounds.push(n, self.bounds.last_suf() + bp.token_count)
        return bp

    def _find_stretch(self, front: str, L1: int, o200k: bool):
        """(anchor, stretch end within the first piece, kind) of a long stretch whose anchor
        lies near the front of the first piece ``front[:L1]``, or None."""
        from ...pretokenize.long_pieces import _KEEP, _MIN_CUT

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
        from ...pretokenize.long_pieces import _KEEP, _MIN_CUT

        end, hi, d0, tailpart, group, bp, ps, absorbs, nl_last = self.run
        n_old = self.n
        bounds = self.bounds
        k = bounds.find(ps)
        if k is None or bounds.prev_dist(k) != end or drop >= n_old - end:
            return False
        n_new = n_old - drop + len(c)
        if absorbs and ps == n_old and (c == "" or is_space(c)):
            # a whitespace piece ending at a newline, the first piece (see _check_run): it
            # takes the whitespace or loses the characters
            self._drop_front(drop, bp)
            if c:
                bp.prepend(c.encode("utf-8"))
                self._push_text(c)
            self.n = n_new
            self._set_front(n_new, bp.token_count)
            if hi is not None:
                if group == -4:
                    # the first anchor from the new front (P is long and all whitespace): the
                    # front itself when c starts with a space, the old one while within reach
                    if c and c[0] not in "\r\n":
                        hi = n_new
                    elif not (n_new - _ANCHOR_REACH(-4) <= hi <= n_new):
                        m = self._STRETCHES[-4][0].search(self._front(_ANCHOR_REACH(-4) + 2))
                        if m is not None:
                            hi = n_new - m.start()
                        elif hi > n_new:
                            # (the anchor was cut off and none is within reach: the state goes
                            # on without a cut, as _cut_absorbing_run leaves it; an anchor left
                            # above the text made the next edit drop the state, and the one
                            # after re-encode the piece: "1\n " before "\n" * k + " " * m)
                            hi = d0 = tailpart = group = None
                elif not c:
                    hi = min(hi, n_new)  # the run starts at the new front if its start went
                else:
                    g = self.run_re.match(c)
                    if hi == n_old and g is not None and g.lastindex == group and g.end() == len(c):
                        hi = n_new  # c extends the run at the front
            self.run = RunState(end, hi, d0, tailpart, group, bp, n_new, True, nl_last)
            return True
        if hi is None:
            return False
        if hi > n_old:  # an anchor above the text: never expected (a cut must move it, see truncate)
            self.run = None
            return False
        rs_old = n_old - hi  # run start (stretch anchor) in the old text
        if rs_old - drop > _ANCHOR_REACH(group):
            return False
        anchor = max(rs_old, drop)  # old coordinates; the run may now start at the front
        if group < 0 and drop > rs_old:  # the anchor was dropped: take a later one
            reach = _ANCHOR_REACH(group) if group == -4 else _KEEP
            m = self._STRETCHES[group][0].search(self._front(drop + reach + 2), drop)
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
        # A proxy that ends inside P (d_end > end) ends in P's newline tail T (_check_run): the
        # match across the cut, if it reaches the proxy's end, holds a newline and a character
        # of the run or stretch cut, which is not whitespace, so it is a punctuation match in
        # its [\r\n]* (o200k [\r\n/]*) tail, which takes the rest of T and ends where P does.
        # So it is when the run cut is T's newline run and the tail part goes on in T from a
        # slash (o200k, _check_run, _check_merged_tail): the match holds a newline and a slash,
        # which no whitespace match holds.  And so it is for a P that is whitespace ending at
        # the last newline of its stretch or (cl100k) at the end of the text, cut in a run or
        # a whitespace stretch (_check_run): the match holds two whitespace characters, of the
        # run on both sides of the cut, or, for a stretch, at its start (checked below).  No
        # match but a whitespace one holds two, except a punctuation match in its newline
        # tail, which stops where a newline run ends, before the proxy's end (the rest of P
        # after the run starts with other whitespace, or the run would have taken it), and
        # which does not start with two.  So the match is whitespace from its start (the
        # alternatives before the whitespace ones need a non-space character at the match's
        # start or the next), in P's stretch: \s++$ takes it to the end of the text when it
        # runs there, else \s*[\r\n] (o200k \s*[\r\n]+) gives back to its last newline.
        # Either way it ends where P does.
        in_tail = d_end > end
        pieces = self.enc._pieces
        new = []
        a_long = -1
        synced = None
        prev_a = 0  # where the match before this one starts
        for m in self.pattern.finditer(proxy):
            a, b = m.span()
            if a == h or b == h:
                return False  # a boundary on the cut: never expected
            da = n_new - a if a < h else d0 - (a - h)
            if da < n_new and bounds.find(da) is not None:
                if d_end > 0 and (a > len(proxy) - 4
                                  or (is_space(proxy[a:]) and is_space(proxy[prev_a:a])
                                      and not (nl_last and new and new[-1][1] is None))
                                  or (self.wc[0].o200k and a > O200K_FIRST_TAIL.search(proxy).start()
                                      and not (new and new[-1][1] is None and a_long < h - 1 and a - h >= 3
                                               and _LETTER.match(proxy, a) and _NOT_WORD_CHAR.match(proxy, h - 1)))):
                    # the piece before may not be final (see _resync).  A whitespace match
                    # before trailing whitespace may take more of it; not P when its end is
                    # the last newline of its stretch (nl_last), and no other match: one ends
                    # before whitespace whatever follows it (P before a run of spaces, or
                    # cl100k "!" + "\n" * k, whose [\r\n]* stops at the first space, was
                    # re-split).  A word match before o200k upper-word characters may take
                    # them; P is no word match when the character before the cut, in its run
                    # or stretch, is not a letter or mark (a word holds none outside those but
                    # its lead, and an apostrophe within its last three characters), and any
                    # match but a word's ends before a letter whatever follows it (o200k
                    # "\U0001f600" * k + "\u20dd", punctuation ending in a mark, before
                    # "\u02b0\u20dd" * m, was re-split).
                    return False
                synced = da
                break
            # (with nl_last, a whitespace match across the cut that reaches the proxy's end,
            # cl100k's \s++$ over the whitespace after P, is \s*[\r\n] in the text, which
            # ends at P's end: the stretch holds no newline after it and ends before the text)
            at_end = b == len(proxy) and d_end > 0
            to_tail = at_end and a < h and (in_tail or (nl_last and is_space(proxy[a:])))
            if at_end and not to_tail:
                return False
            if a < h < b:
                if d0 - (b - h) != end and not to_tail:
                    return False
                run = PUNCT_RUN.match(proxy, a + (proxy[a] == " ")) if group == -2 else None
                if group == -2 and (run is None or run.end() <= len(c) + anchor - drop):
                    # The argument for cutting an o200k punctuation stretch needs the match's
                    # [^\s\p{L}\p{N}]+ repetition to run over the anchor; a match that enters
                    # the stretch in its [\r\n/]* tail ("/" + "\n" + "//!//") stops at the
                    # first character that is not a slash, which the cut may have removed.
                    return False
                if group == -4 and (a + 2 > h or not is_space(proxy[a : a + 2])):
                    # the argument for a whitespace stretch is about a match that starts with
                    # two whitespace characters ("!" + "\n \n ...": the punctuation match's
                    # [\r\n]* takes newlines up to the first space, which the cut may move)
                    return False
                a_long = a
                new.append((da, None))
                if to_tail:
                    synced = end
                    break
            else:
                new.append((da, len(pieces[m.group()])))
            prev_a = a
        else:
            if d_end > 0:
                return False
            synced = 0
        if a_long < 0 and synced < ps:
            return False  # P changed without a match across the cut: never expected
        if a_long >= 0:
            # P becomes new_text[a_long:P's end]: adjust bp at its front (bounded: all within head)
            ps_pos = n_old - ps
            if absorbs and drop <= ps_pos and n_new - a_long > ps:
                # A whitespace piece P grows at its front into another kind of piece, its old
                # text staying: a record of the old P, with this state, for a truncation back
                # to it (its bytes are then the ghost that P's leave; front/known.py) or into it
                # (_cut_into_known_whitespace).  ("!" * 80
                # put in front of a newline run, the state taking it in parts, and cut away
                # again: the state of "!" * 80 + the run, a punctuation stretch's by then,
                # cannot be cut back to the run, which was read whole.)
                self._put_known(ps, (end, bp.token_count, ("run", self.run._replace(bp=None)), ps))
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
        if a_long >= 0 and c:
            # P grew at its front: its anchor moves to the first one in P's new text when the
            # run or stretch reaches from there to the old one (as _check_run would take it on
            # P's text), so the next edit finds it within reach.  (Left at the old one, the
            # anchor went out of reach after a part of a long prepend, which then re-read all
            # of P: "\n" * 70 or "/\n\n" * 100 put back in front of a long run or stretch.)
            h0 = len(c) + anchor - drop  # where the old anchor is in head
            if group > 0:
                g = self.run_re.match(head, a_long)
                if a_long < h0 and g is not None and g.lastindex == group and g.end() >= h0:
                    hi = n_new - a_long  # the run goes on from P's new start
            else:
                anchor_re, class_re = self._STRETCHES[group]
                if class_re.match(head, a_long).end() >= h0:
                    m = anchor_re.search(head, a_long)
                    if m is not None and m.start() < h0:
                        hi = n_new - m.start()
        if hi > ps:
            # P lost its first characters to a piece in front (o200k "0./\n" before "/" +
            # "'" * k: the "/" went to "./\n/"), and the anchor with them: it must lie in P.
            # (Left above P, a truncation back to P's start put it above the text, the next
            # edit dropped the state and the one after re-encoded P.)
            if group > 0:
                hi = ps  # (the run goes on from P's start)
            else:
                m = self._STRETCHES[group][0].search(head, n_new - ps)
                if m is None:
                    self.run = None
                    return True
                hi = n_new - m.start()
        # RunState.absorbs, as _check_run would set it on P's text, and nl_last.  P's part of
        # the tail part holds its end; its part of the head (from p0) holds _KEEP characters
        # of its run or its stretch's anchor, and the part cut between them is one class (a
        # run) or whitespace (kind -4), so P is whitespace when those two parts are.  Only a
        # change of P's front changes the flag, and a P that took whitespace still ends where
        # it did, so then only its new front need be whitespace.  (Kept only for a stretch
        # once, the flag was lost when a truncation left a whitespace run the whole text: "\r"
        # put in front of "\u2028" * k in parts then lost its anchor and re-read the run.)
        # The cheap tests come first: this runs on every edit that moves P's front.
        k_tail = d0 - end
        tail_holds_end = 0 < k_tail <= len(tailpart)
        ends_at_nl = tail_holds_end and tailpart[k_tail - 1] in "\r\n"
        if in_tail and is_space(tailpart) and (nl_last or (end == 0 and not self.wc[0].o200k)):
            # (whitespace ending at the last newline of its stretch or, cl100k, at the end of
            # the text, the tail part stopping in it, see _check_run: P's part after the tail
            # part is whitespace too, and ends so)
            tail_holds_end, k_tail, ends_at_nl = True, len(tailpart), nl_last
        if ps != self.run.start:
            p0 = n_new - ps
            if head[p0] not in SPACE_SET:
                absorbs = False
            elif absorbs:
                absorbs = is_space(head[p0:])
            elif (tail_holds_end and (group > 0 or group == -4)
                  and (ends_at_nl or (end == 0 and not self.wc[0].o200k))):
                absorbs = is_space(tailpart[:k_tail]) and is_space(head[p0:])
        nl_last = nl_last or (absorbs and ends_at_nl)
        self.run = RunState(end, hi, d0, tailpart, group, bp, ps, absorbs, nl_last)
        return True
