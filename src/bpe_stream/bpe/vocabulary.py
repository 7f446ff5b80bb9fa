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
  latin-1, so automaton offsets are byte offsets), used by the pure-Python
  encoders for leftmost-longest matching and for all overlapping matches (built
  on first use).

Two implementations hold these tables.  With the compiled core (:mod:`.native`) the
tables live in C arrays (``_native/vocab.c``, built in about 0.3 s for o200k) and
``encode``/``count`` run there without the GIL; the Python attributes above
(``tokens``, ``ranks``, ``split_left``, ...) are then made from the C arrays on first
access, so that a process that only counts never holds them.  Without it every
table is a Python list built by :mod:`.tables`.  Both give the same answers.

``is_valid_token_pair(a, b)`` answers whether BPE keeps ``a`` and ``b`` adjacent when
encoding ``token_bytes(a) + token_bytes(b)``.  It unwinds the merge history of the
two tokens from the latest merge backwards and fails as soon as a pair across the
boundary would have been merged earlier than the merge that actually happened.
A token sequence in which every adjacent pair is valid *is* the BPE encoding of
its bytes (proof in ``docs/design/correctness.md``), which is what every encoder here relies on.

Building the tables costs O(sum of token lengths^2) once; the split tables are
cached on disk by :mod:`bpe_stream.encoding.cache` (plain arrays).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence

from .backtracking import encode_backtracking
from .checks import _check_bytes, _check_limit
from .cuts import bytes_split_at, bytes_split_at_start
from .greedy import encode_greedy, encode_minimal
from .heap import encode_heap
from .native import Core, classify_waiting_compiled, compiled_available, drop_tokens_compiled, tokens_holding_compiled
from .pairs import pair_test
from .ranks import read_tiktoken_file, sorted_ranks, tokens_from_ranks
from .table import count_till_limit, encode_table
from .tables import (
    UnreachableTokens,
    _build_tables,
    build_automaton,
    check_splits,
    classify_waiting,
    derived_tables,
    tokens_holding,
    unreachable_error,
)

__all__ = ["BytePairEncoding", "METHODS"]

METHODS = ("backtracking", "table", "heap", "greedy", "minimal")

# Attributes made on first access (from the compiled core's arrays, or for the
# automaton from the token list): see BytePairEncoding.__getattr__.
_LAZY = frozenset(
    ["tokens", "ranks", "token_lens", "split_left", "split_right", "next_prefix", "continuation_masks", "automaton",
     "pair_ok"]
)


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
        native: bool | None = None,
    ):
        if native is None:
            native = compiled_available()
        tokens = list(tokens)
        #: for a vocabulary read from a rank table (see :meth:`from_rank_table`): the table's
        #: id of each token (None: the position), and the tokens BPE never produces from their
        #: bytes (only a whole pre-split piece equal to one is that token), by their id
        self.ids: list[int] | None = None if ids is None else list(ids)
        self.unreachable: dict[bytes, int] = dict(unreachable or {})
        if self.ids is not None and len(self.ids) != len(tokens):
            raise ValueError(f"{len(self.ids)} ids for {len(tokens)} tokens")
        if tokens and set(map(type, tokens)) != {bytes}:  # the usual case checked at C speed
            for rank, token in enumerate(tokens):
                if not isinstance(token, (bytes, bytearray)):
                    raise TypeError(f"token {rank} is {type(token).__name__}, expected bytes")
                if type(token) is not bytes:
                    tokens[rank] = bytes(token)
        self._core = None
        if native:
            self._init_core(tokens, _tables)
            return
        self.tokens: list[bytes] = tokens
        self.ranks: dict[bytes, int] = {}
        for rank, token in enumerate(tokens):
            if not token:
                raise ValueError(f"token {rank} is empty")
            if token in self.ranks:
                raise ValueError(f"token {rank} {token!r} duplicates token {self.ranks[token]}")
            self.ranks[token] = rank
        self._n = len(tokens)
        self.token_lens: list[int] = [len(t) for t in tokens]
        self.max_token_len = max(self.token_lens, default=0)
        if _tables is None or not check_splits(tokens, _tables.get("split_left", ()), _tables.get("split_right", ()),
                                               frozenset(_tables.get("exceptional", ()))):
            _tables = _build_tables(self)
        elif "next_prefix" not in _tables or "continuation_masks" not in _tables:
            next_prefix, masks = derived_tables(tokens, self.ranks)
            _tables = dict(_tables, next_prefix=next_prefix, continuation_masks=masks)
        #: tokens whose merge time is not their rank (see bpe.pairs); empty for most vocabularies
        self.exceptional: frozenset[int] = frozenset(_tables.get("exceptional", ()))
        self.split_left: list[int] = list(_tables["split_left"])
        self.split_right: list[int] = list(_tables["split_right"])
        self.next_prefix: list[int] = list(_tables["next_prefix"])
        self.continuation_masks: list[int] = list(_tables["continuation_masks"])
        #: ``pair_ok(a, b)``: the pair test of this vocabulary (without the mask pre-filter)
        self.pair_ok = pair_test(self)

    def _init_core(self, tokens: list[bytes], _tables: dict | None) -> None:
        """The compiled core of ``tokens``: from stored split tables when they check, else
        built in C; the tokens its first pass leaves are decided as :func:`tables._splits`
        decides them (``UnreachableTokens`` for those BPE never builds)."""
        core = None
        exceptional: frozenset[int] = frozenset()
        if _tables is not None and "split_left" in _tables:
            exceptional = frozenset(_tables.get("exceptional", ()))
            core = _core_from_splits(tokens, _tables["split_left"], _tables["split_right"], exceptional)
        if core is None:
            built = Core.build(tokens)  # the tries and masks only where nothing waits
            if isinstance(built, tuple):
                core, exceptional = _settle_parts(built, tokens)
            else:
                core = built
        self._core = core
        self._n = len(core)
        self.max_token_len: int = core.max_token_len
        self.exceptional = exceptional

    def __getattr__(self, name):
        # Only reached when the attribute is not set: the tables of the compiled core
        # as Python lists, and the automaton, made on first access and kept.
        if name not in _LAZY:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        core = self.__dict__.get("_core")
        if name == "automaton":
            value = build_automaton(self.tokens)
        elif core is None:
            raise AttributeError(name)
        elif name == "tokens":
            value = core.tokens()
        elif name == "ranks":
            value = {token: rank for rank, token in enumerate(self.tokens)}
        elif name == "token_lens":
            value = core.token_lens()
        elif name == "continuation_masks":
            value = _masks_from_bytes(core.masks_bytes())
        elif name == "pair_ok":
            value = core.is_valid_pair
        else:
            value = getattr(core, name)()
        # Two threads may both make it; the values are equal and one is kept.
        return self.__dict__.setdefault(name, value)

    @classmethod
    def _from_core(cls, core, *, ids=None, unreachable=None, exceptional=None) -> "BytePairEncoding":
        """A vocabulary around a built compiled core (``exceptional``: the tokens flagged
        in it; None: settle the tokens its first pass left, ``UnreachableTokens`` if some
        never build)."""
        if exceptional is None:
            core, exceptional = _settle(core, None)
        self = cls.__new__(cls)
        self.ids = None if ids is None else list(ids)
        self.unreachable = dict(unreachable or {})
        self._core = core
        self._n = len(core)
        self.max_token_len = core.max_token_len
        self.exceptional = frozenset(exceptional)
        return self

    @property
    def native(self) -> bool:
        """Whether this vocabulary's tables and encoders are the compiled core's."""
        return self._core is not None

    def _python_twin(self) -> "BytePairEncoding":
        """The same vocabulary with every table and encoder in pure Python (kept)."""
        if self._core is None:
            return self
        twin = self.__dict__.get("_twin")
        if twin is None:
            twin = BytePairEncoding(
                self.tokens,
                ids=self.ids,
                unreachable=self.unreachable,
                _tables={
                    "exceptional": self.exceptional,
                    "split_left": self.split_left,
                    "split_right": self.split_right,
                    "next_prefix": self.next_prefix,
                    "continuation_masks": self.continuation_masks,
                },
                native=False,
            )
            twin = self.__dict__.setdefault("_twin", twin)
        return twin

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
            drop = sorted({d for d in e.tokens if 0 <= d < len(tokens)})
            kept_ids = _without_positions(ids, drop)
            kept_ids = None if kept_ids == list(range(len(kept_ids))) else kept_ids
            unreachable = {tokens[i]: ids[i] for i in drop}
            settled = getattr(e, "settled", None)
            if settled is not None:
                bpe = _without_unreachable(cls, drop, settled, kept_ids, unreachable)
                if bpe is not None:
                    return bpe
            return cls(_without_positions(tokens, drop), ids=kept_ids, unreachable=unreachable)

    def __getstate__(self):
        # Data only: the tokens and the split tables (the rest is rebuilt from them).
        state = {"tokens": self.tokens, "tables": {"split_left": self.split_left, "split_right": self.split_right,
                                                   "exceptional": sorted(self.exceptional)}}
        if self.ids is not None or self.unreachable:
            state["ids"], state["unreachable"] = self.ids, self.unreachable
        return state

    def __setstate__(self, state):
        # Pickles of 0.1.0 also hold the other tables and an automaton: not needed.
        tables = state.get("tables") or {}
        self.__init__(state["tokens"], ids=state.get("ids"), unreachable=state.get("unreachable"),
                      _tables={k: tables[k] for k in ("split_left", "split_right", "exceptional") if k in tables})

    # ------------------------------------------------------------------ queries
    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        extra = f", {len(self.unreachable)} unreachable" if self.unreachable else ""
        return f"<BytePairEncoding with {self._n} tokens{extra}>"

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
        if self._core is not None:
            return self._core.is_valid_pair(token1, token2)
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
            if self._core is not None:
                return self._core.encode_bytes(data)
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
        if self._core is not None:
            return self._core.count_bytes(_check_bytes(data))
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


def _core_from_splits(tokens: list[bytes], split_left, split_right, exceptional=frozenset()):
    """A compiled core from the tokens and stored split tables (checked there), or None
    if they do not fit (then the tables are built anew)."""
    from array import array

    offsets = array("I", [0])
    at = 0
    for token in tokens:
        at += len(token)
        offsets.append(at)
    flags = None
    if exceptional:
        flags = bytearray(len(tokens))
        for r in exceptional:
            flags[r] = 1
    try:
        return Core.from_parts(
            b"".join(tokens), offsets.tobytes(), array("i", split_left).tobytes(), array("i", split_right).tobytes(),
            None if flags is None else bytes(flags),
        )
    except (ValueError, TypeError, OverflowError, IndexError):
        return None


def _settle(core, tokens: list[bytes] | None):
    """``(core, exceptional)``: the tokens the C first pass left (split -1) decided as
    :func:`.tables._splits` decides them.  Its first pass treats them as absent, so every
    token that holds one is decided again by BPE's merge loop (:func:`.tables.classify_waiting`;
    one decided again needlessly only takes the slower pair test).  ``UnreachableTokens``
    names the tokens BPE never builds; without them the core is final."""
    waiting = core.unreachable()
    if not waiting:
        return core, frozenset()
    return _settle_parts((*core.parts(), list(waiting)), core.tokens() if tokens is None else tokens)


def _settle_parts(first, tokens: list[bytes]):
    """:func:`_settle` of a first pass given as ``Core.build`` gives one where tokens
    wait: ``(blob, offsets, split_left, split_right, waiting)``."""
    from array import array

    blob, offsets, left_raw, right_raw, waiting = first
    left, right = array("i", left_raw).tolist(), array("i", right_raw).tolist()
    held = tokens_holding_compiled(blob, offsets, list(waiting))
    classify_c = classify_waiting_compiled() if held is not None else None
    if classify_c is not None:
        # the same decisions in C (_native/waiting.c): no rank dict, no Python merge loop
        flagged, unreachable = classify_c(blob, offsets, held)
        for r, a, b in flagged:
            left[r], right[r] = a, b
        exceptional, unreachable = {r for r, _, _ in flagged}, set(unreachable)
    else:
        ranks = dict(zip(tokens, range(len(tokens))))
        todo = set(held) if held is not None else tokens_holding(tokens, [tokens[w] for w in waiting])
        exceptional, unreachable = classify_waiting(tokens, ranks.get, todo, left, right)
    if unreachable:
        err = unreachable_error(sorted(unreachable), tokens)
        # what the build of the other tokens alone needs (see _without_unreachable)
        err.settled = (waiting, (blob, offsets, left_raw, right_raw), (left, right), exceptional)
        raise err
    flags = bytearray(len(tokens))
    for r in exceptional:
        flags[r] = 1
    core = Core.from_parts(blob, offsets, array("i", left).tobytes(), array("i", right).tobytes(), bytes(flags))
    return core, frozenset(exceptional)


def _without_positions(seq: list, drop: list[int]) -> list:
    """The items of ``seq`` but those at ``drop`` (increasing positions): a slice per gap
    between them, O(len(seq)) in C-level copies and O(len(drop)) Python steps."""
    out: list = []
    start = 0
    for d in drop:
        out += seq[start:d]
        start = d + 1
    out += seq[start:]
    return out


def _drop_tokens_py(blob: bytes, offsets: bytes, split_left: bytes, split_right: bytes, drop: list[int]):
    """The pure-Python twin of ``_native/dropping.c`` ``drop_tokens``: the parts (as
    ``Core.parts`` gives them) without the tokens at ``drop`` (increasing ranks), the
    others renumbered; a split naming a dropped token, or -1, becomes -1."""
    from array import array
    from itertools import accumulate

    at, left, right = array("I", offsets), array("i", split_left), array("i", split_right)
    n = len(left)
    dropped = set(drop)
    kept = [r for r in range(n) if r not in dropped]
    new = [-1] * n
    for k, r in enumerate(kept):
        new[r] = k
    ends = array("I", [0])
    ends.extend(accumulate(at[r + 1] - at[r] for r in kept))
    renumbered = [array("i", [new[s[r]] if 0 <= s[r] < n else -1 for r in kept]).tobytes() for s in (left, right)]
    return b"".join(blob[at[r] : at[r + 1]] for r in kept), ends.tobytes(), *renumbered


def _without_unreachable(cls, drop: list[int], settled, ids, unreachable):
    """The compiled vocabulary of the tokens but those at ``drop`` (the tokens BPE never
    builds, increasing ranks), made from what the build of all the tokens found
    (``settled``, from :func:`_settle_parts`) instead of a second build: the same core
    ``Core(kept tokens)`` and its settling give, or None.

    Why it is the same: the C first pass decides each token from the usable tokens ranked
    below it, and leaves every unreachable token out of them, so without those tokens it
    gives every other token the same split and leaves the same others waiting; BPE's merge
    loop never forms an unreachable token in any text (what forms inside a text forms on
    its own bytes), so deciding a waiting token by the loop does not depend on them
    either.  Hence the tokens decided again are those holding a token still waiting (a
    subset of the first build's), with the splits the first build's loop gave them, and
    every other token keeps its first-pass split.  ``Core.from_parts`` checks the result.
    The parts without the dropped tokens are gathered and renumbered in C
    (``_native/dropping.c``), no Python step per token."""
    from array import array
    from bisect import bisect_left

    if sys.byteorder != "little":
        return None
    waiting, first_pass, (left, right), exceptional = settled
    blob, offsets, kept_left, kept_right = (drop_tokens_compiled() or _drop_tokens_py)(*first_pass, drop)
    dropped = set(drop)

    def new(r: int) -> int:  # the rank of token r among the kept ones (-1: dropped, or r is -1)
        return -1 if r < 0 or r in dropped else r - bisect_left(drop, r)

    still = [new(w) for w in waiting if w not in dropped]
    held = tokens_holding_compiled(blob, offsets, still) if still else []
    if held is None:
        return None
    held = set(held)
    # the few flagged tokens take the splits the first build's loop gave them
    flagged = sorted((new(r), r) for r in exceptional if new(r) in held)
    split_left, split_right = array("i", kept_left), array("i", kept_right)
    for k, r in flagged:
        split_left[k], split_right[k] = new(left[r]), new(right[r])
    if _any_negative(split_left) or _any_negative(split_right):
        return None
    flags = bytearray(len(split_left))
    for k, _ in flagged:
        flags[k] = 1
    try:
        core = Core.from_parts(blob, offsets, split_left.tobytes(), split_right.tobytes(),
                               bytes(flags) if still else None)
    except (ValueError, TypeError, OverflowError, IndexError):
        return None
    return cls._from_core(core, ids=ids, unreachable=unreachable, exceptional=frozenset(k for k, _ in flagged))


def _any_negative(values) -> bool:
    """Whether an ``array('i')`` holds a negative value: on this little-endian path, whether
    a high byte has its top bit set (one ``bytes.translate`` in C, no Python int per value)."""
    return bool(values.tobytes()[3::4].translate(None, _BELOW_128))


_BELOW_128 = bytes(range(128))


def _masks_from_bytes(raw: bytes) -> list[int]:
    """The core's masks (four native-order 64-bit words per token) as Python ints."""
    import sys

    if sys.byteorder == "little":
        return [int.from_bytes(raw[i : i + 32], "little") for i in range(0, len(raw), 32)]
    return [
        sum(int.from_bytes(raw[i + 8 * w : i + 8 * w + 8], "big") << (64 * w) for w in range(4))
        for i in range(0, len(raw), 32)
    ]
