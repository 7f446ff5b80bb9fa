"""Token counts of any substring after one pass over the text.

Invariant (raw BPE, as the Rust crate's interval encoding): ``last[p]`` is the
last token of BPE's encoding of ``data[:p]`` (one table pass,
:class:`~bpe_stream.bpe.table.PrefixTable`); the parent of prefix ``p`` is ``p -
len(last[p])``, so the prefixes form a tree whose root-to-``p`` path is the
encoding of ``data[:p]`` and whose depth is its count.  ``tree_id``/``tree_end``
number the tree in pre-order, so "``p`` is an ancestor of ``j``" is ``tree_id[p]
<= tree_id[j] < tree_end[p]`` in O(1).  ``count(i, j)`` builds *some* encoding of
``data[i:p]`` whose adjacent pairs are all valid -- which is BPE's encoding of
``data[i:p]`` -- and stops at the first ``p`` that is an ancestor of ``j`` and
whose last token is the whole text's last token at ``p`` (same length, same end):
followed by the tree path from ``p`` to ``j`` (whose junction pair the whole text
uses, so it is valid) it is the encoding of ``data[i:j]``, and the count is
``tokens so far + depth[j] - depth[p]``.  First try: greedy leftmost-longest
tokens from one ``iter_long`` call, kept while each pair is valid (the
continuation masks settle ~85 % of pairs without unwinding); if a pair is
invalid, the prefix recurrence of the table encoder from ``i``.  Typically a few
tokens (O(1)); O(j - i) worst case when the encodings never re-synchronise
(e.g. some long runs of one repeated byte).
Memory: ``last`` stored as the token *length* (one byte) plus three 4-byte arrays:
13 bytes per input byte, plus the data (pure Python); the compiled index keeps the
lengths and the whole text's path as bits with ranks, 1.19 bytes per byte, and maps
characters to bytes by a sample every 64 characters (see :mod:`bpe_stream.bpe.intervals`).
Build: one table pass plus two linear loops.

Invariant (``Encoding``): whole-text piece starts ``starts`` with prefix sums
``cum`` of piece counts (4 bytes each per piece; about 2 bytes per character of
prose).  ``count(i, j)`` = (head: pieces of ``text[i:j]`` before the first one
that starts on a whole-text boundary ``b``) + ``cum`` from ``b`` to ``e`` + (tail:
the pieces of ``text[e:j]``), where ``e`` is a boundary up to which the split of
``text[:j]`` equals the whole text's:

* ``j`` is a whole-text boundary and ``text[j-1]`` is not whitespace: ``e = j``
  (every piece before ``j`` was decided reading at most ``j``, and the end of the
  text answers each of those reads like ``text[j]`` does: non-whitespace pieces
  stop at ``j`` for a character that is not in their class, whitespace runs end
  before ``j - 1``);
* ``j`` inside a word ``[s, t)`` past its first letter (see ``_word_end_ok``):
  ``e = s`` and the tail is the one piece ``text[s:j]``;
* otherwise the stability rule of :mod:`bpe_stream.text.appendable`: the last
  boundary ``e <= j - margin`` followed by a non-whitespace character before
  ``j``; the tail is split with the regex (memoized for short tails).

Head: ``i`` on a boundary gives nothing; ``i`` inside a word past its first
letter, or inside a whitespace-only piece, gives the one piece ``text[i:t]``
(a letter run is consumed to its end, a whitespace run is matched by the same
alternative from any position inside it); otherwise the regex runs from ``i``.
A piece longer than ``_LONG`` characters keeps a raw interval index (built
lazily; with the split for a piece of ``_EAGER_LONG`` characters or more, whose count
is then read from it: one table pass over the piece, not a count pass and a table
pass), so heads, tails and ranges inside one long word or whitespace run are
counted in O(1) too instead of O(length).  A range ending deep inside a long
whitespace run (which may span several whole-text pieces) is cut where the
piece before the run ends, and its whitespace part is counted as the two pieces
the patterns make of whitespace-only text (``_in_ws_run``).  Inside a run of one
repeated character the count is that of ``unit * k``, whose prefix counts are
eventually periodic (``_PeriodicRun``): O(1) after O(max_token_len) work.
A piece counted with plain BPE here (long, or inside such a run) of at most
``whole_max`` characters (the longest whole-piece token's bytes) counts 1 where it equals
a whole-piece token (tiktoken's rule), see ``_whole_or``.

With the compiled core, ``count`` first asks ``native_count`` (``_native/text_intervals.c``),
which follows the branches of ``_count_python`` for ends on piece boundaries, inside
words, punctuation pieces and short whitespace pieces, plus the cases argued there
(a word's letters after its lead, a digit piece, a punctuation piece's newline tail or
last character at the start; a digit piece, a piece's first whitespace character at
the end), and answers -1 for everything else; ``_count_python`` is the reference the
tests compare it with.
"""

from __future__ import annotations

import re
import sys
from array import array
from bisect import bisect_right
from itertools import accumulate, compress, islice
from operator import eq

from ..bpe.intervals import _BytesIntervals, _periodic_count
from .periodic_tokens import text_period
from ..bpe.native import bisect_right_array as bisect_array
from ..bpe.native import distinct_chars, text_query
from ..pretokenize.fast_split import (
    AP,
    LAST_LM_LO_MARK,
    LO,
    MARK,
    O200K_FIRST,
    OL,
    SL,
    UP,
    D,
    P,
    fast_split_for,
)
from ..pretokenize.patterns import CL100K_PATTERN, O200K_PATTERN
from ..pretokenize.stability import _hard_boundary_test, stable_margin
from ..pretokenize.unicode import compile_regex
from .piece_encoder import _CACHE_MAX_ENTRIES, _CACHEABLE_PIECE_LEN, whole_longer_than

_DIGITS = compile_regex(r"\p{N}{64,}")
_WS_RUN = compile_regex(r"\s{%d,}" % 64)  # \s as the patterns read it
_LETTER_OR_MARK = compile_regex(r"[\p{L}\p{M}]")
_LOWER = compile_regex(r"\p{Ll}")
_UPPER_WORD_CHAR = compile_regex(O200K_FIRST)  # a character of o200k's upper-word stretch
_NEWLINES = re.compile(r"[\r\n]+")


_LONG = 64  # pieces longer than this get a raw interval index
_EAGER_LONG = 1 << 16  # pieces this long get it with the split (see _split_counts)
_TAIL_MEMO = 1 << 16  # tail strings memoized (up to this many entries)
_TAIL_MEMO_LEN = 32


_RUN_WINDOW = 32  # a run of 64 or more characters holds an aligned window of this many


def _uniform_runs(text: str) -> list[tuple[int, int]]:
    """Spans of the maximal runs of one character at least 64 long (what ``(.)\\1{63,}``
    finds, left to right).

    Why not that pattern: it tries a match at every character (about 40 ns each), and the
    repeated group keeps backtracking state per character of a run.  A run of 64 holds a
    whole window ``[32 m, 32 m + 32)``, so only windows whose first and last characters are
    equal (compared for all windows at once over two strided slices) are looked at; a
    uniform one is widened to its run (back by at most 31 characters: the window before it
    was not uniform or lies in the run found before; forward with a one-character repeat,
    which keeps no state)."""
    out = []
    W = _RUN_WINDOW
    windows = len(text) // W
    covered = 0  # end of the last run found
    repeats: dict[str, re.Pattern] = {}  # character -> its one-character repeat

    def candidates(first: int):
        return compress(range(first, windows), map(eq, text[first * W : windows * W : W],
                                                    text[first * W + W - 1 : windows * W : W]))

    todo = candidates(0)
    while (m := next(todo, None)) is not None:
        k = m * W
        if k < covered:
            continue
        c = text[k]
        if text[k : k + W] != c * W:
            continue
        a = k
        while a > covered and text[a - 1] == c:
            a -= 1
        repeat = repeats.get(c)
        if repeat is None:
            repeat = repeats[c] = re.compile(re.escape(c) + "*")
        b = repeat.match(text, k + W).end()
        if b - a >= 64:
            out.append((a, b))
        covered = b
        if b - k > 64 * W:  # a long run: restart past it rather than step over its windows
            todo = candidates(-(-b // W))
    return out


def _char_offsets(text: str, data: bytes):
    """UTF-8 offset of every character boundary of ``text`` (``data`` its UTF-8), or None
    when the text is ASCII (offsets are the identity).  Without the compiled core only:
    its index maps characters to bytes itself (``IntervalIndex.byte_offset``, 4 bytes per
    64 characters instead of 4 per character)."""
    if len(data) == len(text):
        return None
    # (4 bytes an offset where they fit: a quarter of the input's bytes at most, for CJK)
    return array("I" if len(data) < 2**32 else "q", accumulate(map(len, map(str.encode, text)), initial=0))


class _CharIntervals:
    """Raw interval index over the UTF-8 of ``text``, queried by character offsets."""

    __slots__ = ("raw", "offs", "byte_offset")

    def __init__(self, bpe, text: str):
        data = text.encode("utf-8")
        self.raw = _BytesIntervals(bpe, data)
        self.offs = None  # character -> byte offsets (pure Python, non-ASCII text)
        self.byte_offset = None  # the same from the compiled index
        if len(data) != len(text):
            index = self.raw._index
            if index is not None:
                self.byte_offset = index.byte_offset
            else:
                self.offs = _char_offsets(text, data)

    def count(self, a: int, b: int) -> int:
        byte_offset = self.byte_offset
        if byte_offset is not None:
            return self.raw.count(byte_offset(a), byte_offset(b))
        offs = self.offs
        if offs is None:
            return self.raw.count(a, b)
        return self.raw.count(offs[a], offs[b])

    def memory_bytes(self) -> int:
        """The raw index (with its character samples), the UTF-8 it holds (encoded here, so
        the index's own) and the character offsets."""
        offs = self.offs
        return (self.raw.memory_bytes() + len(self.raw.data)
                + (0 if offs is None else offs.itemsize * len(offs)))


class _LongPiece(_CharIntervals):
    """Raw interval index over the UTF-8 of one long piece, queried by character offsets."""

    __slots__ = ()


_BLOCK_PATTERNS = frozenset([CL100K_PATTERN, O200K_PATTERN])
_BUILD_BLOCK = 1 << 18  # characters split at a time when building (see _split_in_blocks)
# A letter followed by a character that is no letter, mark or apostrophe: both bundled
# patterns end a piece there and no piece before it reads past it (rule 5 of
# chunk/counts.py), so the split of the text is the split of the text before it followed
# by the split of the text after it.
_BLOCK_END = compile_regex(r"\p{L}(?=[^\p{L}\p{M}'])")


_ALPHA_SKIP = 1 << 16  # characters tested at a time for being ASCII letters only


def _next_block_end(text: str, pos: int) -> int:
    """Where the block starting before ``pos`` may end: just after the first ``_BLOCK_END``
    letter at or after ``pos``, or ``len(text)``.

    Why the skip: inside one long word the search would run to the end of the text at
    about 60 ns a character.  A window of ASCII letters only holds no block end but at
    its last letter (a block end needs a character after it that is no letter), so whole
    windows are passed over with ``str.isalpha`` (ASCII only: there the regex module and
    ``str`` agree on what a letter is whatever their Unicode versions)."""
    n = len(text)
    w = pos
    while w < n:
        window = text[w : w + _ALPHA_SKIP]
        if not (window.isascii() and window.isalpha()):
            break
        w += len(window)
    m = _BLOCK_END.search(text, max(pos, w - 1))
    return n if m is None else m.start() + 1


def _split_in_blocks(text: str, code: str, counts_of):
    """Piece starts and prefix counts of ``text``, split a block at a time (blocks end where
    ``_BLOCK_END`` allows): the list of piece strings and the list of their counts then
    exist for one block only, not for the whole text (about 25 bytes per input byte on
    prose at their peak).  ``counts_of(block, pos, k0)`` gives the pieces of the block
    starting at ``pos`` with the text's piece ``k0``, and their counts."""
    n = len(text)
    starts = array(code, [0])
    cum = array("q", [0])
    pos = 0
    while pos < n:
        end = pos + _BUILD_BLOCK
        end = n if end >= n - _BUILD_BLOCK // 4 else _next_block_end(text, end)
        split, counts = counts_of(text[pos:end], pos, len(starts) - 1)
        starts.extend(islice(accumulate(map(len, split), initial=pos), 1, None))
        cum.extend(islice(accumulate(counts, initial=cum[-1]), 1, None))
        pos = end
    return starts, cum


class _TextIntervals:
    def __init__(self, enc, text: str):
        self.enc = enc
        self.text = text
        self.margin = stable_margin(enc.pretokenizer)
        self.cased = enc.pretokenizer is not None and enc.pretokenizer.letters == "cased"
        self.pattern = enc._pattern
        self.fast = fast_split_for(enc.pat_str)
        # piece index -> raw index: built on first use, or with the split for a piece of
        # _EAGER_LONG characters or more (see _split_counts)
        self.long: dict[int, _LongPiece] = {}
        code = "i" if len(text) < 2**31 - 1 else "q"
        # a piece counted here with plain BPE (a long one, or one inside a run of one
        # character) may be a whole-piece token if it has at most this many characters (0:
        # the vocabulary has none; see _whole_or)
        self.whole_max = whole_longer_than(enc, 0)
        if enc._scan_kind:
            # the bundled patterns' pieces tile the text: one split (fast on ASCII
            # stretches) and the counts through the count cache (compiled where built)
            self.uni = _uniform_runs(text)  # (read by _split_counts)
            if enc.pat_str in _BLOCK_PATTERNS and len(text) > 2 * _BUILD_BLOCK:
                starts, cum = _split_in_blocks(text, code, self._split_counts)
            else:
                split, counts = self._split_counts(text, 0, 0)
                starts = array(code, accumulate(map(len, split), initial=0))
                cum = array("q", accumulate(counts, initial=0))
            total = cum[-1]
        else:
            # any pattern: pieces may leave characters out, so their starts come from the spans
            pieces = enc._pieces
            starts = array(code)
            cum = [0]
            total = 0
            for m in self.pattern.finditer(text):
                a, b = m.span()
                starts.append(a)
                total += len(pieces[m.group()]) if b - a <= _LONG else self._long_count(m.group())
                cum.append(total)
            starts.append(len(text))
        self.starts = starts  # piece starts, then len(text); cum[k] = count before piece k
        self.cum = array("i", cum) if total < 2**31 - 1 else cum
        self.lower_at: dict[int, list] = {}  # o200k word piece index -> its Ll positions (lazily)
        self.memo: dict[str, int] = {}
        # long runs of one character, and long digit runs (see _uniform_count, _digits_from)
        if not enc._scan_kind:
            self.uni = _uniform_runs(text)
        self.digit_runs = [(m.start(), m.end()) for m in _DIGITS.finditer(text)]
        self.digit_sums: dict[int, array] = {}
        # long whitespace runs (see _in_ws_run): spans, their starts for bisect, and lazily
        # per run its newline positions and a raw index over its UTF-8
        self.ws_runs: list[tuple[int, int]] = []
        self.ws_run_starts: list[int] = []
        self.run_newlines: dict[int, array] = {}
        self.run_index: dict[int, _LongPiece] = {}
        self.run_heads: dict[int, int] = {}  # run -> end of the piece before it, see _run_head_end
        self._hard = None  # cuts' hard-boundary test, built on first use
        # characters of the text that continue a word (cl100k: letters; o200k: lower-case
        # letters) and whitespace characters, as sets for O(1) tests without calls
        self.wc: frozenset = frozenset()
        self.ws: frozenset = frozenset()
        self.pc: frozenset = frozenset()
        self.zn: frozenset = frozenset()
        self.lm: frozenset = frozenset()
        self.mk: frozenset = frozenset()
        self.dg: frozenset = frozenset()  # digits (\p{N}), for the compiled query
        if self.fast is not None:
            # (set(text) makes a str object per character: most of a CJK text's build)
            chars = set(text if distinct_chars is None else distinct_chars(text))
            self.wc = frozenset(ch for ch in chars if self.fast.char_class(ch) == LO)
            self.ws = frozenset(ch for ch in chars if self.fast.is_ws(ch))
            # punctuation that only ever sits in the main run of a punctuation piece
            self.pc = frozenset(ch for ch in chars if self.fast.char_class(ch) == P)
            # [^\s\p{L}\p{N}] characters that are not marks (o200k's words take marks),
            # and letters and marks
            self.zn = self.pc | (frozenset("'/") & chars)
            self.lm = frozenset(ch for ch in chars if _LETTER_OR_MARK.match(ch))
            self.mk = frozenset(ch for ch in self.lm if MARK.match(ch))
            self.dg = frozenset(ch for ch in chars if self.fast.char_class(ch) == D)
            self.ws_runs = [m.span() for m in _WS_RUN.finditer(text)]
            self.ws_run_starts = [a for a, _ in self.ws_runs]
        # the common queries in one compiled call (text_intervals.c), answering -1 for
        # the cases it leaves to count; None without the compiled core
        self.native_count = None
        if self.fast is not None and text_query is not None and enc.bpe._core is not None and \
                isinstance(self.cum, array):
            self.native_count = self._native_query().count

    def _native_query(self):
        """The compiled query over this index: the flags of the text's characters (bits in
        the order of text_intervals.c: wc, ws, pc, zn, lm, mk, Ll, Lm/Lo/M, N)."""
        flags: dict[str, int] = {}
        for bit, chars in enumerate((self.wc, self.ws, self.pc, self.zn, self.lm, self.mk)):
            for ch in chars:
                flags[ch] = flags.get(ch, 0) | (1 << bit)
        if self.fast.o200k:  # (only o200k's words read these)
            # o200k's classes: LO is \p{Ll}, OL is \p{Lm}/\p{Lo}, marks are in mk
            char_class = self.fast.char_class
            for ch in self.lm:
                cls = char_class(ch)
                if cls == LO:
                    flags[ch] |= 64
                elif cls == OL or ch in self.mk:
                    flags[ch] |= 128
        for ch in self.dg:
            flags[ch] = flags.get(ch, 0) | 256
        # a piece missing from the count cache is counted in C where the encoding's own
        # count would be (see PieceEncoder._piece_count_list)
        enc = self.enc
        counts = enc._piece_counts
        core = enc._compiled()
        if enc._whole or enc._merges_engine is not None:
            core = None
        ascii_flags = array("H", bytes(256))
        wide = sorted((ord(ch), f) for ch, f in flags.items() if ord(ch) >= 128)
        for ch, f in flags.items():
            if ord(ch) < 128:
                ascii_flags[ord(ch)] = f
        return text_query(
            self.text, self.starts, self.cum,
            array("q", self.ws_run_starts), array("q", [b for _, b in self.ws_runs]),
            ascii_flags, array("I", [c for c, _ in wide]), array("H", [f for _, f in wide]),
            counts, self.fast.o200k, bool(self.uni),
            core, counts.__getitem__, _CACHEABLE_PIECE_LEN, _CACHE_MAX_ENTRIES,
        )

    def _split_counts(self, text: str, pos: int, k0: int):
        """The pieces of ``text`` (the stretch of the whole text from ``pos``, starting with
        its piece ``k0``) and their counts.  A piece of ``_EAGER_LONG`` characters or more,
        unless it lies in a run of one character (counted from the run's period, see
        _piece_count), gets its raw index now and its count from it: one table pass over
        the piece instead of a count pass now and a table pass at the first query inside
        it, each about as slow as the other."""
        enc = self.enc
        split = enc._split(text)
        if not split or max(map(len, split)) < _EAGER_LONG:
            return split, enc._piece_count_list(split)
        counts = []
        short: list[str] = []  # the pieces between two long ones, counted in one call
        a = pos
        for x, piece in enumerate(split):
            b = a + len(piece)
            if len(piece) >= _EAGER_LONG and not self._in_uniform_run(a, b):
                counts += enc._piece_count_list(short)
                short = []
                lp = self.long[k0 + x] = _LongPiece(enc.bpe, piece)
                counts.append(lp.count(0, len(piece)))
            else:
                short.append(piece)
            a = b
        counts += enc._piece_count_list(short)
        return split, counts

    def _in_uniform_run(self, a: int, b: int) -> bool:
        uni = self.uni
        x = bisect_right(uni, (a, len(self.text) + 1)) - 1
        return x >= 0 and b <= uni[x][1]

    def memory_bytes(self) -> int:
        return self.starts.itemsize * len(self.starts) + self.cum.itemsize * len(self.cum) + sum(
            lp.memory_bytes() for lp in (*self.long.values(), *self.run_index.values())
        ) + self._class_bytes()

    def _class_bytes(self) -> int:
        """The character classes: the sets, the characters they hold (a character past
        Latin-1 is an object of its own, about 76 bytes; text of many distinct characters,
        such as CJK, keeps tens of thousands), and the compiled query's table of them
        (6 bytes a slot, at most half full)."""
        sets = (self.wc, self.ws, self.pc, self.zn, self.lm, self.mk, self.dg)
        chars = frozenset().union(*sets)
        size = sum(map(sys.getsizeof, sets)) + sum(sys.getsizeof(ch) for ch in chars if ord(ch) > 255)
        if self.native_count is not None:
            wide = sum(ord(ch) >= 128 for ch in chars)
            slots = 4
            while slots < 2 * wide:
                slots <<= 1
            size += 6 * slots
        return size

    # ------------------------------------------------------------ helpers
    def _whole_or(self, a: int, b: int, c: int) -> int:
        """Count ``c`` of the piece ``text[a:b]`` by plain BPE, or 1 where the piece is
        a whole-piece token (tiktoken's rule; only pieces up to ``whole_max`` can be)."""
        if b - a <= self.whole_max and self.text[a:b].encode("utf-8") in self.enc._whole:
            return 1
        return c

    def _long_count(self, piece: str) -> int:
        """Count of the long piece ``piece`` (not through the piece cache)."""
        if len(piece) <= self.whole_max:
            return len(self.enc._encode_piece(piece))
        # ---- a periodic piece (text/periodic_tokens.py): the raw count of its unit repeated,
        # from the unit's verified period (_PeriodicRun) after one comparison pass, not a count pass
        p = text_period(piece)
        if p:
            unit = piece[:p].encode("utf-8")
            q, r = divmod(len(piece), p)
            return _periodic_count(self.enc.bpe, unit, q * len(unit) + len(piece[:r].encode("utf-8")))
        # ---- end of periodic pieces
        return self.enc.bpe.count(piece.encode("utf-8"))

    def _piece_count(self, k: int, a: int, b: int) -> int:
        """Count of ``text[a:b]`` as *one* piece, where [a, b) lies inside whole-text piece k."""
        if b - a <= _LONG:
            return len(self.enc._pieces[self.text[a:b]])
        if b - a <= self.whole_max and self.text[a:b].encode("utf-8") in self.enc._whole:
            return 1
        uni = self.uni
        if uni:  # inside a run of one character c: the raw count of c * (b - a), no index needed
            x = bisect_right(uni, (a, len(self.text) + 1)) - 1
            if x >= 0 and b <= uni[x][1]:
                unit = self.text[a].encode("utf-8")
                return _periodic_count(self.enc.bpe, unit, len(unit) * (b - a))
        return self._long_piece(k).count(a - self.starts[k], b - self.starts[k])

    def _long_piece(self, k: int) -> "_LongPiece":
        lp = self.long.get(k)
        if lp is None:
            s = self.starts[k]
            lp = self.long[k] = _LongPiece(self.enc.bpe, self.text[s : self.starts[k + 1]])
        return lp

    def _count_direct(self, i: int, j: int) -> int:
        pieces = self.enc._pieces
        c = 0
        for m in self.pattern.finditer(self.text, i, j):
            a, b = m.span()
            c += len(pieces[m.group()]) if b - a <= _LONG else self._long_piece_count(a, b)
        return c

    def _long_piece_count(self, a: int, b: int) -> int:
        """Count of the long piece ``text[a:b]`` that a query's re-split finds (the hook
        :class:`~bpe_stream.text.descent.DescentIntervals` overrides to share tables)."""
        return self._long_count(self.text[a:b])

    def _is_word(self, s: int, t: int) -> bool:
        """Whole-text piece [s, t) is a word (letters after an optional prefix) without apostrophe."""
        text = self.text
        if text[s] == "'":
            return False
        if self.fast.o200k and "'" in text[max(s, t - 3) : t]:
            return False
        return True

    def _punct_piece(self, s: int, t: int) -> bool:
        r"""Whole-text piece [s, t) is a punctuation piece.  Led by a space: the next
        character is a non-mark ``[^\s\p{L}\p{N}]`` one (a word would need a letter or mark
        right after its one-character lead, here the space).  Else: it starts with such a
        character followed by one that is no letter or mark (a word has a letter, or for
        o200k a mark, right after its lead; a contraction a letter after its apostrophe),
        or is that one character alone.  Every prefix of it is one piece."""
        text = self.text
        zn = self.zn
        if text[s] == " ":
            return t - s >= 2 and text[s + 1] in zn
        return text[s] in zn and (t - s == 1 or text[s + 1] not in self.lm)

    def _punct_suffix_ends(self, i: int, t: int) -> bool:
        r"""For :meth:`_punct_from` text: the match from ``i`` also ends at the piece end ``t``.
        Only an o200k "/" may start in the piece's ``[\r\n/]*`` tail, where the run
        ``[^\s\p{L}\p{N}]+`` of a match from it would go on into punctuation after ``t``."""
        text = self.text
        if text[i] != "/" or t == len(text):
            return True
        nxt = text[t]
        return nxt not in self.zn and nxt not in self.mk

    def _punct_from(self, i: int, j: int) -> bool:
        r"""``text[i:j]``, inside a whole-text piece that it does not start, is matched whole
        by the punctuation alternative: ``text[i]`` is a non-mark ``[^\s\p{L}\p{N}]``
        character and the next one no letter or mark (see :meth:`_punct_piece`).  Inside a
        word piece this only holds for a lone apostrophe (its contraction letter follows)."""
        text = self.text
        return text[i] in self.zn and (j - i < 2 or text[i + 1] not in self.lm)

    def _all_ws(self, s: int, t: int) -> bool:
        # first, second and last characters whitespace => whitespace only (see pretokenize/fast_split.py)
        text = self.text
        ws = self.ws
        return text[s] in ws and text[t - 1] in ws and (t - s == 1 or text[s + 1] in ws)

    # ------------------------------------------------------------ count
    def count(self, i: int, j: int) -> int:
        native_count = self.native_count
        if native_count is not None:
            c = native_count(i, j)
            if c >= 0:
                return c
        return self._count_python(i, j)

    def _count_python(self, i: int, j: int) -> int:
        """The reference query (the compiled ``native_count`` answers its common cases)."""
        if i == j:
            return 0
        text = self.text
        starts = self.starts
        cum = self.cum
        fast = self.fast
        wc = self.wc
        ki = bisect_array(starts, i) - 1
        kj = bisect_array(starts, j - 1) - 1
        s_i = starts[ki]
        if ki == kj and fast is not None:
            c = self._within(ki, i, j)
            if c is not None:
                return c
        if self.ws_runs and text[j - 1] in self.ws:
            c = self._in_ws_run(i, j)
            if c is not None:
                return c
        # ---- end side: boundary index ke with text[:j] split like the whole text up to starts[ke]
        s_j = starts[kj]
        t_j = starts[kj + 1]
        if fast is not None and j == t_j and text[j - 1] not in self.ws:
            ke = kj + 1
            tailc = 0
        elif text[j - 1] in wc and self._is_word(s_j, t_j):
            ke = kj
            tailc = self._piece_count(kj, s_j, j)
        elif fast is not None and fast.o200k and text[j - 1] in self.lm and self._o200k_word(s_j, t_j):
            ke = kj  # a prefix of an o200k word: see _o200k_word_count
            tailc = self._o200k_word_count(kj, s_j, j)
        elif text[j - 1] in self.pc and text[s_j] != "'":
            ke = kj  # a prefix of a punctuation piece ending in its punctuation run: one piece
            tailc = self._piece_count(kj, s_j, j)
        elif fast is not None and (text[s_j] != " " or j - s_j >= 2) and self._punct_piece(s_j, t_j):
            # the punctuation alternative is decided by the piece's first two characters, so
            # any prefix of the piece is one piece (apostrophes and marks in its run, an o200k
            # "/" or newlines in its tail); the prefix must hold more than the leading space,
            # else a whitespace piece before it would run on into that space
            ke = kj
            tailc = self._piece_count(kj, s_j, j)
        elif fast is not None and self._all_ws(s_j, t_j) and (kj == 0 or not self._all_ws(starts[kj - 1], s_j)):
            ke = kj  # text[:j] ends with whitespace starting at a piece that follows a non-whitespace one
            tailc = self._ws_count(kj, s_j, j)
        else:
            ke, tailc = self._end_stable(j)
            if ke < 0:
                return self._count_direct(i, j)
        # ---- start side
        if s_i == i:
            return cum[ke] - cum[ki] + tailc if ki <= ke else self._count_direct(i, j)
        e = starts[ke]
        t_i = starts[ki + 1]
        if t_i <= e and (
            (text[i] in wc and text[i - 1] in wc and self._is_word(s_i, t_i))
            or (fast is not None and fast.o200k and self._o200k_word_suffix(ki, i))
            or (t_i - i >= 2 and self._punct_from(i, t_i) and self._punct_suffix_ends(i, t_i))
            or (fast is not None and self._all_ws(s_i, t_i))
        ):
            return self._piece_count(ki, i, t_i) + cum[ke] - cum[ki + 1] + tailc
        if self.digit_runs and fast is not None:
            d = self._digits_from(i, j)
            if d is not None:  # groups of three from i up to the end r of the run, then text[r:j]
                c, r = d
                return c if r == j else c + self.count(r, j)
        pieces = self.enc._pieces
        c = 0
        for m in self.pattern.finditer(text, i, j):
            a, b = m.span()
            if a > e:
                break
            k = bisect_array(starts, a) - 1
            if starts[k] == a and a > i:
                return c + cum[ke] - cum[k] + tailc
            c += len(pieces[m.group()]) if b - a <= _LONG else self._long_count(m.group())
        return self._count_direct(i, j)

    def _end_stable(self, j: int):
        """(ke, count of text[starts[ke]:j]) by the stability rule; ke = -1 if none."""
        text = self.text
        starts = self.starts
        fast = self.fast
        # nw: index of the last non-whitespace character before j (-1 if none)
        nw = j - 1
        if fast is None:
            while nw >= 0 and text[nw].isspace():
                nw -= 1
            lo = 0
        else:
            lo = max(0, j - 64)
            ws = self.ws
            while nw >= lo and text[nw] in ws:
                nw -= 1
        if nw < lo and lo > 0:
            # a long whitespace run: step back over whole pieces (a run is covered by few of them)
            k = bisect_array(starts, nw) - 1
            while k > 0 and (self._all_ws(starts[k], starts[k + 1]) or text[starts[k]] in self.ws):
                k -= 1
            nw = starts[k]
        limit = min(j - self.margin, nw)
        if fast is None and self.cased:
            # a word's first part reads the trailing upper-word stretch to its end (the rule
            # of pretokenize.stability.stable_limit)
            u = j
            while u > 0 and _UPPER_WORD_CHAR.match(text, u - 1):
                u -= 1
            limit = min(limit, u)
        ke = bisect_array(starts, limit) - 1
        if ke < 0 or limit < 0:
            return -1, 0
        e = starts[ke]
        if j - e <= _TAIL_MEMO_LEN:
            key = text[e:j]
            c = self.memo.get(key)
            if c is None:
                c = self._count_direct(e, j)
                if len(self.memo) >= _TAIL_MEMO:
                    self.memo.clear()
                self.memo[key] = c
            return ke, c
        return ke, self._count_direct(e, j)

    def _within(self, k: int, i: int, j: int):
        """Count of text[i:j] inside whole-text piece k by its structure, or None."""
        text = self.text
        s, t = self.starts[k], self.starts[k + 1]
        if i == s and j == t:
            return self.cum[k + 1] - self.cum[k]
        if j - i == 1:
            return len(self.enc._pieces[text[i]])
        wc = self.wc.__contains__
        if (
            self._is_word(s, t)
            and wc(text[t - 1])
            and (i == s or (wc(text[i]) and wc(text[i - 1])))
            and (j == t or wc(text[j - 1]))
        ):
            return self._piece_count(k, i, j)
        if self._all_ws(s, t):
            return self._ws_count(k, i, j)
        lm = self.lm
        if self.fast.o200k and text[j - 1] in lm and (i == s or text[i] in lm) and self._o200k_word(s, t):
            return self._o200k_word_count(k, i, j)
        if self._punct_from(i, j) if i > s else self._punct_piece(s, t):
            return self._piece_count(k, i, j)  # optional space + punctuation run: one piece
        return self._uniform_count(i, j)

    def _o200k_word(self, s: int, t: int) -> bool:
        """o200k whole-text piece [s, t), known to hold a letter or mark, is a word without
        apostrophe: not a punctuation piece (whose run takes marks too)."""
        return self._is_word(s, t) and not self._punct_piece(s, t)

    def _o200k_word_suffix(self, k: int, i: int) -> bool:
        """``text[i:t]`` (``t`` the end of o200k word piece ``k``, ``i`` inside it after a
        letter or mark) is one piece in ``text[i:]``, ending at ``t``: when it holds a
        lower-case letter, or the word holds none (the repetitions run as in the whole
        word and end where it does).  Without one but with one in the word, the suffix is
        part of the second repetition, all ``Lm``/``Lo``/marks, and a first repetition
        started at ``i`` could run on into upper-case letters after ``t``."""
        text = self.text
        s, t = self.starts[k], self.starts[k + 1]
        lm = self.lm
        if not (text[i] in lm and text[i - 1] in lm and self._o200k_word(s, t)):
            return False
        lows = self._lower_positions(k)
        return not lows or lows[-1] >= i

    def _lower_positions(self, k: int) -> list:
        """Positions of the lower-case letters of piece ``k`` (built once per piece)."""
        lows = self.lower_at.get(k)
        if lows is None:
            lows = self.lower_at[k] = [m.start() for m in _LOWER.finditer(self.text, self.starts[k], self.starts[k + 1])]
        return lows

    def _o200k_word_count(self, k: int, a: int, b: int) -> int:
        r"""Count of ``text[a:b]`` alone, inside o200k word piece ``k`` (letters and marks after
        an optional lead, no apostrophe), ending with a letter or mark.

        With a lower-case letter in it, it is one piece: the first repetition
        ``[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*`` runs to the first one and the second
        ``[\p{Ll}\p{Lm}\p{Lo}\p{M}]+`` from there to ``b`` (inside the whole word's second
        part, which holds no upper-case letter).  Without one, the first repetition runs to
        ``b`` and gives back up to the last ``Lm``/``Lo``/mark ``w``: ``text[a:w + 1]`` is one
        piece and the upper-case letters after ``w`` another (no such character: one piece).
        Why: a long word such as ``"A中" * n`` made every query ending inside it re-split and
        re-encode its prefix (the chunker's cuts were quadratic there)."""
        lows = self._lower_positions(k)
        x = bisect_right(lows, a - 1)
        if x < len(lows) and lows[x] < b:
            return self._piece_count(k, a, b)
        m = LAST_LM_LO_MARK.search(self.text, a, b)
        if m is None or m.end() == b:
            return self._piece_count(k, a, b)
        w1 = m.end()
        return self._piece_count(k, a, w1) + self._piece_count(k, w1, b)

    def _uniform_count(self, i: int, j: int):
        """text[i:j] inside a long run of one non-digit character c is one piece (a run of
        letters, of punctuation or of whitespace is matched whole): raw count of c * (j - i)."""
        uni = self.uni
        if not uni:
            return None
        x = bisect_right(uni, (i, len(self.text) + 1)) - 1
        if x < 0 or j > uni[x][1]:
            return None

        c = self.text[i]
        if self.fast.char_class(c) in (D, None):
            return None
        unit = c.encode("utf-8")
        count = _periodic_count(self.enc.bpe, unit, len(unit) * (j - i))
        return self._whole_or(i, j, count)

    def _digits_from(self, i: int, j: int):
        """(count, r) for i inside a long digit run [rs, r): the digits of text[i:min(j, r)]
        split in groups of three from i; O(1) after an O(run) table per run."""
        runs = self.digit_runs
        x = bisect_right(runs, (i, len(self.text) + 1)) - 1
        if x < 0 or not runs[x][0] < i < runs[x][1]:
            return None
        rs, r = runs[x]
        sums = self.digit_sums.get(rs)
        if sums is None:
            # sums[p - rs] = count of the groups of three from p to r
            pieces = self.enc._pieces
            text = self.text
            vals = [0] * (r - rs + 3)
            for p in range(r - 1, rs - 1, -1):
                vals[p - rs] = len(pieces[text[p : min(p + 3, r)]]) + vals[p - rs + 3]
            sums = self.digit_sums[rs] = array("q", vals)
        if j >= r:
            return sums[i - rs], r
        q = i + 3 * ((j - i) // 3)
        c = sums[i - rs] - sums[q - rs]
        if q < j:
            c += len(self.enc._pieces[self.text[q:j]])
        return c, j

    def _in_ws_run(self, i: int, j: int):
        """Count of ``text[i:j]`` when ``j`` lies deep inside a long whitespace run, or None.

        Why: otherwise the end side would fall back to re-splitting from the run's start,
        O(run) per query (quadratic for ``truncate_start`` on ``"\\n \\n " * N``).

        Whitespace-only ``w`` is one piece for cl100k (``\\s++$``); o200k splits it into
        ``w[:q]`` (``\\s*[\\r\\n]+`` reaches its last newline) and ``w[q:]`` (``\\s+(?!\\S)``
        at the end of the text), ``q`` just after its last newline: two raw counts.  For ``i`` before the run
        ``[rs, re)``, the piece holding ``c = text[rs-1]`` ends at a point ``p`` that does not
        depend on ``i``: ``rs`` when ``c`` is a letter or a digit (their runs stop at
        whitespace), ``rs`` plus the newlines right after it when ``c`` is punctuation
        (`` ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*``); the patterns have no look-behind, so
        ``count(i, j) = count(i, p) + count(p, j)`` with the second part whitespace-only.
        """
        x = bisect_right(self.ws_run_starts, j - 1) - 1
        if x < 0:
            return None
        rs, re_ = self.ws_runs[x]
        if j > re_ or j - rs <= _LONG:
            return None
        if i >= rs:
            return self._ws_only(x, i, j)
        p = self.run_heads.get(x)
        if p is None:
            p = self.run_heads[x] = self._run_head_end(rs, re_)
        if p < 0:
            return None
        if p == rs:
            return self.count(i, p) + self._ws_only(x, p, j)
        # p ends the whole-text punctuation piece k holding text[rs-1] and its newlines
        k = bisect_array(self.starts, rs - 1) - 1
        if p >= j:
            return self._into_punct_piece(i, k, j)  # text[i:j] ends inside that piece
        head = self._into_punct_piece(i, k, p)
        return None if head is None else head + self._ws_only(x, p, j)

    def _run_head_end(self, rs: int, re_: int) -> int:
        """Where the piece holding ``text[rs-1]`` ends in the split of any ``text[i:j]`` with
        ``i < rs < j`` (see :meth:`_in_ws_run`), or -1 if that is not settled."""
        if rs == 0:
            return -1
        cls = self.fast.char_class(self.text[rs - 1])
        if cls in (LO, UP, OL, D):
            return rs
        if cls in (P, AP, SL):
            # the punctuation piece takes the newlines right after it (o200k: and a "/"
            # after the run, but then p == re_ >= j and only [s, j) of that piece is used)
            m = _NEWLINES.match(self.text, rs, re_)
            return m.end() if m else rs
        return -1

    def _into_punct_piece(self, i: int, k: int, j: int):
        """count(i, j) for ``j`` inside (or at the end of) punctuation piece ``k`` [s, t), past
        its punctuation: ``text[max(i, s):j]`` is one piece (the run from ``i`` and the
        newlines up to ``j``).  None if not settled in O(1)."""
        starts = self.starts
        s, t = starts[k], starts[k + 1]
        if i == s:
            return self.cum[k + 1] - self.cum[k] if j == t else self._piece_count(k, s, j)
        if i > s:
            if self._punct_from(i, j):
                return self._piece_count(k, i, j)  # the rest of the punctuation run: one piece
            return None

        hard = self._hard
        if hard is None:
            hard = self._hard = _hard_boundary_test(self.fast)
        if hard(self.text[s - 1], self.text[s]):  # every split of text[i:j] has a boundary at s
            return self.count(i, s) + (self.cum[k + 1] - self.cum[k] if j == t else self._piece_count(k, s, j))
        return None

    def _ws_only(self, x: int, a: int, b: int) -> int:
        """Count of the whitespace-only ``text[a:b]`` inside long run ``x``: cl100k matches
        it whole (``\\s++$`` comes first); o200k splits it after its last newline, each part
        one piece (see :meth:`_in_ws_run`)."""
        if not self.fast.o200k:
            return self._run_piece(x, a, b)
        rs, re_ = self.ws_runs[x]
        nl = self.run_newlines.get(x)
        if nl is None:
            text = self.text
            nl = self.run_newlines[x] = array(
                "q", (m for m in range(rs, re_) if text[m] in "\r\n")
            )
        y = bisect_right(nl, b - 1) - 1
        q = nl[y] + 1 if y >= 0 and nl[y] >= a else a
        c = 0
        if q > a:
            c += self._run_piece(x, a, q)
        if b > q:
            c += self._run_piece(x, q, b)
        return c

    def _run_piece(self, x: int, a: int, b: int) -> int:
        """Count of ``text[a:b]`` (inside long whitespace run ``x``) as one piece.

        Up to the piece cache's length limit through the cache: whitespace pieces repeat
        (indentation, blank lines), and a raw interval query inside a run of spaces can
        cost a table pass over the range (tens of automaton matches per byte)."""
        if b - a <= _CACHEABLE_PIECE_LEN:
            return len(self.enc._pieces[self.text[a:b]])
        c = self._uniform_count(a, b)
        if c is not None:
            return c
        lp = self.run_index.get(x)
        rs, re_ = self.ws_runs[x]
        if lp is None:
            lp = self.run_index[x] = _LongPiece(self.enc.bpe, self.text[rs:re_])
        return self._whole_or(a, b, lp.count(a - rs, b - rs))

    def _ws_count(self, k: int, i: int, j: int) -> int:
        """Count of the whitespace-only text[i:j] (inside whole-text piece k) on its own."""
        if not self.fast.o200k:
            return self._piece_count(k, i, j)  # cl100k: any whitespace-only text is one piece
        # o200k: split after the last newline (\s*[\r\n]+, then \s+(?!\S) / \s+)
        s, t = self.starts[k], self.starts[k + 1]
        if t - s > _LONG:
            # a long whitespace piece lies inside a long whitespace run: counted there
            return self._ws_only(bisect_right(self.ws_run_starts, s) - 1, i, j)
        text = self.text
        q = max(text.rfind("\n", i, j), text.rfind("\r", i, j)) + 1
        if q <= i or q == j:
            return self._piece_count(k, i, j)
        return self._piece_count(k, i, q) + self._piece_count(k, q, j)


class _NoSplitText:
    """No pre-split: raw intervals over UTF-8, queried by character offsets."""

    def __init__(self, enc, text: str):
        self.chars = _CharIntervals(enc.bpe, text)
        # the range is the one piece: a whole-piece token where it equals one (0: none)
        self.whole_max = whole_longer_than(enc, 0)
        self.enc = enc
        self.text = text

    def memory_bytes(self) -> int:
        # (the UTF-8 copy is the index's own: the text is the caller's)
        return self.chars.memory_bytes()

    def count(self, i, j):
        if 0 < j - i <= self.whole_max and self.text[i:j].encode("utf-8") in self.enc._whole:
            return 1
        return self.chars.count(i, j)


def text_intervals(enc, text: str):
    """The interval index of ``text`` (surrogates already fixed, see
    :func:`~bpe_stream.text.input.fix_surrogates`): ``count(i, j) == enc.count(text[i:j])``."""
    if enc.pat_str is None:
        return _NoSplitText(enc, text)
    return _TextIntervals(enc, text)
