r"""Exact counts of chunk candidates ``text[s:j]`` from one pre-split of the held text.

Invariant: for a text ``T`` held by the chunker (surrogate-free str, an
``Encoding`` with a pre-split pattern), ``ChunkView(counts, s).count(j) ==
enc.count(T[s:j])`` for every ``s <= j <= len(T)``, and ``ChunkView.cut()``
returns the largest ``j`` (over *all* ``j``, including text not held yet) with
``enc.count(T[s:j]) <= max_tokens``, or says that more text is needed.  Counts
are not monotonic in ``j``; nothing here assumes they are.

Complexity: ``TextCounts(enc, T)`` splits ``T`` once and builds two prefix-sum
sequences: O(len(T)), in one pass of the compiled scanner (``prefix_sums``, two
``array('q')``) where ``enc.count`` uses it, else ``enc._split`` (one regex pass with the ASCII fast path)
and ``itertools.accumulate`` over cached piece counts.  Per chunk: one ``bisect`` to find where the budget
runs out, a re-split of the first few pieces after ``s`` (until they meet a
boundary of the global split), and a handful of exact recounts of short strings
around the cut (each one ``enc._split`` of a few pieces) -- O(log n + pieces
re-split + candidates tried); a long piece straddling the cut costs one
:class:`~bpe_stream.bpe.table.PrefixTable` pass over its bytes (O(piece)).

Why it is exact.

1. *Start.*  The patterns have no look-behind, so the pieces of ``T[s:]`` are
   found by matching from ``s`` and, once a piece of ``T[s:]`` starts at a
   boundary ``g`` of the split of ``T`` (both splits then continue from ``g``
   identically), they are the global pieces from ``g`` on.  ``ChunkView``
   re-splits from ``s`` lazily until that happens (usually one piece), so its
   boundary sequence ``s = b_0 < b_1 < ...`` with prefix counts ``C_i`` is
   exactly the split of ``T[s:]`` (as held: the split of ``T[s:len(T)]``).

2. *Prefixes.*  By the stability rule proved in :mod:`bpe_stream.text.appendable`
   (the one ``IntervalCounter`` uses), a boundary ``b`` of the split of
   ``T[s:n]`` is a boundary of the split of ``T[s:j]``, with the same pieces
   before it, whenever ``b <= j - margin`` and ``T[b:j]`` holds a
   non-whitespace character (``margin`` = ``text/appendable.py.stable_margin``: 4 for
   cl100k/o200k).  The pieces after ``b`` are those of ``T[b:j]`` (no
   look-behind).  So ``count(T[s:j]) = C(b) + count(T[b:j])`` with ``b =
   base(j)``, the last boundary satisfying the rule (``b_0 = s`` always does):
   ``T[b:j]`` is a few pieces long, and its count is an exact re-split.

3. *Where nothing more fits.*  Let ``b_o`` be the first boundary with
   ``C(b_o) > max_tokens``.  For every ``j >= w(b_o)`` (its *witness*: the
   smallest ``j >= b_o + margin`` with a non-whitespace character in
   ``T[b_o:j]``), rule 2 gives ``count(T[s:j]) >= C(b_o) > max_tokens`` --
   for text not held yet too, since the rule only looks at ``T[b_o:j]``.  Also
   no ``j`` with more than ``max_tokens * max_token_len`` UTF-8 bytes after
   ``s`` fits (``max_token_len`` at least the longest whole-piece token: a
   piece equal to one is that one token, though BPE merges cannot build it).
   When ``b_o`` is a hard boundary (rule 5) the bound is ``b_o`` itself.  So the candidates are the ``j`` below that bound, tried from the
   top down with exact counts; the first that fits is the cut.  The held text
   decides the cut once the bound is within it (``NEED_MORE`` otherwise);
   this is the chunker's streaming certificate for pre-split text.

4. *The piece at the cut.*  If the piece ``P = T[a:b_o]`` before ``b_o`` is
   a run of letters with at most one leading non-letter and no apostrophe
   (the member's ``HardRule.letter_run``, :mod:`bpe_stream.pretokenize.hard_boundaries`:
   for o200k without marks and without mixing ``Lm``/``Lo`` with cased letters, for
   GPT-2 a space lead only, ...), every non-empty prefix of ``P`` is
   a single piece (the word alternative matches it whole and no earlier
   alternative applies; the tests check this claim by brute force).  For
   ``j`` in ``[lo, b_o]``, with ``lo = a + 1`` if ``a`` is hard (rule 5) or
   ``a == s`` and ``lo = a + margin`` otherwise, ``a`` is stable for ``j``, so
   ``count(T[s:j]) = C(a) + bpe.count(bytes of T[a:j])`` (1 when ``T[a:j]`` is a
   whole-piece token, looked up among the ends up to its longest length): a
   cache lookup for short ``P``, one :class:`~bpe_stream.bpe.table.PrefixTable` of ``P``'s bytes for
   long ``P`` (its sliding-window minimum gives the exact point past which no
   raw prefix fits; see :mod:`bpe_stream.bpe.table`).  Other long pieces (runs of
   whitespace or punctuation), and long whitespace before a witness, fall back
   to ``cuts.text_split_at`` on the slice from a boundary stable for its
   answer (``_fallback``), as the first version did.

5. *Hard boundaries* (every member of the family, each with the rule its choices
   give: ``HardRule.hard_at`` of :mod:`bpe_stream.pretokenize.hard_boundaries`, which
   argues each case and which ``tests/test_hard_boundaries.py`` checks by brute force;
   below, the cases as they read for cl100k/o200k).  At ``h`` with a letter at ``h - 1`` and
   at ``h`` a character that is no letter, mark or apostrophe, both patterns
   end a piece (a letter is only ever matched by a word alternative, which
   continues only with letters, marks or an apostrophe) and no piece before
   ``h`` reads past ``h`` (the word stops on reading ``T[h]``, at the end of
   the text it stops too).  (5b) The same holds at ``h`` with a
   non-whitespace character at ``h - 1`` and whitespace other than ``\r``,
   ``\n`` at ``h``: no alternative matching a non-whitespace character
   continues with such whitespace (words, digits and contractions stop at it,
   punctuation runs only absorb ``\r``, ``\n`` and, in o200k, ``/``), and the
   piece stops on reading it; whitespace pieces start at ``h`` at the
   earliest.  (5c) And at ``h`` with ``\r`` or ``\n`` at ``h - 1`` and at
   ``h`` a character that is neither whitespace nor ``/``: a whitespace piece
   holding ``h - 1`` ends at its run's last newline, ``h - 1``, whether the
   run is followed by ``T[h]`` or by the end of the text (``\s++$``,
   ``\s*[\r\n]``, o200k ``\s*[\r\n]+`` all match the same run), and a
   punctuation piece absorbs only newlines (and, in o200k, ``/``) after it.
   In particular ``count(T[s:h]) = C(h)``: ``ChunkView.count`` answers hard
   ends (most semantic cut positions) from the prefix sums alone.  So ``count(T[s:j]) = C(h) + count(T[h:j])`` for
   every ``j >= h`` and ``s < h``: when ``b_o`` is hard nothing from ``b_o`` on
   fits (the witness is ``b_o`` itself), and a hard ``a`` is stable for every
   ``j > a``.  The chunker's streaming certificate uses the same rule; the
   tests check additivity by brute force.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from itertools import accumulate

import regex

from ..bpe.intervals import _periodic_run, _single_byte_run
from ..bpe.native import bisect_right_array
from ..bpe.prependable import BytesPrependable
from ..bpe.table import PrefixTable
from ..pretokenize.family import MEMBERS
from ..pretokenize.hard_boundaries import hard_rule
from ..pretokenize.patterns import CL100K_PATTERN, O200K_PATTERN
from ..pretokenize.stability import stable_margin
from ..pretokenize.unicode import agrees_on, ascii_agrees, compile_regex
from ..text.cuts import text_split_at_count
from ..text.piece_encoder import whole_longer_than
from .far_start import far_cut, far_distance
from .member_runs import member_runs

__all__ = ["TextCounts", "ChunkView", "NEED_MORE"]

NEED_MORE = object()  # the held text cannot decide the cut yet
_NOT_A_RUN = object()  # the straddling piece's prefixes are not all single pieces

_LAST_NON_WS = compile_regex(r"\S", regex.REVERSE)
_FIRST_NON_WS = compile_regex(r"\S")
# A piece whose every prefix (of length >= 2) is itself one piece (point 4 above): every
# member's is its hard-boundary rule's letter_run (pretokenize/hard_boundaries.py); these two
# by pattern string for the tests.
_LETTER_RUN = {CL100K_PATTERN: hard_rule(MEMBERS["cl100k_base"]).letter_run,
               O200K_PATTERN: hard_rule(MEMBERS["o200k_base"]).letter_run}
# Wider classes with the same property (every non-empty prefix of a match is one piece),
# used for prefixes only (not for suffixes): punctuation runs, whitespace runs (cl100k:
# ``\s++$`` takes any whitespace at the end of the text; o200k: blanks, then newlines),
# and for o200k letters with marks, Lm and Lo after at most a cased head.  Second
# property, which makes the sliding-window stop of ``_cut_in_run`` a certificate for ends
# past the part read: if ``T[a:v]`` matches (``v - a >= 2``), the first piece of
# ``T[a:j]`` for any ``j > v`` reaches ``v - 1`` at least (possessive or greedy
# alternatives that keep going; the ``\s+(?!\S)`` alternative gives back one
# character).  cl100k whitespace mixing newlines and blanks lacks it (``\s*[\r\n]``
# stops at the last newline): such a run is checked up to the last end tried.
_ONE_PIECE_RUN = {
    CL100K_PATTERN: compile_regex(
        r"[^\r\n\p{L}\p{N}']?\p{L}+|(?!')[ ]?[^\s\p{L}\p{N}]+[\r\n]*|\s+"
    ),
    O200K_PATTERN: compile_regex(
        r"[^\r\n\p{L}\p{N}'\p{M}]?(?:[\p{Lu}\p{Lt}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[\p{Lu}\p{Lt}]+)"
        r"|[ ]?[^\s\p{L}\p{N}\p{M}]+[\r\n/]*|[^\S\r\n]+[\r\n]*|[\r\n]+"
    ),
}
# The letters of such a piece: every suffix of a match is again one piece.
_LETTERS = {
    CL100K_PATTERN: compile_regex(r"\p{L}+"),
    O200K_PATTERN: compile_regex(r"[\p{Lu}\p{Lt}]*\p{Ll}+|[\p{Lu}\p{Lt}]+|[\p{Lm}\p{Lo}]+"),
}


_LAST_NON_LETTER = compile_regex(r"\P{L}", regex.REVERSE)
_TABLE_MIN = 8  # straddling letter runs longer than this use a PrefixTable
_RUN_PROBE = 64  # a chunk start inside a piece probes this many characters for run mode
_FALLBACK_SPAN = 64  # other straddling pieces longer than this use cuts.text_split_at


_LONG_HEAD_PIECE = 256  # head pieces longer than this are counted only up to the budget


def _count_till_limit(bpe, data: bytes, limit: int, whole_max: int = 0, whole=None):
    """``bpe.count_till_limit`` of one piece, in O(1) for a run of one repeated byte (its prefix counts
    have a verified period, see ``interval._PeriodicRun``; a table pass over a run of
    spaces meets tens of automaton matches per byte).  A piece equal to a whole-piece
    token (``whole``, none longer than ``whole_max`` bytes) counts 1."""
    if len(data) <= whole_max and data in whole:
        return 1 if limit >= 1 else None
    run = _single_byte_run(bpe, data)
    if run is not None:
        c = run.count(len(data))
        return c if c <= limit else None
    return bpe.count_till_limit(data, limit)


def _uncached_counter(get, encode):
    """``count(piece)`` through the piece cache without adding to it (a closure, not a
    method: TextCounts holds it, and a bound method would make a reference cycle)."""

    def count(piece: str) -> int:
        tokens = get(piece)
        return len(tokens) if tokens is not None else len(encode(piece))

    return count


class TextCounts:
    """The split of one held text: ``bounds`` (piece starts + end) and prefix counts ``cum``."""

    __slots__ = ("enc", "text", "n", "bounds", "cum", "pattern", "margin", "letter_run", "run", "ws_run_check", "letters", "hard",
                 "hard_at", "_split", "_ascii", "_get", "_encode", "_maxlen", "whole", "whole_max", "_native",
                 "classes_agree", "last_non_ws", "first_non_ws", "last_non_letter")

    def __init__(self, enc, text: str):
        self.enc = enc
        self.text = text
        self.n = len(text)
        self.pattern = enc._pattern
        self.margin = stable_margin(enc.pretokenizer)
        # rule 5 and point 4 for the member's choices (None: a pattern outside the family)
        rule = hard_rule(enc.pretokenizer)
        self.hard = rule is not None
        self.hard_at = rule.hard_at if rule is not None else None
        self.letter_run = rule.letter_run if rule is not None else None
        self.run = _ONE_PIECE_RUN.get(enc.pat_str)
        self.ws_run_check = enc.pat_str == CL100K_PATTERN
        self.letters = _LETTERS.get(enc.pat_str)
        # ---- the other members' one-piece runs (chunk/member_runs.py: the same two properties)
        if self.run is None:
            self.run, self.letters = member_runs(enc.pretokenizer)
        # ----
        self.last_non_ws, self.first_non_ws, self.last_non_letter = _LAST_NON_WS, _FIRST_NON_WS, _LAST_NON_LETTER
        # A text holding no character that the installed regex classes differently from
        # the reference (ASCII text: str.isascii, O(1), where ascii_agrees; else one bit test per character,
        # pretokenize.unicode.agrees_on) is only ever matched as written: on its characters
        # every class agrees with the reference, and the first use of a rewritten pattern
        # costs 10-28 ms (stored class ranges read, correction sets parsed), more than the
        # whole chunking of some megabyte texts (LazyPattern.as_written).
        self.classes_agree = agrees_on(text)
        if self.classes_agree:
            self.hard_at, self.letter_run, self.run, self.letters, self.last_non_ws, self.first_non_ws, \
                self.last_non_letter = (None if p is None else p.as_written() for p in (
                    self.hard_at, self.letter_run, self.run, self.letters, _LAST_NON_WS, _FIRST_NON_WS,
                    _LAST_NON_LETTER))
        self._split = enc._split
        # short strings: the pattern itself (its ASCII translation on ASCII text, as PreSplitter does)
        splitter = getattr(enc._split, "__self__", None)
        self._ascii = getattr(splitter, "ascii_pattern", None)
        cache = enc._pieces
        self._get = cache.get
        self._encode = enc._encode_piece
        self._maxlen = max(1, enc.bpe.max_token_len)
        # Whole-piece tokens (tiktoken's rule: a piece equal to one is that one token, though
        # BPE merges cannot build it) and the byte length of the longest (0: none).  The
        # shortcuts below count one-piece runs with plain BPE; each also gives 1 to a piece
        # of at most whole_max bytes found in ``whole``.
        self.whole = enc._whole
        self.whole_max = whole_longer_than(enc, 0)
        native = enc._native_split()
        self._native = None
        if native is not None:
            # short strings too (count_str): split and counted in one compiled call, pieces
            # missing from the compiled cache counted as below (nothing added to the cache)
            self._native = (enc._merge_table.count_text, native[0], _uncached_counter(cache.get, enc._encode_piece),
                            native[1])
            # the compiled scanner splits and counts in one pass (the same pieces and
            # counts as below, as arrays: tests/test_chunker_native.py compares them)
            self.bounds, self.cum = enc._merge_table.prefix_sums(text, native[0], enc._piece_counts.__getitem__,
                                                                 native[1])
            return
        pieces = self._split(text)
        self.bounds = list(accumulate(map(len, pieces), initial=0))
        self.cum = list(accumulate(enc._piece_count_list(pieces), initial=0))

    def in_run(self, a: int, b: int) -> bool:
        """Whether ``text[a:b]`` matches ``_ONE_PIECE_RUN`` (``run`` must be set).  ASCII
        slices use the pattern compiled as written: the installed ``regex`` and the
        reference engines class every ASCII character alike (the tests check all pairs),
        and the rewritten classes cost about 1 µs per character."""
        text = self.text
        if not self.classes_agree and text[a:b].isascii() and ascii_agrees():
            return self.run.as_written().fullmatch(text, a, b) is not None
        return self.run.fullmatch(text, a, b) is not None

    def in_letters(self, a: int, b: int) -> bool:
        """Whether ``text[a:b]`` matches ``_LETTERS`` (``letters`` must be set); see ``in_run``."""
        text = self.text
        if not self.classes_agree and text[a:b].isascii() and ascii_agrees():
            return self.letters.as_written().fullmatch(text, a, b) is not None
        return self.letters.fullmatch(text, a, b) is not None

    def is_hard(self, h: int, s: int) -> bool:
        """Whether ``count(T[s:j]) = C(h) + count(T[h:j])`` for all ``j >= h`` by rule 5 (h > s)."""
        return self.hard and s < h < self.n and self.hard_at.match(self.text, h - 1) is not None

    def last_whole_end(self, a: int, lo: int, hi: int) -> int:
        """The largest ``j`` in ``[lo, hi]`` with ``text[a:j]`` a whole-piece token, else -1
        (O(whole_max) slices of at most ``whole_max`` characters)."""
        whole_max = self.whole_max
        text = self.text
        whole = self.whole
        for j in range(min(hi, a + whole_max), max(lo, a + 1) - 1, -1):
            data = text[a:j].encode("utf-8")
            if len(data) <= whole_max and data in whole:
                return j
        return -1

    def first_whole_start(self, lo: int, e: int) -> int:
        """The smallest ``i`` in ``[lo, e)`` with ``text[i:e]`` a whole-piece token, else -1."""
        text = self.text
        whole = self.whole
        whole_max = self.whole_max
        for i in range(max(lo, e - whole_max), e):
            data = text[i:e].encode("utf-8")
            if len(data) <= whole_max and data in whole:
                return i
        return -1

    def count_str(self, t: str) -> int:
        """``enc.count(t)`` for surrogate-free ``t`` (as held: not normalized again); does not
        add new pieces to the cache."""
        native = self._native
        if native is not None:
            return native[0](t, native[1], native[2], native[3])
        get = self._get
        total = 0
        ascii_pattern = self._ascii
        split = ascii_pattern.findall if ascii_pattern is not None and t.isascii() else self.pattern.findall
        for p in split(t):
            tokens = get(p)
            total += len(tokens) if tokens is not None else len(self._encode(p))
        return total


class ChunkView:
    """The split of ``text[s:]`` (as held) with exact prefix counts; see the module docstring.

    Boundaries are a *head* (``hb``/``hc``: local pieces from ``s`` until they
    meet the global split) followed by the global boundaries ``bounds[kg:]``
    whose counts are ``cum[k] + delta``.  ``kg is None`` when the head alone
    reaches past the budget (or the end of the held text).
    """

    __slots__ = ("tc", "s", "max_tokens", "hb", "hc", "kg", "delta", "over", "over_count", "scan_floor",
                 "run_end", "far")

    def __init__(self, tc: TextCounts, s: int, max_tokens: int, scan_floor: int = -1):
        self._start(tc, s, max_tokens, scan_floor)
        # Run mode: the text from s starts with a one-piece run (_ONE_PIECE_RUN), so every
        # candidate text[s:j] inside it is one piece; the head (a re-split from s that would
        # read the whole run, often the rest of the window, once per chunk) is built only if
        # the run turns out too short.  run_end: the run is known to reach this far.
        if tc.run is not None and s < tc.n:
            gi = bisect_left(tc.bounds, s)
            if tc.bounds[gi] != s:
                e = min(tc.n, s + _RUN_PROBE)
                if e - s > _TABLE_MIN and tc.in_run(s, e):
                    self.run_end = e
                    return
        # ---- a start far inside a long piece no run rule covers: no head (chunk/far_start.py)
        if s < tc.n and tc.bounds[bisect_left(tc.bounds, s)] - s > far_distance(tc, max_tokens):
            self.far = True
            return
        # ----
        self._build_head()

    def _start(self, tc: TextCounts, s: int, max_tokens: int, scan_floor: int) -> None:
        """The fields of a view from ``s`` before its head (none yet, no run, not far)."""
        self.tc = tc
        self.scan_floor = scan_floor
        self.s = s
        self.max_tokens = max_tokens
        self.hb = None
        self.run_end = -1
        self.far = False

    def _build_head(self) -> None:
        tc = self.tc
        s = self.s
        max_tokens = self.max_tokens
        self.run_end = -1
        bounds = tc.bounds
        gi = bisect_left(bounds, s)
        hb = [s]
        hc = [0]
        self.kg = None
        self.delta = 0
        self.over = None  # first boundary whose count exceeds max_tokens, or None
        self.over_count = 0
        if bounds[gi] == s:
            self.kg = gi
            self.delta = -tc.cum[gi]
        else:
            text = tc.text
            n = tc.n
            cache = tc.enc._pieces
            total = 0
            # The split of T[s:n] before the first hard boundary h > s is the split of T[s:h]
            # (rule 5), and h is a boundary of the global split too: the head splits T[s:h]
            # only (a chain's splitter would copy the rest of the window for every chunk).
            end = n
            if tc.hard:
                m = tc.hard_at.search(text, s, n)
                if m is not None:
                    end = m.start() + 1
            for m in tc.pattern.finditer(text, s, end):
                st, en = m.span()
                while bounds[gi] < st:
                    gi += 1
                if st > s and bounds[gi] == st:
                    self.kg = gi
                    self.delta = total - tc.cum[gi]
                    break
                if en - st <= _LONG_HEAD_PIECE:
                    total += len(cache[m.group()])
                else:
                    # A long piece (a whitespace stretch): count it only up to the budget.
                    # Past the budget the boundary after it is "over", and its stored count
                    # is then a lower bound (max_tokens + 1): every use compares it with
                    # max_tokens.  Why: its full count is O(piece) per chunk, quadratic
                    # over a long stretch cut into many chunks.
                    c = _count_till_limit(tc.enc.bpe, m.group().encode("utf-8"), max_tokens - total, tc.whole_max,
                                          tc.whole)
                    total = max_tokens + 1 if c is None else total + c
                hb.append(en)
                hc.append(total)
                if total > max_tokens:
                    self.over = len(hb) - 1
                    self.over_count = total
                    break
            else:
                if end < n:  # the head ends at the hard boundary: synced there
                    while bounds[gi] < end:
                        gi += 1
                    self.kg = gi
                    self.delta = total - tc.cum[gi]
        self.hb = hb
        self.hc = hc
        if self.over is None and self.kg is not None:
            self._over_in_global()

    def _over_in_global(self) -> None:
        """``over``: the first global boundary past the head whose count exceeds the budget."""
        cum = self.tc.cum
        k = bisect_right(cum, self.max_tokens - self.delta, self.kg)
        if k < len(cum):
            self.over = len(self.hb) - 1 + (k - self.kg)
            self.over_count = cum[k] + self.delta

    @classmethod
    def synced(cls, tc: TextCounts, gi: int, max_tokens: int, scan_floor: int = -1) -> ChunkView:
        """``ChunkView(tc, tc.bounds[gi], max_tokens, scan_floor)`` without its probes: from a
        global boundary the view has no run mode and is not far (the next boundary is ``s``
        itself), and its head is ``s`` alone, synced at ``gi`` (``_build_head``'s first case)."""
        view = cls.__new__(cls)
        s = tc.bounds[gi]
        view._start(tc, s, max_tokens, scan_floor)
        view.hb = [s]
        view.hc = [0]
        view.kg = gi
        view.delta = -tc.cum[gi]
        view.over = None
        view.over_count = 0
        view._over_in_global()
        return view

    def _run_cut(self, final: bool, byte_horizon: int):
        """``cut`` in run mode: ``text[s:j]`` is one piece for every candidate ``j``, so its
        count is the raw count of its bytes; ``_NOT_A_RUN`` if the run ends too early."""
        tc = self.tc
        s = self.s
        n = tc.n
        hi = s + byte_horizon  # no longer end fits (at least one byte per character)
        held = hi <= n or final
        found = self._cut_in_run(s, 0, s + 1, min(hi, n), need_stop=not held)
        if found is _NOT_A_RUN or found is NEED_MORE:
            return found
        if found is None:
            return s, 0
        return found

    # Boundaries are indexed 0, 1, ...: the head first (hb[-1] is bounds[kg] when synced).
    def boundary(self, i: int) -> tuple[int, int]:
        h = len(self.hb) - 1
        if i <= h or self.kg is None:
            return self.hb[i], self.hc[i]
        k = self.kg + (i - h)
        return self.tc.bounds[k], self.tc.cum[k] + self.delta

    def last_index_le(self, x: int) -> int:
        """Index of the last boundary ``<= x`` (``x >= s``)."""
        hb = self.hb
        if self.kg is None or x < hb[-1]:
            return bisect_right(hb, x) - 1
        bounds = self.tc.bounds
        return len(hb) - 1 + (bisect_right(bounds, x, self.kg) - 1 - self.kg)

    def n_boundaries(self) -> int:
        if self.kg is None:
            return len(self.hb)
        return len(self.hb) + len(self.tc.bounds) - 1 - self.kg

    def base(self, j: int) -> int:
        """Index of the last boundary ``b`` stable for end ``j`` (rule 2); 0 is ``s``."""
        tc = self.tc
        s = self.s
        lim = j - tc.margin
        if lim <= s:
            return 0
        text = tc.text
        if text[j - 1].isspace():
            m = tc.last_non_ws.search(text, s, j)
            if m is None:
                return 0
            lim = min(lim, m.start())  # T[b:j] must hold the non-whitespace character at m
        else:
            lim = min(lim, j - 1)
        return self.last_index_le(lim)

    def count(self, j: int) -> int:
        """``enc.count(text[s:j])``, exact."""
        if j <= self.s:
            return 0
        tc = self.tc
        if self.hb is None:
            if j <= self.run_end or self.far:
                return tc.count_str(tc.text[self.s : j])  # one piece (run mode), or exact (far)
            self._build_head()
        if tc.is_hard(j, self.s):
            b, c = self.boundary(self.last_index_le(j))
            if b == j:
                return c  # rule 5: the split of T[s:j] is the view's pieces before j
        b, c = self.boundary(self.base(j))
        return c + self.tc.count_str(self.tc.text[b:j])

    def scan_start(self, e: int) -> int:
        """Where semantic levels start scanning for a chunk ending near ``e``.

        The last boundary ``b <= base(e)`` with ``C(b) <= scan_floor`` (the
        chunker passes its fill floor minus a few tokens; ``s`` if negative).
        Boundaries up to ``base(e)`` and their counts are those of the split
        of ``T[s:e]`` (rule 2), so the result is a function of ``T[s:e]``
        alone, the same in streamed and whole-text runs.
        """
        if self.hb is None:
            if e <= self.run_end or self.far:
                return self.s  # text[s:e] is one piece: its only boundary is s (far: from s)
            self._build_head()
        limit = self.scan_floor
        i = self.base(e)
        b, c = self.boundary(i)
        if c <= limit:
            return b
        if limit < 0:
            return self.s
        hb, hc = self.hb, self.hc
        if self.kg is not None and i >= len(hb) - 1:
            cum = self.tc.cum
            k = bisect_right(cum, limit - self.delta, self.kg) - 1
            if k >= self.kg:
                return self.tc.bounds[k]
        return hb[bisect_right(hc, limit) - 1]

    def witness(self, b: int):
        """Smallest ``j`` for which boundary ``b`` is stable (rule 2), or None within the held text."""
        tc = self.tc
        j = b + tc.margin
        if j > tc.n:
            return None
        if tc.text[b:j].isspace() or b == j:
            m = tc.first_non_ws.search(tc.text, b, tc.n)
            if m is None:
                return None
            j = max(j, m.start() + 1)
        return j

    def cut(self, final: bool, byte_horizon: int):
        """``(e_max, count)``: the largest end whose count fits, or ``NEED_MORE``.

        ``e_max == s`` when not even the first character fits.
        """
        if self.far:
            return far_cut(self.tc, self.s, self.max_tokens, final, byte_horizon, NEED_MORE)
        if self.hb is None:
            found = self._run_cut(final, byte_horizon)
            if found is not _NOT_A_RUN:
                return found
            self._build_head()
        tc = self.tc
        s = self.s
        n = tc.n
        M = self.max_tokens
        if self.over is None:
            if not final:
                return NEED_MORE
            i_last = self.n_boundaries() - 1
            return n, self.boundary(i_last)[1]
        b_o, c_o = self.boundary(self.over)
        if tc.is_hard(b_o, s):
            hi = b_o  # rule 5: every end from b_o on costs at least C(b_o)
        else:
            hi = self.witness(b_o)
            if hi is None:
                hi = n + 1 if final else None
        # No end with more than byte_horizon bytes fits (>= 1 byte per character).
        if s + byte_horizon + 1 <= n and (hi is None or hi > s + byte_horizon + 1):
            hi = s + byte_horizon + 1
        if hi is None:
            return NEED_MORE
        a, c_a = self.boundary(self.over - 1)
        a_hard = a == s or tc.is_hard(a, s)
        top = min(hi - 1, n)
        text = tc.text
        if top - b_o > _FALLBACK_SPAN:  # a long stretch (whitespace) before the witness
            return self._fallback(top, a)
        # 1. ends past the straddling piece (generic, few: the witness is close)
        j = top
        while j > b_o:
            k = self.count(j)
            if k <= M:
                return j, k
            j -= 1
        # 2. inside the straddling piece P = text[a:b_o]: C(a) + raw count of a prefix of P
        lo = a + 1 if a_hard else a + tc.margin
        plen = b_o - a
        if j >= lo and plen > _TABLE_MIN and tc.run is not None:
            # a long straddling piece: raw counts of its prefixes when every prefix up to j
            # is one piece (checked block by block as the table pass reads them)
            found = None if c_a >= M else self._cut_in_run(a, c_a, lo, j)
            if found is _NOT_A_RUN:
                if plen > _FALLBACK_SPAN:
                    return self._fallback(top, a)
            else:
                if found is not None:
                    return found
                j = lo - 1
        elif (j >= lo and plen <= _FALLBACK_SPAN and tc.letter_run is not None
              and tc.letter_run.fullmatch(text, a, b_o) is not None):
            if c_a < M:
                get = tc._get
                encode = tc._encode
                budget = M - c_a
                while j >= lo:
                    t = text[a:j]
                    tokens = get(t)
                    k = len(tokens) if tokens is not None else len(encode(t))
                    if k <= budget:
                        return j, c_a + k
                    j -= 1
            j = lo - 1
        elif j >= lo and plen > _FALLBACK_SPAN:
            return self._fallback(top, a)
        while j > s:
            if j == a and a_hard:
                return a, c_a  # rule 5 (or a == s): count(T[s:a]) = C(a) <= max_tokens
            k = self.count(j)
            if k <= M:
                return j, k
            j -= 1
        return s, 0

    def _cut_in_run(self, a: int, c_a: int, lo: int, hi_j: int, need_stop: bool = False):
        """Largest ``j`` in ``[lo, hi_j]`` with ``c_a + count(text[a:j]) <= max_tokens``, with
        ``text[a:j]`` one piece (point 4): its count is 1 if it is a whole-piece token, else
        the raw count of its bytes.  Results as ``_cut_in_run_bpe``'s.

        Whole-piece tokens hold at most ``whole_max`` bytes, so they are looked up only
        among the ends up to ``a + whole_max``, and the raw search reads at least that far
        (plus two characters) of the run: every end it checks is then one piece, and the
        first piece of ``text[a:j]`` for an end past the part read (it reaches the part's
        last character but one) is too long to be one of them.  Text not held yet may
        complete such a token, or hold such an end: ``NEED_MORE`` until that much is held.
        """
        tc = self.tc
        whole_max = tc.whole_max
        if not whole_max or c_a >= self.max_tokens:
            return self._cut_in_run_bpe(a, c_a, lo, hi_j, need_stop)
        if need_stop and hi_j < a + whole_max + 2:
            return NEED_MORE
        found = self._cut_in_run_bpe(a, c_a, lo, hi_j, need_stop, whole_max + 2)
        if found is _NOT_A_RUN or found is NEED_MORE:
            return found
        j = tc.last_whole_end(a, lo, hi_j)
        if j >= 0 and (found is None or found[0] <= j):
            return j, c_a + 1  # (found[0] == j: its raw count is not the count)
        return found

    def _cut_in_run_bpe(self, a: int, c_a: int, lo: int, hi_j: int, need_stop: bool = False, min_read: int = 0):
        """Largest ``j`` in ``[lo, hi_j]`` with ``c_a + raw(text[a:j]) <= max_tokens`` (point 4).

        ``None`` when no such ``j`` exists; ``_NOT_A_RUN`` when ``text[a:j]`` for the ends
        that matter is not a one-piece run (the caller then counts another way).  With
        ``need_stop`` (text past ``hi_j`` not held yet) ``NEED_MORE`` unless the sliding-window
        minimum shows that no longer prefix fits.  The run is checked and read up to
        ``a + min_read`` at least (within ``hi_j``).
        """
        tc = self.tc
        text = tc.text
        budget = self.max_tokens - c_a
        # a token holds at most _maxlen bytes (a character at least one), so no prefix longer
        # than this fits: read only that much of the run (it may be megabytes long)
        hi_j = min(hi_j, a + max((max(budget, 0) + 1) * tc._maxlen, min_read))
        if hi_j < lo:
            return None
        bpe = tc.enc.bpe
        ch = text[a]
        if ch < "\x80" and text[hi_j - 1] == ch and text.count(ch, a, hi_j) == hi_j - a:
            # one ASCII character repeated (spaces, newlines, NUL): one piece by the class
            # check, raw counts from the run's verified period in O(period)
            if not tc.in_run(a, min(hi_j, a + 2)):
                return _NOT_A_RUN
            if need_stop:
                return NEED_MORE
            if a == self.s:
                self.run_end = max(self.run_end, hi_j)
            return self._cut_in_periodic(_periodic_run(bpe, ch.encode()), a, c_a, lo, hi_j, budget)
        window = tc._maxlen
        # Read the run in growing blocks: the window minimum usually passes the budget a few
        # tokens after the answer, long before the cap above.
        blk = min(hi_j - a, max(4 * (max(budget, 0) + 1) + 2 * window, min_read))
        while True:
            if not tc.in_run(a, a + blk):
                return _NOT_A_RUN
            if a == self.s:
                self.run_end = max(self.run_end, a + blk)
            piece = text[a : a + blk]
            data = piece.encode("utf-8")
            offs = None if len(data) == len(piece) else list(accumulate(map(len, map(str.encode, piece)), initial=0))
            table = PrefixTable(bpe, data)
            counts = table.counts
            nb = len(data)
            p = 0
            stopped = False
            while p < nb:
                p = table.extend_to(min(nb, p + window))
                if p < nb and p >= window and min(counts[p - window + 1 : p + 1]) > budget:
                    stopped = True  # no longer raw prefix fits
                    break
            if stopped or a + blk >= hi_j:
                break
            blk = min(hi_j - a, 4 * blk)
        if need_stop and not stopped:
            return NEED_MORE
        if stopped and a + blk < hi_j and tc.ws_run_check and text[a].isspace():
            # whitespace without the second property: every end up to hi_j must be in the run
            if not tc.in_run(a, hi_j):
                return _NOT_A_RUN
            if a == self.s:
                self.run_end = max(self.run_end, hi_j)
        # counts known for byte prefixes <= p; when stopped, none in (p - window, p] fits
        limit = p - window if stopped else p
        if offs is None:
            for off in range(limit, lo - a - 1, -1):
                if counts[off] <= budget:
                    return a + off, c_a + counts[off]
            return None
        # the last character boundary within those bytes (at most a + blk)
        top = a + bisect_right(offs, limit) - 1
        for j in range(top, lo - 1, -1):
            off = offs[j - a]
            if counts[off] <= budget:
                return j, c_a + counts[off]
        return None

    @staticmethod
    def _cut_in_periodic(prun, a: int, c_a: int, lo: int, hi_j: int, budget: int):
        """``_cut_in_run`` for one repeated byte: per residue of the period, the longest
        prefix whose count ``counts[n0 + r] + q * d`` fits."""
        top = hi_j - a
        low = lo - a
        period = prun.period
        if not period:
            prun.count(top)  # no period proven: the table grows to the length asked for
        counts = prun.counts
        best = -1
        n0 = prun.n0 if period else top
        for length in range(min(top, n0), low - 1, -1):  # the transient (and short runs)
            if counts[length] <= budget:
                best = length
                break
        if period and top > n0:
            d = prun.d
            for r in range(period):
                base_count = counts[n0 + r]
                if base_count > budget:
                    continue
                q = (budget - base_count) // d if d > 0 else (top - n0 - r) // period
                q = min(q, (top - n0 - r) // period)
                if q < 0:
                    continue
                length = n0 + r + q * period
                if length > best:
                    best = length
        if best < low or best < 1:
            return None
        return a + best, c_a + prun.count(best)

    def _fallback(self, top: int, a_hint: int):
        """Exact cut with ``cuts.text_split_at`` from a stable base (long non-letter pieces)."""
        tc = self.tc
        text = tc.text
        M = self.max_tokens
        i = self.last_index_le(a_hint)
        while True:
            e, c = self.boundary(i)
            j, k = text_split_at_count(tc.enc, text[e:top], M - c, 0)
            j += e
            if i == 0 or self.base(j) >= i:
                return j, c + k  # k = count(text[e:j]), from the scan itself
            i = self.base(j)


# Letter runs up to this long: SuffixView counts their suffixes one by one.
_SHORT_LETTERS = 64
# Longest text SuffixView counts from its stable boundary to the chunk's end.
_SUFFIX_BASE_MAX = 1024


def _count_le(a, x: int) -> int:
    """``bisect_right(a, x)``: how many items of the sorted ints ``a`` are ``<= x``; in C for the
    compiled split's arrays (no Python int per probe).  ``bisect_left(a, x, 0, hi)`` is
    ``min(_count_le(a, x - 1), hi)`` (integers; ``a`` sorted)."""
    return bisect_right_array(a, x) if type(a) is array else bisect_right(a, x)


class SuffixView:
    """Exact counts ``enc.count(T[i:e])`` for one end ``e`` and any start ``i <= e``.

    Used for overlaps.  ``b_e`` is the last global boundary stable for end ``e``
    (rule 2 applied to the split of ``T[g:]`` for any global boundary ``g <=
    b_e``, whose boundaries are the global ones), so ``count(T[g:e]) = C_e -
    cum[g]`` with ``C_e = cum[b_e] + count(T[b_e:e])``.  For any start ``i``,
    rule 5 splits at the first hard boundary ``g > i``: ``count(T[i:e]) =
    count(T[i:g]) + count(T[g:e])``, a short re-split plus a subtraction.
    """

    __slots__ = ("tc", "e", "kb", "ce")

    def __init__(self, tc: TextCounts, e: int):
        self.tc = tc
        self.e = e
        text = tc.text
        lim = e - tc.margin
        if e > 0 and text[e - 1].isspace():
            m = tc.last_non_ws.search(text, 0, e)
            lim = min(lim, m.start()) if m is not None else -1
        else:
            lim = min(lim, e - 1)
        kb = _count_le(tc.bounds, lim) - 1 if lim >= 0 and tc.hard else -1
        if kb < 0 or e - tc.bounds[kb] > _SUFFIX_BASE_MAX:
            # no stable boundary, or only far back inside one long piece: counting from it
            # for every chunk's end would be quadratic on a text that is one huge piece
            # (earliest_start then leaves the cut to split_at_start on the chunk itself)
            self.kb = -1
            self.ce = 0
        else:
            self.kb = kb
            self.ce = tc.cum[kb] + tc.count_str(text[tc.bounds[kb] : e])

    def _global_count(self, g: int) -> int | None:
        """``count(T[g:e])`` from the prefix sums when ``g`` is a global boundary ``<= b_e``."""
        tc = self.tc
        if self.kb < 0:
            return None
        k = min(_count_le(tc.bounds, g - 1), self.kb + 1)  # bisect_left(bounds, g, 0, kb + 1)
        if k > self.kb or tc.bounds[k] != g:
            return None
        return self.ce - tc.cum[k]

    def count(self, i: int) -> int:
        """``enc.count(T[i:e])``, exact."""
        tc = self.tc
        e = self.e
        if i >= e:
            return 0
        text = tc.text
        if tc.hard:
            if self.kb >= 0 and i <= tc.bounds[self.kb]:
                rest = self._global_count(i)  # i a global boundary <= b_e: from the sums alone
                if rest is not None:
                    return rest
            m = tc.hard_at.search(text, i, e)
            if m is not None:
                g = m.start() + 1  # rule 5 with start i: a letter at g - 1 >= i
                rest = self._global_count(g)
                if rest is None:
                    rest = tc.count_str(text[g:e])
                return tc.count_str(text[i:g]) + rest
        return tc.count_str(text[i:e])

    def earliest_start(self, s: int, k: int, max_steps: int = 64):
        """Smallest ``i >= s`` with ``count(T[i:e]) <= k``; None when the search would be long.

        Every hard boundary ``h`` gives ``count(T[i:e]) >= count(T[h:e])`` for
        ``i < h`` (rule 5).  So with ``h`` the last hard global boundary whose
        suffix costs more than ``k`` (found by bisecting the prefix sums),
        no ``i <= h`` fits and the answer is the first fitting ``i`` after it.
        """
        tc = self.tc
        e = self.e
        if self.kb < 0:
            return self._earliest_in_run(s, k)
        text = tc.text
        bounds = tc.bounds
        n = tc.n
        # the last boundary with suffix > k: bisect_left(cum, ce - k, 0, kb + 1) - 1
        idx = min(_count_le(tc.cum, self.ce - k - 1), self.kb + 1) - 1
        start = s
        steps = 0
        while idx >= 0 and bounds[idx] > s:
            g = bounds[idx]
            if g < n and tc.hard_at.match(text, g - 1) is not None:
                start = g + 1
                break
            idx -= 1
            steps += 1
            if steps > max_steps:
                return self._earliest_in_run(s, k)  # (None unless the chunk ends in such a run)
        else:
            if idx >= 0 and start == s and e - s > max_steps:
                return self._earliest_in_run(s, k)
        # Segment by segment: for i < g (the next hard boundary after i),
        # count(T[i:e]) = count(T[i:g]) + count(T[g:e]) (rule 5).  Usually the
        # first g already fits (every boundary after idx has a suffix <= k).
        count_str = tc.count_str
        budget_steps = max_steps
        while True:
            m = tc.hard_at.search(text, start, e)
            g = e if m is None else m.start() + 1
            rest = self.count(g)
            # T[r:g]: letters at the end of the segment, whose suffixes are single pieces (point 4)
            r = g
            if g - start > _TABLE_MIN and tc.letters is not None:
                m = tc.last_non_letter.search(text, start, g)
                r = start if m is None else m.end()
                if g - r <= _TABLE_MIN or not tc.letters.fullmatch(text, r, g):
                    r = g
            budget_steps -= r - start + 1
            if budget_steps < 0:
                return self._earliest_in_run(s, k)
            for i in range(start, r):
                if count_str(text[i:g]) + rest <= k:
                    return i
            if r < g and rest <= k:
                i = self._earliest_in_letters(r, g, k - rest)
                if i is not None:
                    return i
            if rest <= k:
                return g
            start = g + 1

    def _earliest_in_run(self, s: int, k: int) -> int | None:
        """``earliest_start`` when the chunk ends in a long run whose suffixes are single
        pieces: letters (``_LETTERS``) or one ASCII character repeated (a one-piece run,
        counted from its verified period); None otherwise.  It reads only the text, so it
        also answers when a stable boundary exists but the search from it would be long.

        No start with more than ``(k + 1) * max_token_len`` bytes before ``e`` fits (a
        token holds at most that many bytes), so only the run's last stretch of that
        length is read: when it is all run, every candidate suffix is one piece and its
        count is the raw count of its bytes.
        """
        tc = self.tc
        e = self.e
        text = tc.text
        x = max(s, e - (k + 1) * tc._maxlen)
        if k >= 1 and tc.whole_max:
            x = max(s, min(x, e - tc.whole_max))  # a whole-piece token counts 1
        if e - x <= _TABLE_MIN:
            # ---- a short run (a chunk of a few characters: CJK at two tokens a character):
            # its suffixes counted one by one rather than by the general scan's index
            if tc.letters is not None and e > x and tc.in_letters(x, e):
                i = self._earliest_in_letters(x, e, k)
                return e if i is None else i
            # ----
            return None
        ch = text[e - 1]
        if ch < "\x80" and text[x] == ch and text.count(ch, x, e) == e - x:
            if tc.run is None or tc.run.fullmatch(ch * 2) is None:
                return None
            found = ChunkView._cut_in_periodic(_periodic_run(tc.enc.bpe, ch.encode()), 0, 0, 1, e - x, k)
            i = e if found is None else e - found[0]
            if k >= 1 and tc.whole_max:
                i_whole = tc.first_whole_start(x, e)
                if 0 <= i_whole < i:
                    return i_whole
            return i
        if tc.letters is None or not tc.in_letters(x, e):
            return None
        i = self._earliest_in_letters(x, e, k)
        return e if i is None else i

    def _earliest_in_letters(self, start: int, e: int, k: int) -> int | None:
        """Smallest ``i`` in ``[start, e)`` with ``bpe.count(T[i:e]) <= k``, ``T[start:e]`` letters only.

        Every suffix of such a run is one piece (point 4), so its count is the
        raw BPE count, read off one prependable encoder fed from the end; the
        mirrored sliding-window minimum (``cuts.bytes_split_at_start``) stops it
        once no longer suffix can fit.  Or 1 for a suffix equal to a whole-piece
        token (at most ``whole_max`` bytes: looked up separately).
        """
        tc = self.tc
        if e - start <= _SHORT_LETTERS:
            # a word: its suffixes' counts directly (a prependable encoder is for long runs)
            text = tc.text
            for i in range(start, e):
                if tc.count_str(text[i:e]) <= k:
                    return i
            return None
        run = tc.text[start:e]
        data = run.encode("utf-8")
        nb = len(data)
        bp = BytesPrependable(tc.enc.bpe)
        counts = bp.counts
        window = tc._maxlen
        p = 0
        while p < nb:
            q = min(nb, p + 256)
            bp.prepend(data[nb - q : nb - p])
            counts = bp.counts
            p = q
            if p < nb and p >= window and min(counts[p - window + 1 : p + 1]) > k:
                break  # no longer suffix fits
        if run.isascii():
            lens = range(nb, 0, -1)  # suffix byte length of T[start + c : e]
        else:
            lens = list(accumulate(map(len, map(str.encode, reversed(run)))))[::-1]
        i_whole = tc.first_whole_start(start, e) if k >= 1 and tc.whole_max else -1
        for c, length in enumerate(lens):
            if 0 <= i_whole <= start + c:
                return i_whole
            if length <= p and counts[length] <= k:
                return start + c
        return i_whole if i_whole >= 0 else None
