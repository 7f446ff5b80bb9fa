"""Exact token counts of a growing ``str`` under tiktoken's pre-split.

Invariant: ``token_count == enc.count(text)`` after every ``append`` and
``truncate``.  The text's pieces (the regex split of the *whole* text) are kept as
two parts: a list of **stable** pieces ``[0, S)`` with cumulative token counts,
which no later append can change, and a short **tail** ``[S, len)`` that is
re-split after every change.  Complexity: O(appended + tail) per append, where the
tail is a few pieces; long pieces in the tail are compressed (below), so a piece
that grows to megabytes costs O(appended) per append, not O(piece).

Why the stable pieces cannot change (bundled cl100k/o200k patterns).  A regex
match at piece start ``s`` is a function of the characters the engine reads; if
it never reads position ``len(T)`` (nor tests ``\\Z`` there), appending cannot
change it, and findall's next match starts at the same place.  For both
patterns, a piece ``[s, e)`` is decided by reading at most ``e + 3`` characters
(letters/punctuation/newline runs read one past their end, the optional
contraction ``'ll``/``'re`` after an o200k word reads three, digit groups read at
most one past), except for whitespace pieces, which read to the end ``w`` of
their maximal whitespace stretch (``\\s*[\\r\\n]`` backtracks to the last newline,
``\\s+(?!\\S)`` to ``w - 1``, ``\\s++$`` tests the end), and o200k word pieces
whose first part ``[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*`` ran to the end of its
maximal stretch of these "upper-word" characters and gave back the upper-case
letters after the last ``Lm``/``Lo``/mark (``"AAʰ" + "AA"``: one more ``ʰ`` or
``a`` joins them).  Hence a piece is stable when ``e <= len - 4``, ``e <=`` the
start of the trailing whitespace stretch (a piece ending there read one
character past it at most) and, for o200k, ``e <=`` the start of the trailing
upper-word stretch (likewise).  For custom patterns
the same rule is used with a margin of ``_CUSTOM_MARGIN`` characters; this is an
assumption (documented), not a proof.

Long pieces in the tail are compressed by :mod:`bpe_stream.pretokenize.long_pieces` (which
states and proves where the middle of a long piece can be deleted): re-splits run
on a *proxy* of the tail with those middles cut out, so their cost does not grow
with the piece.

Counting: short pieces use the encoding's piece cache; a piece longer than
``_LONG`` characters keeps a raw :class:`~bpe_stream.bpe.appendable.BytesAppendable`
(and the run-length encoding of its classes) keyed by its start, which follows
the piece as it grows or shrinks (``"    " + "x"`` gives one space back).  These
records are kept for stable long pieces too, so that truncating back into a long
piece costs O(removed).  Invariant of ``records``: its keys are the starts of the
current pieces longer than ``_LONG`` and each record ends where its piece ends (kept
by ``_settle`` on every re-split), so a truncation reaches the records it cuts
through the pieces it removes, not by walking every record.  A record whose piece
goes, or changes by more than ``_LONG`` characters, is kept in ``alts`` (by start,
within a 2n budget, cut rather than dropped by truncations) for when the piece comes
back: an edit and its undo then swap records instead of re-adding the part in Python
(an all-whitespace text is one piece, ``\\s++$``, that a non-space splits).

Whole-piece tokens (tiktoken's rule: a piece equal to a token is that token, though BPE
may not build it): a long piece of at most ``whole_max`` characters (the longest such
token's bytes, 0 when none is longer than ``_LONG``) counts 1 when it equals one, else
its record's count; vocabularies without them pay one comparison.

One character at a time (the common streaming case), the bundled patterns and the
other members of the family, whose transitions are derived from their choices
(:func:`~bpe_stream.pretokenize.fast_split.fast_split_for_member`): the
regex is not called.  The character's class and the *kind* of the last piece
select a transition of :mod:`bpe_stream.pretokenize.fast_split` (extend the last piece,
start a new one, or merge the last two), proven there and checked exhaustively
by the tests; cost O(1): two dict lookups, then one piece-cache lookup for a short last
piece (a short piece that misses the cache twice -- text that does not repeat its
pieces -- is counted by a raw appendable grown by the character, ``_short_count``), or
one step of a long piece's record (the character's bytes and its class run, no slice
and no regex).  Anything else (apostrophes, o200k marks after digits, newlines or
marks, a whitespace run ending, multi-character appends) re-splits the tail as above
and the kind is recomputed in O(1) on the next single-character append.

``tokens()`` is incremental: tokens of stable pieces are computed once and kept
(``tok`` holds those of the first ``tok_pieces`` stable pieces; truncation cuts it
at ``stable_cum[k]``); only the tail is encoded per call (plus the O(tokens) copy
of the returned list).

Surrogates: like tiktoken on the whole text, a pair split across two appends is
joined (``append("\\ud83d"); append("\\ude00")`` counts like ``"😀"``): a lone
high surrogate ending an append is kept as U+FFFD (what ``enc.count`` sees for the
text so far) and replaced by the joined character when the next append starts
with a low surrogate.  Lengths and ``truncate`` count characters of this fixed
text.

"""

from __future__ import annotations

from bisect import bisect_right
from itertools import chain

from ..bpe.appendable import BytesAppendable
from ..bpe.checks import _check_len
from ..pretokenize.fast_split import (
    EXTEND,
    K_NONE,
    MARK_TABLE,
    NEW,
    O200K_FIRST,
    OL,
    UP,
    WS_CLASSES,
    fast_split_for,
    fast_split_for_member,
)
from ..pretokenize.long_pieces import (
    _COMPRESSIBLE,
    _WS_GROUPS,
    _LongPiece,
    long_piece_cuts,
    run_regex_for,
)
from ..pretokenize.stability import stable_margin
from ..pretokenize.unicode import compile_regex
from .input import fix_surrogates
from .piece_encoder import whole_longer_than
from .records import DistanceRecords

__all__ = ["TextAppendable"]

_LONG = 64  # pieces longer than this are counted with a raw appendable record
_MARK = compile_regex(r"\p{M}")
_NL_SEEN = 8  # pieces whose newline search _holds_newline remembers


_SPLIT_CACHE_SIZE = 100_000

_WS_TAIL = compile_regex(r"\s*\Z")
_UPPER_WORD = O200K_FIRST
_UPPER_TAIL = compile_regex(_UPPER_WORD + r"*\Z")
_NOT_UPPER = compile_regex(r"[^" + _UPPER_WORD[1:])


_BLOCK = 2048


class _Rope:
    """A str in blocks of at most ``_BLOCK`` characters: O(len(s) + _BLOCK) append, O(range) slice."""

    __slots__ = ("blocks", "n")

    def __init__(self, s: str = ""):
        self.blocks = [s[i : i + _BLOCK] for i in range(0, len(s), _BLOCK)] or [""]
        self.n = len(s)

    def copy(self):
        new = _Rope.__new__(_Rope)
        new.blocks = list(self.blocks)
        new.n = self.n
        return new

    def __len__(self) -> int:
        return self.n

    def append(self, s: str) -> None:
        blocks = self.blocks
        last = blocks[-1]
        room = _BLOCK - len(last)
        if len(s) <= room:
            blocks[-1] = last + s
        else:
            blocks[-1] = last + s[:room]
            blocks.extend(s[i : i + _BLOCK] for i in range(room, len(s), _BLOCK))
        self.n += len(s)

    def __getitem__(self, sl) -> str:
        if type(sl) is int:
            if sl < 0:
                sl += self.n
            if not 0 <= sl < self.n:
                raise IndexError(sl)
            q, r = divmod(sl, _BLOCK)
            return self.blocks[q][r]
        a, b, _ = sl.indices(self.n)
        if a >= b:
            return ""
        i, j = divmod(a, _BLOCK)
        k, m = divmod(b, _BLOCK)
        blocks = self.blocks
        if i == k:
            return blocks[i][j:m]
        parts = [blocks[i][j:]]
        parts.extend(blocks[i + 1 : k])
        if m:
            parts.append(blocks[k][:m])
        return "".join(parts)

    def truncate(self, n: int) -> None:
        k, m = divmod(n, _BLOCK)
        blocks = self.blocks
        if m == 0 and k > 0:
            del blocks[k:]
        else:
            del blocks[k + 1 :]
            blocks[k] = blocks[k][:m]
        self.n = n

    def __str__(self) -> str:
        return "".join(self.blocks)


def _split_cache(enc) -> dict:
    """tail string -> (piece spans, length of its trailing whitespace); per encoding, not pickled."""
    cache = getattr(enc, "_bpe_stream_split_cache", None)
    if cache is None:
        cache = enc._bpe_stream_split_cache = {}
    return cache


class TextAppendable:
    __slots__ = (
        "enc", "pattern", "run_re", "mergeable", "margin", "text",
        "stable_ends", "stable_cum", "tail", "tail_count", "records", "split_cache",
        "fast", "kind", "last_str", "ws_start", "pending", "tok", "tok_pieces",
        "upper_start", "upper_classes", "alts", "nl_seen", "edit_len", "short", "plain_bpe",
        "whole_max",
    )

    def __init__(self, enc):
        self.enc = enc
        self.pattern = enc._pattern
        self.run_re = run_regex_for(enc.pat_str)
        self.mergeable = _COMPRESSIBLE.get(self.run_re, frozenset())
        self.margin = stable_margin(enc.pretokenizer)
        self.text = _Rope()
        self.stable_ends = [0]  # ends of stable pieces (0 = sentinel)
        self.stable_cum = [0]  # token count of text[:stable_ends[i]]
        self.tail: list[tuple[int, int, int]] = []  # (start, end, count) of pieces after S
        self.tail_count = 0
        self.records: dict[int, _LongPiece] = {}
        # start -> a record of text[start:end] that is not the piece there now (the piece grew
        # or shrank by more than _LONG, or went), kept for when it comes back: an edit and its
        # undo then swap records, or change one by what they add, instead of re-adding the
        # whole part in Python.  True while no truncation goes below its end (the same store,
        # and budget, as the front engine's records: text/records.py.DistanceRecords, with the
        # end as the top).
        self.alts = DistanceRecords()
        self.edit_len = 0  # characters added or removed by the edit being made (see _long_count)
        self.split_cache = _split_cache(enc)
        # regex-free single-character appends (see bpe_stream.pretokenize.fast_split)
        self.fast = fast_split_for(enc.pat_str) or fast_split_for_member(enc.pretokenizer)
        self.kind = K_NONE  # kind of the last piece; K_NONE = not known (classify first)
        self.last_str = None  # the last piece if it has at most _LONG characters
        self.ws_start = 0  # start of the trailing whitespace stretch (len(text) if none)
        # o200k: start of the trailing upper-word stretch (len(text) if none; see the module doc)
        self.upper_start = 0
        cased = enc.pretokenizer is not None and enc.pretokenizer.letters == "cased"
        self.upper_classes = frozenset({UP, OL}) if cased else frozenset()
        self.pending = ""  # a lone high surrogate ending the last append (stored as U+FFFD)
        # start -> (read up to, first newline or -1) of the last few pieces read: _holds_newline
        self.nl_seen: dict = {}
        self.tok: list[int] = []  # tokens of the first tok_pieces stable pieces
        self.tok_pieces = 0
        # [start, end, raw appendable of text[start:end] or None]: the short last piece that
        # missed the piece cache (see _short_count); valid while no truncation comes
        self.short = None
        # whether a piece's tokens are BPE's over its bytes (no whole-piece rule, no merge list)
        self.plain_bpe = not getattr(enc, "_whole", None) and getattr(enc, "_merges_engine", None) is None
        # a long piece of at most this many characters may be a whole-piece token (0: none
        # is longer than _LONG, so long pieces are plain BPE; see _whole_count)
        self.whole_max = whole_longer_than(enc, _LONG)

    # ------------------------------------------------------------- protocol
    def __getstate__(self):
        return {"enc": self.enc, "text": str(self.text), "pending": self.pending}

    def __setstate__(self, state):
        self.__init__(state["enc"])
        self.append(state["text"])
        self.pending = state.get("pending", "")

    def __len__(self) -> int:
        return len(self.text)

    @property
    def token_count(self) -> int:
        return self.stable_cum[-1] + self.tail_count

    def copy(self):
        new = TextAppendable.__new__(TextAppendable)
        for name in ("enc", "pattern", "run_re", "mergeable", "margin", "tail_count", "split_cache",
                     "fast", "kind", "last_str", "ws_start", "pending", "tok_pieces",
                     "upper_start", "upper_classes", "edit_len", "plain_bpe", "whole_max"):
            setattr(new, name, getattr(self, name))
        new.nl_seen = dict(self.nl_seen)
        new.short = None
        new.text = self.text.copy()
        new.stable_ends = list(self.stable_ends)
        new.stable_cum = list(self.stable_cum)
        new.tail = list(self.tail)
        new.records = {k: r.copy() for k, r in self.records.items()}
        new.alts = DistanceRecords()
        new.tok = list(self.tok)
        return new

    def _piece_tokens(self, a: int, b: int):
        if b - a <= _LONG:
            return self.enc._pieces[self.text[a:b]]
        if b - a <= self.whole_max:
            token = self.enc._whole.get(self.text[a:b].encode("utf-8"))
            if token is not None:
                return [token]
        rec = self.records.get(a)
        if rec is not None and rec.end == b:
            tokens = rec.ba.tokens()
            ids = self.enc._ids
            return tokens if ids is None else [ids[t] for t in tokens]
        return self.enc._encode_piece(self.text[a:b])

    def tokens(self) -> list[int]:
        """Incremental: tokens of stable pieces are computed once and kept."""
        if self.pattern is None:
            return self._piece_tokens(0, len(self.text)) if len(self.text) else []
        ends = self.stable_ends
        tok = self.tok
        for i in range(self.tok_pieces, len(ends) - 1):
            tok.extend(self._piece_tokens(ends[i], ends[i + 1]))
        self.tok_pieces = len(ends) - 1
        out = list(tok)
        for a, b, _ in self.tail:
            out.extend(self._piece_tokens(a, b))
        return out

    def get_text(self) -> str:
        return str(self.text)

    # ------------------------------------------------------------- updates
    def append(self, s: str) -> None:
        fast = self.fast
        if fast is not None and len(s) == 1 and not self.pending:
            x = fast.classes.get(s, -1)
            if x == -1:
                x = fast.char_class(s)
            if x is not None:
                kind = self.kind
                if kind == K_NONE:
                    kind = self._classify()
                tr = fast.table.get(kind * 16 + x)
                if tr is not None:
                    self._fast_append(s, x, tr)
                    return
            elif fast.o200k and _MARK.match(s) is not None:
                # cased members: a mark extends a word as Lm|Lo do, makes a word of a
                # one-character prefix, joins a punctuation run (fast_split.MARK_TABLE); it is
                # in the upper-word set (class OL for the stability rule).  (Its other role, a
                # one-character prefix, only matters where a piece starts, and the kinds are
                # not given to letters or marks that follow a mark.)
                kind = self.kind
                if kind == K_NONE:
                    kind = self._classify()
                tr = MARK_TABLE.get(kind)
                if tr is not None:
                    self._fast_append(s, OL, tr)
                    return
        if s:
            self._slow_append(s)

    def _fast_append(self, s: str, x: int, tr) -> None:
        action, kind = tr
        text = self.text
        text.append(s)
        L = text.n
        tail = self.tail
        pieces = self.enc._pieces
        if action == NEW:
            c = len(pieces[s])
            tail.append((L - 1, L, c))
            self.tail_count += c
            self.last_str = s
        elif action == EXTEND:
            a, _, c0 = tail[-1]
            ls = self.last_str
            if ls is not None and len(ls) < _LONG:
                ls += s
                toks = pieces.get(ls)
                c = len(toks) if toks is not None else self._short_count(a, L, ls)
            else:
                ls = None
                rec = self.records.get(a)
                if rec is not None and rec.end == L - 1:
                    # the piece's record grows by s (what _long_count does, without its checks)
                    rec.append_char(s, self.run_re, self.mergeable)
                    c = rec.ba.token_count
                    if L - a <= self.whole_max:
                        c = self._whole_count(a, L, c)
                else:
                    c = self._long_count(a, L)
            tail[-1] = (a, L, c)
            self.tail_count += c - c0
            self.last_str = ls
        else:  # MERGE the last two pieces with s
            pa, pb, c1 = tail.pop()
            if pb - pa > _LONG:
                self._keep_alt(self.records.pop(pa, None))
            a, _, c0 = tail[-1]
            if L - a <= _LONG:
                ls = text[a:L]
                c = len(pieces[ls])
            else:
                ls = None
                self.edit_len = 1  # (a merge can change the piece at a by much more)
                c = self._long_count(a, L)
            tail[-1] = (a, L, c)
            self.tail_count += c - c0 - c1
            self.last_str = ls
        self.kind = kind
        if x not in WS_CLASSES:
            self.ws_start = L
        if x not in self.upper_classes:
            self.upper_start = L
        limit = L - self.margin
        if self.ws_start < limit:
            limit = self.ws_start
        if self.upper_start < limit:
            limit = self.upper_start
        if tail[0][1] <= limit:
            ends = self.stable_ends
            cum = self.stable_cum
            while tail[0][1] <= limit:  # the last piece ends at L > limit
                _, b, c = tail.pop(0)
                ends.append(b)
                cum.append(cum[-1] + c)
                self.tail_count -= c

    def _short_count(self, a: int, end: int, piece: str) -> int:
        """Token count of the short last piece ``text[a:end] == piece`` grown by one character,
        which missed the piece cache.  A piece that misses twice (text that does not repeat
        its pieces: emoji runs, random letters) gets a raw appendable, then grown by the
        character's bytes, O(1), instead of encoding the whole piece again on each miss
        (O(_LONG)); the first miss encodes and caches it (prose: a rare word is seen again)."""
        sh = self.short
        if sh is not None and sh[0] == a and self.plain_bpe:
            ba = sh[2]
            if ba is not None and sh[1] == end - 1:
                ba.append(piece[-1].encode("utf-8"))
            else:
                ba = sh[2] = BytesAppendable(self.enc.bpe)
                ba.append(piece.encode("utf-8"))
            sh[1] = end
            return ba.token_count
        self.short = [a, end, None]
        return len(self.enc._pieces[piece])

    def _long_count(self, a: int, end: int) -> int:
        """Token count of the long piece text[a:end], through its record (made, moved or
        taken back from ``alts`` here)."""
        c = self._long_bpe_count(a, end)
        return self._whole_count(a, end, c) if end - a <= self.whole_max else c

    def _whole_count(self, a: int, b: int, c: int) -> int:
        """1 where the piece text[a:b] is a whole-piece token (tiktoken's rule), else its
        BPE count ``c``."""
        return 1 if self.text[a:b].encode("utf-8") in self.enc._whole else c

    def _long_bpe_count(self, a: int, end: int) -> int:
        rec = self.records.get(a)
        if rec is None:
            # a piece that comes back, or grows from one that came back: its record from alts
            rec = self.alts.pop(a) if self.alts else None
            if rec is None:
                rec = _LongPiece(self.enc.bpe, a)
            self.records[a] = rec
        elif abs(end - rec.end) > _LONG:
            # a long change of the piece at a: the record of the other end is kept (a copy, once),
            # or taken back when it is nearer this end (it may differ by a few characters:
            # "\r\n \n" * k + "\t" * m + " \n" is one piece, the truncation back cuts the two
            # characters off the record kept)
            alt = self.alts.get(a) if self.alts else None
            if alt is not None and abs(end - alt.end) < abs(end - rec.end):
                self.alts.pop(a)
                self._keep_alt(rec)
                self.records[a] = rec = alt
                if alt.end == end:
                    return alt.ba.token_count
            elif abs(end - rec.end) > 4 * self.edit_len and (
                    alt is None or abs(alt.end - rec.end) > abs(end - rec.end)):
                # The copy is O(runs of the piece) in Python.  It pays only for a change much
                # longer than the edit (a character that splits a long piece or joins pieces to
                # it), whose way back would cost the change again; a change about as long as
                # the edit costs about as much as the edit, and so does its way back.  Nor is it
                # made when the record kept is nearer this end than the change is long (the way
                # back extends it by less).  A truncation deep into the piece cuts the record
                # itself, and so cutting 70 characters of "!!" + marks and putting them back
                # copied it on every pass, as did 203 characters that grew a word of thousands
                # of runs, or 4 that joined 310 more to one after a cut had moved it away from
                # the record kept.
                self._keep_alt(rec.copy())
        rec.set_end(self.text, end, self.run_re, self.mergeable)
        return rec.ba.token_count

    def _keep_alt(self, rec) -> None:
        """Keep the record ``rec`` of the piece text[rec.start:rec.end] in ``alts``."""
        if rec is not None and rec.end - rec.start > _LONG:
            self.alts.put(rec.start, rec, rec.end, rec.end - rec.start, len(self.text))

    def _holds_newline(self, a: int, b: int) -> bool:
        """Whether text[a:b] holds a "\r" or "\n", for the last piece [a, b) (o200k
        punctuation ending in "/", see pretokenize/fast_split.py.classify).  What has been read of the
        piece is remembered (``nl_seen``: by its start, how far, the first newline or -1), so a
        piece that grows at its end, or is cut and grows again, is read once: amortized
        O(appended), not O(piece) per call (a run of "/" was read whole after every truncation).
        The last ``_NL_SEEN`` pieces read are remembered, not only the last one: edits that
        make a short piece ending in "/" last, then the long one again ("/-" * n + "/" and
        "\u0085/" after it, in turn), read the long one whole every time."""
        seen = self.nl_seen
        upto, first = seen.pop(a, (a, -1))
        step = _LONG
        while first < 0 and upto < b:
            # in growing windows: a piece whose first newline comes early ("/\n" * n) is not
            # read to its end when it is read from its start again
            hi = min(b, upto + step)
            seg = self.text[upto:hi]
            found = [i for i in (seg.find("\n"), seg.find("\r")) if i >= 0]
            if found:
                first = upto + min(found)
            upto = hi
            step *= 2
        seen[a] = (upto, first)  # (the most recent last: a dict keeps the order of insertion)
        if len(seen) > _NL_SEEN:
            del seen[next(iter(seen))]
        return 0 <= first < b

    def _span(self, k: int):
        """Span of the k-th piece from the end (1 = last), or None."""
        tail = self.tail
        if k <= len(tail):
            a, b, _ = tail[-k]
            return a, b
        ends = self.stable_ends
        i = len(ends) - 1 - (k - len(tail))
        if i < 0:
            return None
        return ends[i], ends[i + 1]

    def _classify(self) -> int:
        kind = self.fast.classify(self.text, self._span, self._holds_newline)
        self.kind = kind
        if self.tail:
            a, b, _ = self.tail[-1]
            self.last_str = self.text[a:b] if b - a <= _LONG else None
        return kind

    def _slow_append(self, s: str) -> None:
        if self.pending:
            pending = self.pending
            self.pending = ""
            if "\udc00" <= s[0] <= "\udfff":
                # join the pair split across two appends, as tiktoken joins it in the whole text
                self.truncate(len(self.text) - 1)
                s = pending + s
        pending = s[-1] if "\ud800" <= s[-1] <= "\udbff" else ""
        old = len(self.text)
        self.edit_len = len(s)
        self.text.append(s if s.isascii() else fix_surrogates(s))
        self.kind = K_NONE
        self.last_str = None
        if self.pattern is None:
            self._whole_piece()
        else:
            self._resplit(self.tail, old)
        self.pending = pending

    def truncate(self, n: int) -> None:
        n = _check_len(n, len(self.text))
        if n == len(self.text):
            return
        self.edit_len = len(self.text) - n
        self.short = None
        self.pending = ""
        self.kind = K_NONE
        self.last_str = None
        seen = self.nl_seen
        for a, (upto, first) in list(seen.items()) if seen else ():
            if upto > n:
                # what was read past n goes (other text may come there)
                if n <= a:
                    del seen[a]
                else:
                    seen[a] = (n, first if first < n else -1)
        for a, rec, _ in (self.alts.drop_above(n) if self.alts else ()):
            # a kept record reaching past n is still one of text[a:n] once cut (an all-space
            # text that a non-space split is one piece again after the truncation back)
            if n - a > _LONG:
                rec.set_end(self.text, n, self.run_re, self.mergeable)
                self._keep_alt(rec)
        records = self.records
        ends = self.stable_ends
        if self.pattern is None:
            rec = records.get(0)
            if rec is not None:
                rec.set_end(self.text, n, None, frozenset())
        elif records:
            # records are those of the current long pieces, with their ends (see _settle), so
            # the ones that reach past n belong to the pieces from the one holding n on: these
            # go or are cut, O(pieces removed), not O(records)
            i = bisect_right(ends, n) - 1
            for a in chain(ends[i:-1], [a for a, _, _ in self.tail]):
                rec = records.get(a)
                if rec is not None and rec.end > n:
                    if a >= n:
                        del records[a]
                    else:
                        rec.set_end(self.text, n, self.run_re, self.mergeable)
        self.text.truncate(n)
        if self.pattern is None:
            self._whole_piece()
            return
        # Pop stable pieces until the remaining ones are stable for text[:n].
        k = bisect_right(ends, n) - 1  # ends[k] <= n
        while k > 0 and not self._is_stable_end(k, n):
            k -= 1
        popped = ends[k:]
        pieces = [(popped[i], min(popped[i + 1], n), 0) for i in range(len(popped) - 1) if popped[i] < n]
        pieces += [(a, min(b, n), 0) for a, b, _ in self.tail if a < n]
        del self.stable_ends[k + 1 :]
        del self.stable_cum[k + 1 :]
        if self.tok_pieces > k:
            self.tok_pieces = k
            del self.tok[self.stable_cum[k] :]
        self.tail = []
        self.tail_count = 0
        self._resplit(pieces, n)

    # ------------------------------------------------------------- internals
    def _whole_piece(self) -> None:
        rec = self.records.get(0)
        if rec is None:
            rec = self.records[0] = _LongPiece(self.enc.bpe, 0)
        rec.set_end(self.text, len(self.text), None, frozenset())
        c = rec.ba.token_count
        n = len(self.text)
        # (no pre-split: the whole text is the one piece, short ones included)
        if 0 < n and getattr(self.enc, "_whole", None) and n <= self.enc._whole_max_len():
            c = self._whole_count(0, n, c)
        self.tail_count = c

    def _is_stable_end(self, k: int, n: int) -> bool:
        """Whether the end of stable piece ``k`` stays stable for ``text[:n]``: ``text[e:n]``
        must hold a non-whitespace character and (o200k) a character outside the upper-word
        letters (see the module doc).  Walks the pieces after ``e`` until both are seen:
        at most a few, since a whitespace stretch and an upper-word stretch each hold few
        piece boundaries; a long piece is read from its record's runs, not its text."""
        ends = self.stable_ends
        e = ends[k]
        if e > n - self.margin:
            return False
        need_non_ws = True
        need_non_upper = bool(self.upper_classes)
        ws_groups = _WS_GROUPS.get(self.run_re, ())
        spans = chain(((ends[i], ends[i + 1]) for i in range(k, len(ends) - 1)), ((a, b) for a, b, _ in self.tail))
        text = self.text
        for a, b in spans:
            if a >= n:
                break
            b = min(b, n)
            rec = self.records.get(a) if b - a > _LONG else None
            if rec is None or rec.end < b or not ws_groups:
                piece = text[a:b]
                if need_non_ws and not piece.isspace():
                    need_non_ws = False
                if need_non_upper and _NOT_UPPER.search(piece) is not None:
                    need_non_upper = False
            else:
                # a piece is whitespace only iff its first two runs are whitespace runs
                if need_non_ws and any(g not in ws_groups for g, ra, _ in rec.runs[:2] if ra < b):
                    need_non_ws = False
                uruns = rec.uruns
                if need_non_upper and (not uruns or uruns[0][0] > a or uruns[0][1] < b):
                    need_non_upper = False
            if not (need_non_ws or need_non_upper):
                return True
        return False

    def _proxy(self, pieces, x: int, compress: bool):
        """Proxy string for text[S:] built from old pieces covering [S, x) + verbatim text[x:].

        Returns (proxy, breaks, cuts): breaks is a list of (proxy_pos, real_pos)
        where a new mapping segment starts; cuts the proxy positions of deletions.
        """
        text = self.text
        S = pieces[0][0] if pieces else x
        chunks = []
        breaks = [(0, S)]
        cuts = set()
        qpos = 0
        cur = S  # real position up to which text has been emitted
        if compress and self.run_re is not None:
            for a, b, _ in pieces:
                if b - a <= _LONG:
                    continue
                rec = self.records.get(a)
                if rec is None or rec.end < b:
                    continue
                # (the re-split starts at S: a match starts there)
                head = text[a : a + 2] if a == S else ""
                for cut_from, cut_to in long_piece_cuts(rec, a, b, self.run_re, self.mergeable, head):
                    chunks.append(text[cur:cut_from])
                    qpos += cut_from - cur
                    cuts.add(qpos)
                    breaks.append((qpos, cut_to))
                    cur = cut_to
        chunks.append(text[cur:])
        return "".join(chunks), breaks, cuts

    def _resplit_short(self, pieces, proxy: str, S: int, L: int) -> None:
        # Fast path: a short tail without long pieces (the common case).  Real
        # text repeats its tails, so their splits are memoized per encoding.
        cache = self.split_cache
        hit = cache.get(proxy)
        if hit is None:
            spans = tuple(m.span() for m in self.pattern.finditer(proxy))
            upper_len = len(_UPPER_TAIL.search(proxy).group()) if self.upper_classes else 0
            hit = (spans, len(_WS_TAIL.search(proxy).group()), upper_len)
            if len(cache) >= _SPLIT_CACHE_SIZE:
                cache.clear()
            cache[proxy] = hit
        spans, ws_len, upper_len = hit
        self.ws_start = L - ws_len
        self.upper_start = L - upper_len
        limit = min(L - self.margin, L - ws_len, L - upper_len)
        pieces_cache = self.enc._pieces
        counted = [
            (a + S, b + S, len(pieces_cache[proxy[a:b]]) if b - a <= _LONG else self._long_count(a + S, b + S))
            for a, b in spans
        ]
        self._settle(counted, limit, pieces)

    def _settle(self, counted, limit: int, old) -> None:
        """Re-split pieces ``(start, end, count)`` of the tail: those ending by ``limit``
        (before any that does not) become stable, the rest form the new tail.

        Keeps the invariant of ``records``: its keys are the starts of the current pieces
        longer than ``_LONG``, each record with its piece's end.  ``counted`` has made or
        moved the records of its long pieces (``_long_count``); the records of the ``old``
        pieces that are not long pieces any more go to ``alts``.  (Without this, a record
        left behind by a piece that split or shrank overlapped the new pieces, and the
        truncation would have to walk every record to find those reaching past its cut.)"""
        records = self.records
        if records:
            gone = [a for a, _, _ in old if a in records]
            if gone:
                live = {a for a, b, _ in counted if b - a > _LONG}
                for a in gone:
                    if a not in live:
                        self._keep_alt(records.pop(a))
        ends = self.stable_ends
        cum = self.stable_cum
        tail = []
        tail_count = 0
        for a, b, c in counted:
            if not tail and b <= limit:
                ends.append(b)
                cum.append(cum[-1] + c)
            else:
                tail.append((a, b, c))
                tail_count += c
        self.tail = tail
        self.tail_count = tail_count

    def _resplit(self, pieces, x: int) -> None:
        """Re-split text[S:] (S = start of `pieces`, or x) and update stable/tail state."""
        text = self.text
        L = len(text)
        S = pieces[0][0] if pieces else x
        for a, b, _ in pieces:
            if b - a > _LONG:
                proxy, breaks, cuts = self._proxy(pieces, x, True)
                break
        else:
            proxy = text[S:L]
            breaks = ((0, S),)
        if len(breaks) == 1 and len(proxy) <= _LONG * 4:
            self._resplit_short(pieces, proxy, S, L)
            return
        spans = [m.span() for m in self.pattern.finditer(proxy)]
        if len(breaks) > 1:
            bad = any(a in cuts or b in cuts for a, b in spans)
            if bad:  # never expected; stay exact
                proxy, breaks, cuts = self._proxy(pieces, x, False)
                spans = [m.span() for m in self.pattern.finditer(proxy)]
        # map proxy spans to real spans
        wq = len(proxy) - len(_WS_TAIL.search(proxy).group())
        uq = len(proxy) - len(_UPPER_TAIL.search(proxy).group()) if self.upper_classes else len(proxy)
        if len(breaks) == 1:
            real = [(a + S, b + S) for a, b in spans]
            ws = wq + S
            upper = uq + S
        else:
            qs = [q for q, _ in breaks]

            def f(q):
                i = bisect_right(qs, q) - 1
                return breaks[i][1] + (q - qs[i])

            real = []
            for a, b in spans:
                # an end maps with the segment of its last character
                real.append((f(a), f(b - 1) + 1))
            # cuts only delete characters, so the last character outside a stretch that the
            # proxy keeps maps to no later than the real one: a start found here is never
            # too late (at worst too early, which only keeps more pieces in the tail)
            ws = f(wq - 1) + 1 if wq > 0 else S
            upper = f(uq - 1) + 1 if uq > 0 else S
        self.ws_start = ws
        self.upper_start = upper
        limit = min(L - self.margin, ws, upper)
        pieces_cache = self.enc._pieces
        self._settle([(a, b, len(pieces_cache[text[a:b]]) if b - a <= _LONG else self._long_count(a, b))
                      for a, b in real], limit, pieces)
