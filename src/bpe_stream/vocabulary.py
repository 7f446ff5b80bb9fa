"""The vocabulary model: a byte-pair encoding given by an ordered token list.

Invariant: token id == rank, and every token encodes to itself under the original
BPE algorithm (repeatedly merge the adjacent pair whose concatenation is the
lowest-ranked token, leftmost first; the semantics tiktoken implements).

Everything the encoders need is derived from the token list once:

* ``split_left[t], split_right[t]``: the two tokens BPE holds just before it
  produces ``t`` when encoding ``token_bytes(t)`` on its own (``(t, t)`` for a
  token that is a single byte).  Building this table *is* the construction check:
  a token without such a pair would not encode to itself, and is rejected.
* ``next_prefix[t]``: the longest token that is a strict prefix of ``t`` (-1 if
  none), so that walking it enumerates every token matching at a position,
  longest first.
* ``continuation_masks[t]``: a 256-bit int with bit ``c`` set iff some suffix of
  ``t`` followed by byte ``c`` starts a token.  ``is_valid_token_pair(a, b)`` only
  ever looks up tokens that straddle the boundary, i.e. start with a suffix of
  ``a`` followed by ``b``'s first byte; if that bit is clear the pair is valid
  without unwinding anything (true for ~85 % of adjacent pairs on prose).
* one Aho-Corasick automaton over all tokens (bytes mapped to ``str`` through
  latin-1, so automaton offsets are byte offsets), used for leftmost-longest
  matching and for all overlapping matches.

``is_valid_token_pair(a, b)`` answers whether BPE keeps ``a`` and ``b`` adjacent when
encoding ``token_bytes(a) + token_bytes(b)``.  It unwinds the merge history of the
two tokens from the latest merge backwards and fails as soon as a pair across the
boundary would have been merged earlier than the merge that actually happened.
A token sequence in which every adjacent pair is valid *is* the BPE encoding of
its bytes (proof in the README), which is what every encoder here relies on.

Building the tables costs O(sum of token lengths^2) once; they are cached on disk
by :mod:`bpe_stream.cache`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import ahocorasick

__all__ = ["BytePairEncoding", "METHODS"]

METHODS = ("backtracking", "table", "heap", "greedy", "minimal")


def _latin1(data: bytes) -> str:
    return data.decode("latin-1")


class BytePairEncoding:
    """A byte-level BPE vocabulary with the tables of the Rust ``bpe`` crate.

    >>> bpe = BytePairEncoding.from_tokens([b"a", b"b", b"c", b"ab", b"cb", b"ac", b"bb", b"cbb", b"acbb"])
    >>> bpe.encode(b"abacb")
    [3, 5, 1]
    >>> bpe.decode([3, 5, 1])
    b'abacb'
    >>> bpe.count(b"abacb")
    3
    """

    def __init__(self, tokens: Sequence[bytes], *, _tables: dict | None = None):
        tokens = list(tokens)
        self.tokens: list[bytes] = tokens
        self.ranks: dict[bytes, int] = {}
        for rank, token in enumerate(tokens):
            if not isinstance(token, (bytes, bytearray)):
                raise TypeError(f"token {rank} is {type(token).__name__}, expected bytes")
            if not token:
                raise ValueError(f"token {rank} is empty")
            if token in self.ranks:
                raise ValueError(
                    f"token {rank} {bytes(token)!r} duplicates token {self.ranks[token]}"
                )
            self.ranks[bytes(token)] = rank
        self.token_lens: list[int] = [len(t) for t in tokens]
        self.max_token_len: int = max(self.token_lens, default=0)
        if _tables is None:
            _tables = _build_tables(self)
        self.split_left: list[int] = _tables["split_left"]
        self.split_right: list[int] = _tables["split_right"]
        self.next_prefix: list[int] = _tables["next_prefix"]
        self.continuation_masks: list[int] = _tables["continuation_masks"]
        self.automaton = _tables["automaton"]

    # ------------------------------------------------------------------ building
    @classmethod
    def from_tokens(cls, tokens: Sequence[bytes]) -> "BytePairEncoding":
        """Build from tokens ordered by rank (token id == position in the list)."""
        if isinstance(tokens, (bytes, str)):
            raise TypeError("from_tokens expects a sequence of bytes tokens, not a single string")
        return cls(tokens)

    @classmethod
    def from_tiktoken_file(cls, path) -> "BytePairEncoding":
        """Build from a ``.tiktoken`` file (``base64 rank`` per line, plain or gzip)."""
        from .loading import read_tiktoken_file, tokens_from_ranks

        return cls(tokens_from_ranks(read_tiktoken_file(path)))

    @classmethod
    def from_ranks(cls, mergeable_ranks: dict[bytes, int]) -> "BytePairEncoding":
        """Build from a tiktoken ``mergeable_ranks`` dict (ranks must be 0..n-1)."""
        from .loading import tokens_from_ranks

        return cls(tokens_from_ranks(mergeable_ranks))

    def __getstate__(self):
        return {"tokens": self.tokens, "tables": self._tables()}

    def __setstate__(self, state):
        self.__init__(state["tokens"], _tables=state["tables"])

    def _tables(self) -> dict:
        return {
            "split_left": self.split_left,
            "split_right": self.split_right,
            "next_prefix": self.next_prefix,
            "continuation_masks": self.continuation_masks,
            "automaton": self.automaton,
        }

    # ------------------------------------------------------------------ queries
    def __len__(self) -> int:
        return len(self.tokens)

    def __repr__(self) -> str:
        return f"<BytePairEncoding with {len(self.tokens)} tokens>"

    def token_bytes(self, token: int) -> bytes:
        return self.tokens[token]

    def decode(self, ids: Iterable[int]) -> bytes:
        tokens = self.tokens
        try:
            return b"".join([tokens[i] for i in ids])
        except (IndexError, TypeError):
            for i in ids:
                if not isinstance(i, int) or not 0 <= i < len(tokens):
                    raise ValueError(f"invalid token id {i!r} (vocabulary has {len(tokens)} tokens)") from None
            raise

    def merged_token(self, token1: int, token2: int) -> int | None:
        """The pair -> merged token lookup: the token BPE makes of ``token1`` next to
        ``token2``, or None.  Looked up by bytes, because under BPE's rule any adjacent
        pair whose bytes concatenate to a token merges, not only the pair in that
        token's split table."""
        return self.ranks.get(self.tokens[token1] + self.tokens[token2])

    def is_valid_token_pair(self, token1: int, token2: int) -> bool:
        """Whether BPE keeps ``token1`` and ``token2`` adjacent in the encoding of their bytes."""
        if not (self.continuation_masks[token1] >> self.tokens[token2][0]) & 1:
            return True
        return _is_valid_pair(
            self.ranks.get, self.tokens, self.split_left, self.split_right, token1, token2, len(self.tokens)
        )

    # ------------------------------------------------------------------ encoding
    def encode(self, data: bytes, method: str = "backtracking") -> list[int]:
        """Encode bytes with one of :data:`METHODS` (no pre-splitting).

        ``backtracking``, ``table`` and ``heap`` give BPE's encoding; ``greedy``
        (leftmost-longest) and ``minimal`` (fewest tokens) do *not*, and exist for
        comparison.
        """
        data = _check_bytes(data)
        if method == "backtracking":
            from .backtracking import encode_backtracking

            return encode_backtracking(self, data)
        if method == "table":
            from .table import encode_table

            return encode_table(self, data)
        if method == "heap":
            from .heap import encode_heap

            return encode_heap(self, data)
        if method == "greedy":
            from .greedy import encode_greedy

            return encode_greedy(self, data)
        if method == "minimal":
            from .greedy import encode_minimal

            return encode_minimal(self, data)
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")

    def count(self, data: bytes) -> int:
        """Number of tokens in BPE's encoding of ``data``."""
        from .backtracking import encode_backtracking

        return len(encode_backtracking(self, _check_bytes(data)))

    def count_till_limit(self, data: bytes, limit: int) -> int | None:
        """``count(data)`` if it is <= ``limit``, else ``None``; exact, stops early."""
        from .table import count_till_limit

        return count_till_limit(self, _check_bytes(data), _check_limit(limit))

    def split_at(self, data: bytes, max_tokens: int) -> int:
        """Largest ``i`` such that ``count(data[:i]) <= max_tokens``."""
        from .cuts import bytes_split_at

        return bytes_split_at(self, _check_bytes(data), _check_limit(max_tokens, "max_tokens"))

    def truncate(self, data: bytes, max_tokens: int) -> bytes:
        """The longest prefix of ``data`` with at most ``max_tokens`` tokens."""
        return data[: self.split_at(data, max_tokens)]

    def truncate_start(self, data: bytes, max_tokens: int) -> bytes:
        """The longest suffix of ``data`` with at most ``max_tokens`` tokens."""
        from .cuts import bytes_split_at_start

        data = _check_bytes(data)
        return data[bytes_split_at_start(self, data, _check_limit(max_tokens, "max_tokens")) :]

    def missing_byte_error(self, data: bytes, pos: int) -> ValueError:
        return ValueError(
            f"byte 0x{data[pos]:02x} at offset {pos} is not in the vocabulary, so it cannot be encoded"
        )


def _check_bytes(data) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, str):
        raise TypeError("expected bytes, got str (encode it, or use an Encoding for text)")
    raise TypeError(f"expected bytes, got {type(data).__name__}")


def _check_limit(limit, name: str = "limit") -> int:
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"{name} must be an int, got {type(limit).__name__}")
    if limit < 0:
        raise ValueError(f"{name} must be >= 0, got {limit}")
    return limit


def _is_valid_pair(ranks_get, tokens, split_left, split_right, token1, token2, limit) -> bool:
    # Unwind the merges that built token1 (from the right) and token2 (from the
    # left), always undoing the most recent one.  `limit` is the rank of the merge
    # just undone: a pair across the boundary whose merged token ranks below it
    # would have been merged first, so the pair is not what BPE produces.  On the
    # right side ties break leftmost-first, hence the `+ 1`.
    while True:
        combined = ranks_get(tokens[token1] + tokens[token2])
        if combined is not None and combined < limit:
            return False
        if token1 > token2:
            limit = token1
            token1 = split_right[token1]
            if token1 == limit:
                limit = token2 + 1
                token2 = split_left[token2]
                if token2 + 1 == limit:
                    return True
        else:
            limit = token2 + 1
            token2 = split_left[token2]
            if token2 + 1 == limit:
                limit = token1
                token1 = split_right[token1]
                if token1 == limit:
                    return True


def _build_tables(bpe: BytePairEncoding) -> dict:
    tokens = bpe.tokens
    ranks = bpe.ranks
    ranks_get = ranks.get
    n = len(tokens)
    split_left = list(range(n))
    split_right = list(range(n))
    for rank, token in enumerate(tokens):
        if len(token) == 1:
            continue
        # The pair BPE holds just before producing `token` is the unique split
        # (a, b) into two earlier tokens that BPE keeps adjacent with only the
        # tokens ranked below `token` available.  Try prefixes longest first.
        for cut in range(len(token) - 1, 0, -1):
            left = ranks_get(token[:cut])
            if left is None or left >= rank:
                continue
            right = ranks_get(token[cut:])
            if right is None or right >= rank:
                continue
            if _is_valid_pair(ranks_get, tokens, split_left, split_right, left, right, rank):
                split_left[rank] = left
                split_right[rank] = right
                break
        else:
            raise ValueError(
                f"token {rank} {token!r} does not encode to itself under BPE with the "
                "tokens ranked before it, so the vocabulary breaks BPE's construction rule"
            )
    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for rank, token in enumerate(tokens):
        automaton.add_word(_latin1(token), rank)
    automaton.make_automaton()
    next_prefix = [-1] * n
    for rank, token in enumerate(tokens):
        for cut in range(len(token) - 1, 0, -1):
            shorter = ranks_get(token[:cut])
            if shorter is not None:
                next_prefix[rank] = shorter
                break
    # Bytes that can follow each strict prefix of a token, as bit masks.
    followers: dict[bytes, int] = {}
    for token in tokens:
        for cut in range(1, len(token)):
            prefix = token[:cut]
            followers[prefix] = followers.get(prefix, 0) | (1 << token[cut])
    followers_get = followers.get
    continuation_masks = [0] * n
    for rank, token in enumerate(tokens):
        mask = 0
        for cut in range(len(token)):
            mask |= followers_get(token[cut:], 0)
        continuation_masks[rank] = mask
    return {
        "split_left": split_left,
        "split_right": split_right,
        "next_prefix": next_prefix,
        "continuation_masks": continuation_masks,
        "automaton": automaton,
    }
