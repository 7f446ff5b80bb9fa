"""The text of a :class:`~bpe_stream.front_stream.TextPrependable`, read by distance from its end.

Invariant: ``"".join(reversed(chunks))`` is the text and ``n`` its length; ``chunks[-1]``
is the front.  Every record of the front engine (piece boundaries, saved states, ghosts,
periods) names characters by their *distance* from the end of the text, ``n - index``,
because putting text in front and dropping the front do not move those distances: a fact
about the text at distances below ``d`` stays true until a truncation goes below ``d``.

Cost: putting ``s`` in front is O(len(s)), or O(_BLOCK) when a short ``s`` joins the front
chunk; dropping ``k`` characters is O(k + _BLOCK); the first ``k`` characters cost O(k +
chunks visited), and a window of ``w`` characters O(w + chunks visited from the nearer end,
at most n / _BLOCK).
"""

from __future__ import annotations

__all__ = ["FrontText"]


class FrontText:
    """Mixin of :class:`~bpe_stream.front_stream.TextPrependable`: its ``chunks`` and ``n``."""

    __slots__ = ()

    _BLOCK = 4096

    def _push_text(self, s: str) -> None:
        """Put ``s`` in front, in chunks of at most _BLOCK characters, so that dropping
        characters from the front copies at most one block; a short ``s`` joins the front
        chunk (so that fetching the front after one-character prepends visits few chunks)."""
        chunks = self.chunks
        if len(s) <= self._BLOCK:
            if chunks and len(chunks[-1]) + len(s) <= self._BLOCK:
                chunks[-1] = s + chunks[-1]
            else:
                chunks.append(s)
            return
        for i in range(len(s), 0, -self._BLOCK):
            chunks.append(s[max(0, i - self._BLOCK) : i])

    def _window(self, hi: int, lo: int) -> str:
        """The characters at distances ``hi`` down to ``lo`` (exclusive) from the end:
        O(hi - lo + the chunks visited from the nearer side)."""
        n = self.n
        if n - lo <= lo:
            return self._front(n - lo)[n - hi :]
        parts = []
        d = 0  # distance of the end of the chunk
        for c in self.chunks:  # from the end of the text
            top = d + len(c)  # distance of c[0]: c[j] lies at distance top - j
            if top > lo:
                parts.append(c[max(0, top - hi) : top - lo])
                if top >= hi:
                    break
            d = top
        parts.reverse()
        return "".join(parts)

    def _front(self, k: int) -> str:
        """The first ``k`` characters: O(k + chunks visited), not O(the chunks' length)."""
        parts = []
        got = 0
        for c in reversed(self.chunks):
            if got + len(c) >= k:
                parts.append(c[: k - got])
                break
            parts.append(c)
            got += len(c)
        return "".join(parts)

    def _drop_front(self, drop: int, bp=None) -> None:
        """Remove the first ``drop`` characters; also from the front of the raw
        prependable ``bp`` over the first piece, if given."""
        if bp is not None and drop:
            bp.truncate(len(bp) - len(self._front(drop).encode("utf-8")))
        while drop:
            c = self.chunks[-1]
            if len(c) <= drop:
                self.chunks.pop()
                drop -= len(c)
            else:
                self.chunks[-1] = c[drop:]
                drop = 0
