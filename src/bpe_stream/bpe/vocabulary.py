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
its bytes (proof in ``docs/design/correctness.md``), which is what every encoder here relies on.

Building the tables costs O(sum of token lengths^2) once; they are cached on disk
by :mod:`bpe_stream.encoding.cache`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from .backtracking import encode_backtracking
from .checks import _check_bytes, _check_limit
from .cuts import bytes_split_at, bytes_split_at_start
from .greedy import encode_greedy, encode_minimal
from .heap import encode_heap
from .pairs import pair_test
from .ranks import read_tiktoken_file, sorted_ranks, tokens_from_ranks
from .table import count_till_limit, encode_table
from .tables import UnreachableTokens, _build_tables

__all__ = ["BytePairEncoding", "METHODS"]

METHODS = ("backtracking", "table", "heap", "greedy", "minimal")


class BytePairEncoding:
    """A byte-level BPE vocabulary with the tables of the Rust ``bpe`` crate.

    >>> bpe = BytePairEncoding.from_tokens([b"a", b"b", b"c", b"ab", b"cb", b"ac", b"bb", b"cbb", b"acbb"])
    >>> bpe.encode(b"abacb")
    [3, 0, 4]
    >>> bpe.decode([3, 0, 4])
    b'abacb'
    >>> bpe.count(b"abacb")
    3
    """

    def __init__(
        self,
        tokens: Sequence[bytes],
        *,
        ids: Sequence[int] | None = None,
        unreachable: dict[bytes, int] | None = None,
        _tables: dict | None = None,
    ):
        tokens = list(tokens)
        #: for a vocabulary read from a rank table (see :meth:`from_rank_table`): the table's
        #: id of each token (None: the position), and the tokens BPE never produces from their
        #: bytes (only a whole pre-split piece equal to one is that token), by their id
        self.ids: list[int] | None = None if ids is None else list(ids)
        self.unreachable: dict[bytes, int] = dict(unreachable or {})
        if self.ids is not None and len(self.ids) != len(tokens):
            raise ValueError(f"{len(self.ids)} ids for {len(tokens)} tokens")
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
        #: tokens whose merge time is not their rank (see bpe.pairs); empty for most vocabularies
        self.exceptional: frozenset[int] = frozenset(_tables.get("exceptional", ()))
        self.split_left: list[int] = _tables["split_left"]
        self.split_right: list[int] = _tables["split_right"]
        self.next_prefix: list[int] = _tables["next_prefix"]
        self.continuation_masks: list[int] = _tables["continuation_masks"]
        self.automaton = _tables["automaton"]
        #: ``pair_ok(a, b)``: the pair test of this vocabulary (without the mask pre-filter)
        self.pair_ok = pair_test(self)

    # ------------------------------------------------------------------ building
    @classmethod
    def from_tokens(cls, tokens: Sequence[bytes]) -> "BytePairEncoding":
        """Build from tokens ordered by rank (token id == position in the list)."""
        if isinstance(tokens, (bytes, str)):
            raise TypeError("from_tokens expects a sequence of bytes tokens, not a single string")
        return cls(tokens)

    @classmethod
    def from_tiktoken_file(cls, path: str | os.PathLike[str]) -> "BytePairEncoding":
        """Build from a ``.tiktoken`` file (``base64 rank`` per line, plain or gzip)."""
        return cls(tokens_from_ranks(read_tiktoken_file(path)))

    @classmethod
    def from_ranks(cls, mergeable_ranks: dict[bytes, int]) -> "BytePairEncoding":
        """Build from a tiktoken ``mergeable_ranks`` dict (ranks must be 0..n-1)."""
        return cls(tokens_from_ranks(mergeable_ranks))

    @classmethod
    def from_rank_table(cls, mergeable_ranks: dict[bytes, int]) -> "BytePairEncoding":
        """Build from a rank table as tiktoken reads one: ranks may start above 0 or leave
        holes, and tokens that BPE never produces from their own bytes are kept aside
        (``unreachable``): tiktoken and HF (``ignore_merges``) emit such a token only for a
        pre-split piece that equals it.  Token ``i`` of the result has the table's id
        ``ids[i]`` (``ids`` is None where that is ``i``).

        >>> bpe = BytePairEncoding.from_rank_table({b"a": 0, b"b": 1, b"c": 3, b"abc": 4})
        >>> bpe.tokens, bpe.ids, bpe.unreachable
        ([b'a', b'b', b'c'], [0, 1, 3], {b'abc': 4})
        """
        tokens, ids = sorted_ranks(mergeable_ranks)
        return cls.from_ordered(tokens, ids)

    @classmethod
    def from_ordered(cls, tokens: Sequence[bytes], ids: Sequence[int]) -> "BytePairEncoding":
        """Tokens in rank order (BPE merges the pair whose token comes first) with their ids;
        unreachable tokens are kept aside as in :meth:`from_rank_table`."""
        tokens, ids = list(tokens), list(ids)
        try:
            return cls(tokens, ids=None if ids == list(range(len(ids))) else ids)
        except UnreachableTokens as e:
            drop = set(e.tokens)
            kept = [i for i in range(len(tokens)) if i not in drop]
            kept_ids = [ids[i] for i in kept]
            return cls(
                [tokens[i] for i in kept],
                ids=None if kept_ids == list(range(len(kept))) else kept_ids,
                unreachable={tokens[i]: ids[i] for i in sorted(drop)},
            )

    def __getstate__(self):
        state = {"tokens": self.tokens, "tables": self._tables()}
        if self.ids is not None or self.unreachable:
            state["ids"], state["unreachable"] = self.ids, self.unreachable
        return state

    def __setstate__(self, state):
        self.__init__(state["tokens"], ids=state.get("ids"), unreachable=state.get("unreachable"),
                      _tables=state["tables"])

    def _tables(self) -> dict:
        return {
            "exceptional": self.exceptional,
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
        extra = f", {len(self.unreachable)} unreachable" if self.unreachable else ""
        return f"<BytePairEncoding with {len(self.tokens)} tokens{extra}>"

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
        return self.pair_ok(token1, token2)

    # ------------------------------------------------------------------ encoding
    def encode(self, data: bytes, method: str = "backtracking") -> list[int]:
        """Encode bytes with one of :data:`METHODS` (no pre-splitting).

        ``backtracking``, ``table`` and ``heap`` give BPE's encoding; ``greedy``
        (leftmost-longest) and ``minimal`` (fewest tokens) do *not*, and exist for
        comparison.
        """
        data = _check_bytes(data)
        if method == "backtracking":
            return encode_backtracking(self, data)
        if method == "table":
            return encode_table(self, data)
        if method == "heap":
            return encode_heap(self, data)
        if method == "greedy":
            return encode_greedy(self, data)
        if method == "minimal":
            return encode_minimal(self, data)
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")

    def count(self, data: bytes) -> int:
        """Number of tokens in BPE's encoding of ``data``."""
        return len(encode_backtracking(self, _check_bytes(data)))

    def count_till_limit(self, data: bytes, limit: int) -> int | None:
        """``count(data)`` if it is <= ``limit``, else ``None``; exact, stops early."""
        return count_till_limit(self, _check_bytes(data), _check_limit(limit))

    def split_at(self, data: bytes, max_tokens: int) -> int:
        """Largest ``i`` such that ``count(data[:i]) <= max_tokens``."""
        return bytes_split_at(self, _check_bytes(data), _check_limit(max_tokens, "max_tokens"))

    def truncate(self, data: bytes, max_tokens: int) -> bytes:
        """The longest prefix of ``data`` with at most ``max_tokens`` tokens."""
        return data[: self.split_at(data, max_tokens)]

    def truncate_start(self, data: bytes, max_tokens: int) -> bytes:
        """The longest suffix of ``data`` with at most ``max_tokens`` tokens."""
        data = _check_bytes(data)
        return data[bytes_split_at_start(self, data, _check_limit(max_tokens, "max_tokens")) :]

    def missing_byte_error(self, data: bytes, pos: int) -> ValueError:
        return ValueError(
            f"byte 0x{data[pos]:02x} at offset {pos} is not in the vocabulary, so it cannot be encoded"
        )
