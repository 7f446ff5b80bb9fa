"""Building a vocabulary's tables (the construction check included), in pure Python.

The compiled core builds the same tables in C (``_native/vocab.c``); this module is
the reference it is tested against, and the path taken without a C compiler.  From
the token list alone:

* ``split_left[t], split_right[t]``: the pair BPE holds just before it produces ``t``
  when encoding ``token_bytes(t)`` alone: the unique split into two earlier tokens
  that the pair test accepts with only the tokens ranked below ``t``.  A token without
  one does not encode to itself, and the vocabulary is rejected naming it
  (:func:`unreachable_error`; the compiled core lists such tokens, and the vocabulary
  raises the same error for the first one).  O(sum of token lengths * pair tests);
* ``next_prefix[t]``: the longest token that is a strict prefix of ``t`` (-1 if none);
* ``continuation_masks[t]``: bit ``c`` set iff some suffix of ``t`` followed by byte
  ``c`` starts a token (the pair test's pre-filter);
  both O(sum of token lengths^2) dict look-ups;
* one Aho-Corasick automaton over all tokens (bytes as latin-1 ``str``, so automaton
  offsets are byte offsets), built on first use only (:func:`build_automaton`: 0.06 s
  for cl100k, 0.15 s for o200k): the pure-Python encoders and a few streaming paths
  read it, the compiled core never does.
"""

from __future__ import annotations

from .pairs import _is_valid_pair


def _latin1(data: bytes) -> str:
    return data.decode("latin-1")


def unreachable_error(rank: int, token: bytes) -> ValueError:
    return ValueError(
        f"token {rank} {token!r} does not encode to itself under BPE with the "
        "tokens ranked before it, so the vocabulary breaks BPE's construction rule"
    )


def build_splits(tokens: list[bytes], ranks: dict[bytes, int]) -> tuple[list[int], list[int]]:
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
            raise unreachable_error(rank, token)
    return split_left, split_right


def check_splits(tokens: list[bytes], split_left, split_right) -> bool:
    """Whether stored split tables are splits of their tokens into lower-ranked tokens
    (what the pair test needs to terminate); the compiled core checks the same."""
    n = len(tokens)
    if len(split_left) != n or len(split_right) != n:
        return False
    for rank, token in enumerate(tokens):
        a, b = split_left[rank], split_right[rank]
        if len(token) == 1:
            if a != rank or b != rank:
                return False
        elif not (
            isinstance(a, int) and isinstance(b, int) and 0 <= a < rank and 0 <= b < rank
            and tokens[a] + tokens[b] == token
        ):
            return False
    return True


def derived_tables(tokens: list[bytes], ranks: dict[bytes, int]) -> tuple[list[int], list[int]]:
    """``(next_prefix, continuation_masks)``."""
    ranks_get = ranks.get
    n = len(tokens)
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
    return next_prefix, continuation_masks


def build_automaton(tokens: list[bytes]):
    import ahocorasick

    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for rank, token in enumerate(tokens):
        automaton.add_word(_latin1(token), rank)
    automaton.make_automaton()
    return automaton


def _build_tables(bpe) -> dict:
    """Every table of ``bpe`` but the automaton (built on first use)."""
    split_left, split_right = build_splits(bpe.tokens, bpe.ranks)
    next_prefix, continuation_masks = derived_tables(bpe.tokens, bpe.ranks)
    return {
        "split_left": split_left,
        "split_right": split_right,
        "next_prefix": next_prefix,
        "continuation_masks": continuation_masks,
    }
