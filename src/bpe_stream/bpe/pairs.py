"""The token-pair test: does BPE keep ``a`` and ``b`` adjacent in ``bytes(a) + bytes(b)``?

Invariant: :func:`pair_test` of a vocabulary answers exactly that.  The fast path,
:func:`_is_valid_pair`, unwinds the merge history of the two tokens (their split
tables) from the latest merge backwards and fails as soon as a pair across the
boundary would have been merged before the merge that actually happened (ties broken
leftmost-first).  It takes a token's rank for the time of its merge, which holds for
every token whose parts rank below it.  Real vocabularies hold a few tokens that rank
below one of their parts (Llama 3: 81, e.g. ``"している"``; Qwen3.5: 27), which
BPE builds only once the later part exists: those, and the tokens built from them, are
the vocabulary's *exceptional* tokens.  The unwinding (given them) gives up (``None``)
as soon as one of them takes part, and the pair is then decided by BPE's merge loop on
the pair's bytes (at most ``2 * max_token_len`` of them, memoized).  A token sequence in which every
adjacent pair is valid *is* BPE's encoding of its bytes (``docs/design/correctness.md``):
every encoder here relies on it.  Cost: a few steps on real text (about 3.5 on
average), bounded by the depth of the two merge trees; the merge loop only for pairs
near exceptional tokens.

:func:`_valid_pair_memo` adds a bounded memo for the hot loops of the table pass and the
streaming engines (callers apply the continuation-mask pre-filter first).
"""

from __future__ import annotations


def _is_valid_pair(ranks_get, tokens, split_left, split_right, token1, token2, limit, exceptional=None):
    """True or False; None (undecided) when a token of ``exceptional`` (empty or None: no
    token is) takes part: a spine token of the unwinding, or a token across the
    boundary."""
    # Unwind the merges that built token1 (from the right) and token2 (from the
    # left), always undoing the most recent one.  `limit` is the rank of the merge
    # just undone: a pair across the boundary whose merged token ranks below it
    # would have been merged first, so the pair is not what BPE produces.  On the
    # right side ties break leftmost-first, hence the `+ 1`.
    while True:
        if exceptional and (token1 in exceptional or token2 in exceptional):
            return None
        combined = ranks_get(tokens[token1] + tokens[token2])
        if combined is not None:
            if exceptional and combined in exceptional:
                return None
            if combined < limit:
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


def merge_loop_parts(data: bytes, ranks_get, skip: bytes | None = None) -> list[bytes]:
    """BPE by its definition on ``data``: the parts left when no adjacent pair forms a
    token (``skip``: a token that may not be formed).  Quadratic: for a token or a pair
    of tokens, not for text."""
    parts = [data[i : i + 1] for i in range(len(data))]
    while len(parts) > 1:
        best = -1
        best_rank = None
        for i in range(len(parts) - 1):
            merged = parts[i] + parts[i + 1]
            r = ranks_get(merged)
            if r is not None and merged != skip and (best_rank is None or r < best_rank):
                best, best_rank = i, r
        if best < 0:
            break
        parts[best : best + 2] = [parts[best] + parts[best + 1]]
    return parts


def pair_test(bpe):
    """``ok(a, b)``: whether BPE keeps tokens ``a`` and ``b`` adjacent (no pre-filter)."""
    ranks_get, tokens, left, right, n = bpe.ranks.get, bpe.tokens, bpe.split_left, bpe.split_right, len(bpe.tokens)
    exceptional = bpe.exceptional
    if not exceptional:
        def ok(a: int, b: int) -> bool:
            return _is_valid_pair(ranks_get, tokens, left, right, a, b, n)
        return ok
    exact: dict[tuple[int, int], bool] = {}

    def ok(a: int, b: int) -> bool:
        v = _is_valid_pair(ranks_get, tokens, left, right, a, b, n, exceptional)
        if v is None:
            v = exact.get((a, b))
            if v is None:
                parts = merge_loop_parts(tokens[a] + tokens[b], ranks_get)
                v = len(parts) == 2 and parts[0] == tokens[a]
                if len(exact) >= _MEMO_SIZE:
                    exact.clear()
                exact[(a, b)] = v
        return v

    return ok


def _valid_pair_memo(bpe, a: int, b: int) -> bool:
    """``_is_valid_pair`` for a pair whose continuation-mask bit is set, memoized.

    With the masks only ~15 % of pairs on prose reach this check (0.28 per byte),
    where the memo neither helps nor hurts; on long runs of one byte (spaces) each
    byte tries tens of invalid suffix pairs and the memo makes them ~20x cheaper.
    The memo is small (cleared when full) to stay cache-friendly.
    """
    memo = bpe.__dict__.get("_bpe_stream_memo")
    if memo is None:
        memo = bpe._bpe_stream_memo = {}
    key = (a, b)
    ok = memo.get(key)
    if ok is None:
        ok = bpe.pair_ok(a, b)
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        memo[key] = ok
    return ok


_MEMO_SIZE = 4096
