"""Argument checks shared by every layer: one message per kind of bad input."""

from __future__ import annotations


def _check_bytes(data) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, str):
        raise TypeError("expected bytes, got str (encode it, or use an Encoding for text)")
    raise TypeError(f"expected bytes, got {type(data).__name__}")


#: budgets above this are read as this: no text holds 2**62 tokens
MAX_LIMIT = 1 << 62


def _check_limit(limit, name: str = "limit") -> int:
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"{name} must be an int, got {type(limit).__name__}")
    if limit < 0:
        raise ValueError(f"{name} must be >= 0, got {limit}")
    # no text has more tokens than this; a larger budget means the same (and fits a C size)
    return min(limit, MAX_LIMIT)


def _check_bytes_input(data) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, str):
        raise TypeError("this encoder works on bytes (a BytePairEncoding); got str — encode it first")
    raise TypeError(f"expected bytes, got {type(data).__name__}")


def _check_len(n, length: int) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"truncation length must be an int, got {type(n).__name__}")
    if not 0 <= n <= length:
        raise ValueError(f"cannot truncate to {n}: length is {length}")
    return n


def _check_budget(max_tokens) -> int:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
        raise TypeError(f"max_tokens must be an int, got {type(max_tokens).__name__}")
    if max_tokens < 0:
        raise ValueError(f"max_tokens must be >= 0, got {max_tokens}")
    return max_tokens


def _check_start(start, n: int) -> int:
    if isinstance(start, bool) or not isinstance(start, int):
        raise TypeError(f"start must be an int, got {type(start).__name__}")
    if not 0 <= start <= n:
        raise ValueError(f"start {start} out of range 0..{n}")
    return start
