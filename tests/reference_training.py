"""A naive BPE trainer written for clarity, the reference for ``bpe_stream.training``.

It follows the rule of ``bpe_stream.train`` literally and recomputes everything
from scratch at every step:

1. Split every document into pieces with the pattern (or keep each document
   whole when there is no pattern); every piece *occurrence* is its own list
   of token ids, starting with its UTF-8 bytes.
2. At every step count all adjacent pairs in all lists.
3. Take the pairs with count >= min_frequency in order of (-count, left, right)
   and merge the first *eligible* one: a pair (A, B) is eligible when the
   original BPE algorithm (merge the lowest-rank adjacent pair, leftmost first)
   encodes bytes(A) + bytes(B) with the vocabulary so far to exactly [A, B].
4. Replace the pair in every list, left to right, without overlap.

Cost: O(M * (N + P log P)) for M merges, N positions, P distinct pairs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from bpe_stream.pretokenize.patterns import compile_pattern


def bpe_encode(data: bytes, rank_of: dict[bytes, int]) -> list[bytes]:
    """The original BPE algorithm (tiktoken semantics) on one piece.

    >>> bpe_encode(b"abc", {b"bc": 300, b"ab": 301})
    [b'a', b'bc']
    """
    parts = [bytes([byte]) for byte in data]
    while len(parts) > 1:
        best_rank = None
        best_index = None
        for i in range(len(parts) - 1):
            rank = rank_of.get(parts[i] + parts[i + 1])
            if rank is not None and (best_rank is None or rank < best_rank):
                best_rank = rank
                best_index = i
        if best_index is None:
            break
        parts[best_index : best_index + 2] = [parts[best_index] + parts[best_index + 1]]
    return parts


def replace_pair(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace occurrences of ``pair`` in ``ids`` by ``new_id``, left to right.

    >>> replace_pair([1, 1, 1], (1, 1), 9)
    [9, 1]
    """
    out = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def reference_merges(
    data: str | Iterable[str],
    vocab_size: int,
    *,
    pattern: str | None = None,
    min_frequency: int = 2,
) -> list[tuple[int, int]]:
    """Merges (left id, right id) in order; merge k creates id 256 + k.

    ``pattern`` must be a regex string (or None), not a pattern name; it splits
    text exactly as ``bpe_stream.Encoding`` does.

    >>> reference_merges("aaaa abab", 258)
    [(97, 97), (97, 98)]
    """
    documents = [data] if isinstance(data, str) else list(data)
    if pattern is None:
        pieces = documents
    else:
        pieces = [piece for doc in documents for piece in compile_pattern(pattern).findall(doc)]
    sequences = [list(piece.encode("utf-8")) for piece in pieces]

    vocab = [bytes([i]) for i in range(256)]
    rank_of = {token: rank for rank, token in enumerate(vocab)}
    merges: list[tuple[int, int]] = []
    while len(vocab) < vocab_size:
        counts: Counter[tuple[int, int]] = Counter()
        for ids in sequences:
            counts.update(zip(ids, ids[1:]))
        candidates = sorted(
            (pair for pair, count in counts.items() if count >= max(min_frequency, 1)),
            key=lambda pair: (-counts[pair], pair),
        )
        chosen = None
        for left, right in candidates:
            if bpe_encode(vocab[left] + vocab[right], rank_of) == [vocab[left], vocab[right]]:
                chosen = (left, right)
                break
        if chosen is None:
            break
        new_id = len(vocab)
        vocab.append(vocab[chosen[0]] + vocab[chosen[1]])
        rank_of[vocab[new_id]] = new_id
        merges.append(chosen)
        sequences = [replace_pair(ids, chosen, new_id) for ids in sequences]
    return merges
