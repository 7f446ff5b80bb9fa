"""Heap encoder: the original BPE merge loop, O(n log n).

Invariant: the current tokens are the runs between set bits of ``boundary``;
the heap holds (rank, start) for every adjacent pair whose concatenation is a
token, plus stale entries that are skipped when popped (their start is no longer
a boundary or the pair there no longer has that rank).  Popping the smallest
(rank, start) merges the lowest-ranked pair, leftmost first: exactly the
original algorithm (and tiktoken's), so this is the reference the faster
encoders are tested against on large inputs.

Complexity: O(n log n) time (each merge pushes at most two entries), O(n) memory.
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush

from bitarray import bitarray


def encode_heap(bpe, data: bytes) -> list[int]:
    n = len(data)
    if n == 0:
        return []
    ranks_get = bpe.ranks.get
    boundary = bitarray(n + 1)
    boundary.setall(1)
    nxt = list(range(1, n + 2))
    prv = list(range(-1, n))
    heap = []
    for i in range(n - 1):
        r = ranks_get(data[i : i + 2])
        if r is not None:
            heap.append((r, i))
    heapify(heap)
    while heap:
        rank, i = heappop(heap)
        if not boundary[i]:
            continue
        j = nxt[i]
        if j >= n:
            continue
        k = nxt[j]
        if ranks_get(data[i:k]) != rank:
            continue
        boundary[j] = 0
        nxt[i] = k
        prv[k] = i
        p = prv[i]
        if p >= 0:
            r = ranks_get(data[p:k])
            if r is not None:
                heappush(heap, (r, p))
        if k < n:
            r = ranks_get(data[i : nxt[k]])
            if r is not None:
                heappush(heap, (r, i))
    out = []
    i = 0
    while i < n:
        j = nxt[i]
        r = ranks_get(data[i:j])
        if r is None:
            raise bpe.missing_byte_error(data, i)
        out.append(r)
        i = j
    return out
