"""How far a chunk's decision reads inside periodic text: the replay's horizon per unit.

Invariant: ``unit_horizon`` is the number of characters from a chunk's start, inside
text of period ``unit``, on which the chunk and the state after it depend, when that
much periodic text follows (``text/periodic_tokens.py``'s ``unit_token_bytes``: the
longest token occurring in ``unit`` repeated, so no token of such text is longer).

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

Complexity: that of ``unit_token_bytes`` (cached per encoding and unit).
"""

from __future__ import annotations

from ..text.periodic_tokens import unit_token_bytes

__all__ = ["unit_token_bytes", "unit_horizon"]


def unit_horizon(enc, unit: str, max_tokens: int, max_token_bytes: int, lookahead: int) -> int:
    """Characters from a chunk's start inside text of period ``unit`` on which the chunk
    and the state after it depend (module docstring), when that much periodic text follows."""
    return max_tokens * unit_token_bytes(enc, unit, max_token_bytes) + max_token_bytes + lookahead + 3
