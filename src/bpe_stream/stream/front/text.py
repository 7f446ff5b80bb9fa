"""The text of a :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`, read by distance from its end.

Invariant: ``"".join(reversed(chunks))`` is the text and ``n`` its length; ``chunks[-1]``
is the front, and ``bottoms[i]`` is the distance from the end at which ``chunks[i]`` ends
(a chunk's end does not move while it lives: text is put in front of it or dropped from
its front), so ``bottoms`` is increasing and a bisection finds the chunks that hold any
distance.  Every record of the front engine (piece boundaries, saved states, ghosts,
periods) names characters by their *distance* from the end of the text, ``n - index``,
because putting text in front and dropping the front do not move those distances: a fact
about the text at distances below ``d`` stays true until a truncation goes below ``d``.

Cost: putting ``s`` in front is O(len(s)), or O(_BLOCK) when a short ``s`` joins the front
chunk; dropping ``k`` characters is O(k + _BLOCK); reading ``k`` characters, at the front
or anywhere, is O(k + _BLOCK) at C speed and O(log n) Python steps.
"""

from __future__ import annotations

from bisect import bisect_right

__all__ = ["FrontText"]


class FrontText:
    """Mixin of :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`: its ``chunks``,
    ``bottoms`` and ``n``."""

    __slots__ = ()

    _BLOCK = 4096

    def _push_text(self, s: str) -> None:
        """Put ``s`` in front, in chunks of at most _BLOCK characters, so that dropping
        characters from the front copies at most one block; a short ``s`` joins the front
        chunk (so that one-character prepends do not make a chunk each)."""
        chunks, bottoms = self.chunks, self.bottoms
        top = bottoms[-1] + len(chunks[-1]) if chunks else 0  # where the text starts
        if len(s) <= self._BLOCK:
            if chunks and len(chunks[-1]) + len(s) <= self._BLOCK:
                chunks[-1] = s + chunks[-1]
            else:
                chunks.append(s)
                bottoms.append(top)
            return
        for i in range(len(s), 0, -self._BLOCK):
            chunks.append(s[max(0, i - self._BLOCK) : i])
            bottoms.append(top)
            top += len(chunks[-1])

    def _window(self, hi: int, lo: int) -> str:
        """The characters at distances ``hi`` down to ``lo`` (exclusive) from the end,
        0 <= lo <= hi <= n: O(hi - lo + _BLOCK)."""
        if hi <= lo:
            return ""
        chunks, bottoms = self.chunks, self.bottoms
        i = bisect_right(bottoms, lo) - 1  # the chunk holding distance lo + 1
        j = bisect_right(bottoms, hi - 1)  # one past the chunk holding distance hi
        # the distance of chunks[j - 1][0]
        top = bottoms[j] if j < len(bottoms) else bottoms[-1] + len(chunks[-1])
        if i == j - 1:
            return chunks[i][top - hi : top - lo]
        return "".join(reversed(chunks[i:j]))[top - hi : top - lo]

    def _front(self, k: int) -> str:
        """The first ``k`` characters: O(k + _BLOCK)."""
        chunks = self.chunks
        if not chunks:
            return ""
        if k <= len(chunks[-1]):
            return chunks[-1][:k]
        bottoms = self.bottoms
        i = max(0, bisect_right(bottoms, bottoms[-1] + len(chunks[-1]) - k) - 1)
        return "".join(reversed(chunks[i:]))[:k]

    def _drop_front(self, drop: int, bp=None) -> None:
        """Remove the first ``drop`` characters; also from the front of the raw
        prependable ``bp`` over the first piece, if given."""
        if bp is not None and drop:
            bp.truncate(len(bp) - len(self._front(drop).encode("utf-8")))
        chunks = self.chunks
        while drop:
            c = chunks[-1]
            if len(c) <= drop:
                chunks.pop()
                self.bottoms.pop()
                drop -= len(c)
            else:
                chunks[-1] = c[drop:]
                drop = 0
