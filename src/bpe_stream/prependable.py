"""Token counts that stay exact while text is added at the front.

Invariant (raw BPE, the mirror of :mod:`bpe_stream.appendable`): the bytes are
stored reversed; for every suffix length ``p``, ``first[p]`` is the first token of
BPE's encoding of the last ``p`` bytes and ``counts[p]`` its length: the longest
token ``t`` starting there such that ``len(t) == p`` or ``(t, first[p - len(t)])``
is a valid pair.  The longest token starting at the new front is the first
leftmost-longest match of the forward automaton on the first ``max_token_len``
bytes; shorter ones follow ``next_prefix``.  O(1) amortized per prepended byte,
``truncate(n)`` (keep the last ``n``) is O(removed).

Invariant (``Encoding``): the pieces of the text are kept as boundaries measured
from the *end* (which prepending does not move) with the token count of the text
after each boundary.  Prepending ``u`` re-splits from the new front until a match
starts on a known boundary: from there both splits are identical (the patterns
have no lookbehind), so ``count = new pieces + suffix count at that boundary``.
Cost: O(prepended + the pieces re-split before re-synchronising), typically one
or two pieces; a huge first piece (e.g. a long word being extended at its front)
is re-split per prepend (documented slow case).
"""

from __future__ import annotations

from array import array

from .appendable import _check_bytes_input, _check_len, _pair_memo, _MEMO_SIZE
from .vocabulary import BytePairEncoding, _is_valid_pair

__all__ = ["PrependableEncoder"]


class BytesPrependable:
    __slots__ = ("bpe", "rbuf", "first", "counts")

    def __init__(self, bpe: BytePairEncoding):
        self.bpe = bpe
        self.rbuf = bytearray()  # the bytes, reversed
        self.first = array("l", [0])
        self.counts = array("l", [0])

    def __getstate__(self):
        return {"bpe": self.bpe, "data": self.get_text()}

    def __setstate__(self, state):
        self.__init__(state["bpe"])
        self.prepend(state["data"])

    def __len__(self) -> int:
        return len(self.rbuf)

    @property
    def token_count(self) -> int:
        return self.counts[-1]

    def get_text(self) -> bytes:
        return bytes(self.rbuf[::-1])

    def copy(self):
        new = BytesPrependable.__new__(BytesPrependable)
        new.bpe = self.bpe
        new.rbuf = bytearray(self.rbuf)
        new.first = array("l", self.first)
        new.counts = array("l", self.counts)
        return new

    def truncate(self, n: int) -> None:
        n = _check_len(n, len(self.rbuf))
        del self.rbuf[n:]
        del self.first[n + 1 :]
        del self.counts[n + 1 :]

    def tokens(self) -> list[int]:
        out = []
        p = len(self.rbuf)
        first = self.first
        token_lens = self.bpe.token_lens
        while p > 0:
            t = first[p]
            out.append(t)
            p -= token_lens[t]
        return out

    def prepend(self, data: bytes) -> None:
        bpe = self.bpe
        iter_long = bpe.automaton.iter_long
        next_prefix = bpe.next_prefix
        ranks_get = bpe.ranks.get
        tokens = bpe.tokens
        split_left = bpe.split_left
        split_right = bpe.split_right
        n_tokens = len(tokens)
        token_lens = bpe.token_lens
        max_len = bpe.max_token_len
        rbuf = self.rbuf
        first = self.first
        counts = self.counts
        memo = _pair_memo(bpe)
        memo_get = memo.get
        for b in reversed(data):
            rbuf.append(b)
            n = len(rbuf)
            lo = n - max_len - 1
            window = rbuf[n - 1 : lo : -1] if lo >= 0 else rbuf[::-1]
            end_rel, t = next(iter_long(window.decode("latin-1")), (-1, -1))
            if t < 0 or end_rel + 1 != token_lens[t]:
                del rbuf[n - 1 :]
                raise ValueError(f"byte 0x{b:02x} is not in the vocabulary, so it cannot be encoded")
            while True:
                rest = n - token_lens[t]
                if rest == 0:
                    first.append(t)
                    counts.append(1)
                    break
                key = (t, first[rest])
                ok = memo_get(key)
                if ok is None:
                    ok = _is_valid_pair(ranks_get, tokens, split_left, split_right, t, key[1], n_tokens)
                    if len(memo) >= _MEMO_SIZE:
                        memo.clear()
                    memo[key] = ok
                if ok:
                    first.append(t)
                    counts.append(counts[rest] + 1)
                    break
                t = next_prefix[t]


class TextPrependable:
    __slots__ = ("enc", "pattern", "chunks", "n", "dists", "sufs", "index")

    def __init__(self, enc):
        from .pretokenize import compile_pattern

        self.enc = enc
        self.pattern = None if enc.pat_str is None else compile_pattern(enc.pat_str)
        self.chunks: list[str] = []  # chunks[-1] is the front
        self.n = 0
        # piece boundaries as distance from the end, increasing; sufs: count after it
        self.dists = [0]
        self.sufs = [0]
        self.index = {0: 0}

    def __getstate__(self):
        return {"enc": self.enc, "text": self.get_text()}

    def __setstate__(self, state):
        self.__init__(state["enc"])
        self.prepend(state["text"])

    def __len__(self) -> int:
        return self.n

    @property
    def token_count(self) -> int:
        return self.sufs[-1]

    def get_text(self) -> str:
        return "".join(reversed(self.chunks))

    def tokens(self) -> list[int]:
        return self.enc.encode_ordinary(self.get_text())

    def copy(self):
        new = TextPrependable.__new__(TextPrependable)
        new.enc, new.pattern, new.n = self.enc, self.pattern, self.n
        new.chunks = list(self.chunks)
        new.dists = list(self.dists)
        new.sufs = list(self.sufs)
        new.index = dict(self.index)
        return new

    def _front(self, k: int) -> str:
        parts = []
        got = 0
        for c in reversed(self.chunks):
            parts.append(c)
            got += len(c)
            if got >= k:
                break
        return "".join(parts)[:k]

    def prepend(self, s: str) -> None:
        from .encoding import fix_surrogates

        if not s:
            return
        s = fix_surrogates(s)
        self.chunks.append(s)
        self.n += len(s)
        self._resync()

    def truncate(self, n: int) -> None:
        n = _check_len(n, self.n)
        drop = self.n - n
        while drop:
            c = self.chunks[-1]
            if len(c) <= drop:
                self.chunks.pop()
                drop -= len(c)
            else:
                self.chunks[-1] = c[drop:]
                drop = 0
        self.n = n
        dists, sufs, index = self.dists, self.sufs, self.index
        while dists[-1] > n:
            del index[dists.pop()]
            sufs.pop()
        if dists[-1] != n:
            self._resync()

    def _resync(self) -> None:
        n = self.n
        dists, sufs, index = self.dists, self.sufs, self.index
        # boundaries beyond the previous front are no longer valid
        pieces = self.enc._pieces
        if self.pattern is None:
            while len(dists) > 1:
                del index[dists.pop()]
                sufs.pop()
            dists.append(n)
            sufs.append(self.enc.bpe.count(self.get_text().encode("utf-8")) if n else 0)
            index[n] = len(dists) - 1
            return
        k = 256
        while True:
            front = self._front(k)
            new = []  # (dist, count of the piece starting there)
            synced = None
            for m in self.pattern.finditer(front):
                a, b = m.span()
                d = n - a
                if d in index:
                    synced = d
                    break
                if b == len(front) and len(front) < n:
                    break  # the match may continue past the fetched front
                new.append((d, len(pieces[m.group()])))
            else:
                if len(front) == n:
                    synced = 0
            if synced is not None:
                break
            k *= 4
        # drop old boundaries between the sync point and the old front
        while dists[-1] > synced:
            del index[dists.pop()]
            sufs.pop()
        base = sufs[-1]
        for d, c in reversed(new):
            base += c
            dists.append(d)
            sufs.append(base)
            index[d] = len(dists) - 1


class PrependableEncoder:
    """Exact token count of a text that grows at the front (e.g. chat history read backwards).

    >>> import bpe_stream
    >>> enc = bpe_stream.get_encoding("cl100k_base")
    >>> pe = PrependableEncoder(enc)
    >>> pe.prepend("world"); pe.prepend("hello ")
    >>> pe.token_count == enc.count("hello world")
    True
    """

    __slots__ = ("_impl", "_is_text")

    def __init__(self, enc_or_bpe):
        if isinstance(enc_or_bpe, BytePairEncoding):
            self._impl = BytesPrependable(enc_or_bpe)
            self._is_text = False
        else:
            from .encoding import Encoding

            if not isinstance(enc_or_bpe, Encoding):
                raise TypeError(
                    f"expected an Encoding or a BytePairEncoding, got {type(enc_or_bpe).__name__}"
                )
            self._impl = TextPrependable(enc_or_bpe)
            self._is_text = True

    def __getstate__(self):
        return {"impl": self._impl, "is_text": self._is_text}

    def __setstate__(self, state):
        self._impl = state["impl"]
        self._is_text = state["is_text"]

    def prepend(self, text) -> None:
        if self._is_text:
            if not isinstance(text, str):
                from .encoding import check_text

                check_text(text)
            self._impl.prepend(text)
        else:
            self._impl.prepend(_check_bytes_input(text))

    @property
    def token_count(self) -> int:
        return self._impl.token_count

    def __len__(self) -> int:
        return len(self._impl)

    def truncate(self, n: int) -> None:
        """Keep only the last ``n`` characters (bytes for raw BPE)."""
        self._impl.truncate(n)

    def tokens(self) -> list[int]:
        return self._impl.tokens()

    def text(self):
        return self._impl.get_text()

    def copy(self) -> "PrependableEncoder":
        new = PrependableEncoder.__new__(PrependableEncoder)
        new._impl = self._impl.copy()
        new._is_text = self._is_text
        return new

    def __repr__(self) -> str:
        return f"<PrependableEncoder len={len(self)} token_count={self.token_count}>"
