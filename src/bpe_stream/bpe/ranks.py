"""Reading vocabularies: ``.tiktoken`` files (plain or gzip) and rank dicts."""

from __future__ import annotations

import base64
import gzip
import hashlib
import os

__all__ = ["read_tiktoken_bytes", "parse_tiktoken", "read_tiktoken_file", "tokens_from_ranks", "sorted_ranks"]


def read_tiktoken_bytes(path) -> bytes:
    """The decompressed contents of a ``.tiktoken`` file (gzip is detected by its magic)."""
    with open(os.fspath(path), "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw


def parse_tiktoken(contents: bytes) -> dict[bytes, int]:
    """Parse ``base64-token rank`` lines into a ``mergeable_ranks`` dict."""
    ranks: dict[bytes, int] = {}
    for lineno, line in enumerate(contents.splitlines(), 1):
        if not line.strip():
            continue
        try:
            token_b64, rank = line.split()
            ranks[base64.b64decode(token_b64, validate=True)] = int(rank)
        except ValueError as e:
            raise ValueError(f"malformed .tiktoken line {lineno}: {line[:80]!r}") from e
    return ranks


def read_tiktoken_file(path, expected_sha256: str | None = None) -> dict[bytes, int]:
    contents = read_tiktoken_bytes(path)
    if expected_sha256 is not None:
        actual = hashlib.sha256(contents).hexdigest()
        if actual != expected_sha256:
            raise ValueError(
                f"{path}: SHA-256 {actual} does not match the expected {expected_sha256}"
            )
    return parse_tiktoken(contents)


def tokens_from_ranks(mergeable_ranks: dict[bytes, int]) -> list[bytes]:
    """Tokens ordered by rank; the ranks must be exactly 0..n-1."""
    n = len(mergeable_ranks)
    tokens: list[bytes | None] = [None] * n
    for token, rank in mergeable_ranks.items():
        if not isinstance(rank, int) or not 0 <= rank < n or tokens[rank] is not None:
            raise ValueError(
                f"mergeable ranks must be the integers 0..{n - 1}, each once; got {rank!r} for {token!r}"
            )
        tokens[rank] = bytes(token)
    return tokens  # type: ignore[return-value]


def sorted_ranks(mergeable_ranks: dict[bytes, int]) -> tuple[list[bytes], list[int]]:
    """Tokens in rank order and their ranks: ranks are ints >= 0, each once, and may
    start above 0 or leave holes (special tokens placed among them), as tiktoken allows."""
    if not isinstance(mergeable_ranks, dict):
        raise TypeError(f"mergeable_ranks must be a dict, got {type(mergeable_ranks).__name__}")
    items = []
    for token, rank in mergeable_ranks.items():
        if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < 1 << 32:
            raise ValueError(f"rank of {token!r} must be an int in 0..2**32-1, got {rank!r}")
        if not isinstance(token, (bytes, bytearray)):
            raise TypeError(f"token {token!r} must be bytes, got {type(token).__name__}")
        items.append((rank, bytes(token)))
    items.sort()
    for (r1, t1), (r2, t2) in zip(items, items[1:]):
        if r1 == r2:
            raise ValueError(f"tokens {t1!r} and {t2!r} share rank {r1}")
    return [t for _, t in items], [r for r, _ in items]
