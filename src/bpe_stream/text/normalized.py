"""A text and its normalized form, with the positions where they align.

For a pre-tokenizer that normalizes (Qwen's NFC), counts are counts of ``norm =
normalize(raw)``.  Invariant: ``runs`` are ``(raw_start, norm_start, length)``, sorted,
such that ``normalize(raw[:raw_start + k]) == norm[:norm_start + k]`` for ``0 <= k <=
length``: the *aligned* positions.  Every boundary of ``raw``
(:mod:`bpe_stream.pretokenize.normalize`) is aligned; between runs lie the parts that
normalization changed (a letter and the accents composed onto it), aligned only at their
ends.  Counts of a slice between two aligned positions are counts of a slice of ``norm``;
cuts are made at aligned positions (a grapheme cluster that normalization changes is
never split).

Cost: one pass, normalizing blocks of about 1024 characters; a block that normalization
leaves as it is is one run.  Mapping a position: a bisection.
"""

from __future__ import annotations

from bisect import bisect_right

from ..pretokenize.normalize import first_boundary, normalize

__all__ = ["NormalizedView"]

_BLOCK = 1024


class NormalizedView:
    """``raw`` and ``norm = normalize(form, raw)`` with their aligned positions."""

    __slots__ = ("raw", "norm", "runs", "_raw_starts", "_norm_starts", "identity")

    def __init__(self, form: str, raw: str):
        self.raw = raw
        norm = normalize(form, raw)
        self.identity = norm is raw or norm == raw
        if self.identity:
            self.norm = raw
            self.runs = [(0, 0, len(raw))]
        else:
            parts: list[str] = []
            runs: list[tuple[int, int, int]] = []
            at_norm = 0
            start = 0
            n = len(raw)
            while start < n:
                end = first_boundary(raw, start + _BLOCK - 1, n, form) if n - start > _BLOCK else n
                block = raw[start:end]
                nb = normalize(form, block)
                if nb == block:
                    _add_run(runs, start, at_norm, len(block))
                else:
                    # segment by segment: unchanged ones extend the run, changed ones leave a gap
                    a = start
                    while a < end:
                        b = first_boundary(raw, a, end, form)
                        seg = raw[a:b]
                        ns = normalize(form, seg)
                        if ns == seg:
                            _add_run(runs, a, at_norm, len(seg))
                        else:
                            _add_run(runs, a, at_norm, 0)
                        at_norm += len(ns)
                        parts.append(ns)
                        a = b
                    start = end
                    continue
                parts.append(nb)
                at_norm += len(nb)
                start = end
            _add_run(runs, n, at_norm, 0)
            self.norm = "".join(parts)
            self.runs = runs
        self._raw_starts = [r[0] for r in self.runs]
        self._norm_starts = [r[1] for r in self.runs]

    def to_norm(self, i: int) -> int | None:
        """The position of ``norm`` aligned with raw position ``i``, or None (not aligned)."""
        k = bisect_right(self._raw_starts, i) - 1
        rs, ns, length = self.runs[k]
        return ns + (i - rs) if i - rs <= length else None

    def to_raw(self, j: int) -> int | None:
        """The raw position aligned with ``norm`` position ``j``, or None."""
        k = bisect_right(self._norm_starts, j) - 1
        # several runs may start at j (a changed part of no normalized length): the last one
        rs, ns, length = self.runs[k]
        return rs + (j - ns) if j - ns <= length else None

    def aligned_below(self, j: int):
        """Aligned positions of ``norm`` at or below ``j``, descending."""
        k = bisect_right(self._norm_starts, j) - 1
        while k >= 0:
            rs, ns, length = self.runs[k]
            for x in range(min(j, ns + length), ns - 1, -1):
                yield x
            j = ns - 1
            k -= 1

    def aligned_above(self, j: int):
        """Aligned positions of ``norm`` at or above ``j``, ascending."""
        k = max(0, bisect_right(self._norm_starts, j) - 1)
        runs = self.runs
        while k < len(runs):
            rs, ns, length = runs[k]
            for x in range(max(j, ns), ns + length + 1):
                yield x
            k += 1


def _add_run(runs: list, raw_start: int, norm_start: int, length: int) -> None:
    if runs:
        rs, ns, ln = runs[-1]
        if rs + ln == raw_start and ns + ln == norm_start:
            runs[-1] = (rs, ns, ln + length)
            return
    runs.append((raw_start, norm_start, length))
