"""Where a chunker step inside periodic text stops reading: its unit's reach, not the byte horizon.

Invariant: when ``step_end(replay, n, s)`` returns ``h >= 0``, the chunk the chunker's step
from the state ``(s, m)`` makes, its token count and the next chunk's start are those the
same step makes on ``T[s:h]`` taken as the whole input (offsets shifted by ``s``): the
step needs nothing of the text past ``h``, held or not.

Why.  ``h`` is returned only when the replay (:mod:`.periodic`) holds a stretch ``T[a:r]``
of period ``p`` with ``a <= s`` and ``h = s + horizon <= r``, ``horizon`` the stretch's
(:mod:`.periodic_reach`: ``B * L + M + LOOKAHEAD + 3`` for its unit, at most the byte
horizon's ``B * max_token_len + LOOKAHEAD + 2``).  That module argues that no end past
``s + B * L`` fits then, for the text held and for any text that follows, because every
end ``e <= r`` costs at least ``(e - s) / L`` tokens and every longer one more than
``B``.  On ``T[s:h]`` as the whole input the candidates are the same ends, with the same
counts (``count(T[s:e])`` reads ``T[s:e]`` only), so the largest end that fits is the
same; the semantic levels and the grapheme level read ``LOOKAHEAD`` characters past it,
still inside ``T[s:h]``; the overlap start is a function of ``T[s:e]``.  So the chunker can
take that step on a window of ``horizon`` characters: it reads ``O(horizon)`` text
(about ``B * L`` characters) instead of waiting for, splitting and scanning up to the byte
horizon (``B * max_token_len``: about a megabyte at budget 8192 for o200k), and the
first chunk of a long periodic input is decided as soon as its unit's reach is held.

Complexity: O(1).
"""

from __future__ import annotations

__all__ = ["step_end"]


def step_end(replay, n: int, s: int) -> int:
    """``s + horizon`` when the step from ``s`` reads only ``T[s : s + horizon]`` inside the
    replay's periodic stretch and that is shorter than the held text from ``s`` (``n``:
    its length); else -1 (the step runs on the whole held text)."""
    if replay is None or replay.p < 0 or s < replay.a:
        return -1
    h = s + replay.horizon
    if h > replay.r or h >= n:
        return -1
    return h
