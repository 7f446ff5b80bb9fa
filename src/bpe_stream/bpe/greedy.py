"""Two fast encoders that are *not* BPE: for comparison and estimates only.

* ``encode_greedy``: leftmost-longest matching (one Aho-Corasick pass, O(n)).
  Often equal to BPE on prose, but not always.
* ``encode_minimal``: the fewest tokens that spell ``data`` (dynamic program over
  all overlapping matches, O(n * max_token_len)).  A lower bound on BPE's count.
"""

from __future__ import annotations

from .table import tokens_ending_at


def encode_greedy(bpe, data: bytes) -> list[int]:
    out = []
    pos = 0
    token_lens = bpe.token_lens
    for e, token in bpe.automaton.iter_long(data.decode("latin-1")):
        if e + 1 - token_lens[token] != pos:
            raise bpe.missing_byte_error(data, pos)
        out.append(token)
        pos = e + 1
    if pos != len(data):
        raise bpe.missing_byte_error(data, pos)
    return out


def encode_minimal(bpe, data: bytes) -> list[int]:
    n = len(data)
    if n == 0:
        return []
    token_lens = bpe.token_lens
    big = n + 1
    best = [big] * (n + 1)
    best[0] = 0
    choice = [0] * (n + 1)
    for e, token in bpe.automaton.iter(data.decode("latin-1")):
        p = e + 1
        c = best[p - token_lens[token]] + 1
        if c < best[p]:
            best[p] = c
            choice[p] = token
    if best[n] >= big:
        p = next(p for p in range(n + 1) if best[p] >= big)
        raise bpe.missing_byte_error(data, p - 1)
    return tokens_ending_at(choice, token_lens, n)
