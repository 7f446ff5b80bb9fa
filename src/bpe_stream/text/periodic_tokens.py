"""The longest token inside a periodic text, and the count bound it gives.

Invariant: ``unit_token_bytes(enc, unit, max_len)`` is the byte length of the longest
token of ``enc`` (mergeable, unreachable or whole-piece; at most ``max_len`` bytes, which
callers set to the vocabulary's longest) that occurs in the UTF-8 of ``unit`` repeated
without end.  Every token of the encoding of a text of period ``unit`` is a substring of
the text's bytes (byte-level BPE), so it has at most that many bytes, and the text's
count is at least ``bytes / unit_token_bytes``: no text of period ``unit`` with more than
``budget * unit_token_bytes`` bytes fits a budget.  (The general bound uses the longest
token of the vocabulary, 128 bytes in cl100k/o200k; inside ``'!\\u0301/'`` repeated the
longest is 2.)

Complexity: ``len(U) * max_len`` vocabulary look-ups for a unit of UTF-8 ``U`` (at most
32 bytes), cached per encoding and unit; ``text_period`` is O(len(text) * 8) character
comparisons (``memcmp``).
"""

from __future__ import annotations

__all__ = ["MAX_PERIOD", "periodic_token_bytes", "text_period", "unit_token_bytes"]

MAX_PERIOD = 8  # characters: the units of chunk/periodic.py
_CACHE_LIMIT = 256


def _token_test(enc):
    bpe = enc.bpe
    core = bpe._core
    rank = core.rank if core is not None else bpe.ranks.get
    unreachable = bpe.unreachable
    whole = getattr(enc, "_whole", None) or {}

    def is_token(data: bytes) -> bool:
        return rank(data) is not None or data in unreachable or data in whole

    return is_token


def unit_token_bytes(enc, unit: str, max_len: int) -> int:
    """Byte length of the longest token of ``enc`` of at most ``max_len`` bytes occurring
    in ``unit * infinity`` (UTF-8); 1 at least."""
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


def text_period(text: str) -> int:
    """The smallest period ``p <= MAX_PERIOD`` of the whole ``text`` (at least
    ``2 * MAX_PERIOD`` characters long), else 0."""
    n = len(text)
    if n < 2 * MAX_PERIOD:
        return 0
    for p in range(1, MAX_PERIOD + 1):
        if text[p : p + MAX_PERIOD] == text[:MAX_PERIOD] and text[p:] == text[: n - p]:
            return p
    return 0


def periodic_token_bytes(enc, text: str, max_len: int) -> int:
    """``unit_token_bytes`` of ``text``'s unit when the whole ``text`` has a period of at
    most ``MAX_PERIOD`` characters (so does every substring of it), else 0."""
    if getattr(enc, "bpe", None) is None:
        return 0
    p = text_period(text)
    return unit_token_bytes(enc, text[:p], max_len) if p else 0
