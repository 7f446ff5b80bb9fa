"""The public appendable counter: exact counts of a text that grows at the end.

``AppendableEncoder`` takes a :class:`~bpe_stream.BytePairEncoding` (raw engine,
:mod:`bpe_stream.bpe.appendable`) or an :class:`~bpe_stream.Encoding` (text engine,
:mod:`bpe_stream.text.appendable`).
"""

from __future__ import annotations

from typing import Any

from ..bpe.appendable import BytesAppendable
from ..text.appendable import TextAppendable
from .counter import StreamingCounter, T

__all__ = ["AppendableEncoder"]


class AppendableEncoder(StreamingCounter[T]):
    """Exact token count of a growing text.

    ``AppendableEncoder(enc)`` takes an :class:`~bpe_stream.Encoding` (append
    ``str``; counts equal ``enc.count``, i.e. tiktoken's) or a
    :class:`~bpe_stream.BytePairEncoding` (append ``bytes``; pure BPE).

    >>> import bpe_stream
    >>> enc = bpe_stream.get_encoding("cl100k_base")
    >>> ae = AppendableEncoder(enc)
    >>> for ch in "hello world": ae.append(ch)
    >>> ae.token_count, len(ae)
    (2, 11)
    >>> ae.truncate(5); ae.token_count
    1
    """

    __slots__ = ()

    @classmethod
    def _engines(cls) -> tuple[Any, Any]:
        return BytesAppendable, TextAppendable

    def append(self, text: T) -> None:
        """Append ``text`` (str for an Encoding, bytes for a BytePairEncoding)."""
        if type(text) is not (str if self._is_text else bytes):
            text = self._checked(text)
        self._impl.append(text)

    extend = append

    def truncate(self, n: int) -> None:
        """Keep only the first ``n`` characters (bytes for raw BPE)."""
        self._impl.truncate(n)
