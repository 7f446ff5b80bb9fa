"""Slow but exact stand-ins for the streaming primitives of issue 3, for chunker tests.

They follow the signatures of ``bpe_stream.cuts`` / ``bpe_stream.interval`` exactly
and are used only when those modules are not importable yet (see
``install_if_missing``).  Exactness is what matters here, not speed:

* ``text_split_at(enc, text, max_tokens, start)``: the largest ``j`` with
  ``enc.count(text[start:j]) <= max_tokens``.  Every candidate is checked with
  ``enc.count`` from ``j_hi`` downwards, where ``j_hi`` is a point past which no
  prefix can fit: either ``max_tokens * max_token_len`` UTF-8 bytes (every token
  holds at most ``max_token_len`` bytes), or, for the built-in patterns, a
  "hard boundary" (a letter followed by a character that is not a letter, mark
  or apostrophe, where both patterns always end a piece) whose prefix already
  costs more than the budget: counts are additive across such a boundary.
* ``bytes_split_at(bpe, data, max_tokens, start)``: the prefix table of
  ``data[start:]`` with the sliding-window-minimum stop of ``bpe_stream.table``.
* ``IntervalCounter(enc_or_bpe, text).count(a, b)``: ``count(text[a:b])``.
"""

from __future__ import annotations

import sys
import types

import regex

from bpe_stream.pretokenize import CL100K_PATTERN, O200K_PATTERN
from bpe_stream.table import PrefixTable

_HARD = regex.compile(r"\p{L}(?=[^\p{L}\p{M}'])")
_HARD_PATTERNS = (CL100K_PATTERN, O200K_PATTERN)


def text_split_at(enc, text: str, max_tokens: int, start: int = 0) -> int:
    n = len(text)
    limit_bytes = max_tokens * enc.bpe.max_token_len
    # j_byte: first j whose prefix has more than limit_bytes bytes (or n).
    nbytes = 0
    j_byte = n
    for j in range(start, n):
        nbytes += len(text[j].encode("utf-8", "surrogatepass"))
        if nbytes > limit_bytes:
            j_byte = j + 1
            break
    j_hi = j_byte
    if enc.pat_str in _HARD_PATTERNS:
        total = 0
        pos = start
        for m in _HARD.finditer(text, start, j_byte):
            h = m.end()
            if h >= n:
                break
            total += enc.count(text[pos:h])
            pos = h
            if total > max_tokens:
                j_hi = h
                break
    for j in range(j_hi, start, -1):
        if enc.count(text[start:j]) <= max_tokens:
            return j
    return start


def bytes_split_at(bpe, data: bytes, max_tokens: int, start: int = 0) -> int:
    sub = bytes(data[start:])
    n = len(sub)
    if n == 0:
        return start
    table = PrefixTable(bpe, sub)
    counts = table.counts
    window = bpe.max_token_len
    p = 0
    while True:
        p = table.extend_to(min(n, p + window))
        if p == n or (p >= window and min(counts[p - window + 1 : p + 1]) >= max_tokens):
            break
    best = 0
    for j in range(p, 0, -1):
        if counts[j] <= max_tokens:
            best = j
            break
    return start + best


class IntervalCounter:
    def __init__(self, enc_or_bpe, text):
        self.enc = enc_or_bpe
        self.text = text

    def count(self, start: int, end: int) -> int:
        return self.enc.count(self.text[start:end])


def install_if_missing() -> list[str]:
    """Register these stand-ins as ``bpe_stream.cuts`` / ``bpe_stream.interval`` if absent."""
    installed = []
    import bpe_stream

    for name, attrs in (
        ("cuts", {"text_split_at": text_split_at, "bytes_split_at": bytes_split_at}),
        ("interval", {"IntervalCounter": IntervalCounter}),
    ):
        full = f"bpe_stream.{name}"
        try:
            __import__(full)
            continue
        except ImportError:
            pass
        mod = types.ModuleType(full)
        mod.__dict__.update(attrs)
        mod.__dict__["_STAND_IN"] = True
        sys.modules[full] = mod
        setattr(bpe_stream, name, mod)
        installed.append(name)
    return installed
