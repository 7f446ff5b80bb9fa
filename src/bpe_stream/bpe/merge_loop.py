"""BPE's merge loop for short pieces, in Python (the compiled twin is ``_native/merge_loop.c``).

``Encoding`` encodes every piece it has not seen yet; that per-piece cost decides how
fast a first pass over new text is.  With the compiled core (:mod:`.native`) pieces are
encoded in C: the same loop as :func:`_merge_short` below for short pieces, the
backtracking encoder for long ones.  Without it (no C compiler, or
``BPE_STREAM_PURE_PYTHON`` set) the functions here answer the same, only slower.
"""

from __future__ import annotations

from .native import compiled_available

__all__ = ["compiled_available", "merge_table_for"]


def merge_table_for(bpe):
    """The compiled core of ``bpe`` (the object that encodes pieces in C), or None when
    ``bpe`` runs in pure Python."""
    return bpe._core


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
    pair_ok = bpe.pair_ok
    for i in range(len(data) - 1, 0, -1):  # longest first token first: the usual answer
        a = get(data[:i])
        if a is None:
            continue
        b = get(data[i:])
        if b is not None and pair_ok(a, b):
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
