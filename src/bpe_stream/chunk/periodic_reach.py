"""How far a chunk's decision reads inside periodic text: the replay's horizon per unit.

Invariant: ``unit_token_bytes(enc, unit)`` is the byte length of the longest token of
``enc`` (mergeable, unreachable or whole-piece) that occurs in the UTF-8 of ``unit``
repeated without end, so no token of any text of period ``unit`` is longer.

Why the horizon ``B * L + M + LOOKAHEAD + 3`` (characters) suffices, with ``B`` the
budget, ``L = unit_token_bytes`` and ``M`` the longest token of the vocabulary (bytes):
let ``T[a:r]`` have period ``p`` with unit ``u`` and ``a <= s``.  Every token of
``T[s:e]`` is a substring of ``T[s:e]``'s bytes (byte-level BPE, no normalizer).  For
``e <= r`` all of them lie in the periodic text, so each covers at most ``L`` bytes and
``count(T[s:e]) >= bytes(T[s:e]) / L >= (e - s) / L``: no end past ``s + B * L`` fits.
For ``e > r`` at most one token crosses ``r``; the others before it cover at least
``bytes(T[s:r]) - M`` bytes, so the count exceeds ``B`` once ``r - s > B * L + M``.  So
with ``r - s >= B * L + M + 1`` the largest end that fits is at most ``s + B * L``, and the
step reads no further than ``LOOKAHEAD + 2`` characters past it (the module docstring
of :mod:`bpe_stream.chunk.periodic` says why), all inside ``T[s : s + horizon]``.

Complexity: ``len(U) * max_len`` vocabulary look-ups per unit (``U`` its UTF-8, at most
32 bytes; ``max_len`` the longest token), cached per encoding and unit.
"""

from __future__ import annotations

__all__ = ["unit_token_bytes", "unit_horizon"]

_CACHE_LIMIT = 256


def _token_test(enc):
    bpe = enc.bpe
    core = bpe._core
    unreachable = bpe.unreachable
    whole = getattr(enc, "_whole", None) or {}
    if core is not None:
        rank = core.rank
    else:
        rank = bpe.ranks.get

    def is_token(data: bytes) -> bool:
        return rank(data) is not None or data in unreachable or data in whole

    return is_token


def unit_token_bytes(enc, unit: str, max_len: int) -> int:
    """Byte length of the longest token of ``enc`` of at most ``max_len`` bytes occurring
    in ``unit * infinity`` (UTF-8)."""
    cache = enc.__dict__.setdefault("_periodic_unit_tokens", {})
    key = (unit, max_len)
    found = cache.get(key)
    if found is not None:
        return found
    data = unit.encode("utf-8")
    period = len(data)
    hay = data * (max_len // period + 2)
    is_token = _token_test(enc)
    longest = 1
    for start in range(period):
        for length in range(max_len, longest, -1):  # the longest first: stop at the first token
            if is_token(hay[start : start + length]):
                longest = length
                break
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = longest
    return longest


def unit_horizon(enc, unit: str, max_tokens: int, max_token_bytes: int, lookahead: int) -> int:
    """Characters from a chunk's start inside text of period ``unit`` on which the chunk
    and the state after it depend (module docstring), when that much periodic text follows."""
    return max_tokens * unit_token_bytes(enc, unit, max_token_bytes) + max_token_bytes + lookahead + 3
