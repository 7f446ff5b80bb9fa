"""Backtracking encoder: greedy longest match, undone where BPE disagrees.

Invariant: ``tokens`` is always the BPE encoding of ``data[:pos]`` (every adjacent
pair passes ``is_valid_token_pair``).  At each step the longest token matching at
``pos`` is tried, then its shorter prefixes (``next_prefix``), and the first one
that is compatible with the previous token and does not end at a known dead end
is pushed.  If none fits, the last token is popped and ``pos`` is marked dead in a
bitfield: no valid encoding of a longer prefix passes through it, so it is never
tried again.

Complexity: every position is marked dead at most once, so there are at most
``len(data)`` pops; each push/pop tries at most ``max_token_len`` candidates, and
in practice about one (the greedy match is BPE's token ~90 % of the time on
prose).  Linear in ``len(data)`` for a fixed vocabulary, O(n) memory.

The greedy matches come from one leftmost-longest Aho-Corasick scan over a
bounded window that is reused while BPE accepts its matches and restarted at the
current position only when BPE rejects one.
"""

from __future__ import annotations

from bitarray import bitarray

# Scanning a window of this many bytes at a time keeps pyahocorasick from
# converting the whole input on every restart (it converts its whole argument).
_WINDOW = 2048


def encode_backtracking(bpe, data: bytes) -> list[int]:
    n = len(data)
    if n == 0:
        return []
    text = data.decode("latin-1")
    iter_long = bpe.automaton.iter_long
    next_prefix = bpe.next_prefix
    token_lens = bpe.token_lens
    ranks_get = bpe.ranks.get
    tokens_bytes = bpe.tokens
    split_left = bpe.split_left
    split_right = bpe.split_right
    n_tokens = len(tokens_bytes)
    max_len = bpe.max_token_len
    from .vocabulary import _is_valid_pair

    alive = bitarray(n + 1)
    alive.setall(1)
    tokens: list[int] = []
    append = tokens.append

    # Greedy scanner state: matches of `matches` come from text[win:win_end],
    # in order; `expect` is where the next greedy match starts.
    win = 0
    win_end = 0
    matches = None
    expect = -1

    def rescan(p):
        nonlocal win, win_end, matches, expect
        win = p
        win_end = min(n, p + _WINDOW)
        matches = iter_long(text[p:win_end])
        expect = p

    pos = 0
    last = -1
    rescan(0)
    # Longest match at `pos`.
    while True:
        # -- next greedy token at pos
        if pos != expect or (win_end < n and pos + max_len > win_end):
            rescan(pos)
        try:
            end_rel, token = next(matches)
        except StopIteration:
            raise bpe.missing_byte_error(data, pos) from None
        end = win + end_rel + 1
        if end - token_lens[token] != pos:
            raise bpe.missing_byte_error(data, pos)
        expect = end
        # -- try it and its prefixes
        while True:
            end = pos + token_lens[token]
            if alive[end] and (
                last < 0
                or _is_valid_pair(ranks_get, tokens_bytes, split_left, split_right, last, token, n_tokens)
            ):
                append(token)
                pos = end
                last = token
                if pos == n:
                    return tokens
                break
            token = next_prefix[token]
            if token < 0:
                # Dead end: no token fits here.  Pop the last token and retry its
                # shorter prefixes.
                alive[pos] = 0
                if not tokens:
                    raise bpe.missing_byte_error(data, pos)
                token = tokens.pop()
                pos -= token_lens[token]
                last = tokens[-1] if tokens else -1
                expect = -1
                # the popped token ends at a now-dead position, so the inner loop
                # moves on to its prefixes
                continue
