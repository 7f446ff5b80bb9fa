"""The public shell shared by :class:`~bpe_stream.AppendableEncoder` and
:class:`~bpe_stream.PrependableEncoder`.

Both wrap one of two engines chosen by what they are given: a raw engine for a
:class:`~bpe_stream.BytePairEncoding` (``bytes`` in, pure BPE) or a pre-splitting
engine for an :class:`~bpe_stream.Encoding` (``str`` in, tiktoken's counts).  The
engines own the algorithms; this shell only checks input types and forwards.
"""

from __future__ import annotations

from typing import Any, Generic, Self, TypeVar, overload

from ..bpe.checks import _check_bytes_input
from ..bpe.vocabulary import BytePairEncoding
from ..encoding.encoding import Encoding
from ..encoding.resolve import EncodingLike, resolve_encoding_or_bpe
from ..text.input import check_text
from .normalizing import NormalizingStream


T = TypeVar("T", str, bytes)


class StreamingCounter(Generic[T]):
    """Input checks and forwarding for a text that grows at one end.

    ``StreamingCounter[str]`` over an Encoding (or a name, model name or path),
    ``StreamingCounter[bytes]`` over a BytePairEncoding.
    Subclasses set ``_engines()`` -> (raw engine class, pre-splitting engine class)."""

    __slots__ = ("_impl", "_is_text")
    _front = False  # whether the text grows at the front

    _impl: Any
    _is_text: bool

    @overload
    def __init__(self: StreamingCounter[bytes], encoding: BytePairEncoding) -> None: ...

    @overload
    def __init__(self: StreamingCounter[str], encoding: EncodingLike) -> None: ...

    @classmethod
    def _engines(cls) -> tuple[Any, Any]:  # pragma: no cover - always overridden
        raise NotImplementedError

    def __init__(self, encoding: EncodingLike | BytePairEncoding) -> None:
        """``encoding``: an Encoding, an encoding or model name, a vocabulary's path, or a
        BytePairEncoding (raw BPE over bytes)."""
        raw, text = self._engines()
        enc_or_bpe = resolve_encoding_or_bpe(encoding)
        if isinstance(enc_or_bpe, BytePairEncoding):
            self._impl = raw(enc_or_bpe)
            self._is_text = False
        else:
            assert isinstance(enc_or_bpe, Encoding)
            enc_or_bpe._require_rank_order(type(self).__name__)
            if enc_or_bpe.pretokenizer is not None and enc_or_bpe.pretokenizer.normalizer:
                # the model normalizes the text (Qwen: NFC): the engine runs on the normalized
                # text, lengths and edits stay the caller's
                self._impl = NormalizingStream(enc_or_bpe, text, front=self._front)
            else:
                self._impl = text(enc_or_bpe)
            self._is_text = True

    def __getstate__(self) -> dict[str, Any]:
        return {"impl": self._impl, "is_text": self._is_text}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._impl = state["impl"]
        self._is_text = state["is_text"]

    def _checked(self, text: object) -> Any:
        """``text`` if it has the type the engine takes (bytes-like input becomes bytes),
        else a TypeError naming the problem."""
        if self._is_text:
            if type(text) is not str:
                check_text(text)  # raises for non-str
            return text
        if type(text) is bytes:
            return text

        return _check_bytes_input(text)

    @property
    def token_count(self) -> int:
        """Number of tokens of the current text (O(1))."""
        return self._impl.token_count

    def __len__(self) -> int:
        return len(self._impl)

    def tokens(self) -> list[int]:
        """The encoding of the current text (equals ``enc.encode_ordinary(text)``)."""
        return self._impl.tokens()

    def text(self) -> T:
        """The current text (str or bytes)."""
        return self._impl.get_text()

    def copy(self) -> Self:
        new = type(self).__new__(type(self))
        new._impl = self._impl.copy()
        new._is_text = self._is_text
        return new

    def __repr__(self) -> str:
        return f"<{type(self).__name__} len={len(self)} token_count={self.token_count}>"
