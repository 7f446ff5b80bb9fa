"""Table encoder: the last token of BPE's encoding of every prefix.

Invariant: ``last[p]`` is the last token of BPE's encoding of ``data[:p]``, and
``counts[p]`` its length.  ``last[p]`` is the longest token ``t`` ending at ``p``
such that ``p - len(t) == 0`` or ``(last[p - len(t)], t)`` is a valid pair: the
encoding of ``data[:p - len(t)]`` followed by ``t`` has only valid pairs, so it is
BPE's encoding of ``data[:p]``, and any longer candidate would be found first.
The whole encoding of ``data`` is read backwards from ``last[n]``.

Complexity: one Aho-Corasick pass over all overlapping matches (a few per byte on
real text, at most ``max_token_len`` per byte), each checked with one pair test
until the first valid one: O(n * max_token_len) worst case, linear in practice.
Memory: two ints per byte.

Pair checks: the continuation mask, then a small memo of pair results (shared with
:mod:`bpe_stream.stream.appendable`).  Periodic shortcut: ``last[p]`` is a function of
``data[p-M:p]`` and ``last[p-M:p]`` (``M = max_token_len``) once ``p > M`` (no
candidate starts at 0), so when both windows equal the ones ``per`` positions
earlier, ``last[p] = last[p-per]`` with no pair check.  ``eq`` counts consecutive
positions matching ``per`` back; ``per`` is re-guessed as the last token's length
whenever the match breaks.  On runs of one byte (100 KB of spaces: 40-60 pair
checks per byte before) this leaves only the automaton's overlapping matches.

Counts of prefixes give an exact early stop (``count_till_limit``, ``split_at``):
BPE's encoding of ``data[:q]`` has a token boundary in every window of
``max_token_len`` consecutive positions before ``q``, and its prefix up to that
boundary is itself a BPE encoding.  So ``count(data[:q]) >= 1 + min(counts over
the window)`` and the minimum of ``counts`` over a sliding window of
``max_token_len`` positions never decreases: once it exceeds the budget, no later
prefix can fit.
"""

from __future__ import annotations

from array import array

from .pairs import _valid_pair_memo


class PrefixTable:
    """``last`` and ``counts`` for every prefix of ``data``, built incrementally.

    ``extend_to(p)`` fills the table up to prefix length ``p``; the scan stops as
    soon as it is not needed, which ``count_till_limit`` and ``split_at`` use.
    """

    __slots__ = ("bpe", "data", "n", "last", "counts", "done", "_matches", "_per", "_eq", "_core")

    def __init__(self, bpe, data: bytes):
        self.bpe = bpe
        self.data = data
        self.n = len(data)
        self.done = 0  # table is filled for prefixes 0..done
        self._per = 1  # periodic shortcut (see the module docstring)
        self._eq = 0
        self._core = bpe._core
        if self._core is not None:
            zeros = bytes(4 * (self.n + 1))
            self.last = array("i", zeros)
            self.counts = array("i", zeros)
            self._matches = None
        else:
            self.last = [0] * (self.n + 1)
            self.counts = [0] * (self.n + 1)
            self._matches = bpe.automaton.iter(data.decode("latin-1"))

    def extend_to(self, target: int) -> int:
        """Fill the table for every prefix length up to ``target``; returns ``done``."""
        if target <= self.done:
            return self.done
        bpe = self.bpe
        if self._core is not None:
            self.done, self._per, self._eq = self._core.table_fill(
                self.data, self.last, self.counts, self.done, min(target, self.n), self._per, self._eq
            )
            if self.done < target:
                raise bpe.missing_byte_error(self.data, self.done)
            return self.done
        token_lens = bpe.token_lens
        masks = bpe.continuation_masks
        M = bpe.max_token_len
        data = self.data
        last = self.last
        counts = self.counts
        done = self.done
        per = self._per
        eq = self._eq
        for e, token in self._matches:
            p = e + 1
            if p <= done:
                continue  # a longer valid token already ends here
            if p != done + 1:
                raise bpe.missing_byte_error(self.data, done)
            if eq > M and p - per > M and data[p - 1] == data[p - 1 - per]:
                token = last[p - per]
                last[p] = token
                counts[p] = counts[p - token_lens[token]] + 1
                done = p
                eq += 1
                if done >= target:
                    break
                continue
            start = p - token_lens[token]
            if (
                start == 0
                or not (masks[last[start]] >> data[start]) & 1
                or _valid_pair_memo(bpe, last[start], token)
            ):
                last[p] = token
                counts[p] = counts[start] + 1
                done = p
                if p > per and data[p - 1] == data[p - 1 - per] and last[p - per] == token:
                    eq += 1
                else:
                    eq = 0
                    per = token_lens[token]
                if done >= target:
                    break
        self.done = done
        self._per = per
        self._eq = eq
        if done < target:
            raise bpe.missing_byte_error(self.data, done)
        return done

    def tokens_of_prefix(self, p: int) -> list[int]:
        self.extend_to(p)
        return tokens_ending_at(self.last, self.bpe.token_lens, p)


def tokens_ending_at(last, token_lens, p: int) -> list[int]:
    """The tokens of prefix ``p``, read backwards from ``last[p]`` (the last token
    of every prefix, as built by the table pass and the appendable encoder)."""
    out = []
    while p > 0:
        t = last[p]
        out.append(t)
        p -= token_lens[t]
    out.reverse()
    return out


def encode_table(bpe, data: bytes) -> list[int]:
    if not data:
        return []
    table = PrefixTable(bpe, data)
    return table.tokens_of_prefix(len(data))


def count_till_limit(bpe, data: bytes, limit: int) -> int | None:
    n = len(data)
    if n <= limit:
        # Every token covers at least one byte.
        return bpe.count(data)
    window = bpe.max_token_len
    if n > limit * window:
        # Every token has at most max_token_len bytes: more than limit of them are needed.
        return None
    table = PrefixTable(bpe, data)
    counts = table.counts
    # Check the sliding-window minimum every `window` positions.
    p = 0
    while True:
        p = table.extend_to(min(n, p + window))
        if p == n:
            break
        # Every longer prefix has a boundary in this window plus one more token.
        if p >= window and min(counts[p - window + 1 : p + 1]) >= limit:
            return None
    c = counts[n]
    return c if c <= limit else None
