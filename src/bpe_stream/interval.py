"""Token counts of any substring after one pass over the text.

Invariant (raw BPE, as the Rust crate's interval encoding): ``last[p]`` is the
last token of BPE's encoding of ``data[:p]``; the parent of prefix ``p`` is
``p - len(last[p])``, so the prefixes form a tree whose root-to-``p`` path is the
encoding of ``data[:p]`` and whose depth is its count.  ``tree_id``/``tree_end``
number the tree in pre-order, so "``p`` is an ancestor of ``j``" is
``tree_id[p] <= tree_id[j] < tree_end[p]`` in O(1).  ``count(i, j)`` runs the
prefix recurrence on ``data[i:...]`` and stops at the first ``p`` that is an
ancestor of ``j`` with the same last token as the whole text's prefix ``p``:
the encoding of ``data[i:p]`` followed by the tree path from ``p`` to ``j`` has
only valid pairs (the junction pair is the one the whole text uses), so it *is*
the encoding of ``data[i:j]``.  Typically a few tokens; O(j - i) worst case
(e.g. long whitespace runs where the encodings never re-synchronise).
Memory: four 4-byte arrays per byte (16 bytes per input byte) plus the data.

Invariant (``Encoding``): whole-text piece boundaries with prefix sums of piece
counts.  The split of ``text[i:j]`` is re-run from ``i`` (``endpos=j``) until a
match starts on a whole-text boundary ``b``; at the end, the last whole-text
boundary ``e <= j - margin`` that is followed by a non-whitespace character
before ``j`` is a boundary of ``text[:j]``'s split with the same pieces before it
(the stability rule of :mod:`bpe_stream.piece_stream`).  So
``count = (pieces from i to b) + (prefix sums from b to e) + count(text[e:j])``.
A range inside one long piece is counted directly (O(range)).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right

from .appendable import BytesAppendable, _check_bytes_input
from .vocabulary import BytePairEncoding, _is_valid_pair

__all__ = ["IntervalCounter"]


class _BytesIntervals:
    def __init__(self, bpe: BytePairEncoding, data: bytes):
        self.bpe = bpe
        self.data = data
        self._latin = data.decode("latin-1")
        ba = BytesAppendable(bpe)
        ba.append(data)
        n = len(data)
        token_lens = bpe.token_lens
        last = array("i", ba.last)
        depth = array("i", ba.counts)
        size = [1] * (n + 1)
        for p in range(n, 0, -1):
            size[p - token_lens[last[p]]] += size[p]
        tree_id = array("i", [0]) * (n + 1)
        tree_end = array("i", [0]) * (n + 1)
        tree_end[0] = 1
        nxt = [1] * (n + 1)  # next free id among the children of p
        for p in range(1, n + 1):
            parent = p - token_lens[last[p]]
            tree_id[p] = nxt[parent]
            nxt[parent] += size[p]
            nxt[p] = tree_id[p] + 1
            tree_end[p] = tree_id[p] + size[p]
        tree_end[0] = n + 1
        self.last, self.depth, self.tree_id, self.tree_end = last, depth, tree_id, tree_end

    def memory_bytes(self) -> int:
        return sum(a.itemsize * len(a) for a in (self.last, self.depth, self.tree_id, self.tree_end))

    def count(self, i: int, j: int) -> int:
        if i == j:
            return 0
        bpe = self.bpe
        ranks_get = bpe.ranks.get
        tokens = bpe.tokens
        split_left, split_right = bpe.split_left, bpe.split_right
        n_tokens = len(tokens)
        token_lens = bpe.token_lens
        last_all, depth, tree_id, tree_end = self.last, self.depth, self.tree_id, self.tree_end
        leaf = tree_id[j]
        W = max(64, bpe.max_token_len)
        last = {i: -1}
        cnt = {i: 0}
        done = i
        lo = i
        while True:
            hi = min(j, lo + W)
            for e, t in bpe.automaton.iter(self._latin[lo:hi]):
                p = lo + e + 1
                if p <= done:
                    continue
                start = p - token_lens[t]
                if start < i:
                    continue
                if start == i or _is_valid_pair(ranks_get, tokens, split_left, split_right, last[start], t, n_tokens):
                    last[p] = t
                    c = cnt[start] + 1
                    cnt[p] = c
                    done = p
                    if p == j:
                        return c
                    if last_all[p] == t and tree_id[p] <= leaf < tree_end[p]:
                        return c + depth[j] - depth[p]
            if hi >= j:
                raise bpe.missing_byte_error(self.data, done)
            lo = max(i, hi - bpe.max_token_len + 1)
            W *= 2


class _TextIntervals:
    def __init__(self, enc, text: str):
        from .piece_stream import stable_margin

        self.enc = enc
        self.text = text
        self.margin = stable_margin(enc.pat_str)
        from .pretokenize import compile_pattern

        self.pattern = compile_pattern(enc.pat_str)
        pieces = enc._pieces
        starts = array("q")
        cum = array("q", [0])
        total = 0
        for m in self.pattern.finditer(text):
            starts.append(m.start())
            total += len(pieces[m.group()]) if m.end() - m.start() <= 64 else enc.bpe.count(m.group().encode("utf-8"))
            cum.append(total)
        starts.append(len(text))
        self.starts = starts  # piece starts, then len(text); cum[k] = count before piece k
        self.cum = cum
        self.index = {s: k for k, s in enumerate(starts)}

    def memory_bytes(self) -> int:
        return 16 * len(self.starts) + 100 * len(self.index)

    def _count_direct(self, i, j) -> int:
        pieces = self.enc._pieces
        c = 0
        for m in self.pattern.finditer(self.text, i, j):
            c += len(pieces[m.group()]) if m.end() - m.start() <= 64 else self.enc.bpe.count(m.group().encode("utf-8"))
        return c

    def count(self, i: int, j: int) -> int:
        if i == j:
            return 0
        text = self.text
        starts = self.starts
        # end side: last whole-text boundary e <= j - margin with non-space in text[e:j]
        k = bisect_right(starts, j - self.margin) - 1
        while k >= 0 and text[starts[k] : j].isspace():
            k -= 1
        if k < 0 or starts[k] <= i:
            return self._count_direct(i, j)
        e = starts[k]
        # start side: re-split from i until a match starts on a whole-text boundary
        index = self.index
        pieces = self.enc._pieces
        c = 0
        for m in self.pattern.finditer(text, i, j):
            a = m.start()
            if a in index and a >= i:
                kb = index[a]
                if a > e:
                    break
                return c + self.cum[k] - self.cum[kb] + self._count_direct(e, j)
            c += len(pieces[m.group()]) if m.end() - a <= 64 else self.enc.bpe.count(m.group().encode("utf-8"))
        return self._count_direct(i, j)


class IntervalCounter:
    """Counts of any substring: ``count(start, end) == enc.count(text[start:end])``.

    >>> import bpe_stream
    >>> enc = bpe_stream.get_encoding("cl100k_base")
    >>> ic = IntervalCounter(enc, "hello world, hello there")
    >>> ic.count(0, 11) == enc.count("hello world")
    True
    """

    def __init__(self, enc_or_bpe, text):
        if isinstance(enc_or_bpe, BytePairEncoding):
            self._impl = _BytesIntervals(enc_or_bpe, _check_bytes_input(text))
            self._n = len(text)
        else:
            from .encoding import Encoding, check_text

            if not isinstance(enc_or_bpe, Encoding):
                raise TypeError(
                    f"expected an Encoding or a BytePairEncoding, got {type(enc_or_bpe).__name__}"
                )
            text = check_text(text)
            self._n = len(text)
            if enc_or_bpe.pat_str is None:
                self._impl = _NoSplitText(enc_or_bpe, text)
            else:
                self._impl = _TextIntervals(enc_or_bpe, text)

    def __len__(self) -> int:
        return self._n

    def count(self, start: int, end: int) -> int:
        for v in (start, end):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"offsets must be ints, got {type(v).__name__}")
        if not 0 <= start <= end <= self._n:
            raise ValueError(f"need 0 <= start <= end <= {self._n}, got {start}, {end}")
        return self._impl.count(start, end)

    def memory_bytes(self) -> int:
        """Bytes held by the index arrays (excluding the text itself)."""
        return self._impl.memory_bytes()


class _NoSplitText:
    """No pre-split: raw intervals over UTF-8 with a char -> byte offset table."""

    def __init__(self, enc, text: str):
        data = text.encode("utf-8")
        self.raw = _BytesIntervals(enc.bpe, data)
        offs = array("q", [0])
        b = 0
        for ch in text:
            b += len(ch.encode("utf-8"))
            offs.append(b)
        self.offs = offs

    def memory_bytes(self) -> int:
        return self.raw.memory_bytes() + 8 * len(self.offs)

    def count(self, i, j):
        return self.raw.count(self.offs[i], self.offs[j])
