"""Where the middle of a long pre-split piece can be deleted without changing the split.

Streaming counters re-split a bounded stretch of text after every edit; a piece
that grows to megabytes would make each re-split O(piece).  Instead they re-split
a *proxy* in which parts of long pieces are deleted.  A deletion is sound when no
match boundary of the tiktoken pattern falls inside the deleted part and the
regex engine's steps through it do not depend on its length: then every boundary
after it moves by the deleted length, in every text holding the same stretch.
This module gives those parts, each with its argument (bundled cl100k/o200k
patterns only), and :class:`_LongPiece`, the per-piece record (raw appendable,
class runs and stretches) they are read from.  Callers re-check that no boundary
falls on a cut and fall back to an uncompressed re-split if one ever does.
Complexity: the records are updated in O(changed); each cut is found in
O(log runs).

Why long pieces can be compressed (bundled patterns only).  Characters are put in
classes (cl100k: letter, newline ``[\\r\\n]``, other whitespace, other non-digit
non-apostrophe symbol; o200k splits letters into ``Lu|Lt``, ``Ll``, ``Lm|Lo``,
marks, and adds ``/``).  Digits and the apostrophe are never compressed.  Inside
a maximal run of one class, every test the pattern can make at a position at
distance >= ``_KEEP`` (>= 3) from both ends of the run has the same answer for
every character of the class: the only tests that can distinguish characters of
a class are the contraction letters (tested only 1-2 characters after an
apostrophe, i.e. at a run start) and the literal space / ``[^\\r\\n\\p{L}\\p{N}]?``
prefix (tested only at a match start, and no match starts inside a run of these
classes: letter, punctuation and newline runs are consumed by one possessive or
greedy class repetition; whitespace runs end matches only after the last
newline, at ``w - 1`` or at ``w``, all within 1 of a run end).  A backtracking
engine running through the middle of a run therefore performs the same steps,
with the same outcomes, whatever the run's length beyond ``2 * _KEEP``, so
deleting the middle of the run (keeping ``_KEEP`` characters on each side) moves
every match boundary after it by the deleted length and none falls inside the
deleted part.

A long whitespace piece that mixes spaces, tabs and newlines (so that no one-class
run is long) is compressed as a whole instead: its middle, up to a few characters
before its last newline, is cut out of the proxy (``_ws_piece_cut`` gives the
argument).  Likewise a long o200k word mixing lower-case letters, ``Lm``/``Lo``
letters and marks (only short one-class runs) has parts of its lower-word stretch
cut out, before and after its first lower-case letter (``_word_piece_cuts``).
An o200k word mixing upper-case letters with ``Lm``/``Lo`` letters or marks
(``"A中" * n``) has the middle of its upper-word stretch cut out
(``_upper_word_piece_cut``).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from operator import itemgetter

from ..bpe.appendable import BytesAppendable
from .patterns import PATTERNS
from .unicode import compile_regex

_KEEP = 8  # characters kept at each end of a compressed run (>= 3)
_MIN_CUT = 8  # only compress when at least this many characters are removed
_LONG_RUN = 2 * _KEEP + _MIN_CUT  # a one-class run this long can be cut in its middle
_RUN_START = itemgetter(1)  # the start of a class run [group, a, b], to bisect runs by

# One capturing group per class; only the groups listed as compressible merge.
_RUNS_CL100K = compile_regex(
    r"(\p{L}+)|([\r\n]+)|([^\S\r\n]+)|([^\s\p{L}\p{N}']+)|((?s:.))"
)
_RUNS_O200K = compile_regex(
    r"([\p{Lu}\p{Lt}]+)|(\p{Ll}+)|([\p{Lm}\p{Lo}]+)|(\p{M}+)|([\r\n]+)|([^\S\r\n]+)"
    r"|([^\s\p{L}\p{N}\p{M}'/]+)|((?s:.))"
)
_COMPRESSIBLE = {_RUNS_CL100K: frozenset({1, 2, 3, 4}), _RUNS_O200K: frozenset({1, 2, 3, 4, 5, 6, 7})}


# o200k's lower-word letter groups in its run regex: (Ll, Lm|Lo, marks), Ll first.
_WORD_GROUPS = {_RUNS_O200K: (2, 3, 4)}


_SHORT_STRETCHES = 4  # short stretches at a word's end passed over for a long one before them


def _word_piece_cuts(wruns, a: int, b: int, upper: int = -1) -> list:
    """Cuts ``[(cut_from, cut_to), ...]`` deleting parts of an o200k lower-word stretch in
    piece ``[a, b)`` (empty if none).

    Let ``R = [ws, we)`` be a maximal stretch of ``Ll``/``Lm``/``Lo``/mark characters and
    ``f`` its first ``Ll`` (if any).  The match covering ``ws`` is a word match (its
    first alternative; a mark can only be its optional lead): ``[\\p{Lu}..]*`` takes the
    characters before ``f``, all in that set, and stops at ``f``; ``[\\p{Ll}..]+`` then
    runs to ``we``.  Without an ``Ll`` the first part takes all of ``R`` (and any
    upper-case letters after it) and gives characters back until the second part can
    take the last character of ``R``.  Either way no match boundary falls strictly
    inside ``R``, and a part of ``R`` can be deleted when the engine's steps through it
    do not depend on its length: a part before ``f`` (the first repetition consumes
    it), a part after ``f`` (the second one does), or, with no ``Ll``, any part (the
    first consumes it and gives back only from the end).  Each part keeps ``_KEEP``
    characters on both sides, so ``f``, the optional lead and the contraction after
    ``we`` stay.  ``R`` is the piece's last stretch, or when that gives no cut, the nearest
    one before it that does, passing over at most ``_SHORT_STRETCHES`` (the argument
    holds for any maximal stretch; the bound keeps the look O(1)).  The stretch that ends
    at ``upper``, the first upper-case letter of the piece's upper-word stretch, is cut
    too: the upper-word cut takes the part after it, where the stretches are short
    (``"\u4e2d\u0301" * n + "A\u4e2d\u0301" * m + "\xe1"``).  Why: a long o200k word mixing
    these classes has only short one-class runs, so it was re-split whole, O(piece), on
    every truncation or multi-character append (and on every mark appended)."""
    if not wruns:
        return []
    k = bisect_right(wruns, b - 1, key=lambda r: r[0]) - 1
    if k < 0:
        return []
    out = _stretch_cuts(wruns[k], a, b)
    j = k
    while not out and j > 0 and k - j < _SHORT_STRETCHES and wruns[j - 1][0] >= a:
        # a short last stretch, such as the letters of a contraction ("'s", "'ll") or an Lm
        # letter after an upper-case one ("A\u02b0's"): a stretch before it in the same piece
        # is cut instead (as R above, or, in "\u4e2d" * n + "A\u4e2d", a stretch without an
        # Ll that the first part takes whole: it gives back only from the last stretch)
        j -= 1
        out = _stretch_cuts(wruns[j], a, b)
    if upper > a:
        i = bisect_right(wruns, upper - 1, key=lambda r: r[0]) - 1
        if 0 <= i < j and wruns[i][1] == upper:
            out = _stretch_cuts(wruns[i], a, b) + out
    return out


def _stretch_cuts(stretch, a: int, b: int) -> list:
    """The cuts of one lower-word stretch ``[ws, we, f]`` in piece ``[a, b)`` (see
    :func:`_word_piece_cuts`)."""
    ws, we, f = stretch
    if ws < a or we <= a:
        return []
    we = min(we, b)
    spans = [(ws, f), (f, we)] if ws <= f < we else [(ws, we)]
    out = []
    for lo, hi in spans:
        cut_from, cut_to = lo + _KEEP, hi - _KEEP
        if cut_to - cut_from >= _MIN_CUT:
            out.append((cut_from, cut_to))
    return out


# o200k's upper-word groups in its run regex: upper-case (Lu|Lt) first, then the
# classes both word parts take (Lm|Lo, marks).
_UPPER_GROUPS = {_RUNS_O200K: (1, 3, 4)}


def _upper_word_piece_cut(uruns, a: int, b: int):
    r"""(cut_from, cut_to) deleting part of an o200k upper-word stretch in piece ``[a, b)``, or None.

    Let ``R`` be a maximal stretch of ``Lu``/``Lt``/``Lm``/``Lo``/mark characters, ``u``
    its first upper-case letter and ``w`` its last ``Lm``/``Lo``/mark.  Match boundaries
    inside ``R`` can only fall at ``R``'s start, at its first letter (a punctuation match
    takes leading marks and stops at a letter), at ``u`` (a word's second part
    ``[\p{Ll}\p{Lm}\p{Lo}\p{M}]+`` coming from the left takes leading ``Lm``/``Lo``/marks
    and stops at ``u``), just after ``w`` and at ``R``'s end: a word match starting at or
    before ``u`` reaches ``R`` in its first part ``[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*``,
    which runs to the end of ``R``; if a lower-case letter follows, the second part goes
    on from there, otherwise the engine gives back characters until the second part can
    take one, which happens at ``w`` (the upper-case letters after ``w`` then make their
    own match).  So between ``u`` and ``w`` the engine only steps the first part's
    repetition forward, the same step for every character, and a part strictly between
    ``u + _KEEP`` and ``w - _KEEP`` can be deleted.  ``uruns`` hold this record's
    stretches as ``[start, end, u or -1, w or -1]``; a record stretch is part of a
    maximal one, so its ``u`` is no earlier and its ``w`` no later than the true ones,
    which only shrinks the deleted part.  Why: a long word such as ``"A中" * n`` has only
    one-character runs, so it was re-split whole on every truncation or
    multi-character append, O(piece)."""
    if not uruns:
        return None
    start, end, u, w = uruns[0]
    if u < 0 or w < 0 or start > a + 1 or w >= b:
        return None
    cut_from, cut_to = u + _KEEP, w - _KEEP
    return (cut_from, cut_to) if cut_to - cut_from >= _MIN_CUT else None


# Class groups of whitespace in the run regexes: (newline group, other-whitespace group).
_WS_GROUPS = {_RUNS_CL100K: (2, 3), _RUNS_O200K: (5, 6)}


def _ws_piece_cut(runs, a: int, b: int, ws_groups):
    """(cut_from, cut_to) deleting the middle of a long whitespace piece ``[a, b)``, or None.

    A piece starting with two whitespace characters is matched by a whitespace
    alternative, so it is whitespace only.  Such a piece (``\\s*[\\r\\n]``, ``\\s++$``,
    o200k's ``\\s*[\\r\\n]+``, a run before ``\\s+(?!\\S)``) is read by a greedy
    ``\\s`` repetition to the end of its whitespace stretch and then cut back at the
    stretch's last newline, at its last character or not at all; no match starts or
    ends strictly inside, before that last newline.  So text strictly between
    ``a + _KEEP`` and ``last newline - _KEEP`` can be deleted whatever classes it mixes
    (spaces, tabs, newlines: the one-class runs are too short there to compress) and
    every boundary moves by the deleted length.  ``runs`` alternate between the two
    whitespace classes inside the piece, so the last newline is found among the last
    two runs before ``b``: O(log runs)."""
    if not ws_groups or not runs:
        return None
    nl_group, ws_group = ws_groups
    k = bisect_right(runs, a, key=_RUN_START) - 1
    if k < 0 or runs[k][0] not in ws_groups:
        return None
    if runs[k][2] <= a + 1 and (k + 1 >= len(runs) or runs[k + 1][0] not in ws_groups):
        return None  # a single whitespace character: maybe a lead before punctuation
    x = bisect_right(runs, b - 1, key=_RUN_START) - 1
    for y in (x, x - 1):
        if y < k:
            return None
        g, ra, rb = runs[y]
        if g == nl_group:
            last_nl = min(rb, b) - 1
            cut_from, cut_to = a + _KEEP, last_nl - _KEEP
            return (cut_from, cut_to) if cut_to - cut_from >= _MIN_CUT else None
        if g != ws_group:
            return None
    return None


def run_regex_for(pat_str):
    """The class-run regex for a bundled pattern, or None (no compression)."""
    if pat_str == PATTERNS["cl100k_base"]:
        return _RUNS_CL100K
    if pat_str == PATTERNS["o200k_base"]:
        return _RUNS_O200K
    return None


def long_piece_cuts(rec, a: int, b: int, run_re, mergeable, head: str = "") -> list:
    """Disjoint, sorted ``[(cut_from, cut_to), ...]`` that may be deleted from piece ``[a, b)``
    whose record is ``rec`` (``rec.end >= b``).  ``head``: the piece's first two characters
    when a match is known to start at ``a`` in the text re-split (the re-split starts
    there, or every boundary before it is kept), else empty.

    A whitespace piece gets its whitespace cut; any other piece the stretch cuts
    (lower-word, upper-word, punctuation, o200k slash tail), longest first, while they
    stay disjoint.  Both then get the middles of the piece's long one-class runs that
    none of them overlaps.  Each cut is sound on its own (the boundaries of the whole
    text move by its length and none falls inside it), so disjoint cuts are sound
    together."""
    cut = _ws_piece_cut(rec.runs, a, b, _WS_GROUPS.get(run_re, ()))
    if cut is not None:
        out = [cut]
    else:
        out = _word_piece_cuts(rec.wruns, a, b, rec.uruns[0][2] if rec.uruns else -1)
        z = _punct_stretch(rec.pruns, a, head)
        for cut in (_upper_word_piece_cut(rec.uruns, a, b), _punct_piece_cut(z, b),
                    _slash_tail_cut(rec.truns, a, b, z[1] if z is not None else -1)):
            if cut is not None:
                out.append(cut)
        if len(out) > 1:
            # keep the cuts disjoint (a stretch of Lm/Lo/marks lies in both word kinds, '/'
            # in punctuation and in the slash tail, marks in an o200k punctuation piece),
            # the longest first: the first one found may be the small part of a stretch
            # another one covers ("/" * n + "/\n" * m: the punctuation stretch ends at the
            # first newline, the slash tail runs to the piece's end)
            found, out = sorted(out, key=lambda c: c[0] - c[1]), []
            for lo, hi in found:
                for olo, ohi in out:
                    if lo < ohi and olo < hi:
                        break
                else:
                    out.append((lo, hi))
            out.sort()
    # the middles of the piece's long one-class runs that no stretch cut covers: a long
    # newline run in the tail of a punctuation piece (``"'" * n + "\n" * m``), the spaces
    # after the last newline of a whitespace piece (``\s++$`` on ``"\n \n" * n + " " * m``)
    lruns = rec.lruns
    if not lruns:
        return out
    stretch = tuple(out)
    # The runs inside a stretch cut are jumped by bisection: a long word of short and long
    # runs (``"m" + "\u00aa" * 30`` mixed at random) has one long run per few dozen
    # characters, all under its word cut, and walking them made every edit O(piece).  Once a
    # run overlaps a cut, every later run whose middle starts before the cut's end does too
    # (runs are disjoint and sorted, so their middles' ends only grow).
    i, n_runs = 0, len(lruns)
    while i < n_runs:
        g, ra, rb = lruns[i]
        if ra >= b:
            break
        if rb > b:
            rb = b
        lo, hi = ra + _KEEP, rb - _KEEP
        for slo, shi in stretch:
            if lo < shi and slo < hi:
                i = bisect_left(lruns, shi - _KEEP, i + 1, n_runs, key=_RUN_START)
                break
        else:
            if rb - ra >= _LONG_RUN and g in mergeable:
                out.append((lo, hi))
            i += 1
    if len(out) > len(stretch) and stretch:
        out.sort()  # (each part is sorted: the stretch cuts, then the runs' in order)
    return out


# Punctuation stretches: maximal runs of [^\s\p{L}\p{N}] (apostrophes, slashes and marks
# included).  Per run regex: (groups of non-mark punctuation, groups of marks, the characters
# of its catch-all group that belong).  cl100k treats marks as plain punctuation.
_PUNCT_GROUPS = {
    _RUNS_CL100K: (frozenset({4}), frozenset(), "'"),
    _RUNS_O200K: (frozenset({7}), frozenset({4}), "'/"),
}
_CATCH_ALL = {_RUNS_CL100K: 5, _RUNS_O200K: 8}
_MARK = compile_regex(r"\p{M}")


def _punct_piece_cut(z, b: int):
    r"""(cut_from, cut_to) deleting the middle of a punctuation stretch in a piece ending at
    ``b``, or None; ``z`` is what :func:`_punct_stretch` found.

    Let ``Z`` be a maximal stretch of ``[^\s\p{L}\p{N}]`` characters and ``q`` a position
    in it where two characters that are not marks follow each other (cl100k: any two).
    The match covering ``q`` starts there or earlier.  Starting at ``q``, no alternative
    but punctuation takes it: a word needs a letter or (o200k) a mark right after its
    one-character lead, a contraction a letter after the apostrophe, and ``q + 1`` is
    neither.  Starting earlier, only a punctuation match can cover a non-letter non-mark
    character that is not its first (word matches hold letters and marks after their
    lead; a contraction's apostrophe is followed by a letter).  So a punctuation match
    covers ``q``, and its ``[^\s\p{L}\p{N}]`` repetition (possessive in cl100k; greedy in
    o200k, followed only by ``[\r\n/]*``, which can match empty, so it never gives back)
    runs to the end of ``Z``: no boundary in ``(q, end of Z)`` and the same step for every
    character there.  Why: ``"!'" * n`` has only one-character runs (the apostrophe is
    never merged), so it was re-split whole on every truncation or multi-character append.

    Without such a ``q`` near ``Z``'s start (o200k ``" '" + "\u0301!" * n``: marks between
    the others), a match known to start at ``a`` (``head``) that is a space and a character
    of ``Z`` other than a mark is a punctuation match: the word alternatives take the space
    as their lead and then need a letter or mark, digits need a digit; its repetition runs
    from ``a + 1`` to the end of ``Z`` as above, so ``q = a + 1`` serves.  (A match may start
    inside such a ``Z`` when none runs through it: ``"!\u0301"`` is a word, lead and mark.)
    So is a match known to start at ``a`` on a ``Z`` of one character that is not a mark,
    followed by a newline (o200k ``"\U0001F600" + "\n" * k + "/" * m``): a word needs a
    letter or mark after its lead, digits a digit, whitespace a space first; ``Z`` is
    all it has to run through (nothing to cut), and the ``[\r\n/]`` stretch after it is
    its tail (:func:`_slash_tail_cut`)."""
    if z is None:
        return None
    q, z1 = z
    cut_from, cut_to = q + _KEEP, min(z1, b) - _KEEP
    return (cut_from, cut_to) if cut_to - cut_from >= _MIN_CUT else None


def _punct_stretch(pruns, a: int, head: str):
    """(q, end) of the punctuation stretch ``Z`` of piece ``[a, ...)`` that a punctuation
    match is known to run through from ``q`` to its end (:func:`_punct_piece_cut` has the
    argument), or None.  ``pruns`` hold the record's stretches as ``[start, end, q or -1,
    start of the trailing non-mark streak while q is -1, else -1]``; the first one is the
    stretch of a punctuation piece (which starts at ``a`` or after a space)."""
    if not pruns:
        return None
    z0, z1, q, _ = pruns[0]
    if q != z0 and len(head) == 2 and not _MARK.match(head[1]):
        if z0 == a + 1 and head[0] == " ":
            q = z0  # (the stretch may have a q further on: "!/" at its end)
        elif z0 == a and z1 == a + 1 and head[1] in "\r\n" and not _MARK.match(head[0]):
            q = z0  # one character, then a newline (below)
    if q < 0 or z0 > a + 1:
        return None
    return q, z1


def _slash_tail_cut(truns, a: int, b: int, z1: int = -1):
    r"""(cut_from, cut_to) deleting part of an o200k ``[\r\n/]`` stretch in piece ``[a, b)``,
    or None.

    Let ``T`` be a maximal stretch of ``\r``, ``\n`` and ``/``, ``f`` a ``/`` in it and
    ``g`` the first newline after ``f`` in ``T``.  The match covering ``f + 1`` is a
    punctuation match: one starting at ``f`` (a word needs a letter or mark after the lead
    ``/``) or one already running, the only kind that takes ``/``.  Its
    ``[^\s\p{L}\p{N}]+`` repetition takes ``/`` but stops at ``g``, and its tail
    ``[\r\n/]*`` then runs from ``g`` to the end of ``T`` without giving back (nothing
    follows it in the alternative).  So no boundary lies in ``(f + 1, end of T)``, and from
    ``g`` on the tail repetition steps the same way through it.  The cut starts ``_KEEP``
    after ``g``, not after ``f``: a cut across ``g`` deletes the newline that stops the
    first repetition, which then runs on past ``T`` into the punctuation after it
    (``"/" * 20 + "\n" * 69 + "/" * 49 + "'"``: the apostrophe joined the piece, a wrong
    count).  ``truns`` hold the record's stretches as ``[start, end, first / or -1, first
    newline after it or -1]``.  Why: ``"/\n" * n`` is one piece with only one-character
    runs.

    A ``T`` that starts at the end ``z1`` of a punctuation stretch that a punctuation match
    is known to run through (:func:`_punct_stretch`) starts with a newline, where that
    repetition stops: the tail takes all of ``T`` the same way, and the cut starts
    ``_KEEP`` after ``T``'s start (``"<" * n + "\n" * m + "/" * k``: ``T`` holds no newline
    after a ``/``)."""
    if not truns:
        return None
    k = bisect_right(truns, b - 1, key=lambda r: r[0]) - 1
    if k < 0:
        return None
    t0, t1, f, g = truns[k]
    if t0 == z1:
        g = t0
    elif f < a or g < 0:
        return None
    cut_from, cut_to = g + _KEEP, min(t1, b) - _KEEP
    return (cut_from, cut_to) if cut_to - cut_from >= _MIN_CUT else None


# run regex -> character -> the group of its class run (append_char)
_CHAR_GROUPS: dict = {}
# run regex -> group -> what _add_run asks of it (_group_flags)
_GROUP_FLAGS: dict = {}


def _group_flags(run_re) -> list:
    """Per group of ``run_re``: (in a lower-word stretch, its first group, in an upper-word
    stretch, its first group, non-mark punctuation, a mark, the catch-all group's characters
    that are punctuation ("" for other groups), o200k's slash-tail stretches kept)."""
    word_groups = _WORD_GROUPS.get(run_re, ())
    upper_groups = _UPPER_GROUPS.get(run_re, ())
    punct_groups, mark_groups, catch_chars = _PUNCT_GROUPS[run_re]
    catch_all = _CATCH_ALL[run_re]
    return [(g in word_groups, bool(word_groups) and g == word_groups[0], g in upper_groups,
             bool(upper_groups) and g == upper_groups[0], g in punct_groups, g in mark_groups,
             catch_chars if g == catch_all else "", run_re is _RUNS_O200K)
            for g in range(run_re.groups + 1)]


class _LongPiece:
    """A raw appendable over the UTF-8 of ``T[start:end]`` plus its class runs and stretches.

    ``runs``: run-length encoding of the classes, ``[group, a, b]``.  Stretches, each a
    list kept in O(changed) as the piece grows or shrinks at its end (o200k only unless
    noted): ``wruns`` lower-word stretches ``[a, b, first Ll or -1]``
    (:func:`_word_piece_cuts`), ``uruns`` upper-word stretches ``[a, b, first upper-case
    or -1, last Lm/Lo/mark or -1]`` (:func:`_upper_word_piece_cut`), ``pruns``
    punctuation stretches, both patterns (:func:`_punct_piece_cut`), ``truns`` ``[\\r\\n/]``
    stretches ``[a, b, first / or -1, first newline after it or -1]``
    (:func:`_slash_tail_cut`)."""

    __slots__ = ("start", "end", "ba", "runs", "lruns", "wruns", "uruns", "pruns", "truns")

    def __init__(self, bpe, start: int):
        self.start = start
        self.end = start
        self.ba = BytesAppendable(bpe)
        self.runs: list[list[int]] = []
        # the runs of at least _LONG_RUN characters (the same lists as in runs), in order:
        # the runs long_piece_cuts may cut, found without walking every run
        self.lruns: list[list[int]] = []
        self.wruns: list[list[int]] = []
        self.uruns: list[list[int]] = []
        self.pruns: list[list[int]] = []
        self.truns: list[list[int]] = []

    def copy(self):
        new = _LongPiece.__new__(_LongPiece)
        new.start, new.end = self.start, self.end
        new.ba = self.ba.copy()
        for name in ("runs", "wruns", "uruns", "pruns", "truns"):
            setattr(new, name, [list(r) for r in getattr(self, name)])
        new.lruns = [r for r in new.runs if r[2] - r[1] >= _LONG_RUN]
        return new

    def set_end(self, text: str, end: int, run_re, mergeable) -> None:
        if end < self.end:
            removed = text[end : self.end]
            self.ba.truncate(len(self.ba) - len(removed.encode("utf-8")))
            self._truncate(text, end, run_re)
            self.end = end
        if end > self.end:
            self.ba.append(text[self.end : end].encode("utf-8"))
            if run_re is not None:
                self._extend(text, end, run_re, mergeable)
            self.end = end

    def _truncate(self, text: str, end: int, run_re) -> None:
        runs = self.runs
        while runs and runs[-1][1] >= end:
            runs.pop()
        if runs and runs[-1][2] > end:
            runs[-1][2] = end
        lruns = self.lruns
        while lruns and (lruns[-1][1] >= end or lruns[-1][2] - lruns[-1][1] < _LONG_RUN):
            lruns.pop()
        uruns = self.uruns
        # whether the upper stretch left last loses its last Lm/Lo/mark (that stretch, not
        # the last one before the cut: "A\u0301" * n + "'LL" cut into the marks, the "LL"
        # stretch popped, left n's stretch without one, and so uncut, on every re-split)
        lost_w = False
        for stretches in (self.wruns, uruns, self.pruns, self.truns):
            while stretches and stretches[-1][0] >= end:
                stretches.pop()
            if stretches and stretches[-1][1] > end:
                # clip the last stretch; its positions (fields 2..) past the end are gone
                last = stretches[-1]
                if stretches is uruns and last[3] >= end:
                    lost_w = True
                last[1] = end
                for f in range(2, len(last)):
                    if last[f] >= end:
                        last[f] = -1
        pruns = self.pruns
        if pruns and pruns[-1][1] == end:
            last = pruns[-1]
            if last[2] == end - 1:
                last[2] = -1  # its pair of non-mark characters lost the second one
            if last[2] < 0:
                # Without a pair, every streak of non-mark characters in the stretch is one
                # character long (a second one sets q), so the trailing streak is the last
                # character when that is one.  (Left at -1, growing the same text again set the
                # streak's start a character late and never found the pair: "\u0301//" +
                # "\u0301!" * n cut between the slashes lost its q for good.)
                g = runs[-1][0] if runs else None
                punct_groups, _, catch_chars = _PUNCT_GROUPS[run_re]
                single = g in punct_groups or (g == _CATCH_ALL[run_re] and text[end - 1] in catch_chars)
                last[3] = end - 1 if single else -1
        if lost_w:
            # the last Lm/Lo/mark run of the stretch is one of its last two runs (upper-case
            # runs merge), so this loop takes at most two steps
            last = uruns[-1]
            w_groups = _UPPER_GROUPS[run_re][1:] if run_re in _UPPER_GROUPS else ()
            for g, ra, rb in reversed(runs):
                if rb <= last[0]:
                    break
                if g in w_groups:
                    last[3] = min(rb, end) - 1
                    break

    def append_char(self, ch: str, run_re, mergeable) -> None:
        """``set_end(text, self.end + 1)`` where the character added is ``ch`` (the
        one-character append of the text engine): the class run of ``ch`` is looked up, not
        matched, and the text is not sliced.  O(1) plus the raw append."""
        self.ba.append(ch.encode("utf-8"))
        if run_re is not None:
            groups = _CHAR_GROUPS.get(run_re)
            if groups is None:
                groups = _CHAR_GROUPS[run_re] = {}
            g = groups.get(ch)
            if g is None:
                g = run_re.match(ch).lastindex
                if len(groups) < 1 << 16:
                    groups[ch] = g
            self._add_run(g, self.end, self.end + 1, ch if g == _CATCH_ALL[run_re] else "", run_re, mergeable)
        self.end += 1

    def _extend(self, text: str, end: int, run_re, mergeable) -> None:
        base = self.end
        catch_all = _CATCH_ALL[run_re]
        add = self._add_run
        for m in run_re.finditer(text[base:end]):
            g = m.lastindex
            a, b = m.span()
            add(g, a + base, b + base, m.group()[0] if g == catch_all else "", run_re, mergeable)

    def _add_run(self, g: int, a: int, b: int, ch: str, run_re, mergeable) -> None:
        """Add the class run ``[a, b)`` of group ``g`` (``ch``: its first character when ``g``
        is the catch-all group, else "") at the end of the runs and stretches."""
        runs = self.runs
        if runs and runs[-1][2] == a and runs[-1][0] == g and g in mergeable:
            runs[-1][2] = b
        else:
            runs.append([g, a, b])
        r = runs[-1]
        if r[2] - r[1] >= _LONG_RUN and not (self.lruns and self.lruns[-1] is r):
            self.lruns.append(r)
        flags = _GROUP_FLAGS.get(run_re)
        if flags is None:
            flags = _GROUP_FLAGS[run_re] = _group_flags(run_re)
        in_word, word_first, in_upper, upper_first, in_punct, is_mark, catch_chars, slash_tail = flags[g]
        if in_word:
            wruns = self.wruns
            if not (wruns and wruns[-1][1] == a):
                wruns.append([a, a, -1])
            last = wruns[-1]
            last[1] = b
            if last[2] < 0 and word_first:
                last[2] = a
        if in_upper:
            uruns = self.uruns
            if not (uruns and uruns[-1][1] == a):
                uruns.append([a, a, -1, -1])
            last = uruns[-1]
            last[1] = b
            if upper_first:
                if last[2] < 0:
                    last[2] = a
            else:
                last[3] = b - 1
        if in_punct or is_mark or (ch and ch in catch_chars):
            pruns = self.pruns
            if not (pruns and pruns[-1][1] == a):
                pruns.append([a, a, -1, -1])
            last = pruns[-1]
            last[1] = b
            if is_mark:
                last[3] = -1
            elif last[2] < 0:
                # (the streak's start is needed only to find q: once q is known it is
                # not kept, so that a record cut and grown holds what one built at once does)
                if last[3] < 0:
                    last[3] = a
                if b - last[3] >= 2:
                    last[2], last[3] = last[3], -1
        if slash_tail and (g == 5 or ch == "/"):
            truns = self.truns
            if not (truns and truns[-1][1] == a):
                truns.append([a, a, -1, -1])
            last = truns[-1]
            last[1] = b
            if ch == "/":
                if last[2] < 0:
                    last[2] = a
            elif last[2] >= 0 and last[3] < 0:
                last[3] = a
