"""The public interval counter: ``count(start, end) == enc.count(text[start:end])``.

One pass over the text builds the index (:mod:`bpe_stream.bpe.intervals` for raw
bytes, :mod:`bpe_stream.text.intervals` for text); queries are typically O(1).
Offsets are the caller's (a ``str`` with surrogate pairs included).
"""

from __future__ import annotations

from typing import Any

from ..bpe.checks import _check_bytes_input
from ..bpe.intervals import _BytesIntervals
from ..bpe.vocabulary import BytePairEncoding
from ..encoding.encoding import Encoding
from ..encoding.resolve import EncodingLike, resolve_encoding_or_bpe
from ..text.input import caller_offsets, check_text
from ..text.intervals import text_intervals
from ..text.normalized import NormalizedView

__all__ = ["IntervalCounter"]


class IntervalCounter:
    """Counts of any substring: ``count(start, end) == enc.count(text[start:end])``.

    >>> import bpe_stream
    >>> enc = bpe_stream.get_encoding("cl100k_base")
    >>> ic = IntervalCounter(enc, "hello world, hello there")
    >>> ic.count(0, 11) == enc.count("hello world")
    True
    """

    def __init__(self, encoding: EncodingLike | BytePairEncoding, text: str | bytes) -> None:
        enc_or_bpe = resolve_encoding_or_bpe(encoding)
        self._source = (enc_or_bpe, text)
        self._fixed_index: dict[int, int] | None = None
        self._view = None
        self._impl: Any
        if isinstance(enc_or_bpe, BytePairEncoding):
            self._impl = _BytesIntervals(enc_or_bpe, _check_bytes_input(text))
            self._n = len(text)
        else:
            assert isinstance(enc_or_bpe, Encoding)
            enc_or_bpe._require_rank_order("IntervalCounter")
            fixed = check_text(text)
            self._n = len(text)
            # A str with surrogates: offsets stay the caller's (see caller_offsets); a range
            # with an end between the halves of a pair is counted directly (rare).
            offs = caller_offsets(text, fixed)
            self._fixed_index = None if offs is None else {o: k for k, o in enumerate(offs)}
            if enc_or_bpe._normalize is not None:
                # the model counts the normalized text: the index is over it, and a range with
                # an end where normalization joins characters is counted directly (rare)
                view = NormalizedView(enc_or_bpe.pretokenizer.normalizer, fixed)
                if not view.identity:
                    self._view = view
                    fixed = view.norm
            self._impl = text_intervals(enc_or_bpe, fixed)
        # the compiled query of the common cases, called first (it answers -1 for the rest,
        # including offsets that are no ints or out of range, which count then rejects)
        self._native_count = None if self._fixed_index is not None or self._view is not None else \
            getattr(self._impl, "native_count", None)

    def __reduce__(self):
        # rebuilt from its inputs: the index is one linear pass, and its lazily built
        # parts (memos, closures) are caches, not state
        return (IntervalCounter, self._source)

    def __len__(self) -> int:
        return self._n

    def count(self, start: int, end: int) -> int:
        """``count(text[start:end])``, exactly."""
        native_count = self._native_count
        if native_count is not None:
            c = native_count(start, end)
            if c >= 0:
                return c
        if type(start) is not int or type(end) is not int:  # noqa: E721 (bool is no offset)
            for v in (start, end):
                if isinstance(v, bool) or not isinstance(v, int):
                    raise TypeError(f"offsets must be ints, got {type(v).__name__}")
        if not 0 <= start <= end <= self._n:
            raise ValueError(f"need 0 <= start <= end <= {self._n}, got {start}, {end}")
        index = self._fixed_index
        if index is not None:
            a, b = index.get(start), index.get(end)
            if a is None or b is None:  # an end inside a surrogate pair
                enc, text = self._source
                return enc.count(text[start:end])
            start, end = a, b
        view = self._view
        if view is not None:
            a, b = view.to_norm(start), view.to_norm(end)
            if a is None or b is None:  # an end where normalization joins characters
                enc, text = self._source
                return enc.count(check_text(text)[start:end])
            start, end = a, b
        return self._impl.count(start, end)

    def memory_bytes(self) -> int:
        """Bytes held by the index arrays (excluding the text itself)."""
        return self._impl.memory_bytes()
