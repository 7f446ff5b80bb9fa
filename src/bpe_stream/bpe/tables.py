"""Building a vocabulary's tables (the construction check included), in pure Python.

The compiled core builds the same tables in C (``_native/vocab.c``); this module is
the reference it is tested against, and the path taken without a C compiler.  From
the token list alone:

* ``split_left[t], split_right[t]``: the pair BPE holds just before it produces ``t``
  when encoding ``token_bytes(t)`` alone (see :func:`_splits`); a token that BPE does
  not produce from its own bytes makes the vocabulary invalid (``UnreachableTokens``,
  which :meth:`BytePairEncoding.from_ordered` catches to keep such tokens aside);
* ``exceptional``: the tokens whose merge time is not their rank (a part ranks above
  them, or their history holds such a token), for which the pair test falls back to
  BPE's merge loop (:mod:`bpe_stream.bpe.pairs`); :func:`classify_waiting` is the same
  second pass for the tokens the compiled core's first pass leaves (split -1);
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

from .pairs import _is_valid_pair, merge_loop_parts


def _latin1(data: bytes) -> str:
    return data.decode("latin-1")


class UnreachableTokens(ValueError):
    """A vocabulary holds tokens that BPE never produces from their bytes; ``tokens``
    lists their ranks."""

    def __init__(self, message: str, tokens: list[int]):
        super().__init__(message)
        self.tokens = tokens


def unreachable_error(ranks: list[int], tokens: list[bytes]) -> UnreachableTokens:
    """The error for a vocabulary whose tokens ``ranks`` BPE never produces."""
    first = min(ranks)
    more = f" ({len(ranks)} tokens do not)" if len(ranks) > 1 else ""
    return UnreachableTokens(
        f"token {first} {tokens[first]!r} does not encode to itself under BPE{more}, so the "
        "vocabulary breaks BPE's construction rule; a vocabulary file that holds such tokens "
        "loads with bpe_stream.load, which keeps them for pieces that equal them",
        sorted(ranks),
    )


def build_splits(tokens: list[bytes], ranks: dict[bytes, int]):
    """``(split_left, split_right, exceptional)``; ``UnreachableTokens`` lists the tokens
    BPE never produces from their bytes."""
    split_left, split_right, exceptional, unreachable = _splits(tokens, ranks.get)
    if unreachable:
        raise unreachable_error(sorted(unreachable), tokens)
    return split_left, split_right, exceptional


def classify_waiting(tokens: list[bytes], ranks_get, waiting, split_left, split_right):
    """The second pass of :func:`_splits` for the tokens a first pass left: ``(exceptional,
    unreachable)``, the splits of the exceptional ones filled in.  ``waiting`` must hold
    every token whose first-pass check may have met a waiting token (the compiled core's
    first pass treats those as absent, so the caller adds every token that holds one:
    :func:`tokens_holding`; one that did not need it is only decided more slowly).
    The compiled twin is ``_native/waiting.c``, on a first pass's parts."""
    exceptional: set[int] = set()
    unreachable: set[int] = set()
    for rank in sorted(waiting, key=lambda r: len(tokens[r])):
        token = tokens[rank]
        if len(token) == 1:
            continue
        if merge_loop_parts(token, ranks_get) != [token]:
            unreachable.add(rank)
            continue
        left, right = merge_loop_parts(token, ranks_get, skip=token)  # the pair before the last merge
        split_left[rank], split_right[rank] = ranks_get(left), ranks_get(right)
        exceptional.add(rank)
    return exceptional, unreachable


def tokens_holding(tokens: list[bytes], inner) -> set[int]:
    """The ranks of the tokens whose bytes hold one of ``inner`` (those included)."""
    inner = set(inner)
    if not inner:
        return set()
    # One Aho-Corasick pass per token (bytes read as Latin-1 code points, one per byte):
    # O(total token bytes); a regex alternation of the inner tokens retries every one of
    # them at every position.
    import ahocorasick  # on first use: see build_automaton

    finder = ahocorasick.Automaton()
    for t in inner:
        finder.add_word(t.decode("latin-1"), 0)
    finder.make_automaton()
    find = finder.iter
    return {r for r, t in enumerate(tokens) if next(find(t.decode("latin-1")), None) is not None}


def check_splits(tokens: list[bytes], split_left, split_right, exceptional=frozenset()) -> bool:
    """Whether stored split tables are splits of their tokens into lower-ranked tokens
    (what the pair test needs to terminate; an exceptional token's parts may rank above
    it: it is never unwound); the compiled core checks the same."""
    n = len(tokens)
    if len(split_left) != n or len(split_right) != n:
        return False
    for rank, token in enumerate(tokens):
        a, b = split_left[rank], split_right[rank]
        below = n if rank in exceptional else rank
        if len(token) == 1:
            if a != rank or b != rank or rank in exceptional:
                return False
        elif not (
            isinstance(a, int) and isinstance(b, int) and 0 <= a < below and 0 <= b < below
            and a != rank and b != rank and tokens[a] + tokens[b] == token
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
    # imported here, not with the module: on free-threaded Python, importing pyahocorasick
    # (which does not declare itself free-threading safe) turns the GIL back on for the
    # whole process, and the compiled core never needs it
    import ahocorasick

    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for rank, token in enumerate(tokens):
        automaton.add_word(_latin1(token), rank)
    automaton.make_automaton()
    return automaton


def _build_tables(bpe) -> dict:
    """Every table of ``bpe`` but the automaton (built on first use)."""
    split_left, split_right, exceptional = build_splits(bpe.tokens, bpe.ranks)
    next_prefix, continuation_masks = derived_tables(bpe.tokens, bpe.ranks)
    return {
        "exceptional": exceptional,
        "split_left": split_left,
        "split_right": split_right,
        "next_prefix": next_prefix,
        "continuation_masks": continuation_masks,
    }


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
            v = _is_valid_pair(ranks_get, tokens, split_left, split_right, left, right, rank, waiting)
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
