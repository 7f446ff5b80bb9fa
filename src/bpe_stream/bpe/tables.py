"""Building a vocabulary's tables (the construction check included).

From the token list alone, in O(sum of token lengths^2) once per vocabulary (cached
on disk by :mod:`bpe_stream.encoding.cache`):

* ``split_left[t], split_right[t]``: the pair BPE holds just before it produces ``t``
  when encoding ``token_bytes(t)`` alone (see :func:`_splits`); a token that BPE does
  not produce from its own bytes makes the vocabulary invalid (``UnreachableTokens``);
* ``exceptional``: the tokens whose merge time is not their rank (a part ranks above
  them, or their history holds such a token), for which the pair test falls back to
  BPE's merge loop (:mod:`bpe_stream.bpe.pairs`);
* ``next_prefix[t]``: the longest token that is a strict prefix of ``t`` (-1 if none);
* ``continuation_masks[t]``: bit ``c`` set iff some suffix of ``t`` followed by byte
  ``c`` starts a token (the pair test's pre-filter);
* one Aho-Corasick automaton over all tokens (bytes as latin-1 ``str``, so automaton
  offsets are byte offsets).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ahocorasick

from .pairs import _is_valid_pair, _unwind, merge_loop_parts

if TYPE_CHECKING:  # annotations only: the vocabulary module imports the encoders
    from .vocabulary import BytePairEncoding


def _latin1(data: bytes) -> str:
    return data.decode("latin-1")


def _build_tables(bpe: BytePairEncoding) -> dict:
    tokens = bpe.tokens
    ranks = bpe.ranks
    ranks_get = ranks.get
    split_left, split_right, exceptional, unreachable = _splits(tokens, ranks_get)
    if unreachable:
        first = min(unreachable)
        raise UnreachableTokens(
            f"token {first} {tokens[first]!r} does not encode to itself under BPE "
            f"({len(unreachable)} tokens do not), so the vocabulary breaks BPE's construction rule; "
            "a vocabulary file that holds such tokens loads with bpe_stream.load, which keeps them "
            "for pieces that equal them",
            sorted(unreachable),
        )
    n = len(tokens)
    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for rank, token in enumerate(tokens):
        automaton.add_word(_latin1(token), rank)
    automaton.make_automaton()
    next_prefix = [-1] * n
    for rank, token in enumerate(tokens):
        for cut in range(len(token) - 1, 0, -1):
            shorter = ranks_get(token[:cut])
            if shorter is not None:
                next_prefix[rank] = shorter
                break
    # Bytes that can follow each strict prefix of a token, as bit masks.
    followers: dict[bytes, int] = {}
    for token in tokens:
        for cut in range(1, len(token)):
            prefix = token[:cut]
            followers[prefix] = followers.get(prefix, 0) | (1 << token[cut])
    followers_get = followers.get
    continuation_masks = [0] * n
    for rank, token in enumerate(tokens):
        mask = 0
        for cut in range(len(token)):
            mask |= followers_get(token[cut:], 0)
        continuation_masks[rank] = mask
    return {
        "exceptional": exceptional,
        "split_left": split_left,
        "split_right": split_right,
        "next_prefix": next_prefix,
        "continuation_masks": continuation_masks,
        "automaton": automaton,
    }


class UnreachableTokens(ValueError):
    """A vocabulary holds tokens that BPE never produces from their bytes; ``tokens``
    lists their ranks."""

    def __init__(self, message: str, tokens: list[int]):
        super().__init__(message)
        self.tokens = tokens


def _splits(tokens, ranks_get):
    """``(split_left, split_right, exceptional, unreachable)`` for tokens in rank order.

    First pass, in rank order: the split of a token is the pair of lower-ranked tokens
    whose unwinding accepts them with the token's rank as the limit (the construction of
    the Rust crate); a token with none, or whose check meets a token the pass could not
    build, waits.  Why an accepted split is BPE's: BPE run on the token's bytes merges
    every available pair ranked below the token before any ranked above it, so it
    reaches the two accepted parts and then the token.  Second pass, for the tokens that
    waited: BPE's merge loop on the token's bytes with every token; the token is
    *unreachable* if that does not end in the token itself, else *exceptional* (a part
    ranks above it, or its history holds such a token), with the parts the loop held
    before its last merge as its split.  O(sum of token lengths^2) in all."""
    n = len(tokens)
    split_left = list(range(n))
    split_right = list(range(n))
    waiting: set[int] = set()
    for rank, token in enumerate(tokens):
        if len(token) == 1:
            continue
        # Try prefixes longest first; a check that meets a waiting token decides nothing.
        for cut in range(len(token) - 1, 0, -1):
            left = ranks_get(token[:cut])
            if left is None or left >= rank:
                continue
            right = ranks_get(token[cut:])
            if right is None or right >= rank:
                continue
            v = _unwind(ranks_get, tokens, split_left, split_right, left, right, rank, waiting) \
                if waiting else _is_valid_pair(ranks_get, tokens, split_left, split_right, left, right, rank)
            if v is None:
                waiting.add(rank)
                break
            if v:
                split_left[rank] = left
                split_right[rank] = right
                break
        else:
            waiting.add(rank)
    exceptional: set[int] = set()
    unreachable: set[int] = set()
    for rank in sorted(waiting, key=lambda r: len(tokens[r])):
        token = tokens[rank]
        if merge_loop_parts(token, ranks_get) != [token]:
            unreachable.add(rank)
            continue
        left, right = merge_loop_parts(token, ranks_get, skip=token)  # the pair before the last merge
        split_left[rank], split_right[rank] = ranks_get(left), ranks_get(right)
        exceptional.add(rank)
    return split_left, split_right, frozenset(exceptional), unreachable
