"""Exact cuts of a byte string: the longest prefix (or suffix) that fits a token budget.

Invariant: ``bytes_split_at(bpe, data, m, start)`` is the largest ``j >= start`` with
``count(data[start:j]) <= m`` over *all* ``j`` (counts are not monotonic), and
``bytes_split_at_start`` the smallest ``i`` with ``count(data[i:]) <= m``.

Bytes are fed in chunks to a raw appendable (per-prefix last token and count), or with
the compiled core to a :class:`~bpe_stream.bpe.table.PrefixTable` (the same counts,
filled in C).  BPE's
encoding of any longer prefix has a token boundary in every window of
``max_token_len`` positions, so its count is at least ``1 + min`` of the counts over
the last window; once that minimum reaches the budget no later prefix fits and the
scan stops.  Work: O(kept + one chunk + max_token_len).  Suffixes are the mirror
image with a prependable encoder.
"""

from __future__ import annotations

from .appendable import BytesAppendable
from .checks import _check_budget, _check_start
from .prependable import BytesPrependable
from .table import PrefixTable

__all__ = ["bytes_split_at", "bytes_split_at_start"]

_CHUNK = 1024


def _scan_prefix_counts(enc_state, feed, n: int, budget: int, window: int) -> int:
    """Shared loop: feed(p, q) appends data[p:q]; returns the best length (relative)."""
    counts = enc_state.counts
    best = 0
    p = 0
    while p < n:
        q = min(n, p + _CHUNK)
        feed(p, q)
        for k in range(p + 1, q + 1):
            if counts[k] <= budget:
                best = k
        p = q
        if p >= window and min(counts[p - window + 1 : p + 1]) >= budget:
            break
    return best


def bytes_split_at(bpe, data: bytes, max_tokens: int, start: int = 0) -> int:
    """Largest ``j >= start`` such that ``bpe.count(data[start:j]) <= max_tokens``."""
    budget = _check_budget(max_tokens)
    start = _check_start(start, len(data))
    n = len(data) - start
    if n <= budget:  # every token covers at least one byte
        return len(data)
    if bpe._core is not None:
        table = PrefixTable(bpe, data[start:] if start else data)
        best = _scan_prefix_counts(table, lambda p, q: table.extend_to(q), n, budget, bpe.max_token_len)
        return start + best
    ba = BytesAppendable(bpe)
    best = _scan_prefix_counts(
        ba, lambda p, q: ba.append(data[start + p : start + q]), n, budget, bpe.max_token_len
    )
    return start + best


def bytes_split_at_start(bpe, data: bytes, max_tokens: int) -> int:
    """Smallest ``i`` such that ``bpe.count(data[i:]) <= max_tokens``."""
    budget = _check_budget(max_tokens)
    n = len(data)
    if n <= budget:
        return 0
    bp = BytesPrependable(bpe)
    best = _scan_prefix_counts(
        bp, lambda p, q: bp.prepend(data[n - q : n - p]), n, budget, bpe.max_token_len
    )
    return n - best
