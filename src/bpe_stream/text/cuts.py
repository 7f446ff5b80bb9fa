"""Exact cuts: the longest prefix (or suffix) that fits a token budget.

Invariant: ``bytes_split_at(bpe, data, m, start)`` is the largest ``j >= start``
with ``count(data[start:j]) <= m`` (over *all* ``j``: counts are not monotonic),
and ``text_split_at`` the same in characters under the encoding's pre-split.

Raw BPE: bytes are fed in chunks to a raw appendable (per-prefix last token and
count).  BPE's encoding of any longer prefix has a token boundary in every window
of ``max_token_len`` positions, so its count is at least ``1 + min`` of the counts
over the last window; once that minimum reaches the budget no later prefix fits
and the scan stops.  Work: O(kept + one chunk + max_token_len).

Suffixes are the mirror image with a prependable encoder over a reversed scan.

Pre-split text: pieces are fed (short pieces in chunks of ``_TEXT_CHUNK`` characters, long ones
one character at a time through its regex-free path, O(1) per character) to a
:class:`~bpe_stream.text.appendable.TextAppendable`.  Its *stable* pieces ``[0, S)``
(``C`` tokens) are pieces of every longer prefix, and every token has at most
``max_token_len`` bytes, so every prefix ``j >= L`` has ``count >= C +
bytes(text[S:L]) / max_token_len``; once that exceeds the budget no later prefix
fits and the scan stops -- also inside one huge piece (a megabyte of spaces, one
endless word, a punctuation run), after at most ``max_tokens * max_token_len``
bytes past the last stable boundary; with ``max_token_len`` replaced by the
longest token occurring in the scanned region (:class:`_RegionTokenBound`), far
earlier on text made of short tokens.  The answer is then found by truncating back
one character at a time from there (typically a few characters), or, when the
tail is long, with exact prefix counts from an interval index over the scanned
text.  Work: O(kept + max_tokens * max_token_len), never O(piece).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from ..bpe.checks import _check_budget, _check_start
from ..bpe.cuts import _CHUNK, bytes_split_at_start
from ..bpe.intervals import _single_byte_run
from ..bpe.native import longest_token_in as _longest_token_in
from ..bpe.prependable import BytesPrependable
from ..bpe.table import PrefixTable
from ..pretokenize.fast_split import (
    AP,
    LAST_LM_LO_MARK,
    LO,
    MARK,
    NL,
    O200K_FIRST_RUN,
    O200K_SECOND,
    OL,
    SL,
    UP,
    D,
    P,
    fast_split_for,
)
from ..pretokenize.stability import _hard_boundary_test, _is_hard_at, _o200k_word_end
from ..pretokenize.unicode import compile_regex
from .appendable import TextAppendable
from .descent import DescentIntervals
from .input import check_text
from .intervals import text_intervals
from .piece_encoder import whole_longer_than
from .periodic_tokens import periodic_token_bytes
from .normalized import NormalizedView

__all__ = ["text_split_at", "text_split_at_start"]

_TEXT_CHUNK = 64
_WS_BOUND_MIN = 256  # tail length (characters) from which the whitespace bound is tried
# The stretches of _StretchTailBound, as the patterns read their classes.
_WS_STRETCH = compile_regex(r"\s*")
_PUNCT_STRETCH = compile_regex(r"[^\s\p{L}\p{N}]*")
_SLASH_STRETCH = compile_regex(r"[\r\n/]*")
_LETTER_STRETCH = compile_regex(r"\p{L}*")
_LOWER_STRETCH = compile_regex(O200K_SECOND + "*")
# (kind, the stretch's characters) in the order _StretchTailBound tries them
_STRETCH_KINDS_CL100K = (("ws", _WS_STRETCH), ("punct", _PUNCT_STRETCH), ("letters", _LETTER_STRETCH))
_STRETCH_KINDS_O200K = (("ws", _WS_STRETCH), ("punct", _PUNCT_STRETCH), ("slash", _SLASH_STRETCH),
                        ("upper", O200K_FIRST_RUN), ("lower", _LOWER_STRETCH))


def _is_mark(ch: str) -> bool:
    return MARK.match(ch) is not None


class _StretchTailBound:
    """A tighter stop for a long trailing stretch of whitespace, punctuation (o200k: from
    two non-mark characters), an o200k ``[\r\n/]`` tail from a ``/``, or one word
    (bundled patterns).

    ``ta`` holds ``src[origin:origin + len(ta)]``; its stable pieces end at ``S`` with
    ``C`` tokens.  Suppose ``text[S:p]`` (``p = len(ta)``) is ``h`` + ``w``: a short
    head ``h = text[S:p0]`` and a whitespace stretch ``w = text[p0:p]`` with ``p0`` a
    boundary of every split of ``text[S:j]``, ``j > p0`` -- ``p0 = S`` when the
    stretch starts the tail; the end of the head's last piece when the head ends
    with a letter or a digit (their runs stop at whitespace) or with punctuation
    followed by newlines that ``w`` does not exhaust (`` ?[^\\s..]+[\\r\\n]*``).
    For every ``j >= p`` the pieces of ``text[p0:j]`` begin with whitespace pieces
    covering at least ``text[p0:q)``, ``q = 1 +`` the last newline of ``w`` (both
    patterns end a whitespace match at its last newline or later), and without a
    newline at least ``text[p0:p-1)`` (``\\s+(?!\\S)`` leaves one character).  The
    first of them is a single piece ``text[p0:x)`` with ``x >= q`` (or ``p - 1``):
    cl100k's ``\\s++$`` and ``\\s*[\\r\\n]`` and o200k's ``\\s*[\\r\\n]+`` all start
    at ``p0`` and reach the last newline.  Its raw count ``R(x - p0)`` is at least
    the minimum of ``R`` over the ``max_token_len`` positions ending at ``q - p0``
    (the window minimum never decreases; see :mod:`bpe_stream.bpe.table`).  So
    ``count(text[:j]) >= C + count(h) + min R(window at q)`` for every ``j >= p``,
    and once that exceeds the budget no longer prefix fits.  The same holds for a
    long punctuation stretch (``[^\\s\\p{L}\\p{N}]``) in place of the whitespace:
    the punctuation alternative consumes the whole stretch from ``p0`` (the word
    alternatives need a letter, or for o200k a mark, right after their one-character
    lead), so the first piece reaches at least ``p``; likewise an o200k ``[\\r\\n/]``
    stretch from a ``/`` (the punctuation match's tail), a cl100k letter run or o200k
    ``[Ll Lm Lo M]`` stretch (one repetition), and an o200k ``[Lu Lt Lm Lo M]`` stretch
    up to just after its last ``Lm``/``Lo``/mark (where its repetition gives back to).
    Positions in the raw prefix counts are bytes (a token may end inside a character).  The raw prefix counts of the stretch cost one
    table pass over the part scanned.  Why: without it the
    scan of a whitespace stretch only stops after ``max_tokens * max_token_len``
    bytes, which made the chunker's cuts in long whitespace mixes cost that much
    per chunk."""

    __slots__ = ("ta", "src", "origin", "p0", "head", "table", "data_len", "lo", "nl", "nl_to", "checked",
                 "kind", "retry_at", "boff")

    def __init__(self, ta, src: str, origin: int):
        self.ta, self.src, self.origin = ta, src, origin
        self.p0 = -1  # start of the stretch (ta coordinates), -1: not set up
        self.lo = -1  # the S it was set up for
        self.head = 0
        self.table = None
        self.data_len = 0
        self.checked = -1  # stretch length at the last check
        self.nl = -1  # last newline found in the stretch (ta coordinates)
        self.nl_to = 0  # searched up to here
        self.kind = "ws"
        self.retry_at = 0
        self.boff = None

    def _setup(self, S: int, budget: int) -> bool:
        ta = self.ta
        src, o = self.src, self.origin
        n = len(ta)
        self.lo = S
        self.p0 = -1
        self.retry_at = n + 1024  # a failed set-up is tried again once the scan has grown
        fast = ta.fast
        cc = fast.char_class
        # the trailing stretch: whitespace, else punctuation ([^\s\p{L}\p{N}], o200k's marks
        # included), else (o200k) [\r\n/] from a "/", else a word stretch
        kinds = _STRETCH_KINDS_O200K if fast.o200k else _STRETCH_KINDS_CL100K
        for kind, stretch_re in kinds:
            w0 = n
            while w0 > S and stretch_re.fullmatch(src[o + w0 - 1]) is not None:
                w0 -= 1
            if n - w0 >= _WS_BOUND_MIN // 2:
                break
        else:
            return False
        if kind == "punct" and fast.o200k:
            # the punctuation alternative must take the stretch from its start: no mark
            # in its first two characters (a word takes a mark after a one-character lead)
            while w0 < n - 1 and (_is_mark(src[o + w0]) or _is_mark(src[o + w0 + 1])):
                w0 += 1
            if n - w0 < _WS_BOUND_MIN // 2:
                return False
        if kind == "slash":
            w0 = src.find("/", o + w0, o + n) - o  # the tail after a "/" is one piece with it
            if w0 < 0 or n - w0 < _WS_BOUND_MIN // 2:
                return False
        if w0 - S > 64:
            return False
        if kind in ("upper", "lower", "letters"):
            # a word stretch: from p0 one word match runs to its end (cl100k's \p{L}++, an
            # o200k second part [Ll Lm Lo M]+) or, for o200k's [Lu Lt Lm Lo M]*, at least to
            # just after its last Lm/Lo/mark (see exceeds); p0 must start that match: the
            # stretch starts the tail, or follows a digit or newline (no lead: \r\n are
            # excluded from it), or (upper) an upper-case letter follows a lower-case one
            if w0 > S:
                before = cc(src[o + w0 - 1])
                if not (before in (D, NL) or (kind == "upper" and before == LO and cc(src[o + w0]) == UP)):
                    return False
            p0 = w0
        elif w0 > S:
            cls = ta.fast.char_class(src[o + w0 - 1])
            if kind != "ws" and cls not in (LO, UP, OL, D, NL):
                return False  # the stretch may continue a piece before it
            if cls in (LO, UP, OL, D) or (kind != "ws" and cls == NL):
                # letter runs and digit groups stop at whitespace and punctuation; a
                # whitespace piece holding a newline ends at its run's last newline
                p0 = w0
            elif kind == "ws" and cls in (P, AP, SL):
                p0 = w0
                while p0 < n and src[o + p0] in "\r\n":
                    p0 += 1
                if p0 >= n - 1:
                    return False
            else:
                return False  # e.g. a space before punctuation joins its piece
        else:
            p0 = S
        self.head = ta.enc.count(src[o + S : o + p0]) if p0 > S else 0
        a = o + p0
        b = min(len(src), a + (budget + 2) * max(1, ta.enc.bpe.max_token_len))
        e = stretch_re.match(src, a, b).end()
        data = src[a:e].encode("utf-8")
        # byte offsets of the stretch's characters (a token may end inside one), grown
        # as the scan goes: (characters, bytes) so far; None when all are one byte
        self.boff = None if len(data) == e - a else [0, 0]

        self.table = _single_byte_run(ta.enc.bpe, data) or PrefixTable(ta.enc.bpe, data)
        self.kind = kind
        self.data_len = e - a
        self.checked = -1
        self.p0 = p0
        self.nl = -1
        self.nl_to = p0
        return True

    def exceeds(self, S: int, C: int, budget: int) -> bool:
        n = len(self.ta)
        if (S != self.lo or (self.p0 < 0 and n >= self.retry_at)) and not self._setup(S, budget):
            return False
        p0 = self.p0
        if p0 < 0:
            return False
        if n - p0 > self.data_len:
            return False  # past the stretch (or its bytes held): the generic bounds apply
        if self.kind == "upper":
            # the first repetition runs to n and gives back to just after the last Lm/Lo/mark
            m = LAST_LM_LO_MARK.search(self.src, self.origin + p0, self.origin + n)
            q = n if m is None else m.end() - self.origin
            if q - p0 < 2:
                return False
        elif self.kind != "ws":
            q = n  # the run (punctuation, slash tail, letters) from p0 is one piece reaching at least n
        else:
            src, o = self.src, self.origin
            if n > self.nl_to:  # last newline of the stretch so far, searched incrementally
                nl = max(src.rfind("\n", o + self.nl_to, o + n), src.rfind("\r", o + self.nl_to, o + n))
                if nl >= 0:
                    self.nl = nl - o
                self.nl_to = n
            q = self.nl + 1 if self.nl >= 0 else n - 1
        boff = self.boff
        if boff is None:
            x = q - p0
        else:  # in bytes, counted incrementally
            k = q - p0
            if k < boff[0]:
                boff[0] = boff[1] = 0
            src, o = self.src, self.origin
            boff[1] += len(src[o + p0 + boff[0] : o + p0 + k].encode("utf-8"))
            boff[0] = k
            x = boff[1]
        L = max(1, self.ta.enc.bpe.max_token_len)
        if x < L or x - self.checked < L:
            return False  # too early, or checked less than a window ago
        self.checked = x
        table = self.table
        if isinstance(table, PrefixTable):
            table.extend_to(x)
            low = min(table.counts[x - L + 1 : x + 1])
        else:
            low = min(table.count(y) for y in range(x - L + 1, x + 1))
        return C + self.head + low > budget


class _RegionTokenBound:
    r"""A stop from the longest token that occurs in a region of the text (any vocabulary).

    Let ``R`` be the UTF-8 bytes of a region of the text and ``Λ`` the longest vocabulary
    token occurring as a substring of ``R``.  Take any split whose pieces cover ``R``
    and start or end at one of its ends (``split_at``: ``R = text[S:j]`` after the
    stable boundary ``S``; ``truncate_start``: ``R = text[i:]``).  Every token of those
    pieces is a substring of its piece; the ones lying inside ``R`` have at most ``Λ``
    bytes, and they cover all of ``R`` but the part of the single token crossing ``R``'s
    open end (fewer than ``L = max_token_len`` bytes).  So those pieces hold at least
    ``ceil((|R| - L + 1) / Λ)`` tokens, for every longer prefix (suffix) as well.
    ``Λ`` is found with the vocabulary's Aho-Corasick automaton over the region as it
    grows (each new part with ``L - 1`` bytes of context, all overlapping matches),
    checked at geometrically spaced sizes so that the work stays linear.  Why: on text
    without hard boundaries (one endless word, a run of one character, emoji) the bound
    from ``L`` alone lets the scan run ``max_tokens * L`` bytes, where tokens of the
    actual text are much shorter (one letter ``x``: 8 bytes at most; ``é``: 2).  With the
    compiled core, ``Λ`` comes from its tries instead (``longest_token_in``: the same
    length, and no Python automaton to build: half a second for o200k)."""

    __slots__ = ("iter", "lens", "L", "longest", "core")

    def __init__(self, bpe):
        self.core = getattr(bpe, "_core", None) if _longest_token_in is not None else None
        self.iter = bpe.automaton.iter if self.core is None else None
        self.lens = bpe.token_lens if self.core is None else None
        self.L = max(1, bpe.max_token_len)
        self.longest = 0

    def grow(self, scan: bytes) -> None:
        """The region grew; ``scan`` is the new part with up to ``L - 1`` bytes of the old
        region on its open side (tokens across the old end)."""
        longest, lens, L = self.longest, self.lens, self.L
        if longest >= L:
            return
        if self.core is not None:
            self.longest = max(longest, _longest_token_in(self.core, scan))
            return
        for _, token in self.iter(scan.decode("latin-1")):
            k = lens[token]
            if k > longest:
                longest = k
                if k >= L:
                    break
        self.longest = longest

    def tokens_at_least(self, nbytes: int) -> int:
        """Lower bound on the tokens of pieces covering ``nbytes`` bytes of the region (see
        above; any part of it that the pieces start or end at)."""
        if not self.longest:
            return 0
        return max(0, -(-(nbytes - self.L + 1) // self.longest))


class _PunctHeadBound:
    r"""``truncate_start``'s stop inside a long punctuation piece (bundled patterns).

    Let ``[s, t)`` be a whole-text punctuation piece and ``i`` in it with ``text[i]`` and
    ``text[i + 1]`` non-mark ``[^\s\p{L}\p{N}]`` characters.  For every ``i' < i`` the
    match of ``text[i':]`` covering ``i`` is a punctuation match ``[m, t)``, ``m <= i``
    (:func:`bpe_stream.pretokenize.long_pieces._punct_piece_cut` has the argument; it ends where the
    whole text's does), and ``t`` is a boundary after which the pieces are those of
    ``text[t:]``.  Let ``c(x)`` be the raw count of ``text[x:t]``.  The first token of
    ``text[m:t]`` has at most ``L = max_token_len`` bytes, so ``c(m) = 1 + c(m')`` with
    ``m'`` within ``L`` bytes after ``m``; by induction ``c(m) >= 1 + min c`` over the
    ``L`` byte positions from ``i`` (all of them: a token may end inside a character)
    for ``m < i``, and ``c(i)`` itself for ``m = i``.  So ``count(text[i':]) >= W + count(text[t:])`` with ``W`` the minimum of
    ``c`` over those positions, and once that exceeds the budget no ``i' < i`` fits.  The
    raw suffix counts come from a :class:`~bpe_stream.bpe.prependable.BytesPrependable` fed
    one character per step of the scan.  Why: a text that is one long punctuation piece
    has no hard boundary, so the scan used to stop only after ``max_tokens *
    max_token_len`` bytes."""

    __slots__ = ("enc", "L", "t", "bp", "rest", "checked", "skip")

    def __init__(self, enc):
        self.enc = enc
        # the scan's positions i >= skip lie in a piece found not to qualify: callers test
        # ``i < skip`` before calling (one call per character doubled truncate_start's time)
        self.skip = 1 << 62
        self.L = max(1, enc.bpe.max_token_len)
        self.t = -1  # end (text coordinates) of the piece the raw counts are for
        self.bp = None  # raw prependable over text[i:t], i the scan's position
        self.rest = 0
        self.checked = 0

    def exceeds(self, impl, q: int, i: int, budget: int) -> bool:
        starts = impl.starts
        k = bisect_right(starts, i - q) - 1
        s, t = starts[k], starts[k + 1]
        if t - s < 2 * self.L or not impl._punct_piece(s, t):
            self.t = -1
            # skip to the end of the next piece (backwards) long enough to qualify
            k -= 1
            while k >= 0 and starts[k + 1] - starts[k] < 2 * self.L:
                k -= 1
            self.skip = (starts[k + 1] if k >= 0 else 0) + q
            return False
        if self.t != t + q:
            if i - q != t - 1:
                return False  # only from the piece's end, one character per step
            self.t = t + q
            self.bp = BytesPrependable(self.enc.bpe)
            self.rest = impl.count(t, len(impl.text)) if t < len(impl.text) else 0
            self.checked = 0
        ch = impl.text[i - q]
        self.bp.prepend(ch.encode("utf-8"))
        top = len(self.bp)  # bytes from i to t
        L = self.L
        zn = impl.zn
        if top < L or top - self.checked < L or i - q + 2 > t or ch not in zn or impl.text[i - q + 1] not in zn:
            return False
        self.checked = top
        # every byte position within L bytes from i: a token may end inside a character
        return min(self.bp.counts[top - L + 1 : top + 1]) + self.rest > budget


def _region_first_check(budget: int, mtl: int) -> int:
    # First size (bytes, or characters as a lower bound) at which _RegionTokenBound is tried:
    # well past where ordinary text stops on its own (a few bytes per token), so that it
    # costs nothing there.
    return max(8 * budget, _CHUNK) + 2 * mtl


def _text_scan(ta, src: str, piece_iter, budget: int, origin: int = 0) -> tuple[int, int]:
    """Feed pieces of ``src`` to ``ta`` until no longer prefix can fit; (best length, its count).

    Stop rule (any pattern): the stable pieces ``[0, S)`` are pieces of every
    longer prefix and count ``C`` tokens; the pieces after ``S`` cover the rest and
    every token has at most ``max_token_len`` bytes, so every prefix ``j >= L``
    has ``count >= C + ceil(bytes(text[S:L]) / max_token_len)``.  Once that
    exceeds the budget the scan stops, also inside one huge piece: the look-ahead
    past the answer is at most ``max_tokens * max_token_len`` bytes.
    """
    # Long pieces go one character at a time: the regex-free path of TextAppendable
    # is O(1) per character on them, where re-splitting a chunk may cost O(piece).
    per_char = ta.fast is not None
    mtl = max(1, ta.enc.bpe.max_token_len)
    stable_cum = ta.stable_cum
    stable_ends = ta.stable_ends
    # byte offsets (relative to ta) at chunk boundaries: marks_c[k] chars -> marks_b[k] bytes
    marks_c = [0]
    marks_b = [0]

    ws_bound = _StretchTailBound(ta, src, origin) if ta.fast is not None else None
    # _RegionTokenBound over text[R0:len(ta)], R0 <= S (a longer region only makes the longest
    # token longer, so it stays sound as S moves on): [bound, R0, scanned up to, next check]
    region = [None, 0, 0, 0]

    def region_exceeds(s: int, c: int, nbytes: int) -> bool:
        n = len(ta)
        if region[0] is None or s < region[1]:
            region[:] = [_RegionTokenBound(ta.enc.bpe), s, s, s + _region_first_check(budget - c, mtl)]
        if n < region[3]:
            return False
        rb, r0, to, _ = region
        a = origin + to
        new = src[a : origin + n].encode("utf-8", "surrogatepass")
        ctx = src[max(origin + r0, a - mtl) : a].encode("utf-8", "surrogatepass")[-(mtl - 1) :] if mtl > 1 else b""
        rb.grow(ctx + new)
        region[2] = n
        region[3] = n + max(_CHUNK, (n - r0) // 4)
        return c + rb.tokens_at_least(nbytes) > budget

    def done() -> bool:
        c = stable_cum[-1]
        if c > budget:
            return True
        s = stable_ends[-1]
        k = bisect_left(marks_c, s)  # first mark at or after S: bytes from there are a lower bound
        if k == len(marks_c):
            return False
        nbytes = marks_b[-1] - marks_b[k]
        if nbytes > mtl * (budget - c):
            return True
        if len(ta) - s <= _WS_BOUND_MIN:
            return False
        if ws_bound is not None and ws_bound.exceeds(s, c, budget):
            return True
        return region_exceeds(s, c, nbytes)

    for a, b in piece_iter:
        if per_char and b - a > _TEXT_CHUNK:
            append = ta.append
            while a < b:
                c = min(b, a + _TEXT_CHUNK)
                chunk = src[a:c]
                for ch in chunk:
                    append(ch)
                a = c
                marks_c.append(len(ta))
                marks_b.append(marks_b[-1] + (len(chunk) if chunk.isascii() else len(chunk.encode("utf-8", "surrogatepass"))))
                if done():
                    break
        else:
            while a < b:
                c = min(b, a + _TEXT_CHUNK)
                chunk = src[a:c]
                ta.append(chunk)
                a = c
                marks_c.append(len(ta))
                marks_b.append(marks_b[-1] + (len(chunk) if chunk.isascii() else len(chunk.encode("utf-8", "surrogatepass"))))
                if done():
                    break
        if done():
            break
    # Descend to the largest length whose exact count fits.
    if ta.token_count > budget:
        found = _descend_long_piece(ta, budget)
        if found is not None:
            return found
    while ta.token_count > budget:
        ta.truncate(len(ta) - 1)
    return len(ta), ta.token_count


def _descend_long_piece(ta, budget: int):
    """Descent when the tail is long: exact counts of every prefix from an interval index.

    Truncating one character at a time re-splits the tail, which inside a long
    piece (or a long whitespace stretch of many pieces) may cost O(tail) per step;
    an :func:`~bpe_stream.text.intervals.text_intervals` index over the scanned text answers
    ``count(text[:j])`` in O(1) typically (long words, punctuation and whitespace
    runs included), after a linear build.  Returns None when the tail is short
    (the caller truncates).
    """
    from .appendable import _LONG

    if ta.pattern is None or not ta.tail:
        return None
    L = len(ta)
    if L - ta.stable_ends[-1] <= _LONG:
        return None
    # (long pieces of the re-splits share one table pass per start: text/descent.py)
    count = DescentIntervals(ta.enc, ta.get_text()).count
    for j in range(L, 0, -1):
        c = count(0, j)
        if c <= budget:
            return j, c
    return 0, 0


def _fixed_chunks(a: int, b: int):
    while a < b:
        c = min(b, a + _TEXT_CHUNK)
        yield a, c
        a = c


def text_split_at(enc, text: str, max_tokens: int, start: int = 0) -> int:
    """Largest ``j >= start`` (a character index) such that ``enc.count(text[start:j]) <= max_tokens``."""
    return text_split_at_count(enc, text, max_tokens, start)[0]


def text_split_at_count(enc, text: str, max_tokens: int, start: int = 0) -> tuple[int, int]:
    """``(j, enc.count(text[start:j]))`` for the ``j`` of :func:`text_split_at`."""
    budget = _check_budget(max_tokens)
    text = check_text(text)
    start = _check_start(start, len(text))
    fast = fast_split_for(enc.pat_str) if enc.pat_str is not None else None
    if fast is not None:
        found = _split_at_by_hard_boundaries(enc, fast, text, budget, start)
        if found is not None:
            return found
    return _scan_split_at(enc, text, budget, start)


def _scan_split_at(enc, text: str, budget: int, start: int) -> tuple[int, int]:
    """``text_split_at_count`` by feeding the pieces to a TextAppendable (see _text_scan)."""
    if whole_longer_than(enc, 0):
        return _whole_scan_split_at(enc, text, budget, start)
    ta = TextAppendable(enc)
    if ta.pattern is None:
        spans = _fixed_chunks(start, len(text))
    else:
        spans = (m.span() for m in ta.pattern.finditer(text, start))
    j, c = _text_scan(ta, text, spans, budget, start)
    return start + j, c


# Characters of window per token of budget for the walks over hard boundaries (split_at,
# truncate_start): prose and code average 3-5 characters per token; a kept part longer
# than the window falls back to the general scans.
_WINDOW_PER_TOKEN = 8


def _split_at_by_hard_boundaries(enc, fast, text: str, budget: int, start: int) -> tuple[int, int] | None:
    """``text_split_at_count`` from the prefix counts at hard boundaries, or None when the
    kept part reaches past a window of ``_WINDOW_PER_TOKEN * budget`` characters.

    The mirror image of :func:`_split_at_start_by_hard_boundaries`: for a hard boundary
    ``a`` and every ``j > a``, ``count(T[s:j]) = count(T[s:a]) + count(T[a:j])``, so the
    prefix count ``P(a)`` is a running sum over the pieces of the window ``T[s:e]`` (its
    pieces before any hard boundary are the text's).  While ``P(a) < budget``, ``a`` fits;
    at the first hard boundary ``c`` with ``P(c) >= budget`` no ``j > c`` fits
    (``count >= P(c) + 1``): the answer is ``c`` if ``P(c) == budget``, else ``a`` + the
    cut of ``T[a:c]`` with budget ``budget - P(a)`` (``a`` the last hard boundary that
    fitted, or ``s``), found by the general scan on that short segment.
    """
    n = len(text)
    hard = _hard_boundary_test(fast)
    end = min(n, start + _WINDOW_PER_TOKEN * budget + 64)
    pieces = enc._split(text[start:end])
    counts = enc._piece_count_list(pieces)
    pos = start
    total = 0
    a, p_a = start, 0  # the last hard boundary that fitted, and its prefix count
    for k in range(len(pieces)):
        pos += len(pieces[k])
        total += counts[k]
        if pos >= end:
            break  # the window's last pieces may differ from the text's
        if _is_hard_at(hard, fast, text, pos):
            if total < budget:
                a, p_a = pos, total
                continue
            if total == budget:
                return pos, total
            j, c = _scan_split_at(enc, text[a:pos], budget - p_a, 0)
            return a + j, p_a + c
    if end < n:
        return None
    # the window reaches the end of the text, which splits like a hard boundary
    if total <= budget:
        return n, total
    j, c = _scan_split_at(enc, text[a:], budget - p_a, 0)
    return a + j, p_a + c


def text_split_at_start(enc, text: str, max_tokens: int) -> int:
    """Smallest ``i`` such that ``enc.count(text[i:]) <= max_tokens``.

    Candidates ``i`` are tried from the end backwards with exact counts from an
    :func:`~bpe_stream.text.intervals.text_intervals` index over a suffix window
    ``text[q:]`` (``q`` moves back by doubling the window; counts of substrings of
    the window are exact whatever the window).

    Exact early stop (bundled patterns).  Call ``p`` a *hard boundary* when
    ``text[p-1], text[p]`` is: a letter then no letter (o200k: nor an apostrophe nor a
    mark); a digit then a non-digit; a newline then a non-whitespace
    character (o200k: not ``/``); or a punctuation character then non-newline
    whitespace.  Then every split of ``text[i:]`` with ``i < p`` has a boundary at
    ``p``: the piece holding ``text[p-1]`` cannot absorb ``text[p]`` (letter runs,
    contractions and digit groups stop at a character outside their class; a
    whitespace piece holding a newline followed by non-whitespace ends after its
    last newline; punctuation pieces absorb only newlines, and ``/`` for o200k;
    a one-character prefix needs a letter after it).  Since the patterns have no
    look-behind, the pieces after ``p`` are those of ``text[p:]``, so
    ``count(text[i:]) >= 1 + count(text[p:])``.  Once a hard boundary ``p`` has
    ``count(text[p:]) >= max_tokens``, no ``i < p`` fits and the scan stops.
    Work: O(span scanned) interval queries (typically O(1) each) plus building
    the window's index (linear).

    Byte stop (any pattern, also texts without hard boundaries: whitespace-only,
    punctuation-only, one endless word): every token has at most
    ``max_token_len`` bytes, so ``count(text[i:]) >= bytes(text[i:]) /
    max_token_len`` and the scan stops once that exceeds the budget.  The scanned
    suffix is at most ``max_tokens * max_token_len`` bytes (plus the hard-boundary
    stop, usually much earlier), whatever the text's length.  Region stop: the same
    with the longest token that occurs in ``text[i:]`` in place of ``max_token_len``
    (:class:`_RegionTokenBound`), tried from ``8 * max_tokens`` bytes on: one endless
    word of random letters stops after about ``6 * max_tokens`` bytes instead of
    ``128 * max_tokens``.
    """
    budget = _check_budget(max_tokens)
    text = check_text(text)
    n = len(text)
    if enc.pat_str is None and not whole_longer_than(enc, 0):
        data = text.encode("utf-8")
        cut = bytes_split_at_start(enc.bpe, data, budget)
        # move forward to a character boundary (a continuation byte starts no character)
        while cut < len(data) and (data[cut] & 0xC0) == 0x80:
            cut += 1
        return n - len(data[cut:].decode("utf-8"))
    fast = fast_split_for(enc.pat_str) if enc.pat_str is not None else None
    if fast is not None:
        cut = _split_at_start_by_hard_boundaries(enc, fast, text, budget)
        if cut is not None:
            return cut
    return _scan_split_at_start(enc, fast, text, budget)


def _split_at_start_by_hard_boundaries(enc, fast, text: str, budget: int) -> int | None:
    r"""``text_split_at_start`` from the suffix counts at hard boundaries, or None when the
    kept part reaches past a window of ``_WINDOW_PER_TOKEN * budget`` characters (the
    scan then answers).

    For a hard boundary ``b`` (see :func:`text_split_at_start`) and every ``i < b``:
    ``count(text[i:]) = count(text[i:b]) + count(text[b:])``.  The split of ``text[i:]``
    has a boundary at ``b`` and its pieces after ``b`` are those of ``text[b:]``; its
    pieces before ``b`` are those of ``text[i:b]``, because the piece ending at ``b``
    stops at a class change that ends it in ``text[i:b]`` too (a letter run, a digit
    group, a punctuation piece before non-newline whitespace, a whitespace piece after
    its last newline: cl100k's ``\s++$`` at the end of ``text[i:b]`` takes the same
    characters).  tests/test_cuts.py checks the equality by brute force.
    So, walking the pieces of a window ``text[q:]`` back from the end (the window's
    pieces after any hard boundary are the text's), the suffix count ``S(b)`` is a
    running sum at every hard boundary.  While ``S(b) < budget``, ``b`` fits.  At the
    first hard boundary ``a`` with ``S(a) >= budget`` no ``i < a`` fits
    (``count(text[i:]) >= 1 + S(a)``); the answer is ``a`` if ``S(a) == budget``, else the
    smallest fitting ``i`` in ``(a, b]`` (``b`` the last hard boundary that fitted, or the
    end), that is ``a`` + the cut of ``text[a:b]`` with budget ``budget - S(b)``, which the
    general scan finds on that short segment.  Work: one split and count of the window
    (compiled for ASCII stretches) and a walk over the kept pieces.
    """
    n = len(text)
    hard = _hard_boundary_test(fast)
    q = max(0, n - (_WINDOW_PER_TOKEN * budget + 64))
    pieces = enc._split(text[q:])
    counts = enc._piece_count_list(pieces)
    pos = n
    total = 0
    b, s_b = n, 0  # the last hard boundary that fitted, and its suffix count
    for k in range(len(pieces) - 1, -1, -1):
        pos -= len(pieces[k])
        total += counts[k]
        if pos <= q:
            break  # the window's first pieces may differ from the text's
        if _is_hard_at(hard, fast, text, pos):
            if total < budget:
                b, s_b = pos, total
                continue
            if total == budget:
                return pos
            return pos + _scan_split_at_start(enc, fast, text[pos:b], budget - s_b)
    if q > 0:
        return None
    # the window is the whole text: position 0 splits like a hard boundary
    if total <= budget:
        return 0
    return _scan_split_at_start(enc, fast, text[:b], budget - s_b)


def _scan_split_at_start(enc, fast, text: str, budget: int) -> int:
    """``text_split_at_start`` by exact interval counts of every candidate, from the end
    (see :func:`text_split_at_start` for the stops)."""
    n = len(text)
    hard = _hard_boundary_test(fast) if fast is not None else None
    # Byte stop (any pattern): every token has at most max_token_len bytes, so once
    # bytes(text[i:]) > max_tokens * max_token_len no i' <= i fits.
    mtl = max(1, enc.bpe.max_token_len)
    whole = whole_longer_than(enc, 0)
    if whole:
        # whole-piece tokens: the byte stop with the longest of them too; the region and
        # punctuation-head stops read the vocabulary's BPE tokens only, so they are off
        mtl = max(mtl, whole)
    byte_limit = budget * mtl
    nbytes = 0
    # _RegionTokenBound over text[i:]: checked at geometrically spaced sizes
    region = None
    region_from = n
    next_check = _region_first_check(budget, mtl)
    span = max(4 * budget, 256)
    best = n
    i = n  # candidates >= i are done
    head = _PunctHeadBound(enc) if fast is not None and not whole else None
    if whole:
        next_check = byte_limit + 1
    # ---- periodic text (text/periodic_tokens.py): every token of a suffix of it is at most
    # the longest token inside its unit's repetition, a much nearer byte stop than mtl's
    unit_bytes = periodic_token_bytes(enc, text, mtl) if n > byte_limit // mtl else 0
    if unit_bytes:
        byte_limit = min(byte_limit, budget * unit_bytes)
    # ---- end of periodic text
    while True:
        q = max(0, n - span)
        index = text_intervals(enc, text[q:])
        count = index.count
        end = n - q
        while i > q:
            i -= 1
            ch = text[i]
            o = ord(ch)
            nbytes += 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
            if nbytes > byte_limit:
                return best
            if nbytes >= next_check:
                if region is None:
                    region = _RegionTokenBound(enc.bpe)
                new = text[i:region_from].encode("utf-8")
                ctx = text[region_from : region_from + mtl].encode("utf-8")[: mtl - 1]
                region.grow(new + ctx)
                region_from = i
                if region.tokens_at_least(nbytes) > budget:
                    return best
                next_check = nbytes + max(_CHUNK, nbytes // 4)
            c = count(i - q, end)
            if c <= budget:
                best = i
            if c >= budget and hard is not None and i > 0 and (
                hard(text[i - 1], ch) or (ch == "'" and _o200k_word_end(fast, text[i - 1], text[i + 1 : i + 2]))
            ):
                return best
            if head is not None and i < head.skip and head.exceeds(index, q, i, budget):
                return best
        if q == 0:
            return best
        span = min(2 * span, 2 * byte_limit + 8)


def normalized_split_at(enc, text: str, max_tokens: int) -> int:
    """``text_split_at`` for a pre-tokenizer that normalizes: the largest *aligned* ``j``
    (see :mod:`bpe_stream.text.normalized`) with ``enc.count(text[:j]) <= max_tokens``.

    The cut of the normalized text is maximal among all its positions; the answer is the
    largest aligned position at or below it that fits (positions inside a part that
    normalization changed are not cut points).  Work: one cut plus, where that cut is not
    aligned, a count per aligned position tried (usually one)."""
    view = NormalizedView(enc.pretokenizer.normalizer, text)
    if view.identity:
        return text_split_at(enc, text, max_tokens)
    norm = view.norm
    j = text_split_at(enc, norm, max_tokens)
    for a in view.aligned_below(j):
        if a == j or enc.count(norm[:a]) <= max_tokens:
            return view.to_raw(a)
    return 0


def normalized_split_at_start(enc, text: str, max_tokens: int) -> int:
    """``text_split_at_start`` for a pre-tokenizer that normalizes (see
    :func:`normalized_split_at`): the smallest aligned ``i`` with
    ``enc.count(text[i:]) <= max_tokens``."""
    view = NormalizedView(enc.pretokenizer.normalizer, text)
    if view.identity:
        return text_split_at_start(enc, text, max_tokens)
    norm = view.norm
    i = text_split_at_start(enc, norm, max_tokens)
    for a in view.aligned_above(i):
        if a == i or enc.count(norm[a:]) <= max_tokens:
            return view.to_raw(a)
    return len(text)


# ---- vocabularies with whole-piece tokens
# A piece equal to a whole-piece token (one BPE may not build) is that one token, so a prefix
# count can drop by up to that token's length when the prefix reaches the piece's end: the
# stops above that read the vocabulary's BPE tokens (the appendable's windows, the region
# bound) do not hold.  These vocabularies take an ascending scan with exact interval counts.


def _whole_scan_split_at(enc, text: str, budget: int, start: int) -> tuple[int, int]:
    """``text_split_at_count`` for a vocabulary with whole-piece tokens: every ``j`` from
    ``start`` on is counted exactly (an interval index over a window ``text[start:e]``, ``e``
    moving on by doubling the window; counts of its substrings are exact whatever the window).

    Stops: bytes -- a token has at most ``M`` bytes (the longest BPE or whole-piece token),
    so ``count(text[start:j]) >= bytes / M`` exceeds the budget past ``budget * M`` bytes;
    hard boundaries (bundled patterns, see :func:`_split_at_by_hard_boundaries`) -- at a
    hard boundary ``p`` with ``count(text[start:p]) >= budget`` every ``j > p`` has a count of
    at least ``count(text[start:p]) + 1``.  Work: O(scanned) interval queries, the scanned
    part at most ``budget * M`` bytes."""
    n = len(text)
    fast = fast_split_for(enc.pat_str) if enc.pat_str is not None else None
    hard = _hard_boundary_test(fast) if fast is not None else None
    byte_limit = budget * max(1, enc.bpe.max_token_len, whole_longer_than(enc, 0))
    best, best_c = start, 0
    nbytes = 0
    span = max(4 * budget, 256)
    j = start  # prefixes up to text[start:j] are done
    while True:
        e = min(n, start + span)
        count = text_intervals(enc, text[start:e]).count
        while j < e:
            o = ord(text[j])
            nbytes += 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
            if nbytes > byte_limit:
                return best, best_c
            j += 1
            c = count(0, j - start)
            if c <= budget:
                best, best_c = j, c
            if c >= budget and hard is not None and j < n and _is_hard_at(hard, fast, text, j):
                return best, best_c
        if e == n:
            return best, best_c
        span *= 2
