"""docling: :class:`ExactTokenizer`, a docling-core ``BaseTokenizer`` with exact counts.

``pip install 'bpe-stream[docling]'`` (needs ``docling-core[chunking]``; the full
``docling`` converter is not needed for chunking).  docling's ``HybridChunker``
counts tokens through its tokenizer; with this one its counts are tiktoken's for
``cl100k_base`` / ``o200k_base`` (or exact for any vocabulary this library loads),
and text that spells a special token such as ``<|endoftext|>`` is counted as
ordinary text instead of raising.

>>> from bpe_stream.integrations.docling import ExactTokenizer
>>> tok = ExactTokenizer(encoding="gpt-4o", max_tokens=512)
>>> tok.count_tokens("Exact counts <|endoftext|> included"), tok.get_max_tokens()
(10, 512)
"""

from __future__ import annotations

from typing import Any

try:
    from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer
    from pydantic import ConfigDict, PrivateAttr, model_validator
except ImportError as e:  # pragma: no cover - exercised only without the extra
    from . import missing

    raise missing("docling-core", "docling", e) from None

from ..encoding.encoding import Encoding
from ..encoding.resolve import resolve_encoding

__all__ = ["ExactTokenizer", "OrdinaryTokenizer"]


class OrdinaryTokenizer:
    """What :meth:`ExactTokenizer.get_tokenizer` returns: a token counter over an Encoding.

    Calling it counts tokens (special-token text is ordinary text); ``encode``
    is not offered on purpose: semchunk (inside ``HybridChunker``) would call it
    and build a list per count, while a callable is used as the counter directly.
    ``encode_ordinary`` and ``decode`` are there for callers that need ids.
    """

    __slots__ = ("encoding",)

    def __init__(self, encoding: Encoding) -> None:
        self.encoding = encoding

    def __call__(self, text: str) -> int:
        return self.encoding.count(text)

    def count(self, text: str) -> int:
        return self.encoding.count(text)

    def encode_ordinary(self, text: str) -> list[int]:
        return self.encoding.encode_ordinary(text)

    def decode(self, tokens: list[int]) -> str:
        return self.encoding.decode(tokens)

    def __reduce__(self) -> tuple[Any, ...]:
        return (OrdinaryTokenizer, (self.encoding,))

    def __repr__(self) -> str:
        return f"OrdinaryTokenizer({self.encoding!r})"


class ExactTokenizer(BaseTokenizer):
    """A docling ``BaseTokenizer``: exact counts, a token budget (``max_tokens``).

    ``encoding``: an Encoding, an encoding or model name, or a vocabulary's path.
    ``max_tokens`` (or its alias ``chunk_size``): what ``get_max_tokens()`` returns,
    the budget ``HybridChunker`` chunks to.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    encoding: Any = "cl100k_base"
    max_tokens: int = 512

    _encoding: Encoding = PrivateAttr()

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        if isinstance(data, dict) and "chunk_size" in data:
            data = dict(data)
            if "max_tokens" in data:
                raise ValueError("give max_tokens or chunk_size (its alias), not both")
            data["max_tokens"] = data.pop("chunk_size")
        return data

    def model_post_init(self, context: Any) -> None:
        if isinstance(self.max_tokens, bool) or self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        self._encoding = resolve_encoding(self.encoding)

    def count_tokens(self, text: str) -> int:
        """The exact token count of ``text`` (special-token text counted as ordinary text)."""
        return self._encoding.count(text)

    def get_max_tokens(self) -> int:
        return self.max_tokens

    def get_tokenizer(self) -> OrdinaryTokenizer:
        """A callable token counter (what semchunk inside ``HybridChunker`` uses)."""
        return OrdinaryTokenizer(self._encoding)
