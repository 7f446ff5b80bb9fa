"""``.tiktoken`` files (``base64-token rank`` per line, plain or gzip): ranks only.

The file does not say how to pre-split text, so a pattern must be given: a member of the
pre-tokenizer family by name, or a regex string read as tiktoken reads it.
"""

from __future__ import annotations

from ...bpe.ranks import parse_tiktoken
from ...pretokenize.family import MEMBERS, PreTokenizer, custom, get_pretokenizer
from ..spec import EncodingSpec

__all__ = ["read_tiktoken_ranks", "resolve_pattern"]


def resolve_pattern(pattern) -> PreTokenizer | None:
    """A member (by name or itself), a regex string as tiktoken reads it, or None (also for
    ``""``: no pre-splitting, the whole text is one piece)."""
    if pattern is None or pattern == "" or isinstance(pattern, PreTokenizer):
        return pattern or None
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a member name, a regex str or None, got {type(pattern).__name__}")
    try:
        return get_pretokenizer(pattern)
    except ValueError:
        pass
    return custom(pattern, "tiktoken")


def read_tiktoken_ranks(contents: bytes, name: str, pattern, special_tokens=None) -> EncodingSpec:
    if pattern is None:
        raise ValueError(
            f"{name}: a .tiktoken file holds ranks only; give pattern= a pre-tokenizer member "
            f"({', '.join(MEMBERS)}), a regex string, or \"\" for no pre-splitting"
        )
    ranks = parse_tiktoken(contents)
    if not ranks:
        raise ValueError(f"{name}: the .tiktoken file holds no tokens")
    return EncodingSpec(name, ranks, dict(special_tokens or {}), resolve_pattern(pattern), source="tiktoken file")
