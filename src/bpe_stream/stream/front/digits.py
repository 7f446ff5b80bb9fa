"""Long digit runs at the front of a :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`.

The pieces of a run R of digits are its groups of three digits from its start
(``\\p{N}{1,3}+`` under both bundled patterns; no other alternative takes a digit, so R's
end is a boundary whatever precedes it), and every group moves when a digit is prepended.
Measured from R's end, the groups of a run of length k end at distances = k (mod 3).  Let
A[r] be the token count of all three-digit windows of R that end at distances = r (mod 3);
then count(R) = A[k % 3] + count(last k % 3 digits), and a prepended digit adds one window.

Invariant of the state ``dig = [e, k, A, first two digits, tail]``: the first piece of the
text is the digit run R = text at distances (n, e], of length k > _LONG, with A as above
and ``tail[r]`` the count of R's last r digits; ``bounds`` holds R's end and the front and
none of the group boundaries inside R (``gaps`` says so while the state is saved, so that a
truncation to R's start re-splits R when the state is lost).

Cost: O(1) per digit prepended, O(dropped) per truncation inside R (the windows that start
in the dropped part are subtracted), O(R) once to build the state.
"""

from __future__ import annotations

from ...pretokenize.unicode import compile_regex

__all__ = ["DigitRuns"]

_DIGITS = compile_regex(r"\p{N}+")
TRAILING_DIGITS = compile_regex(r"(?r)\p{N}+\Z")


class DigitRuns:
    """Mixin of :class:`~bpe_stream.stream.front.text_prependable.TextPrependable`: its ``dig`` state."""

    __slots__ = ()

    def _check_digits(self) -> None:
        self.dig = None
        if self.wc is None or self.word is not None or self.run is not None or not self.bounds.has(2):
            return
        n = self.n
        if n - self.bounds.last(2) > 3 or _DIGITS.match(self.chunks[-1]) is None:
            return
        k = 256
        while True:
            front = self._front(min(n, k))
            m = _DIGITS.match(front)
            if m is None:
                return
            if m.end() < len(front) or len(front) == n:
                break
            k *= 4
        R = m.group()
        L = len(R)
        if L <= self._LONG:
            return
        e = n - L
        bounds = self.bounds
        p = bounds.find(e)
        if p is None:  # never expected; stay exact
            return
        pieces = self.enc._pieces
        A = [0, 0, 0]
        for d in range(0, L - 2):  # window R[L-d-3 : L-d]
            A[d % 3] += len(pieces[R[L - d - 3 : L - d]])
        r = L % 3
        tail = [0, len(pieces[R[-1:]]), len(pieces[R[-2:]])]
        total = A[r] + tail[r]
        if total != bounds.last_suf() - bounds.S[p]:  # never expected; stay exact
            return
        bounds.pop_above(e)
        bounds.push(n, bounds.last_suf() + total)
        self.dig = [e, L, A, R[:2], tail]

    def _prepend_digits(self, s: str) -> bool:
        e, L, A, head, tail = self.dig
        bounds = self.bounds
        if not bounds.has(2) or bounds.last(2) != e or bounds.last() != self.n:
            self.dig = None
            return False
        if _DIGITS.fullmatch(s) is None:
            return False  # the state stays, to be saved while other pieces are in front
        pieces = self.enc._pieces
        for ch in reversed(s):
            w = ch + head
            L += 1
            A[(L - 3) % 3] += len(pieces[w])
            head = w[:2]
        self._push_text(s)
        self.n += len(s)
        self._set_front(self.n, A[L % 3] + tail[L % 3])
        self.dig = [e, L, A, head, tail]
        return True

    def _truncate_digits(self, n: int) -> bool:
        """Keep the last ``n`` characters when the cut falls inside the long digit run R at
        the front (``dig`` state): subtract the three-digit windows that start in the
        dropped part, O(dropped), instead of re-splitting R."""
        e, L, A, head, tail = self.dig
        bounds = self.bounds
        drop = self.n - n
        if not bounds.has(2) or bounds.last(2) != e or bounds.last() != self.n or L - drop <= self._LONG:
            return False
        R = self._front(drop + 2)
        pieces = self.enc._pieces
        A = list(A)
        for x in range(drop):  # window R[x : x + 3] lies at distance L - x - 3 from R's end
            A[(L - x - 3) % 3] -= len(pieces[R[x : x + 3]])
        L -= drop
        self._drop_front(drop)
        self.n = n
        self.pending = ""
        self._set_front(n, A[L % 3] + tail[L % 3])
        self.dig = [e, L, A, R[drop : drop + 2], tail]
        return True
