"""The token-pair test: does BPE keep ``a`` and ``b`` adjacent in ``bytes(a) + bytes(b)``?

Invariant: :func:`_is_valid_pair` answers exactly that, by unwinding the merge history
of the two tokens (their split tables) from the latest merge backwards and failing as
soon as a pair across the boundary would have been merged before the merge that
actually happened (ties broken leftmost-first).  A token sequence in which every
adjacent pair is valid *is* BPE's encoding of its bytes (argued in
``docs/design/correctness.md``): every encoder here relies on it.  Cost: a few
steps on real text (about 3.5 on average), bounded by the depth of the two merge trees.

:func:`_valid_pair_memo` adds the continuation-mask pre-filter and a bounded memo for
the hot loops of the table pass and the streaming engines.
"""

from __future__ import annotations


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
        ok = _is_valid_pair(bpe.ranks.get, bpe.tokens, bpe.split_left, bpe.split_right, a, b, len(bpe.tokens))
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        memo[key] = ok
    return ok


_MEMO_SIZE = 4096
