"""BPE as HF ``tokenizers`` and llama.cpp define it: listed merges, in list order.

HF's BPE merges, in a piece, the adjacent pair that comes first in the ``merges`` list
(leftmost on ties), and only listed pairs; tiktoken's merges the adjacent pair whose
concatenation has the lowest rank, any pair.  Both build every token the same way in
every context (a token formed inside any text is formed by the last merge of the run on
its own bytes), so the two agree when the rank order is the order of each token's own
last merge in the list, and that merge is listed: :func:`merges_agree` checks exactly
this on a vocabulary built in merge order (:func:`order_by_merges`), and then every
rank-based engine (streaming objects included) gives HF's answers.  Where it does not
hold, :class:`MergesBPE` is HF's algorithm itself (a heap over the listed pairs,
O(n log n) per piece).

Both checks run once per loaded file, in C when the compiled core is built and here
otherwise; the two give the same answers.  In C, :func:`order_by_merges` hashes each
merge's product once (``_native/merges.c``) and can hand back what it found, each
merge's product id and cut (``products=True``); :func:`merges_agree` given those checks
the merges without a table of the pairs (``_native/merges_products.c``: a pair is named
by its product and cut when the ids are distinct), else with one (``merges.c``).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from heapq import heapify, heappop, heappush

from .native import merges_compiled, merges_products_compiled

__all__ = ["order_by_merges", "merges_agree", "MergesBPE", "PackedMerges"]


class PackedMerges(Sequence):
    """A merge list held as two buffers, as a GGUF file's merges are read in C
    (``_native/gguf_byte_level.c``): ``blob`` the sides' bytes one after the other,
    ``ends`` (native uint32, two per merge) where each side ends, so that merge ``j`` is
    ``(blob[ends[2j-1]:ends[2j]], blob[ends[2j]:ends[2j+1]])`` (``ends[-1]`` read as 0).
    A sequence of ``(a, b)`` tuples, equal to the list of them; the compiled
    :func:`order_by_merges` reads the buffers, no object per merge."""

    __slots__ = ("blob", "ends", "_at")

    def __init__(self, blob: bytes, ends: bytes):
        self.blob, self.ends = blob, ends
        self._at = array("I", ends)
        # that the ends never decrease is checked where they are read in C (order_by_merges)
        if len(self._at) % 2 or (self._at and self._at[-1] > len(blob)):
            raise ValueError("packed merges whose ends do not fit their bytes")

    def __len__(self) -> int:
        return len(self._at) // 2

    def __getitem__(self, j):
        if isinstance(j, slice):
            return [self[k] for k in range(*j.indices(len(self)))]
        n = len(self)
        if j < 0:
            j += n
        if not 0 <= j < n:
            raise IndexError("merge index out of range")
        at, blob = self._at, self.blob
        start = at[2 * j - 1] if j else 0
        return blob[start : at[2 * j]], blob[at[2 * j] : at[2 * j + 1]]

    def __iter__(self):
        blob, at, start = self.blob, self._at, 0
        for k in range(0, len(at), 2):
            yield blob[start : at[k]], blob[at[k] : at[k + 1]]
            start = at[k + 1]

    def __eq__(self, other) -> bool:
        if isinstance(other, PackedMerges):
            return self.blob == other.blob and self.ends == other.ends
        if isinstance(other, (list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<PackedMerges of {len(self)} merges>"


def _as_list(merges):
    """A list of the merges (a PackedMerges unpacked, for the readers that need objects)."""
    return list(merges) if isinstance(merges, PackedMerges) else merges


def order_by_merges(ranks: dict[bytes, int], merges: list[tuple[bytes, bytes]], *, products: bool = False):
    """``(tokens, ids, unlisted)``: the single bytes (by id), then each token made by a
    merge at its first merge; ``unlisted`` are tokens no merge makes (HF emits one only for
    a piece equal to it, with ``ignore_merges``).  With ``products``, a fourth item for
    :func:`merges_agree`: each merge's product id and cut as the compiled core found them
    (None without it, or where they cannot name the pairs)."""
    native = merges_compiled()
    if native is not None and type(ranks) is dict and type(merges) in (list, PackedMerges):
        return native[0](ranks, merges if type(merges) is list else (merges.blob, merges.ends), products)
    found = _order_by_merges_py(ranks, merges)
    return (*found, None) if products else found


def _order_by_merges_py(ranks: dict[bytes, int], merges: list[tuple[bytes, bytes]]):
    ordered: list[bytes] = sorted((t for t in ranks if len(t) == 1), key=ranks.__getitem__)
    seen = set(ordered)
    for a, b in merges:
        t = a + b
        if t not in seen and t in ranks:
            seen.add(t)
            ordered.append(t)
    unlisted = {t: i for t, i in ranks.items() if t not in seen}
    return ordered, [ranks[t] for t in ordered], unlisted


def merges_agree(bpe, merges: list[tuple[bytes, bytes]], *, ranks: dict[bytes, int] | None = None,
                 products: bytes | None = None) -> str | None:
    """None if rank-order BPE with ``bpe`` (built in :func:`order_by_merges` order) gives
    HF's encodings for ``merges``; else the reason it does not.  ``ranks`` and
    ``products``: what :func:`order_by_merges` read and found (``products=True``) for
    these merges, which spare the compiled check its table of the pairs."""
    native = merges_compiled()
    core = getattr(bpe, "_core", None)
    if native is not None and core is not None and type(merges) in (list, PackedMerges):
        blob, offsets, left, right = core.parts()
        unreachable = list(bpe.unreachable)
        found = False
        by_products = merges_products_compiled()
        if by_products is not None and products is not None and type(ranks) is dict:
            try:
                ids = None if bpe.ids is None else array("i", bpe.ids)
                found = by_products(offsets, left, right, ids, products, ranks, unreachable)
            except (TypeError, ValueError, OverflowError):
                found = False  # the table of the pairs below decides
        try:
            if found is False:
                found = native[1](blob, offsets, left, right, _as_list(merges), unreachable)
        except (TypeError, ValueError):
            found = False  # not pairs of bytes: the reference below says what it finds
        if found is None:
            return None
        if found is not False:
            kind, at = found
            if kind == "unreachable":
                return f"token {unreachable[at]!r} is built by the listed merges but not in rank order"
            tokens, split_left, split_right = bpe.tokens, bpe.split_left, bpe.split_right
            pair = (tokens[split_left[at]], tokens[split_right[at]])
            if kind == "unlisted":
                return f"token {tokens[at]!r} is built from {pair[0]!r} + {pair[1]!r}, which is not a listed merge"
            return f"token {tokens[at]!r}'s merge {pair!r} comes before the merge of an earlier token"
    return _merges_agree_py(bpe, merges)


def _merges_agree_py(bpe, merges: list[tuple[bytes, bytes]]) -> str | None:
    merges = _as_list(merges)
    index = _first_index(merges)
    tokens, left, right = bpe.tokens, bpe.split_left, bpe.split_right
    last = -1
    for t in range(len(tokens)):
        if len(tokens[t]) == 1:
            continue
        pair = (tokens[left[t]], tokens[right[t]])
        i = index.get(pair)
        if i is None:
            return f"token {tokens[t]!r} is built from {pair[0]!r} + {pair[1]!r}, which is not a listed merge"
        if i < last:
            return f"token {tokens[t]!r}'s merge {pair!r} comes before the merge of an earlier token"
        last = i
    # a token that rank order cannot build must not be one HF builds either
    engine = None
    for t in bpe.unreachable:
        if len(t) > 1:
            engine = engine or MergesBPE({tok: i for i, tok in enumerate(tokens)}, merges)
            if engine.parts(t) == [t]:
                return f"token {t!r} is built by the listed merges but not in rank order"
    return None


def _first_index(merges: list[tuple[bytes, bytes]]) -> dict[tuple[bytes, bytes], int]:
    """Each listed pair's first position in ``merges`` (the dict is built from the end, so
    the first occurrence is the one kept)."""
    return dict(zip(reversed(merges), range(len(merges) - 1, -1, -1)))


class MergesBPE:
    """HF's BPE on bytes: ``encode(data)`` merges the listed pair that comes first."""

    __slots__ = ("ranks", "pairs")

    def __init__(self, ranks: dict[bytes, int], merges: list[tuple[bytes, bytes]]):
        self.ranks = ranks
        self.pairs: dict[tuple[bytes, bytes], int] = _first_index(_as_list(merges))

    def parts(self, data: bytes) -> list[bytes]:
        """The parts HF's BPE leaves (heap of (merge index, position); stale entries skipped)."""
        parts = [data[i : i + 1] for i in range(len(data))]
        n = len(parts)
        if n < 2:
            return parts
        nxt = list(range(1, n + 1))
        prv = list(range(-1, n - 1))
        alive = [True] * n
        pairs = self.pairs
        heap = []
        for i in range(n - 1):
            r = pairs.get((parts[i], parts[i + 1]))
            if r is not None:
                heap.append((r, i, parts[i], parts[i + 1]))
        heapify(heap)
        while heap:
            r, i, a, b = heappop(heap)
            j = nxt[i] if i < n and alive[i] else n
            if not alive[i] or j >= n or parts[i] != a or parts[j] != b:
                continue  # stale
            parts[i] = a + b
            alive[j] = False
            nxt[i] = nxt[j]
            if nxt[j] < n:
                prv[nxt[j]] = i
            k = nxt[i]
            if k < n:
                r2 = pairs.get((parts[i], parts[k]))
                if r2 is not None:
                    heappush(heap, (r2, i, parts[i], parts[k]))
            p = prv[i]
            if p >= 0:
                r2 = pairs.get((parts[p], parts[i]))
                if r2 is not None:
                    heappush(heap, (r2, p, parts[p], parts[i]))
        return [parts[i] for i in range(n) if alive[i]]

    def encode(self, data: bytes) -> list[int]:
        ranks = self.ranks
        out = []
        for part in self.parts(data):
            t = ranks.get(part)
            if t is None:
                raise ValueError(f"bytes {part!r} are no token of the vocabulary")
            out.append(t)
        return out
