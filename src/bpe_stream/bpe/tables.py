"""Building a vocabulary's tables (the construction check included).

From the token list alone, in O(sum of token lengths^2) once per vocabulary (cached
on disk by :mod:`bpe_stream.encoding.cache`):

* ``split_left[t], split_right[t]``: the pair BPE holds just before it produces ``t``
  when encoding ``token_bytes(t)`` alone: the unique split into two earlier tokens
  that the pair test accepts with only the tokens ranked below ``t``.  A token without
  one does not encode to itself, and the vocabulary is rejected naming it;
* ``next_prefix[t]``: the longest token that is a strict prefix of ``t`` (-1 if none);
* ``continuation_masks[t]``: bit ``c`` set iff some suffix of ``t`` followed by byte
  ``c`` starts a token (the pair test's pre-filter);
* one Aho-Corasick automaton over all tokens (bytes as latin-1 ``str``, so automaton
  offsets are byte offsets).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ahocorasick

from .pairs import _is_valid_pair

if TYPE_CHECKING:  # annotations only: the vocabulary module imports the encoders
    from .vocabulary import BytePairEncoding


def _latin1(data: bytes) -> str:
    return data.decode("latin-1")


def _build_tables(bpe: BytePairEncoding) -> dict:
    tokens = bpe.tokens
    ranks = bpe.ranks
    ranks_get = ranks.get
    n = len(tokens)
    split_left = list(range(n))
    split_right = list(range(n))
    for rank, token in enumerate(tokens):
        if len(token) == 1:
            continue
        # The pair BPE holds just before producing `token` is the unique split
        # (a, b) into two earlier tokens that BPE keeps adjacent with only the
        # tokens ranked below `token` available.  Try prefixes longest first.
        for cut in range(len(token) - 1, 0, -1):
            left = ranks_get(token[:cut])
            if left is None or left >= rank:
                continue
            right = ranks_get(token[cut:])
            if right is None or right >= rank:
                continue
            if _is_valid_pair(ranks_get, tokens, split_left, split_right, left, right, rank):
                split_left[rank] = left
                split_right[rank] = right
                break
        else:
            raise ValueError(
                f"token {rank} {token!r} does not encode to itself under BPE with the "
                "tokens ranked before it, so the vocabulary breaks BPE's construction rule"
            )
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
        "split_left": split_left,
        "split_right": split_right,
        "next_prefix": next_prefix,
        "continuation_masks": continuation_masks,
        "automaton": automaton,
    }
