"""The public prependable counter: exact counts of a text that grows at the front.

``PrependableEncoder`` takes a :class:`~bpe_stream.BytePairEncoding` (raw engine,
:mod:`bpe_stream.bpe.prependable`) or an :class:`~bpe_stream.Encoding` (the front
engine, :mod:`bpe_stream.stream.front`, reached from here only).
"""

from __future__ import annotations

from typing import Any

from ..bpe.prependable import BytesPrependable
from .counter import StreamingCounter, T
from .front.text_prependable import TextPrependable

__all__ = ["PrependableEncoder"]


class PrependableEncoder(StreamingCounter[T]):
    """Exact token count of a text that grows at the front (e.g. chat history read backwards).

    >>> import bpe_stream
    >>> enc = bpe_stream.get_encoding("cl100k_base")
    >>> pe = PrependableEncoder(enc)
    >>> pe.prepend("world"); pe.prepend("hello ")
    >>> pe.token_count == enc.count("hello world")
    True
    """

    __slots__ = ()
    _front = True

    @classmethod
    def _engines(cls) -> tuple[Any, Any]:
        return BytesPrependable, TextPrependable

    def prepend(self, text: T) -> None:
        """Add ``text`` at the front (str for an Encoding, bytes for a BytePairEncoding)."""
        if type(text) is not (str if self._is_text else bytes):
            text = self._checked(text)
        self._impl.prepend(text)

    def truncate(self, n: int) -> None:
        """Keep only the last ``n`` characters (bytes for raw BPE)."""
        self._impl.truncate(n)
