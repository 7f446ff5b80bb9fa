"""Token counts that stay exact while text is added at the front.

Invariant (raw BPE, the mirror of :mod:`bpe_stream.stream.appendable`): the bytes are
stored reversed; for every suffix length ``p``, ``first[p]`` is the first token of
BPE's encoding of the last ``p`` bytes and ``counts[p]`` its length: the longest
token ``t`` starting there such that ``len(t) == p`` or ``(t, first[p - len(t)])``
is a valid pair.  The longest token starting at the new front is the first
leftmost-longest match of the forward automaton on the first ``max_token_len``
bytes; shorter ones follow ``next_prefix``.  O(1) amortized per prepended byte,
``truncate(n)`` (keep the last ``n``) is O(removed).

The text engine (pre-split pieces kept from the end, states for long first pieces) is
:mod:`bpe_stream.stream.front.text_prependable`.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING

from .appendable import _LATIN, _NO_MATCH
from .checks import _check_len
from .pairs import _valid_pair_memo

if TYPE_CHECKING:  # annotations only: the vocabulary module imports the encoders
    from .vocabulary import BytePairEncoding


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
