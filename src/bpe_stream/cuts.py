"""Exact cuts: the longest prefix (or suffix) that fits a token budget.

Invariant: ``bytes_split_at(bpe, data, m, start)`` is the largest ``j >= start``
with ``count(data[start:j]) <= m`` (over *all* ``j``: counts are not monotonic),
and ``text_split_at`` the same in characters under the encoding's pre-split.

Raw BPE: bytes are fed in chunks to a raw appendable (per-prefix last token and
count).  BPE's encoding of any longer prefix has a token boundary in every window
of ``max_token_len`` positions, so its count is at least ``1 + min`` of the counts
over the last window; once that minimum reaches the budget no later prefix fits
and the scan stops.  Work: O(kept + one chunk + max_token_len).

Suffixes are the mirror image with a prependable encoder over a reversed scan.

Pre-split text: pieces are fed (long pieces in bounded chunks) to a
:class:`~bpe_stream.piece_stream.TextAppendable`; the count of its *stable*
pieces never changes for longer prefixes, so once it exceeds the budget no later
prefix fits.  The answer is then found by truncating back one character at a
time from there (typically a few characters; a single unsplittable piece far
longer than the budget's span is the slow case: O(piece)).
"""

from __future__ import annotations

from .appendable import BytesAppendable

__all__ = ["bytes_split_at", "bytes_split_at_start", "text_split_at", "text_split_at_start"]

_CHUNK = 1024
_TEXT_CHUNK = 64


def _check_budget(max_tokens) -> int:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
        raise TypeError(f"max_tokens must be an int, got {type(max_tokens).__name__}")
    if max_tokens < 0:
        raise ValueError(f"max_tokens must be >= 0, got {max_tokens}")
    return max_tokens


def _check_start(start, n: int) -> int:
    if isinstance(start, bool) or not isinstance(start, int):
        raise TypeError(f"start must be an int, got {type(start).__name__}")
    if not 0 <= start <= n:
        raise ValueError(f"start {start} out of range 0..{n}")
    return start


def _scan_prefix_counts(enc_state, feed, n: int, budget: int, window: int) -> int:
    """Shared loop: feed(p, q) appends data[p:q]; returns the best length (relative)."""
    counts = enc_state.counts
    best = 0
    p = 0
    while p < n:
        q = min(n, p + _CHUNK)
        feed(p, q)
        for k in range(p + 1, q + 1):
            if counts[k] <= budget:
                best = k
        p = q
        if p >= window and min(counts[p - window + 1 : p + 1]) >= budget:
            break
    return best


def bytes_split_at(bpe, data: bytes, max_tokens: int, start: int = 0) -> int:
    """Largest ``j >= start`` such that ``bpe.count(data[start:j]) <= max_tokens``."""
    budget = _check_budget(max_tokens)
    start = _check_start(start, len(data))
    n = len(data) - start
    if n <= budget:  # every token covers at least one byte
        return len(data)
    ba = BytesAppendable(bpe)
    best = _scan_prefix_counts(
        ba, lambda p, q: ba.append(data[start + p : start + q]), n, budget, bpe.max_token_len
    )
    return start + best


def bytes_split_at_start(bpe, data: bytes, max_tokens: int) -> int:
    """Smallest ``i`` such that ``bpe.count(data[i:]) <= max_tokens``."""
    from .prependable import BytesPrependable

    budget = _check_budget(max_tokens)
    n = len(data)
    if n <= budget:
        return 0
    bp = BytesPrependable(bpe)
    best = _scan_prefix_counts(
        bp, lambda p, q: bp.prepend(data[n - q : n - p]), n, budget, bpe.max_token_len
    )
    return n - best


def _text_scan(ta, src: str, piece_iter, budget: int) -> int:
    """Feed pieces of ``src`` to ``ta`` until its stable count exceeds the budget; best length."""
    for a, b in piece_iter:
        while a < b:
            c = min(b, a + _TEXT_CHUNK)
            ta.append(src[a:c])
            a = c
            if ta.stable_cum[-1] > budget:
                break
        if ta.stable_cum[-1] > budget:
            break
    # Descend to the largest length whose exact count fits.
    while ta.token_count > budget:
        ta.truncate(len(ta) - 1)
    return len(ta)


def _fixed_chunks(a: int, b: int):
    while a < b:
        c = min(b, a + _TEXT_CHUNK)
        yield a, c
        a = c


def text_split_at(enc, text: str, max_tokens: int, start: int = 0) -> int:
    """Largest ``j >= start`` (a character index) such that ``enc.count(text[start:j]) <= max_tokens``."""
    from .encoding import check_text
    from .piece_stream import TextAppendable

    budget = _check_budget(max_tokens)
    text = check_text(text)
    start = _check_start(start, len(text))
    ta = TextAppendable(enc)
    if ta.pattern is None:
        spans = _fixed_chunks(start, len(text))
    else:
        spans = (m.span() for m in ta.pattern.finditer(text, start))
    return start + _text_scan(ta, text, spans, budget)


def text_split_at_start(enc, text: str, max_tokens: int) -> int:
    """Smallest ``i`` such that ``enc.count(text[i:]) <= max_tokens``.

    The suffix ``text[q:]`` is split once (``q`` moves back by doubling); the
    count of ``text[i:]`` is the count of its own pieces until one starts on a
    boundary of the split of ``text[q:]``, plus that split's suffix sum from
    there (after a common boundary both splits are identical: the patterns have
    no lookbehind).  Candidates ``i`` are tried from the end backwards.  The scan
    stops once the suffix sum at a boundary at least ``_SYNC_SLACK`` characters
    and one non-whitespace piece after ``i`` exceeds the budget (a heuristic
    early stop: re-synchronisation is assumed to happen within that slack).
    """
    from .encoding import check_text

    budget = _check_budget(max_tokens)
    text = check_text(text)
    n = len(text)
    if enc.pat_str is None:
        data = text.encode("utf-8")
        cut = bytes_split_at_start(enc.bpe, data, budget)
        # move forward to a character boundary (a continuation byte starts no character)
        while cut < len(data) and (data[cut] & 0xC0) == 0x80:
            cut += 1
        return n - len(data[cut:].decode("utf-8"))
    from .pretokenize import compile_pattern

    pattern = compile_pattern(enc.pat_str)
    pieces = enc._pieces
    span = max(4 * budget, 256)
    best = n
    i = n
    while True:
        q = max(0, n - span)
        bounds = [m.span() for m in pattern.finditer(text, q)]
        suf = {n: 0}
        total = 0
        for a, b in reversed(bounds):
            total += len(pieces[text[a:b]])
            suf[a] = total
        starts = sorted(suf)
        i = min(i, n)
        while i > q:
            i -= 1
            c = 0
            for m in pattern.finditer(text, i):
                a = m.start()
                if a in suf:
                    c += suf[a]
                    break
                c += len(pieces[m.group()])
                if c > budget:
                    break
            if c <= budget:
                best = i
            # early stop: a boundary well past i whose suffix alone exceeds the budget
            from bisect import bisect_left

            k = bisect_left(starts, i + _SYNC_SLACK)
            if k < len(starts) and suf[starts[k]] > budget + 1:
                return best
        if q == 0:
            return best
        span *= 2


_SYNC_SLACK = 16
