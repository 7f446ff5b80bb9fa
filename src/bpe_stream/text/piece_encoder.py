"""BPE over pre-split text: split with the pattern, then BPE each piece.

Invariant: ``PieceEncoder(bpe, pat_str).encode_ordinary(text)`` equals tiktoken's
``encode_ordinary`` for the same ranks and pattern, token for token.  Pieces are
encoded by the compiled core when it is built (:mod:`bpe_stream.bpe.native`: the merge
loop for short pieces, the backtracking encoder for long ones, without the GIL), else
by the Python merge loop or the backtracking encoder;
because real text repeats its pieces (Zipf), a bounded per-encoding cache maps short
pieces to their tokens, which makes ``count`` and ``encode`` cost about one regex
split plus one dict lookup per piece.  With the compiled module and a bundled
pattern, ASCII stretches of the text skip both: they are split and counted in C
(``_native/ascii_split.h``).

This is the object the text engines (:mod:`bpe_stream.text.appendable`,
:mod:`~bpe_stream.text.intervals`, :mod:`~bpe_stream.text.cuts`) and the streaming
objects work on; :class:`~bpe_stream.Encoding` extends it with tiktoken's interface.
"""

from __future__ import annotations

from array import array
from itertools import chain

from ..bpe.checks import _check_limit
from ..bpe.merge_loop import (
    _SHORT_PIECE,
    _TWO_TOKEN_PIECE,
    _merge_short,
    _two_tokens,
    merge_table_for,
)
from ..bpe.native import whole_set
from ..bpe.vocabulary import BytePairEncoding
from ..pretokenize.family import PreTokenizer, custom
from ..pretokenize.patterns import PATTERNS
from ..pretokenize.splitter import PreSplitter
from .input import check_text

# Pieces up to this many characters are cached; longer ones are rare and big.
_CACHEABLE_PIECE_LEN = 256
_CACHE_MAX_ENTRIES = 200_000
_NOT_BUILT = object()
# Pattern -> the kind number of the compiled ASCII scanner (_native/merge_loop.c).
_SCAN_KINDS = {PATTERNS["cl100k_base"]: 1, PATTERNS["o200k_base"]: 2}


class _PieceCache(dict):
    """piece (str) -> tuple of token ids; fills itself on a miss, bounded in size."""

    __slots__ = ("encode_piece",)

    def __init__(self, encode_piece):
        super().__init__()
        self.encode_piece = encode_piece

    def __missing__(self, piece: str) -> tuple[int, ...]:
        tokens = self.encode_piece(piece)
        if len(piece) <= _CACHEABLE_PIECE_LEN:
            if len(self) >= _CACHE_MAX_ENTRIES:
                self.clear()  # crude but O(1) amortized; real text refills the hot pieces fast
            self[piece] = tokens
        return tokens

    def __reduce__(self):  # never pickle the cache contents
        return (_PieceCache, (self.encode_piece,))


class _PieceCountCache(dict):
    """piece (str) -> token count, filled from the token cache; bounded in size.

    ``count`` sums these directly, which is faster than taking ``len`` of tuples."""

    __slots__ = ("pieces",)

    def __init__(self, pieces: _PieceCache):
        super().__init__()
        self.pieces = pieces

    def __missing__(self, piece: str) -> int:
        count = len(self.pieces[piece])
        if len(piece) <= _CACHEABLE_PIECE_LEN:
            if len(self) >= _CACHE_MAX_ENTRIES:
                self.clear()
            self[piece] = count
        return count

    def __reduce__(self):
        return (_PieceCountCache, (self.pieces,))


class PieceEncoder:
    """BPE over pre-split text: the pattern splits the text into pieces, each piece is
    encoded on its own (through a bounded cache), and the tokens are concatenated.

    This is the part of :class:`Encoding` that the streaming engines and the exact cuts
    build on: the vocabulary (``bpe``), the pattern (``pat_str``, None for no
    pre-splitting), the split, and the cached per-piece tokens and counts.
    :class:`Encoding` adds tiktoken's interface (name, special tokens, decoding, pickling
    by name) and the exact cuts.
    """

    def __init__(self, bpe: BytePairEncoding, pretokenizer: PreTokenizer | str | None):
        if isinstance(pretokenizer, str):
            pretokenizer = custom(pretokenizer, "tiktoken")
        elif pretokenizer is not None and not isinstance(pretokenizer, PreTokenizer):
            raise TypeError(f"pretokenizer must be a PreTokenizer, a pattern str or None, "
                            f"got {type(pretokenizer).__name__}")
        self.bpe = bpe
        # A vocabulary read from a rank table with holes or unreachable tokens: the table's
        # ids of bpe's tokens, and the tokens only a whole piece equal to them becomes.
        self._ids = bpe.ids
        self._whole = bpe.unreachable
        # HF's merge loop, for a vocabulary whose merges rank order cannot follow (see
        # bpe.merges); None for every other
        self._merges_engine = None
        #: the pre-tokenizer (None: no pre-splitting, the whole text is one piece)
        self.pretokenizer = pretokenizer
        #: its main pattern string (tiktoken's ``pat_str``), None without pre-splitting
        self.pat_str = None if pretokenizer is None else pretokenizer.pattern
        if pretokenizer is None:
            self._splitter = None
            self._pattern = None
            self._split = _whole_text
            self._normalize = None
        else:
            self._splitter = PreSplitter(pretokenizer)
            #: what splits a text: ``finditer(text, pos, endpos)`` / ``findall`` (a compiled
            #: regex, or a chain of them), for the engines that split stretches themselves
            self._pattern = self._splitter.pattern
            self._split = self._splitter.findall
            self._normalize = pretokenizer.normalize if pretokenizer.normalizer else None
        # The compiled core also pre-splits ASCII text with the bundled patterns.
        # (not where whole pieces may be tokens the core leaves out: see _encode_piece)
        self._scan_kind = _SCAN_KINDS.get(self.pat_str, 0) if self._splitter is not None and \
            self._splitter.ascii_pattern is not None and not self._whole else 0
        # The compiled core of the vocabulary (merge loop, backtracking encoder, ASCII
        # scanner); None where it is not built or turned off.
        self._merge_table = _NOT_BUILT
        # (spec, whole-piece tokens, ids) for the compiled scanner of every member
        # (_native/presplit.c), decided on first use; None: the regex path
        self._native = _NOT_BUILT
        self._pieces = _PieceCache(self._encode_piece)
        self._piece_counts = _PieceCountCache(self._pieces)

    def _require_rank_order(self, what: str) -> None:
        """Refuse ``what`` (a streaming object, a cut, a chunker) for a vocabulary served by
        HF's merge loop: those engines grow, index and cut pieces by rank order, which such
        a vocabulary does not follow (no published model's vocabulary is one of them)."""
        if self._merges_engine is not None:
            name = getattr(self, "name", "this vocabulary")
            raise ValueError(
                f"{what} needs a vocabulary whose merges follow its rank order; {name!r} does not "
                f"({self._merges_reason}), so only encode, count and count_till_limit serve it"
            )

    def _compiled(self):
        """The compiled core, or None."""
        table = self._merge_table
        if table is _NOT_BUILT:
            table = self._merge_table = merge_table_for(self.bpe)
        return table

    def _native_split(self):
        """``(spec, whole, ids)`` for ``table.count_text`` / ``encode_text``: the compiled
        scanner splits and encodes the whole text, handing the pieces it cannot take to the
        Python path (a byte that is no token, a whole-piece token); None where it does not
        apply (no compiled core, a pattern outside the family, HF's merge loop)."""
        native = self._native
        if native is _NOT_BUILT:
            native = None
            splitter = self._splitter
            whole = self._whole
            if splitter is not None and splitter.native is not None and self._compiled() is not None and \
                    self._merges_engine is None:
                ids = None if self._ids is None else array("i", self._ids)
                native = (splitter.native, whole_set(list(whole)) if whole else None, ids)
            self._native = native
        return native

    def _count_pieces(self, pieces: list[str]) -> int:
        """Total token count of ``pieces``, through the count cache."""
        return sum(self._piece_count_list(pieces))

    def _piece_count_list(self, pieces: list[str]) -> list[int]:
        """The token count of each of ``pieces``, through the count cache."""
        counts = self._piece_counts
        table = self._compiled()
        if table is None or self._whole or self._merges_engine is not None:
            # (the compiled batch knows nothing of tokens that only whole pieces become)
            return list(map(counts.__getitem__, pieces))
        return table.piece_counts(
            pieces, counts, counts.__getitem__, _CACHEABLE_PIECE_LEN, _CACHE_MAX_ENTRIES
        )

    def _whole_max_len(self) -> int:
        """Byte length of the longest whole-piece token (0: none).  A piece of more characters
        has more bytes, so it is no such token: the streaming objects, which count long
        pieces with plain BPE, check only pieces up to this length (decided once per
        ``_whole`` dict, which ``_set_merge_rules`` may replace)."""
        whole = self._whole
        known = getattr(self, "_whole_len", None)
        if known is None or known[0] is not whole:
            known = self._whole_len = (whole, max(map(len, whole), default=0))
        return known[1]

    def _encode_piece(self, piece: str) -> tuple[int, ...]:
        """The tokens of one piece, as the vocabulary's ids."""
        if self._whole:
            token = self._whole.get(piece.encode("utf-8"))
            if token is not None:
                return (token,)  # tiktoken's (and HF's ignore_merges) whole-piece rule
        if self._merges_engine is not None:
            return tuple(self._merges_engine.encode(piece.encode("utf-8")))
        tokens = self._encode_piece_bpe(piece)
        ids = self._ids
        return tokens if ids is None else tuple([ids[t] for t in tokens])

    def _encode_piece_bpe(self, piece: str) -> tuple[int, ...]:
        """BPE of one piece, as positions in ``bpe``."""
        table = self._compiled()
        if table is not None:
            tokens = table.encode(piece)
            if tokens is not None:
                return tokens
            # None: a byte that is no token (the path below raises the clear error)
        data = piece.encode("utf-8")
        get = self.bpe.ranks.get
        token = get(data)
        if token is not None:
            return (token,)
        n = len(data)
        if n == len(piece):  # ASCII
            if n <= _TWO_TOKEN_PIECE:
                pair = _two_tokens(self.bpe, data, get)
                if pair is not None:
                    return pair
            if n <= _SHORT_PIECE:
                tokens = _merge_short(data, get)
                if None not in tokens:
                    return tokens
                # a byte that is no token: the backtracking encoder raises the clear error
        return tuple(self.bpe.encode(data))

    def _text(self, text) -> str:
        """``text`` as the encoder sees it: checked, surrogates fixed, normalized (the
        pre-tokenizer's Unicode normalization, if it has one)."""
        text = check_text(text)
        return text if self._normalize is None else self._normalize(text)

    def split(self, text: str) -> list[str]:
        """The pre-split pieces of ``text`` (after surrogate fixing and normalization)."""
        return self._split(self._text(text))

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ``text``, treating text that looks like special tokens as ordinary text."""
        text = self._text(text)
        tokens_of = self._pieces.__getitem__
        native = self._native_split()
        if native is not None:
            return self._merge_table.encode_text(text, native[0], tokens_of, native[1], native[2])
        table = self._compiled()
        kind = self._scan_kind
        if table is None or not kind or self._ids is not None:
            # (the ASCII scanner emits ranks; a table with holes needs its ids)
            return list(chain.from_iterable(map(tokens_of, self._split(text))))
        # as in count: ASCII stretches in C, the rest through the regex and the cache
        if text.isascii():
            return table.encode_ascii(text, 0, len(text), kind, tokens_of)
        out: list[int] = []
        slow = self._splitter.unicode_findall
        for is_ascii, start, end in self._splitter.stretches(text):
            if is_ascii:
                out += table.encode_ascii(text, start, end, kind, tokens_of)
            else:
                out += chain.from_iterable(map(tokens_of, slow(text, start, end)))
        return out

    def count(self, text: str) -> int:
        """``len(encode_ordinary(text))``, without building the token list."""
        text = self._text(text)
        native = self._native_split()
        if native is not None:
            return self._merge_table.count_text(text, native[0], self._piece_counts.__getitem__, native[1])
        table = self._compiled()
        kind = self._scan_kind
        if table is None or not kind:
            return self._count_pieces(self._split(text))
        # ASCII stretches are split and counted in C (through the compiled core's own
        # piece cache); the rest by the regex and the count cache.
        fallback = self._piece_counts.__getitem__
        if text.isascii():
            return table.count_ascii(text, 0, len(text), kind, fallback)
        total = 0
        slow = self._splitter.unicode_findall
        for is_ascii, start, end in self._splitter.stretches(text):
            if is_ascii:
                total += table.count_ascii(text, start, end, kind, fallback)
            else:
                total += self._count_pieces(slow(text, start, end))
        return total

    def count_till_limit(self, text: str, limit: int) -> int | None:
        """``count(text)`` if it is <= ``limit``, else ``None``; exact, stops early."""
        text = self._text(text)
        limit = _check_limit(limit)
        if self.pat_str is None:
            if self._merges_engine is not None or self._whole:
                c = self._count_pieces(self._split(text))
                return c if c <= limit else None
            return self.bpe.count_till_limit(text.encode("utf-8"), limit)
        table = self._compiled()
        kind = self._scan_kind
        if table is None or not kind or self._merges_engine is not None or self._whole:
            return self._count_matches_till(text, 0, len(text), limit)
        bpe = self.bpe

        def long_piece(piece: str) -> int:
            # a count past the limit only needs to be known to be past it (a piece of
            # more than limit * max_token_len characters is, without encoding it)
            if len(piece) > limit * bpe.max_token_len:
                return limit + 1
            c = bpe.count_till_limit(piece.encode("utf-8"), limit)
            return limit + 1 if c is None else c

        total = 0
        for is_ascii, start, end in self._splitter.stretches(text):
            if is_ascii:
                total += table.count_ascii(text, start, end, kind, long_piece, limit - total)
            else:
                c = self._count_matches_till(text, start, end, limit - total)
                total = limit + 1 if c is None else total + c
            if total > limit:
                return None
        return total

    def _count_matches_till(self, text: str, start: int, end: int, limit: int) -> int | None:
        """``count_till_limit(text[start:end], limit)`` piece by piece (``text[start:end]``
        splits as a whole text: all of it, or a stretch of ``PreSplitter.stretches``)."""
        total = 0
        pieces = self._pieces
        for m in self._pattern.finditer(text, start, end):
            piece = m.group()
            if len(piece) <= _CACHEABLE_PIECE_LEN:
                total += len(pieces[piece])
            elif self._merges_engine is not None or self._whole:
                total += len(self._encode_piece(piece))  # HF's loop, or a whole-piece token
            else:
                if len(piece) > (limit - total) * self.bpe.max_token_len:
                    return None  # needs more tokens than are left (see table.count_till_limit)
                c = self.bpe.count_till_limit(piece.encode("utf-8"), limit - total)
                if c is None:
                    return None
                total += c
            if total > limit:
                return None
        return total


def whole_longer_than(enc, n: int) -> int:
    """Byte length of the longest whole-piece token of ``enc`` if it is longer than ``n``,
    else 0.  Objects that count pieces of more than ``n`` characters with plain BPE check
    such a piece against the whole-piece tokens only up to this length (none when 0)."""
    whole_max = enc._whole_max_len() if getattr(enc, "_whole", None) else 0
    return whole_max if whole_max > n else 0


def _whole_text(text: str) -> list[str]:
    return [text] if text else []
