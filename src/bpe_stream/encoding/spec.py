"""What a vocabulary file says: the arguments of an :class:`~bpe_stream.Encoding`.

Readers of file formats return an :class:`EncodingSpec` and know nothing of the
:class:`~bpe_stream.Encoding` class, which :func:`bpe_stream.load` builds from it."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["EncodingSpec"]


class EncodingSpec(NamedTuple):
    """Name, pre-split pattern (None: no pre-splitting), ranks and special tokens."""

    name: str
    pat_str: str | None
    mergeable_ranks: dict[bytes, int]
    special_tokens: dict[str, int]
