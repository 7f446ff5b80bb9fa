"""Streaming counts for a pre-tokenizer that normalizes the text (Qwen's NFC).

The model's tokenizer sees ``normalize(text)``, whose length and characters differ from
``text`` where normalization composes, decomposes or reorders.  :class:`NormalizingStream`
keeps the text as the caller gave it (lengths, truncations and ``text()`` are the
caller's) and drives an engine (the appendable or the prepend engine) over its
normalized form.

Invariant: the engine's text is ``normalize(raw)``.  ``marks`` hold boundaries ``p`` of
``raw`` (:mod:`bpe_stream.pretokenize.normalize`: ``raw[p]`` never combines with what
precedes it) with the length of the normalized text before them (measured from the
growing end for a text that grows at the front); since ``normalize(raw)`` is the
normalization of the parts between boundaries, an edit only re-normalizes the part after
the last boundary before the edit.  Cost: an append of one character that is a boundary
(it combines with nothing before it) normalizes nothing already fed: the engine is given
its normalization (itself unless the form changes it on its own) and the last mark moves
to it, O(1) plus the engine's append (its one-character path); marks stay about
``_BLOCK`` characters apart (such appends only count themselves, ``since``; every
``_BLOCK``-th of them sets a mark, and the next other edit first marks the last one,
which is a boundary, moving the last mark while it is nearer than a block to the one
before).  Any other append re-normalizes the characters after the last boundary (usually
one) plus what it adds, in blocks of about ``_BLOCK``
characters with a mark after each; a truncation re-normalizes from the mark before the
cut (at most a block); then the engine's own costs.  A run of characters that all combine
backward (thousands of accents on one letter) has no boundary inside, and each edit then
re-normalizes the whole run: O(run) per edit, the cost normalization itself has there.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right

from ..bpe.checks import _check_len
from ..pretokenize.normalize import (
    combines_backward,
    first_boundary,
    last_boundary,
    normalize,
    unstable_characters,
)
from ..text.input import fix_surrogates

__all__ = ["NormalizingStream"]

_BLOCK = 1024  # characters normalized at a time, with a mark between blocks


class NormalizingStream:
    """An engine over the normalized text, lengths and edits in the caller's characters."""

    __slots__ = ("enc", "engine", "front", "form", "raw", "raw_at", "norm_at", "pending", "joins", "unstable",
                 "since")

    def __init__(self, enc, engine_cls, front: bool = False):
        self.enc = enc
        self.engine = engine_cls(enc)
        self.front = front
        self.form = enc.pretokenizer.normalizer
        self.joins = combines_backward(self.form)  # characters that are no boundary
        self.unstable = unstable_characters(self.form)  # characters the form may change
        self.raw = ""  # the caller's text (surrogates fixed)
        # marks: boundaries as lengths of raw and of the normalized text before them (after
        # them, from the end, when the text grows at the front); (0, 0) is always there
        self.raw_at = array("q", [0])
        self.norm_at = array("q", [0])
        self.pending = ""  # a lone surrogate at the growing end, stored as U+FFFD
        self.since = 0  # one-character boundary appends since the last mark (unmarked)

    def __reduce__(self):
        return (_rebuild, (self.enc, type(self.engine), self.front, self.raw, self.pending))

    def __len__(self) -> int:
        return len(self.raw)

    @property
    def token_count(self) -> int:
        return self.engine.token_count

    def tokens(self) -> list[int]:
        return self.engine.tokens()

    def get_text(self) -> str:
        return self.raw

    def copy(self):
        new = NormalizingStream.__new__(NormalizingStream)
        new.enc, new.front, new.form, new.raw, new.pending = self.enc, self.front, self.form, self.raw, self.pending
        new.joins, new.unstable, new.since = self.joins, self.unstable, self.since
        new.engine = self.engine.copy()
        new.raw_at, new.norm_at = array("q", self.raw_at), array("q", self.norm_at)
        return new

    # ---------------------------------------------------------------- edits
    def append(self, s: str) -> None:
        if not s:
            return
        if len(s) == 1 and not self.front and not self.pending and s not in self.joins and (
                not "\ud800" <= s <= "\udfff"):
            # s is a boundary: normalize(raw + s) == normalize(raw) + normalize(s), and the
            # engine holds normalize(raw) already; the mark before s is set later (_mark_last)
            raw = self.raw
            self.raw = ""  # (the only reference: raw += s resizes in place)
            raw += s
            self.raw = raw
            since = self.since + 1
            if since >= _BLOCK:
                self._mark_last(len(raw) - 1, len(self.engine))
                since = 0
            self.since = since
            self.engine.append(s if s not in self.unstable else normalize(self.form, s))
            return
        self._mark_pending()
        if self.pending and "\udc00" <= s[0] <= "\udfff":
            s = self.pending + s
            self.raw = self.raw[:-1]
        self.pending = s[-1] if "\ud800" <= s[-1] <= "\udbff" else ""
        self.raw += fix_surrogates(s)
        self._redo()

    def prepend(self, s: str) -> None:
        if not s:
            return
        self._mark_pending()
        if self.pending and "\ud800" <= s[-1] <= "\udbff":
            s = s + self.pending
            self.raw = self.raw[1:]
        self.pending = s[0] if "\udc00" <= s[0] <= "\udfff" else ""
        self.raw = fix_surrogates(s) + self.raw
        self._redo()

    def truncate(self, n: int) -> None:
        n = _check_len(n, len(self.raw))
        if n == len(self.raw):
            return
        self._mark_pending()
        self.pending = ""
        self.raw = self.raw[len(self.raw) - n :] if self.front else self.raw[:n]
        self._redo()

    def _mark_last(self, n: int, norm: int) -> None:
        """A mark at raw length ``n`` (a boundary), normalized length ``norm``: the last mark
        moves there while it is nearer than a block to the one before."""
        raw_at, norm_at = self.raw_at, self.norm_at
        if len(raw_at) > 1 and raw_at[-1] - raw_at[-2] < _BLOCK:
            raw_at[-1] = n
            norm_at[-1] = norm
        elif n > raw_at[-1]:
            raw_at.append(n)
            norm_at.append(norm)

    def _mark_pending(self) -> None:
        """Before any edit but a one-character boundary append: mark the boundary before
        the last such append (the engine's text ends with that character's normal form)."""
        if self.since:
            self.since = 0
            last = self.raw[-1]
            size = 1 if last not in self.unstable else len(normalize(self.form, last))
            self._mark_last(len(self.raw) - 1, len(self.engine) - size)

    def _redo(self) -> None:
        """Re-normalize the raw text from the last mark that is still inside it (and a
        boundary of it) to the growing end, feeding the engine block by block."""
        raw, form = self.raw, self.form
        n = len(raw)
        # the last mark at or below n that is still a boundary: a mark is one while the
        # character after it is unchanged, and only the part at the growing end changed
        k = bisect_right(self.raw_at, n) - 1
        if k > 0 and self.raw_at[k] == n:
            k -= 1  # a mark at the very end: the next character there is new
        del self.raw_at[k + 1 :]
        del self.norm_at[k + 1 :]
        done, norm = self.raw_at[k], self.norm_at[k]
        engine = self.engine
        engine.truncate(norm)
        if self.front:
            # raw[:end] is re-normalized from its end backwards, in blocks that start at
            # boundaries; a mark at the first boundary after the front, for the next prepend
            end = n - done
            while end > 0:
                start = last_boundary(raw, 0, end - _BLOCK + 1, form) if end > _BLOCK else 0
                if start == 0:
                    p = first_boundary(raw, 0, end, form)
                    if p < end:
                        norm = self._feed(raw, p, end, norm, n - p)
                        end = p
                norm = self._feed(raw, start, end, norm, n - start if start else None)
                end = start
        else:
            # raw[done:] in blocks that end at boundaries; a mark at the last boundary, so that
            # the next append re-normalizes only what follows it
            start = done
            while start < n:
                end = first_boundary(raw, start + _BLOCK - 1, n, form) if n - start > _BLOCK else n
                if end == n:
                    p = last_boundary(raw, start, n, form)
                    if p > start:
                        norm = self._feed(raw, start, p, norm, p)
                        start = p
                norm = self._feed(raw, start, end, norm, end if end < n else None)
                start = end

    def _feed(self, raw: str, a: int, b: int, norm: int, mark: int | None) -> int:
        """Give the engine ``normalize(raw[a:b])`` at its growing end; a mark at raw length
        ``mark`` (a boundary) after it.  Returns the normalized length so far."""
        part = normalize(self.form, raw[a:b])
        if self.front:
            self.engine.prepend(part)
        else:
            self.engine.append(part)
        norm += len(part)
        if mark is not None:
            self.raw_at.append(mark)
            self.norm_at.append(norm)
        return norm


def _rebuild(enc, engine_cls, front, raw, pending):
    stream = NormalizingStream(enc, engine_cls, front)
    stream.raw = raw
    stream._redo()
    stream.pending = pending
    return stream
