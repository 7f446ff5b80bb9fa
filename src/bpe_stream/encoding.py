"""A tiktoken-compatible ``Encoding``: pre-split text, then BPE each piece.

Invariant: ``encode_ordinary(text)`` equals tiktoken's ``encode_ordinary`` for the
same ranks and pattern, token for token.  Pieces are encoded by the compiled merge
loop when it is built (``merge_loop.py``; pieces of up to 256 bytes), else by the
merge loop below or the backtracking encoder; because real text repeats its pieces
(Zipf), a bounded per-encoding cache maps short pieces to their tokens, which makes
``count`` and ``encode`` cost about one regex split plus one dict lookup per piece.
With the compiled module and a bundled pattern, ASCII stretches of the text skip
both: they are split and counted in C (``_ascii_split.h``).

Text handling follows tiktoken: lone surrogates (which are not valid Unicode
scalar values and cannot be UTF-8 encoded) are replaced by U+FFFD before
encoding, after surrogate *pairs* are joined into the characters they stand for.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable
from itertools import chain
from typing import AbstractSet, Literal

import regex

from .backtracking import encode_backtracking
from .merge_loop import merge_table_for
from .pretokenize import PATTERNS, PreSplitter, compile_pattern
from .vocabulary import BytePairEncoding, _check_limit, _is_valid_pair

__all__ = ["Encoding"]

_SURROGATE = regex.compile(r"[\ud800-\udfff]")
# Pieces up to this many characters are cached; longer ones are rare and big.
_CACHEABLE_PIECE_LEN = 256
_CACHE_MAX_ENTRIES = 200_000
_NOT_BUILT = object()
# Pattern -> the kind number of the compiled ASCII scanner (_merge_loop.c).
_SCAN_KINDS = {PATTERNS["cl100k_base"]: 1, PATTERNS["o200k_base"]: 2}


def fix_surrogates(text: str) -> str:
    """Join surrogate pairs and replace lone surrogates with U+FFFD, as tiktoken does."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def caller_offsets(text: str, fixed: str) -> list[int] | None:
    """For ``fixed = fix_surrogates(text)``: ``offs[k]`` is the index in ``text`` where
    ``fixed[k]`` starts (``offs[len(fixed)] == len(text)``), or None if they are the same
    string.  A surrogate pair is one character of ``fixed`` and two of ``text``; a lone
    surrogate is one U+FFFD.  Offsets that APIs return or take refer to the caller's
    ``text``; an offset between the two halves of a pair is inside a character."""
    if fixed is text:
        return None
    offs = []
    i = 0
    n = len(text)
    while i < n:
        offs.append(i)
        i += 2 if "\ud800" <= text[i] <= "\udbff" and i + 1 < n and "\udc00" <= text[i + 1] <= "\udfff" else 1
    offs.append(n)
    return offs


def check_text(text) -> str:
    if isinstance(text, str):
        return fix_surrogates(text)
    if isinstance(text, (bytes, bytearray, memoryview)):
        raise TypeError(
            "expected str, got bytes: decode it first, or use enc.bpe for raw bytes"
        )
    raise TypeError(f"expected str, got {type(text).__name__}")


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


class Encoding:
    """Pre-splitting BPE with tiktoken's semantics.

    >>> import bpe_stream
    >>> enc = bpe_stream.get_encoding("cl100k_base")
    >>> enc.encode("hello world")
    [15339, 1917]
    >>> enc.decode([15339, 1917])
    'hello world'
    >>> enc.count("hello world")
    2
    >>> enc.encode("<|endoftext|>", allowed_special="all")
    [100257]
    """

    def __init__(
        self,
        name: str,
        *,
        pat_str: str | None,
        mergeable_ranks: dict[bytes, int] | None = None,
        special_tokens: dict[str, int] | None = None,
        explicit_n_vocab: int | None = None,
        bpe: BytePairEncoding | None = None,
    ):
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        self.name = name
        self.pat_str = pat_str
        if bpe is None:
            if mergeable_ranks is None:
                raise TypeError("Encoding needs mergeable_ranks (or a BytePairEncoding as bpe=)")
            from .cache import bpe_from_ranks

            bpe = bpe_from_ranks(mergeable_ranks)
        self.bpe = bpe
        self._mergeable_ranks = bpe.ranks
        special_tokens = dict(special_tokens or {})
        seen: dict[int, str] = {}
        for text, token in special_tokens.items():
            if not isinstance(text, str) or not text:
                raise ValueError(f"special token {text!r} must be a non-empty str")
            if not isinstance(token, int) or token < 0:
                raise ValueError(f"special token {text!r} has invalid id {token!r}")
            if token < len(bpe):
                raise ValueError(f"special token {text!r} id {token} collides with a mergeable token")
            if token in seen:
                raise ValueError(f"special tokens {seen[token]!r} and {text!r} share id {token}")
            seen[token] = text
        self._special_tokens = special_tokens
        self._special_decoder = {t: s.encode("utf-8") for s, t in special_tokens.items()}
        self.max_token_value = max([len(bpe) - 1, *special_tokens.values()])
        if explicit_n_vocab is not None and explicit_n_vocab != self.max_token_value + 1:
            raise ValueError(
                f"explicit_n_vocab {explicit_n_vocab} != {self.max_token_value + 1} tokens"
            )
        if pat_str is None:
            self._splitter = None
            self._split = _whole_text
        else:
            self._splitter = PreSplitter(pat_str)
            self._split = self._splitter.findall
        # The compiled merge loop also pre-splits ASCII text with the bundled patterns.
        self._scan_kind = _SCAN_KINDS.get(pat_str, 0)
        # The compiled merge loop (merge_loop.py), built at the first piece to encode so
        # that loading stays as fast; None where it is not built or turned off.
        self._merge_table = _NOT_BUILT
        self._pieces = _PieceCache(self._encode_piece)
        self._piece_counts = _PieceCountCache(self._pieces)

    # ----------------------------------------------------------------- interop
    @classmethod
    def from_tiktoken(cls, encoding) -> "Encoding":
        """Wrap the vocabulary of a ``tiktoken.Encoding`` (tiktoken itself is not needed after)."""
        try:
            ranks = encoding._mergeable_ranks
            pat_str = encoding._pat_str
            special = encoding._special_tokens
            name = encoding.name
        except AttributeError as e:
            raise TypeError(f"not a tiktoken Encoding: {encoding!r}") from e
        return cls(name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=special)

    def __reduce__(self):
        from .registry import _is_registered

        if _is_registered(self):
            from .registry import get_encoding

            return (get_encoding, (self.name,))
        return (
            _rebuild,
            (self.name, self.pat_str, self.bpe, self._special_tokens),
        )

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r}>"

    def save(self, path) -> None:
        """Save ranks (tiktoken format), pattern and special tokens; see :func:`bpe_stream.load`."""
        from .persist import save_encoding

        save_encoding(self, path)

    # ------------------------------------------------------------- properties
    @property
    def n_vocab(self) -> int:
        return self.max_token_value + 1

    @property
    def special_tokens_set(self) -> set[str]:
        return set(self._special_tokens)

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._special_tokens)

    @property
    def eot_token(self) -> int:
        return self._special_tokens["<|endoftext|>"]

    # ---------------------------------------------------------------- encoding
    def _compiled(self):
        """The compiled merge table (built at first use), or None."""
        table = self._merge_table
        if table is _NOT_BUILT:
            table = self._merge_table = merge_table_for(self.bpe)
        return table

    def _count_pieces(self, pieces: list[str]) -> int:
        """Total token count of ``pieces``, through the count cache."""
        return sum(self._piece_count_list(pieces))

    def _piece_count_list(self, pieces: list[str]) -> list[int]:
        """The token count of each of ``pieces``, through the count cache."""
        counts = self._piece_counts
        table = self._compiled()
        if table is None:
            return list(map(counts.__getitem__, pieces))
        return table.piece_counts(
            pieces, counts, counts.__getitem__, _CACHEABLE_PIECE_LEN, _CACHE_MAX_ENTRIES
        )

    def _encode_piece(self, piece: str) -> tuple[int, ...]:
        table = self._compiled()
        if table is not None:
            tokens = table.encode(piece)
            if tokens is not None:
                return tokens
            # None: longer than the table's max_piece, or a byte that is no token
            # (the path below raises the clear error naming it)
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
        return tuple(encode_backtracking(self.bpe, data))

    def split(self, text: str) -> list[str]:
        """The pre-split pieces of ``text`` (after surrogate fixing)."""
        return self._split(check_text(text))

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ``text``, treating text that looks like special tokens as ordinary text."""
        text = check_text(text)
        tokens_of = self._pieces.__getitem__
        table = self._compiled()
        kind = self._scan_kind
        if table is None or not kind:
            return list(chain.from_iterable(map(tokens_of, self._split(text))))
        # as in count: ASCII stretches in C, the rest through the regex and the cache
        if text.isascii():
            return table.encode_ascii(text, 0, len(text), kind, tokens_of)
        out: list[int] = []
        slow = self._splitter.pattern.findall
        for is_ascii, start, end in self._splitter.stretches(text):
            if is_ascii:
                out += table.encode_ascii(text, start, end, kind, tokens_of)
            else:
                out += chain.from_iterable(map(tokens_of, slow(text, start, end)))
        return out

    def count(self, text: str) -> int:
        """``len(encode_ordinary(text))``, without building the token list."""
        text = check_text(text)
        table = self._compiled()
        kind = self._scan_kind
        if table is None or not kind:
            return self._count_pieces(self._split(text))
        # ASCII stretches are split and counted in C (short pieces are not worth a
        # cache there: the whole piece is one hash look-up, and most are one token);
        # the rest by the regex and the count cache.
        fallback = self._piece_counts.__getitem__
        if text.isascii():
            return table.count_ascii(text, 0, len(text), kind, fallback)
        total = 0
        slow = self._splitter.pattern.findall
        for is_ascii, start, end in self._splitter.stretches(text):
            if is_ascii:
                total += table.count_ascii(text, start, end, kind, fallback)
            else:
                total += self._count_pieces(slow(text, start, end))
        return total

    def count_till_limit(self, text: str, limit: int) -> int | None:
        """``count(text)`` if it is <= ``limit``, else ``None``; exact, stops early."""
        text = check_text(text)
        limit = _check_limit(limit)
        if self.pat_str is None:
            return self.bpe.count_till_limit(text.encode("utf-8"), limit)
        table = self._compiled()
        kind = self._scan_kind
        if table is None or not kind:
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
        for m in compile_pattern(self.pat_str).finditer(text, start, end):
            piece = m.group()
            if len(piece) <= _CACHEABLE_PIECE_LEN:
                total += len(pieces[piece])
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

    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = set(),  # noqa: B006
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[int]:
        """Encode ``text`` with tiktoken's special-token rules.

        Text matching a special token raises ``ValueError`` unless the token is in
        ``allowed_special`` (then it becomes that token) or excluded from
        ``disallowed_special`` (then it is ordinary text).
        """
        if not isinstance(text, str):
            check_text(text)  # raises the TypeError
        if allowed_special == "all":
            allowed_special = self.special_tokens_set
        else:
            # Like tiktoken, strings that are not special tokens are ignored here.
            allowed_special = set(allowed_special) & self.special_tokens_set
        if disallowed_special == "all":
            disallowed_special = self.special_tokens_set - allowed_special
        if disallowed_special:
            match = _special_token_regex(frozenset(disallowed_special)).search(text)
            if match is not None:
                raise ValueError(
                    f"Encountered text corresponding to disallowed special token {match.group()!r}.\n"
                    f"If you want this text to be encoded as a special token, pass it to "
                    f"`allowed_special`, e.g. `allowed_special={{{match.group()!r}, ...}}`.\n"
                    f"If you want this text to be encoded as normal text, disable the check for "
                    f"this token by passing `disallowed_special=(enc.special_tokens_set - "
                    f"{{{match.group()!r}}})`.\n"
                    f"To disable this check for all special tokens, pass `disallowed_special=()`.\n"
                )
        text = check_text(text)
        if not allowed_special:
            return self.encode_ordinary(text)
        out: list[int] = []
        start = 0
        for m in _special_token_regex(frozenset(allowed_special)).finditer(text):
            out.extend(self.encode_ordinary(text[start : m.start()]))
            out.append(self._special_tokens[m.group()])
            start = m.end()
        out.extend(self.encode_ordinary(text[start:]))
        return out

    def encode_batch(self, texts: Iterable[str], **kwargs) -> list[list[int]]:
        return [self.encode(t, **kwargs) for t in texts]

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        if isinstance(text_or_bytes, str):
            if text_or_bytes in self._special_tokens:
                return self._special_tokens[text_or_bytes]
            text_or_bytes = text_or_bytes.encode("utf-8")
        token = self.bpe.ranks.get(bytes(text_or_bytes))
        if token is None:
            raise KeyError(text_or_bytes)
        return token

    # ---------------------------------------------------------------- decoding
    def decode_bytes(self, tokens: Iterable[int]) -> bytes:
        bpe_tokens = self.bpe.tokens
        n = len(bpe_tokens)
        special = self._special_decoder
        out = []
        for t in tokens:
            if isinstance(t, int) and 0 <= t < n:
                out.append(bpe_tokens[t])
            elif t in special:
                out.append(special[t])
            else:
                raise ValueError(f"invalid token id {t!r} for encoding {self.name!r}")
        return b"".join(out)

    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token: int) -> bytes:
        return self.decode_bytes([token])

    def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]:
        return [self.decode_bytes([t]) for t in tokens]

    # ------------------------------------------------------------ exact cuts
    def split_at(self, text: str, max_tokens: int) -> int:
        """Largest ``i`` (a character index) such that ``count(text[:i]) <= max_tokens``.

        A str holding surrogate pairs is counted as tiktoken counts it (pairs joined);
        ``i`` is an index into ``text`` itself, never between the halves of a pair."""
        from .cuts import text_split_at

        budget = _check_limit(max_tokens, "max_tokens")
        fixed = check_text(text)
        i = text_split_at(self, fixed, budget)
        offs = caller_offsets(text, fixed)
        return i if offs is None else offs[i]

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` with at most ``max_tokens`` tokens."""
        return text[: self.split_at(text, max_tokens)]

    def truncate_start(self, text: str, max_tokens: int) -> str:
        """The longest suffix of ``text`` with at most ``max_tokens`` tokens (a suffix of
        ``text`` itself, as for :meth:`split_at`)."""
        from .cuts import text_split_at_start

        budget = _check_limit(max_tokens, "max_tokens")
        fixed = check_text(text)
        i = text_split_at_start(self, fixed, budget)
        offs = caller_offsets(text, fixed)
        return text[i if offs is None else offs[i] :]


# ASCII pieces of at most this many bytes that are not one token go through the merge
# loop below instead of the backtracking encoder: its set-up (automaton scan, pair
# checks) costs more than a few dict lookups on so few bytes (measured on the distinct
# pieces of 1 MB of Shakespeare, o200k: 4-7 bytes 4.2 vs 5.7 us, 8-11 bytes 6.8 vs
# 7.2 us, 12-15 bytes 10.0 vs 9.3 us).  Not for non-ASCII pieces: starting from single
# bytes, the loop first rebuilds every multi-byte character (a cold count of 1 MB of
# multilingual text: 0.28 s with them, 0.25 s without).  ``heap.encode_heap`` is the same
# definition with a heap; on these pieces its set-up costs more (6.2 vs 5.0 us per piece,
# a cold count of 1 MB of Shakespeare 0.128 vs 0.120 s), hence this list version.
_SHORT_PIECE = 10
_NO_RANK = 1 << 62
# Most short ASCII pieces that are not one token are two (English: 3 in 4).  Two tokens
# a + b = piece that BPE keeps adjacent (``is_valid_token_pair``) are the piece's BPE
# encoding: an encoding whose adjacent pairs are all valid is the BPE encoding (the
# argument the backtracking encoder rests on).  Trying the splits into two tokens first
# costs a few dict lookups; on the distinct pieces of 1 MB of Shakespeare and of black's
# source it cut the piece-encoding time by 20-30 %.  Not for non-ASCII pieces, which are
# mostly three tokens or more (neutral to slower on the multilingual corpus).
_TWO_TOKEN_PIECE = 16


def _two_tokens(bpe, data: bytes, get) -> tuple[int, int] | None:
    """The BPE encoding of ``data`` if it is two tokens, else None (see above)."""
    tokens, left, right, n = bpe.tokens, bpe.split_left, bpe.split_right, len(bpe.tokens)
    for i in range(len(data) - 1, 0, -1):  # longest first token first: the usual answer
        a = get(data[:i])
        if a is None:
            continue
        b = get(data[i:])
        if b is not None and _is_valid_pair(get, tokens, left, right, a, b, n):
            return (a, b)
    return None


def _merge_short(data: bytes, get) -> tuple[int, ...]:
    """BPE by its definition (merge the lowest-ranked adjacent pair, leftmost first),
    quadratic: only for a handful of bytes.  ``bounds`` are the part boundaries and
    ``pair[i]`` the rank of parts ``i`` and ``i + 1`` merged (``_NO_RANK`` if no token)."""
    n = len(data)
    bounds = list(range(n + 1))
    pair = [get(data[i : i + 2], _NO_RANK) for i in range(n - 1)]
    while pair:
        best = min(pair)
        if best == _NO_RANK:
            break
        i = pair.index(best)  # leftmost among equal ranks
        del bounds[i + 1]
        del pair[i]
        if i < len(pair):
            pair[i] = get(data[bounds[i] : bounds[i + 2]], _NO_RANK)
        if i:
            pair[i - 1] = get(data[bounds[i - 1] : bounds[i + 1]], _NO_RANK)
    return tuple([get(data[bounds[k] : bounds[k + 1]]) for k in range(len(bounds) - 1)])


def _whole_text(text: str) -> list[str]:
    return [text] if text else []


@functools.lru_cache(maxsize=128)
def _special_token_regex(tokens: frozenset[str]) -> "regex.Pattern[str]":
    # Longest first so that a special token that is a prefix of another loses.
    inner = "|".join(regex.escape(t) for t in sorted(tokens, key=lambda t: (-len(t), t)))
    return regex.compile(f"({inner})")


def _rebuild(name, pat_str, bpe, special_tokens) -> Encoding:
    return Encoding(name, pat_str=pat_str, bpe=bpe, special_tokens=special_tokens)
