"""Chunks that start deep inside a long piece no run rule covers, in O(byte horizon).

Invariant: for a held text ``T`` (``n`` characters) and a chunk start ``s``,
``far_cut(tc, s, M, final, H)`` is the largest ``j`` with ``count(T[s:j]) <= M`` and its
count, or ``NEED_MORE`` when ``T`` is not held to ``s + H + 1`` and more may follow.  ``H``
is the chunker's byte horizon (``M`` times the longest token, or whole-piece token): a
text of more than ``H`` UTF-8 bytes holds more than ``M`` tokens, and a character is at
least one byte, so no ``j > s + H`` fits and the answer over all ``j`` (held or not) is
the answer over ``T[s : s + H]``, which ``cuts.text_split_at_count`` finds exactly.

Why: ``ChunkView`` re-splits ``T`` from ``s`` until its pieces meet the global split
(rule 1 of :mod:`bpe_stream.chunk.counts`).  From a start inside a long piece that is a
regex match over the rest of the piece, once per chunk: quadratic over a piece cut into
many chunks (a pattern outside the family, or a long piece of a member that none of the
run rules of :mod:`bpe_stream.chunk.member_runs` covers, such as letters with marks for
``letters-marks`` members).  So when the next global boundary after ``s`` lies more than
``far_distance`` characters away, the view skips the head: the cut comes from the slice
``T[s : s + H + 1]``, exact counts of ends from ``count_str`` of ``T[s:j]`` (at most
``H + 1`` characters), and the semantic levels scan from ``s``.  Work per chunk:
O(H) characters, whatever the piece's length.
"""

from __future__ import annotations

from ..text.cuts import text_split_at_count

__all__ = ["far_distance", "far_cut"]


def far_distance(tc, max_tokens: int) -> int:
    """From this many characters to the next global boundary on, a start is far (twice the
    byte horizon: a head read up to there costs about what the slice's cut costs)."""
    return 2 * max_tokens * max(tc._maxlen, tc.whole_max) + 64


def far_cut(tc, s: int, max_tokens: int, final: bool, byte_horizon: int, need_more):
    """``(j, count(T[s:j]))`` for the largest fitting ``j``, or ``need_more`` (see above)."""
    hi = s + byte_horizon + 1
    if hi > tc.n:
        if not final:
            return need_more
        hi = tc.n
    j, c = text_split_at_count(tc.enc, tc.text[s:hi], max_tokens, 0)
    return s + j, c
