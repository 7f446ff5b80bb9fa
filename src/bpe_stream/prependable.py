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
or two pieces.  A long first *word* grown one letter at a time keeps a raw
prependable over its bytes (``_prepend_to_word``): O(1) per letter.  Remaining
slow case: other huge first pieces grown at their front (a whitespace,
punctuation or digit run) are re-split per prepend, O(piece) each, so prepending
such a run one character at a time is quadratic in its length.  Surrogates: a low surrogate starting a prepend is joined with a high
surrogate ending the next one, as tiktoken joins the pair in the whole text.
"""

from __future__ import annotations

from array import array

from .appendable import _LATIN, _NO_MATCH, _check_bytes_input, _check_len, _valid_pair_memo
from .vocabulary import BytePairEncoding

__all__ = ["PrependableEncoder"]


class BytesPrependable:
    __slots__ = ("bpe", "rbuf", "first", "counts", "fwd")

    def __init__(self, bpe: BytePairEncoding):
        self.bpe = bpe
        self.rbuf = bytearray()  # the bytes, reversed
        self.first = array("l", [0])
        self.counts = array("l", [0])
        self.fwd = ""  # the first max_token_len bytes as latin-1 (the automaton's input)

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
        new.fwd = self.fwd
        return new

    def truncate(self, n: int) -> None:
        n = _check_len(n, len(self.rbuf))
        del self.rbuf[n:]
        del self.first[n + 1 :]
        del self.counts[n + 1 :]
        self._reset_fwd()

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
        if not data:
            return
        bpe = self.bpe
        iter_long = bpe.automaton.iter_long
        next_prefix = bpe.next_prefix
        masks = bpe.continuation_masks
        tokens = bpe.tokens
        token_lens = bpe.token_lens
        max_len = bpe.max_token_len
        rbuf = self.rbuf
        first = self.first
        counts = self.counts
        fwd = self.fwd
        for b in reversed(data):
            rbuf.append(b)
            fwd = _LATIN[b] + fwd
            if len(fwd) > max_len:
                fwd = fwd[:max_len]
            end_rel, t = next(iter_long(fwd), _NO_MATCH)
            if t < 0 or end_rel + 1 != token_lens[t]:
                del rbuf[-1:]
                self._reset_fwd()
                raise ValueError(f"byte 0x{b:02x} is not in the vocabulary, so it cannot be encoded")
            n = len(rbuf)
            while True:
                rest = n - token_lens[t]
                if rest == 0:
                    first.append(t)
                    counts.append(1)
                    break
                nxt = first[rest]
                if not (masks[t] >> tokens[nxt][0]) & 1 or _valid_pair_memo(bpe, t, nxt):
                    first.append(t)
                    counts.append(counts[rest] + 1)
                    break
                t = next_prefix[t]
        self.fwd = fwd

    def _reset_fwd(self) -> None:
        rbuf = self.rbuf
        self.fwd = rbuf[max(0, len(rbuf) - self.bpe.max_token_len) :][::-1].decode("latin-1")


class TextPrependable:
    __slots__ = ("enc", "pattern", "chunks", "n", "dists", "sufs", "index", "pending", "word", "wc")

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
        # a lone low surrogate that began the last prepend (stored as U+FFFD): joined with a
        # high surrogate ending the next prepend, as tiktoken joins the pair in the whole text
        self.pending = ""
        # Long first word grown at its front one letter at a time (bundled patterns): ``word`` =
        # (distance of its end, raw BytesPrependable of its bytes), see _prepend_to_word.
        self.word = None
        from .split_fastpath import LO, OL, UP, fast_split_for

        fast = fast_split_for(enc.pat_str)
        self.wc = None if fast is None else (fast, (LO, UP, OL) if fast.o200k else (LO,), LO)

    def __getstate__(self):
        return {"enc": self.enc, "text": self.get_text(), "pending": self.pending}

    def __setstate__(self, state):
        self.__init__(state["enc"])
        self.prepend(state["text"])
        self.pending = state.get("pending", "")

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
        new.enc, new.pattern, new.n, new.pending = self.enc, self.pattern, self.n, self.pending
        new.wc = self.wc
        new.word = None if self.word is None else (self.word[0], self.word[1].copy())
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
        if self.pending:
            pending = self.pending
            if "\ud800" <= s[-1] <= "\udbff":
                self.truncate(self.n - 1)  # drop the U+FFFD that stood for the lone low surrogate
                s = s + pending
            self.pending = ""
        pending = s[0] if "\udc00" <= s[0] <= "\udfff" else ""
        s = fix_surrogates(s)
        self.pending = pending
        if len(s) == 1 and self.word is not None and self._prepend_to_word(s):
            return
        self.chunks.append(s)
        self.n += len(s)
        self._resync()
        self._check_word()

    # A long first piece W that is a word starting with a letter that continues words
    # (cl100k: any letter; o200k: a lower-case letter, so W is all [Ll Lm Lo M]) and has no
    # apostrophe: a letter c prepended gives the single piece c + W (cl100k: \p{L}++ runs through
    # W to the same end; o200k: [Lu Lt Lm Lo M]* takes c or nothing, then [Ll Lm Lo M]+ runs
    # through W to the same end), and the pieces after W do not change (no look-behind).  Its
    # count comes from a raw prependable over W's bytes: O(1) per letter instead of re-splitting
    # and re-encoding W.
    _LONG = 64

    def _check_word(self) -> None:
        self.word = None
        if self.wc is None or len(self.dists) < 2:
            return
        end = self.dists[-2]
        length = self.n - end
        if length <= self._LONG:
            return
        fast, _, first_class = self.wc
        w = self._front(length)
        if fast.char_class(w[0]) != first_class or "'" in w:
            return
        bp = BytesPrependable(self.enc.bpe)
        bp.prepend(w.encode("utf-8"))
        if bp.token_count != self.sufs[-1] - self.sufs[-2]:  # never expected; stay exact
            return
        self.word = (end, bp)

    def _prepend_to_word(self, c: str) -> bool:
        fast, letters, _ = self.wc
        end, bp = self.word
        if self.dists[-2] != end or fast.char_class(c) not in letters:
            return False
        bp.prepend(c.encode("utf-8"))
        self.chunks.append(c)
        self.n += 1
        dists, sufs, index = self.dists, self.sufs, self.index
        del index[dists.pop()]
        sufs.pop()
        dists.append(self.n)
        sufs.append(sufs[-1] + bp.token_count)
        index[self.n] = len(dists) - 1
        return True

    def truncate(self, n: int) -> None:
        n = _check_len(n, self.n)
        if n != self.n:
            self.pending = ""
            self.word = None
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
