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


def _context(bpe) -> tuple:
    """The attributes the loop reads, bundled once per vocabulary (short pieces are
    dominated by set-up cost)."""
    ctx = bpe.__dict__.get("_backtracking_context")
    if ctx is None:
        ctx = (
            bpe.automaton.iter_long,
            bpe.next_prefix,
            bpe.token_lens,
            bpe.continuation_masks,
            bpe.pair_ok,
            bpe.max_token_len,
            max(_WINDOW, 4 * bpe.max_token_len),
        )
        bpe.__dict__["_backtracking_context"] = ctx
    return ctx


def encode_backtracking(bpe, data: bytes) -> list[int]:
    n = len(data)
    if n == 0:
        return []
    text = data.decode("latin-1")
    (
        iter_long,
        next_prefix,
        token_lens,
        masks,
        pair_ok,
        max_len,
        window,
    ) = _context(bpe)
    # The dead-end bitfield is allocated at the first dead end (most inputs have none).
    alive = None
    tokens: list[int] = []
    append = tokens.append
    pop = tokens.pop

    pos = 0
    last = -1
    while True:
        # Fast path: take the greedy (leftmost-longest) matches of a window as
        # long as BPE agrees with each one.  A match starting past `trusted`
        # might have been cut short by the window's end, so the window is
        # refilled there instead.
        win = pos
        win_end = win + window
        if win_end >= n:
            win_end = n
            trusted = n
        else:
            trusted = win_end - max_len
        token = -1
        for end, token in iter_long(text[win:win_end]):
            if pos > trusted:
                token = -1
                break
            end += win + 1
            if end - token_lens[token] != pos:
                raise bpe.missing_byte_error(data, pos)
            if (
                last >= 0
                and (masks[last] >> data[pos]) & 1
                and not pair_ok(last, token)
            ) or (alive is not None and not alive[end]):
                break  # BPE rejects the greedy token: slow path below
            append(token)
            if end == n:
                return tokens
            pos = end
            last = token
            token = -1
        if token < 0:
            if pos == win:  # no match starts where the window does
                raise bpe.missing_byte_error(data, pos)
            continue
        # Slow path: `token` (the longest match at `pos`) was rejected; try its
        # shorter prefixes, and pop tokens at dead ends, until one is pushed.
        while True:
            token = next_prefix[token]
            while token < 0:
                # Dead end: nothing fits at `pos`, so no encoding of a longer
                # prefix passes through it.  Pop the last token; its shorter
                # prefixes are tried next (its own end is now dead).
                if alive is None:
                    alive = bitarray(n + 1)
                    alive.setall(1)
                alive[pos] = 0
                if not tokens:
                    raise bpe.missing_byte_error(data, pos)
                token = pop()
                pos -= token_lens[token]
                last = tokens[-1] if tokens else -1
                token = next_prefix[token]
            end = pos + token_lens[token]
            if (alive is None or alive[end]) and (
                last < 0
                or not (masks[last] >> data[pos]) & 1
                or pair_ok(last, token)
            ):
                append(token)
                if end == n:
                    return tokens
                pos = end
                last = token
                break
