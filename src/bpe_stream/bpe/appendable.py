"""Token counts that stay exact while text is appended.

Invariant (raw BPE): for every prefix length ``p`` of the bytes appended so far,
``last[p]`` is the last token of BPE's encoding of ``data[:p]`` and ``counts[p]``
its length (the recurrence of :mod:`bpe_stream.bpe.table`: the longest token ``t``
ending at ``p`` with ``p == len(t)`` or ``(last[p - len(t)], t)`` a valid pair).
So ``token_count == counts[len]`` is O(1), an append of ``k`` bytes costs O(k)
amortized (each new position tries the tokens ending there, longest first, until
the first valid one: a few on real text, at most ``max_token_len``), and
``truncate(n)`` just drops the entries past ``n`` (O(removed)).

The tokens ending at a new position are found without an Aho-Corasick state
(pyahocorasick cannot be stepped): the longest one is the first leftmost-longest
match of an automaton over *reversed* tokens run on the reversed last
``max_token_len`` bytes, and the shorter ones follow from ``next_suffix[t]``
(the longest token that is a strict suffix of ``t``; every token ending at ``p``
is a suffix of the longest one).  The reversed window (the last
``max_token_len`` bytes, as a latin-1 ``str``) is kept between appends and
updated with one concatenation per byte.  Pair checks first test the
continuation mask of the left token (no unwinding for ~85 % of pairs on prose),
then a small memo.  On periodic data (runs of one byte, ``"\n \n"``...) each byte
would try tens of invalid suffix pairs; the periodic shortcut of
``_append_bytewise`` copies ``last`` from one period back once the last
``max_token_len`` positions repeat (100 KB of spaces: 10 -> 1 us per byte).  Long
appends use the forward automaton's overlapping matches over a bounded window
instead (one call per chunk).

Invariant (``Encoding``, tiktoken pre-split): see :mod:`bpe_stream.text.appendable`;
``token_count`` equals ``enc.count(text)`` after every append and truncation.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING

from .checks import _check_len
from .pairs import _valid_pair_memo
from .table import tokens_ending_at

if TYPE_CHECKING:  # annotations only: the vocabulary module imports the encoders
    from .vocabulary import BytePairEncoding

__all__ = ["reverse_tables"]

# Appends longer than this use one forward overlapping scan per chunk.
_CHUNK_SCAN = 24


def reverse_tables(bpe: BytePairEncoding):
    """``(iter_long of the reversed-token automaton, next_suffix)`` for ``bpe``, built once and cached on it.

    ``next_suffix[t]`` is the longest token that is a strict suffix of ``t`` (-1 if none).
    The cache is a plain attribute, which ``BytePairEncoding.__getstate__`` does not pickle.
    """
    cached = getattr(bpe, "_bpe_stream_reverse", None)
    if cached is not None:
        return cached
    tokens = bpe.tokens
    ranks_get = bpe.ranks.get
    import ahocorasick  # on first use: see tables.build_automaton

    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    next_suffix = [-1] * len(tokens)
    for rank, token in enumerate(tokens):
        automaton.add_word(token[::-1].decode("latin-1"), rank)
        for cut in range(1, len(token)):
            shorter = ranks_get(token[cut:])
            if shorter is not None:
                next_suffix[rank] = shorter
                break
    automaton.make_automaton()
    cached = (automaton.iter_long, next_suffix)
    bpe._bpe_stream_reverse = cached
    return cached


_LATIN = [chr(b) for b in range(256)]
_NO_MATCH = (-1, -1)


class BytesAppendable:
    """Raw-BPE appendable state over bytes (no pre-splitting)."""

    __slots__ = ("bpe", "buf", "last", "counts", "rev", "per", "eq")

    def __init__(self, bpe: BytePairEncoding):
        self.bpe = bpe
        if bpe._core is None:
            reverse_tables(bpe)  # the Python step's automaton (the compiled table pass needs none)
            code = "l"
        else:
            code = "i"  # the compiled table pass fills int32 arrays in place
        self.buf = bytearray()
        self.last = array(code, [0])  # last[p]: last token of the encoding of buf[:p]
        self.counts = array(code, [0])  # counts[p]: its number of tokens
        # the last max_token_len bytes, reversed, as latin-1 (the reversed automaton's input)
        self.rev = ""
        # periodic shortcut (see _append_bytewise): period guess and matching run length
        self.per = 1
        self.eq = 0

    def __getstate__(self):
        return {"bpe": self.bpe, "buf": bytes(self.buf)}

    def __setstate__(self, state):
        self.__init__(state["bpe"])
        self.append(state["buf"])

    def __len__(self) -> int:
        return len(self.buf)

    @property
    def token_count(self) -> int:
        return self.counts[-1]

    def copy(self) -> "BytesAppendable":
        new = BytesAppendable.__new__(BytesAppendable)
        new.bpe = self.bpe
        new.buf = bytearray(self.buf)
        new.last = array(self.last.typecode, self.last)
        new.counts = array(self.counts.typecode, self.counts)
        new.rev = self.rev
        new.per = self.per
        new.eq = self.eq
        return new

    def truncate(self, n: int) -> None:
        n = _check_len(n, len(self.buf))
        del self.buf[n:]
        del self.last[n + 1 :]
        del self.counts[n + 1 :]
        self.eq = 0
        self._reset_rev()

    def _reset_rev(self) -> None:
        buf = self.buf
        self.rev = buf[max(0, len(buf) - self.bpe.max_token_len) :][::-1].decode("latin-1")

    def get_text(self) -> bytes:
        return bytes(self.buf)

    def tokens(self) -> list[int]:
        return tokens_ending_at(self.last, self.bpe.token_lens, len(self.buf))

    def append(self, data: bytes) -> None:
        core = self.bpe._core
        if core is not None:
            self._append_core(core, data)
        elif len(data) > _CHUNK_SCAN:
            self._append_scan(data)
            self._reset_rev()
        else:
            self._append_bytewise(data)

    def _append_core(self, core, data: bytes) -> None:
        """The compiled resumable table pass (``_native/prefix_table.c``) over the new bytes:
        the same recurrence and periodic shortcut as ``_append_bytewise``, in C."""
        buf = self.buf
        n0 = len(buf)
        buf += data
        n = len(buf)
        pad = bytes(4 * (n - n0))
        self.last.frombytes(pad)
        self.counts.frombytes(pad)
        per, eq = self.per, self.eq
        if per > n0 + 1:
            per, eq = 1, 0  # a guess from before a truncation
        done, self.per, self.eq = core.table_fill(buf, self.last, self.counts, n0, n, per, eq)
        if done != n:
            bad = bytes(buf)
            del buf[done:]
            del self.last[done + 1 :]
            del self.counts[done + 1 :]
            self.eq = 0
            raise self.bpe.missing_byte_error(bad, done)

    def _append_bytewise(self, data: bytes) -> None:
        """Periodic shortcut: ``last[n]`` is a function of ``buf[n-M:n]`` and
        ``last[n-M:n]`` (``M = max_token_len``) when ``n > M`` (no candidate starts
        at 0).  ``eq`` counts the consecutive positions ``m`` ending at the previous
        one with ``buf[m-1] == buf[m-1-per]`` and ``last[m] == last[m-per]``; when it
        covers the window and the new byte repeats too, ``last[n] = last[n-per]``
        with no automaton call and no pair check (runs of one byte or of a short
        period: spaces, ``"\n \n"``, digits).  ``per`` is re-guessed as the length of
        the last token whenever the match breaks (O(1) per byte on prose).
        """
        bpe = self.bpe
        rev_iter_long, next_suffix = bpe._bpe_stream_reverse
        masks = bpe.continuation_masks
        token_lens = bpe.token_lens
        max_len = bpe.max_token_len
        buf = self.buf
        last = self.last
        counts = self.counts
        rev = self.rev
        per = self.per
        eq = self.eq
        for b in data:
            buf.append(b)
            rev = _LATIN[b] + rev
            if len(rev) > max_len:
                rev = rev[:max_len]
            n = len(buf)
            if eq > max_len and n - per > max_len and buf[n - 1 - per] == b:
                t = last[n - per]
                last.append(t)
                counts.append(counts[n - token_lens[t]] + 1)
                eq += 1
                continue
            end_rel, t = next(rev_iter_long(rev), _NO_MATCH)
            if t < 0 or end_rel + 1 != token_lens[t]:
                del buf[-1:]
                self.rev = ""
                self._reset_rev()
                self.eq = 0
                raise bpe.missing_byte_error(bytes(buf) + bytes([b]), len(buf))
            while True:
                start = n - token_lens[t]
                if start == 0:
                    last.append(t)
                    counts.append(1)
                    break
                prev = last[start]
                # the continuation mask settles most pairs without the unwinding check
                if not (masks[prev] >> buf[start]) & 1 or _valid_pair_memo(bpe, prev, t):
                    last.append(t)
                    counts.append(counts[start] + 1)
                    break
                t = next_suffix[t]
            if n > per and buf[n - 1 - per] == b and last[n - per] == t:
                eq += 1
            else:
                eq = 0
                per = token_lens[t]
        self.rev = rev
        self.per = per
        self.eq = eq

    def _append_scan(self, data: bytes) -> None:
        self.eq = 0
        bpe = self.bpe
        token_lens = bpe.token_lens
        masks = bpe.continuation_masks
        buf = self.buf
        last = self.last
        counts = self.counts
        n0 = len(buf)
        lo = max(0, n0 - bpe.max_token_len + 1)
        buf += data
        window = buf[lo:].decode("latin-1")
        done = n0
        try:
            for e, t in bpe.automaton.iter(window):
                p = lo + e + 1
                if p <= done:
                    continue
                if p != done + 1:
                    break
                start = p - token_lens[t]
                if start == 0:
                    last.append(t)
                    counts.append(1)
                    done = p
                elif not (masks[last[start]] >> buf[start]) & 1 or _valid_pair_memo(bpe, last[start], t):
                    last.append(t)
                    counts.append(counts[start] + 1)
                    done = p
        finally:
            if done != len(buf):
                bad = bytes(buf)
                del buf[done:]
                raise bpe.missing_byte_error(bad, done)
