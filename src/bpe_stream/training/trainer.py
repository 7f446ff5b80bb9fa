"""Exact, streaming byte-level BPE training.

Invariants
----------
* Token ids ``0..255`` are the single bytes in byte order; merge number ``k``
  (0-based) creates token id ``256 + k`` whose bytes are the concatenation of
  the bytes of its two parts.  Special tokens get the ids after the merges.
* The rule (also stated in :func:`train`): at every step merge the *eligible*
  adjacent pair with the highest count, counting occurrences as adjacent
  positions of the current token sequences weighted by piece frequency; ties
  go to the smallest ``(left id, right id)``.  A pair ``(A, B)`` is eligible
  when the original BPE algorithm (tiktoken semantics: repeatedly merge the
  adjacent pair whose concatenation is the lowest-rank token, leftmost first)
  encodes ``bytes(A) + bytes(B)`` with the vocabulary built so far to exactly
  ``[A, B]``.  This excludes pairs whose bytes already are a token and pairs
  whose token would not be produced by BPE from its own parts.  Ineligibility
  is permanent (later tokens have higher ranks, so they never make a pair
  eligible again), so an ineligible pair is skipped forever.  Every new token
  therefore encodes to itself, and the trained vocabulary always passes
  ``BytePairEncoding.from_tokens``.  On pairs that occur in the training
  sequences the check has never been seen to fail (each sequence is, step by
  step, the BPE encoding of its piece, and adjacent tokens of a BPE encoding
  form a pair that encodes to itself -- the property behind the bpe crate's
  backtracking encoder); it is kept as a guard, tested directly.
* A merge replaces the pair's occurrences left to right, without overlap
  (``aaa`` with ``(a, a)`` becomes ``[aa, a]``).  Training stops after
  ``vocab_size - 256`` merges or when no eligible pair reaches
  ``min_frequency``.

Data structures and complexity
------------------------------
All sequences (the distinct pre-split pieces, or the raw documents) are laid
out in one *linked array*: ``layout`` (the bytes, one per position),
``token[p]``, ``next_pos[p]``, ``prev_pos[p]`` (int32 arrays; int64 past 2^31
positions) and, with a pattern, ``weight[p]`` (int64, the piece's frequency).
A merged-away position gets token ``-1``; ``-1`` in ``next_pos``/``prev_pos``
marks a sequence boundary (a separator position follows every sequence), so
merges never cross pieces or documents.  ``pair_count`` holds the exact
weighted count of every adjacent pair.  Pairs of two single bytes are counted
from the layout at C speed and their positions are not stored: when such a
pair is merged, ``bytes.find`` lists where the layout spells it.  Every other
pair involves a merged token and was created by a merge, which records the
position in ``pair_positions`` (an int32 array per pair, validated lazily when
used).  A binary heap of integer priorities ``-count * K*K + (left * K + right)``
finds the best pair.  Position lists are in increasing order (a pair is created
during the merge step of its newer token, which visits positions in increasing
order, and ``find`` scans left to right), so runs like ``aaaa`` are replaced
left to right without sorting.  Heap entries are invalidated lazily: a pair is
pushed when it is created and its count only decreases afterwards, so a popped
entry whose count is stale is simply re-pushed with its current count.  A merge
touches only the positions where the pair occurs and updates the four
neighbouring pair counts there.  The cyclic garbage collector is off while
training (nothing here makes cycles, and a collection walks every live object).

Time: ``O(N + M log P + sum of merged positions + M * L log L)`` for ``N``
positions, ``M`` merges, ``P`` distinct pairs and tokens of at most ``L`` bytes
(the eligibility check is a scan up to 64 bytes and a heap above, so a long run
of one letter, whose tokens double in length, stays linear overall).
Memory: 13 bytes per position (layout and three int32 arrays), 8 more with a
pattern (the weights), plus 4 bytes per pair occurrence a merge creates (at most
two per merged position).  Positions are the bytes of the input without a
pattern, the bytes of the distinct pieces with one (plus the piece counter
while reading).
"""

from __future__ import annotations

import gc
import heapq
import sys
import time
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO

from ..encoding.encoding import Encoding
from ..pretokenize.family import MEMBERS, PreTokenizer, get_pretokenizer
from ..pretokenize.patterns import PATTERNS, compile_pattern
from ..pretokenize.splitter import PreSplitter
from ..text.input import _SURROGATE, fix_surrogates

__all__ = ["Progress", "train", "learn_merges", "tokens_from_merges", "resolve_pattern", "piece_counts"]


_NAME_LIKE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def resolve_pattern(pattern: str | PreTokenizer | None) -> str | PreTokenizer | None:
    """The regex of a pattern name ("cl100k_base", "o200k_base"), a regex string as it
    is, or the pre-tokenizer of any other family member (by name, ``"llama3"``,
    ``"qwen2"``, ``"deepseek_v3"``, ..., or itself): chains and normalization included.

    A string made only of letters, digits and underscores that is not a known
    name is rejected, because it is almost certainly a misspelt name rather
    than a regex meant to match that literal word.

    >>> resolve_pattern(None) is None
    True
    >>> resolve_pattern(r"\\w+|\\s+")
    '\\\\w+|\\\\s+'
    >>> resolve_pattern("llama3").name
    'llama3'
    """
    if pattern is None or isinstance(pattern, PreTokenizer):
        return pattern
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, a PreTokenizer or None, not {type(pattern).__name__}")

    if pattern in PATTERNS:
        return PATTERNS[pattern]
    try:
        return get_pretokenizer(pattern)
    except ValueError:
        pass
    if pattern and set(pattern) <= _NAME_LIKE:
        known = ", ".join(sorted({*PATTERNS, *MEMBERS}))
        raise ValueError(f"unknown pattern name {pattern!r} (known: {known}; or pass a regex)")

    compile_pattern(pattern)  # raises ValueError naming the pattern if it is invalid
    return pattern


def _splitter(pattern: str | PreTokenizer):
    """``text -> pieces`` for a regex string, or for a member (its normalization, then its
    chain of splits), as :class:`bpe_stream.Encoding` splits text."""
    if isinstance(pattern, str):
        return compile_pattern(pattern).findall
    findall = PreSplitter(pattern).findall
    if not pattern.normalizer:
        return findall
    normalize = pattern.normalize
    return lambda text: findall(normalize(text))


def _documents(data: str | Iterable[str]) -> Iterable[str]:
    if isinstance(data, str):
        return (data,)
    if isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("data must be a str or an iterable of str, not bytes")
    return data


def _check_str(doc: object) -> str:
    if not isinstance(doc, str):
        raise TypeError(f"every document must be a str, not {type(doc).__name__}")
    # as everywhere else: surrogate pairs joined, a lone surrogate read as U+FFFD
    return fix_surrogates(doc) if _SURROGATE.search(doc) else doc


def piece_counts(data: str | Iterable[str], pat_str: str | PreTokenizer) -> Counter[str]:
    """Pre-split every document with ``pat_str`` and count identical pieces.

    Documents are split independently (pieces never cross documents), exactly
    as :class:`bpe_stream.Encoding` splits text; the iterable is consumed once
    and only the counter is kept.

    >>> sorted(piece_counts(["ab ab", "ab"], r" ?\\w+").items())
    [(' ab', 1), ('ab', 2)]
    """
    findall = _splitter(pat_str)
    counts: Counter[str] = Counter()
    for doc in _documents(data):
        counts.update(findall(_check_str(doc)))
    return counts


class Progress:
    """Progress of a training run through its phases, on a text stream (stderr by default).

    ``phase(name, total, unit)`` starts a phase (ending the one before on its own
    line), ``update(done)`` reports how far it is.  With ``live=True`` (a terminal) the
    current phase is redrawn in place at most ten times a second; otherwise each
    phase prints one line when it starts and one when it ends.  Subclass it, or pass
    any object with these three methods as ``progress=``.
    """

    def __init__(self, stream: TextIO | None = None, *, live: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.name = ""
        self.total: int | None = None
        self.unit = ""
        self.done = 0
        self.last_draw = 0.0
        self.start = time.perf_counter()
        self.phase_start = self.start

    def _line(self) -> str:
        elapsed = time.perf_counter() - self.phase_start
        if self.total:
            width = 30
            filled = int(width * min(self.done, self.total) / self.total)
            bar = "#" * filled + "." * (width - filled)
            return f"{self.name} [{bar}] {_human(self.done)}/{_human(self.total)}{self.unit} {elapsed:6.1f}s"
        return f"{self.name}: {_human(self.done)}{self.unit} {elapsed:6.1f}s"

    def phase(self, name: str, total: int | None = None, unit: str = "") -> None:
        self._end_phase()
        self.name, self.total, self.unit, self.done = name, total, unit, 0
        self.phase_start = time.perf_counter()
        if not self.live:
            self.stream.write(f"{name}...\n")
            self.stream.flush()
        else:
            self.update(0, force=True)

    def update(self, done: int, *, force: bool = False) -> None:
        self.done = done
        if not self.live:
            return
        now = time.perf_counter()
        if not force and now - self.last_draw < 0.1:
            return
        self.last_draw = now
        self.stream.write("\r" + self._line() + "\x1b[K")
        self.stream.flush()

    def _end_phase(self) -> None:
        if not self.name:
            return
        if self.live:
            self.stream.write("\r" + self._line() + "\x1b[K\n")
        else:
            self.stream.write(self._line() + "\n")
        self.stream.flush()
        self.name = ""

    def close(self) -> None:
        self._end_phase()


def _human(n: int) -> str:
    """``1234567`` -> ``'1.2M'``; small numbers as they are."""
    if n < 10_000:
        return str(n)
    for unit, size in (("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)  # pragma: no cover


class _NoProgress:
    def phase(self, name: str, total: int | None = None, unit: str = "") -> None:
        pass

    def update(self, done: int, *, force: bool = False) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_for(progress: object) -> Any:
    if progress is False or progress is None:
        return _NoProgress()
    if progress is True:
        return Progress()
    if all(hasattr(progress, m) for m in ("phase", "update", "close")):
        return progress
    if hasattr(progress, "write"):
        return Progress(progress, live=True)  # type: ignore[arg-type]
    raise TypeError(f"progress must be a bool, a text stream or a Progress, got {type(progress).__name__}")


# Eligibility pairs of at most this many bytes are checked by the plain scan, longer
# ones with a heap (the scan costs O(n^2) on n bytes: a long run's tokens double in
# length, and "y" * 200000 took minutes on its last merges).
_SHORT_PAIR = 64


def _encodes_to_pair(left: bytes, right: bytes, rank_of: dict[bytes, int]) -> bool:
    """True iff BPE of ``left + right`` under ``rank_of`` is exactly ``[left, right]``.

    ``left`` and ``right`` are tokens that encode to themselves, so BPE of the
    concatenation yields ``[left, right]`` exactly when no merge ever crosses
    the boundary between them (merges on either side then run as on that side
    alone).  The loop is tiktoken's: merge the lowest-rank adjacent pair,
    leftmost first, and fail as soon as that pair spans the boundary.  O(n^2) on
    ``n`` bytes up to ``_SHORT_PAIR`` bytes, O(n log n) above.
    """
    data = left + right
    if data in rank_of:
        return False
    if len(data) > _SHORT_PAIR:
        return _encodes_to_pair_heap(data, len(left), rank_of)
    boundary = len(left)
    # starts[i] is the start offset of part i; parts are data[starts[i]:starts[i+1]].
    starts = list(range(len(data) + 1))
    missing = len(rank_of) + 1  # larger than every rank
    get = rank_of.get
    ranks = [get(data[i : i + 2], missing) for i in range(len(data) - 1)]
    while True:
        best = missing
        best_i = -1
        for i, r in enumerate(ranks):
            if r < best:
                best = r
                best_i = i
        if best_i < 0:
            return True
        if starts[best_i + 1] == boundary:
            return False
        # Merge part best_i with part best_i + 1.
        del starts[best_i + 1]
        del ranks[best_i]
        end = starts[best_i + 1]
        if best_i + 1 < len(starts) - 1:
            ranks[best_i] = get(data[starts[best_i] : starts[best_i + 2]], missing)
        if best_i > 0:
            ranks[best_i - 1] = get(data[starts[best_i - 1] : end], missing)


def _encodes_to_pair_heap(data: bytes, boundary: int, rank_of: dict[bytes, int]) -> bool:
    """The same merge loop with a heap of ``(rank, start)`` of adjacent parts.

    The smallest valid entry is the lowest-rank pair, leftmost on ties: the entry of
    a pair whose parts changed since it was pushed no longer spells that rank and is
    dropped when popped.  Each merge pushes at most two entries: O(n log n).
    """
    n = len(data)
    get = rank_of.get
    end = list(range(1, n + 1))  # end[i]: end of the part that starts at i (-1: none does)
    prev = list(range(-1, n - 1))  # prev[i]: start of the part before the one at i
    heap = []
    for i in range(n - 1):
        r = get(data[i : i + 2])
        if r is not None:
            heap.append((r, i))
    heapq.heapify(heap)
    heappop = heapq.heappop
    heappush = heapq.heappush
    while heap:
        r, i = heappop(heap)
        j = end[i]
        if j < 0 or j >= n:
            continue
        k = end[j]
        if get(data[i:k]) != r:
            continue
        if j == boundary:
            return False
        end[i] = k
        end[j] = -1
        if k < n:
            prev[k] = i
            rr = get(data[i : end[k]])
            if rr is not None:
                heappush(heap, (rr, i))
        p = prev[i]
        if p >= 0:
            rr = get(data[p:k])
            if rr is not None:
                heappush(heap, (rr, p))
    return True


def learn_merges(
    data: str | Iterable[str],
    vocab_size: int,
    *,
    pattern: str | None = None,
    min_frequency: int = 2,
    progress: bool | TextIO | Progress = False,
) -> list[tuple[int, int]]:
    """Learn the merges of :func:`train`, as ``(left id, right id)`` pairs in order.

    Merge ``k`` creates token id ``256 + k``.  See :func:`train` for the rule.
    ``progress``: ``True`` (stderr), a text stream, or a :class:`Progress`; it
    reports the phases (reading and counting, laying out, counting pairs, merging).

    >>> learn_merges("aaaa abab", 258)
    [(97, 97), (97, 98)]
    """
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError("vocab_size must be an int")
    if vocab_size < 256:
        raise ValueError(f"vocab_size must be at least 256 (the single bytes), got {vocab_size}")
    if isinstance(min_frequency, bool) or not isinstance(min_frequency, int):
        raise TypeError("min_frequency must be an int")
    min_frequency = max(min_frequency, 1)
    pat_str = resolve_pattern(pattern)
    bar = _progress_for(progress)
    was_enabled = gc.isenabled()
    gc.disable()  # millions of small objects: a collection would walk them all, often
    try:
        return _learn(data, vocab_size, pat_str, min_frequency, bar)
    finally:
        if was_enabled:
            gc.enable()
        bar.close()


def _learn(data, vocab_size: int, pat_str: str | None, min_frequency: int, bar) -> list[tuple[int, int]]:
    # 1. The sequences, laid out in one bytes object: ``layout[p]`` is the byte at
    # position p, a separator (byte 0, never part of a pair) after each sequence.
    # Without a pattern every document is a sequence of weight 1; with one, every
    # distinct piece is a sequence weighted by how often it occurs.
    parts: list[bytes] = []
    seps: list[int] = []  # separator positions
    weights: list[int] | None = None
    n_pos = 0
    read = 0
    if pat_str is None:
        bar.phase("reading", unit="B")
        for doc in _documents(data):
            seq = _check_str(doc).encode("utf-8")
            read += len(seq)
            bar.update(read)
            if len(seq) >= 2:
                parts.append(seq)
                n_pos += len(seq) + 1
                seps.append(n_pos - 1)
    else:
        bar.phase("reading and counting pieces", unit=" chars")
        findall = _splitter(pat_str)
        counts: Counter[str] = Counter()
        for doc in _documents(data):
            counts.update(findall(_check_str(doc)))
            read += len(doc)
            bar.update(read)
        bar.phase(f"laying out {len(counts)} distinct pieces", total=len(counts))
        weights = []
        for k, (piece, w) in enumerate(counts.items()):
            seq = piece.encode("utf-8")
            if len(seq) >= 2:
                parts.append(seq)
                weights.append(w)
                n_pos += len(seq) + 1
                seps.append(n_pos - 1)
            if not k & 0xFFFF:
                bar.update(k)
        bar.update(len(counts))
        del counts
    layout = b"\0".join(parts) + (b"\0" if parts else b"")
    del parts
    assert len(layout) == n_pos

    # 2. The linked array: token ids, next and previous positions (-1 at a sequence's
    # ends), and, with a pattern, the weight of each position's sequence.
    bar.phase("counting pairs", total=n_pos, unit="B")
    wide = n_pos >= 2**31 - 1
    code = "q" if wide else "i"
    token = array(code, memoryview(layout))  # a memoryview is iterated (bytes would be raw memory)
    next_pos = array(code, range(1, n_pos + 1))
    prev_pos = array(code, range(-1, n_pos - 1))
    for p in seps:
        token[p] = -1
        next_pos[p] = prev_pos[p] = -1
        if p > 0:
            next_pos[p - 1] = -1
        if p + 1 < n_pos:
            prev_pos[p + 1] = -1
    weight: array | None = None
    if weights is not None:
        weight = array("q", bytes(8 * n_pos))
        start = 0
        for p, w in zip(seps, weights):
            weight[start : p + 1] = array("q", [w]) * (p + 1 - start)
            start = p + 1
        del weights

    K = vocab_size
    KK = K * K
    # Counts of the pairs of single bytes: from the layout, at C speed (16-bit windows
    # at even and at odd offsets), less the pairs that touch a separator; weighted by
    # sequence with a pattern.  Their positions are not stored: a pair of two bytes
    # sits where the layout spells it, found with bytes.find when it is merged.
    pair_count: dict[int, int] = {}
    if weight is None:
        raw: Counter[int] = Counter()
        for off in (0, 1):
            m = (n_pos - off) // 2 * 2
            if m:
                raw.update(memoryview(layout)[off : off + m].cast("H"))
            bar.update(n_pos // 2 * (off + 1))
        little = sys.byteorder == "little"
        for p in seps:  # pairs across a separator are no pairs
            if p > 0:
                _dec(raw, layout[p - 1], 0, little)
            if p + 1 < n_pos:
                _dec(raw, 0, layout[p + 1], little)
        for v, c in raw.items():
            a, b = (v & 0xFF, v >> 8) if little else (v >> 8, v & 0xFF)
            if c > 0:
                pair_count[a * K + b] = c
        del raw
    else:
        start = 0
        for n_done, p in enumerate(seps):
            w = weight[p]
            seq = layout[start:p]
            for a, b in zip(seq, seq[1:]):
                key = a * K + b
                pair_count[key] = pair_count.get(key, 0) + w
            start = p + 1
            if not n_done & 0xFFFF:
                bar.update(start)
    bar.update(n_pos)
    del seps
    pair_positions: dict[int, array] = {}  # positions where a pair involving a merged token was made
    heap = [-c * KK + key for key, c in pair_count.items() if c >= min_frequency]
    heapq.heapify(heap)

    # 3. Merge loop.
    token_bytes: list[bytes] = [bytes([i]) for i in range(256)]
    rank_of: dict[bytes, int] = {t: i for i, t in enumerate(token_bytes)}
    merges: list[tuple[int, int]] = []
    ineligible: set[int] = set()
    n_merges = vocab_size - 256
    bar.phase("merging", total=n_merges, unit=" merges")
    heappush = heapq.heappush
    heappop = heapq.heappop
    while len(merges) < n_merges and heap:
        priority = heappop(heap)
        neg_count, key = divmod(priority, KK)
        count = -neg_count
        if count < min_frequency:
            break
        if key in ineligible:
            continue
        current = pair_count.get(key, 0)
        if current != count:  # stale entry: the count has dropped since the push
            if current >= min_frequency:
                heappush(heap, -current * KK + key)
            continue
        a, b = divmod(key, K)
        if not _encodes_to_pair(token_bytes[a], token_bytes[b], rank_of):
            ineligible.add(key)
            continue

        new = len(token_bytes)
        new_bytes = token_bytes[a] + token_bytes[b]
        token_bytes.append(new_bytes)
        rank_of[new_bytes] = new
        merges.append((a, b))
        new_times_k = new * K
        created: set[int] = set()
        del pair_count[key]
        # Positions in increasing order (see the module comment), so runs of (a, a) are
        # replaced left to right.
        positions: Iterable[int]
        if a < 256 and b < 256:
            positions = _find_all(layout, bytes((a, b)))
        else:
            positions = pair_positions.pop(key, ())
        for p in positions:
            if token[p] != a:
                continue
            q = next_pos[p]
            if q < 0 or token[q] != b:
                continue
            w = 1 if weight is None else weight[p]
            x = prev_pos[p]
            y = next_pos[q]
            if x >= 0:
                tx = token[x] * K
                _replace_pair(pair_count, pair_positions, created, code, key, tx + a, tx + new, w, x)
            if y >= 0:
                ty = token[y]
                _replace_pair(pair_count, pair_positions, created, code, key, b * K + ty, new_times_k + ty, w, p)
                prev_pos[y] = p
            token[p] = new
            token[q] = -1
            next_pos[p] = y
        # New pairs involve the new token, so they were all created in this step.
        for fresh in created:
            c = pair_count[fresh]
            if c >= min_frequency:
                heappush(heap, -c * KK + fresh)
            elif c <= 0:
                del pair_count[fresh]
                del pair_positions[fresh]
        bar.update(len(merges))
    return merges


def _replace_pair(pair_count, pair_positions, created, code, key, old, fresh, w, at) -> None:
    """A merge (of the pair ``key``) made the pair ``old`` the pair ``fresh`` at position
    ``at``, ``w`` times: their counts move, and ``fresh``'s positions take ``at``
    (``created`` takes it if it is new)."""
    if old != key:
        pair_count[old] -= w
    if fresh in pair_count:
        pair_count[fresh] += w
        pair_positions[fresh].append(at)
    else:
        pair_count[fresh] = w
        pair_positions[fresh] = array(code, (at,))
        created.add(fresh)


def _dec(counter: Counter[int], a: int, b: int, little: bool) -> None:
    counter[(b << 8 | a) if little else (a << 8 | b)] -= 1


def _find_all(layout: bytes, pair: bytes) -> Iterator[int]:
    """Every position where ``pair`` starts in ``layout``, overlapping ones included."""
    find = layout.find
    p = find(pair)
    while p >= 0:
        yield p
        p = find(pair, p + 1)


def tokens_from_merges(merges: Sequence[tuple[int, int]]) -> list[bytes]:
    """The token bytes in rank order: the 256 single bytes, then one token per merge.

    >>> tokens_from_merges([(97, 97), (256, 98)])[256:]
    [b'aa', b'aab']
    """
    tokens = [bytes([i]) for i in range(256)]
    for a, b in merges:
        tokens.append(tokens[a] + tokens[b])
    return tokens


def train(
    data: str | Iterable[str],
    vocab_size: int,
    *,
    pattern: str | None = None,
    special_tokens: Sequence[str] | None = None,
    min_frequency: int = 2,
    progress: bool | TextIO | Progress = False,
    name: str = "trained",
) -> Encoding:
    """Train a byte-level BPE vocabulary and return it as an :class:`Encoding`.

    ``data`` is a str or an iterable of str, consumed once.  Each item is a
    separate document: merges never cross documents.

    * ``pattern=None`` trains on the raw UTF-8 bytes of each document (no
      pre-splitting); all of the input is held in memory, as one linked array.
    * ``pattern`` = a member of the pre-tokenizer family by name (``"cl100k_base"``,
      ``"llama3"``, ``"qwen2"``, ``"deepseek_v3"``, ...) or any regex string:
      each document is pre-split with the regex, and training runs on the
      distinct pieces weighted by how often they occur; merges never cross
      pieces.  Only the piece counter is kept, so a corpus larger than memory
      can be streamed in (as documents or as blocks cut where the pattern
      never joins pieces; each item is pre-split on its own).

    The rule: at every step, merge the adjacent pair with the highest count
    (occurrences counted as adjacent positions in the current token
    sequences, weighted by piece frequency; ``aaaa`` holds three ``(a, a)``);
    ties go to the pair with the smallest ``(left id, right id)``.  Stop after
    ``vocab_size - 256`` merges or when no pair reaches ``min_frequency``.  A
    merge replaces the pair's occurrences left to right (``aaa`` -> ``[aa, a]``).

    Corner rule: a pair ``(A, B)`` is merged only if the original BPE algorithm
    (tiktoken's: merge the lowest-rank adjacent pair, leftmost first) encodes
    ``bytes(A) + bytes(B)`` with the vocabulary so far to exactly ``[A, B]``.
    Otherwise -- its bytes are already a token, or BPE would build them from
    other parts -- the pair is never merged and the next best pair is taken.
    So every token encodes to itself and the vocabulary always satisfies
    ``BytePairEncoding``'s construction check.

    Ids 0..255 are the single bytes in byte order, merge ``k`` gets id
    ``256 + k``, and ``special_tokens`` get the ids after the merges, in order
    (they are not treated specially in the training text).  ``vocab_size``
    counts the 256 bytes and the merges, not the special tokens; a
    ``min_frequency`` below 1 acts as 1.  ``name`` names the Encoding.
    ``progress=True`` reports the phases on stderr (or pass a text stream or a
    :class:`Progress`).
    The result is deterministic: the same input gives the same vocabulary.

    >>> enc = train("low lower lowest " * 20, 260, pattern=r" ?\\w+| +")
    >>> [enc.decode([i]) for i in range(256, 260)]
    ['lo', 'low', ' low', ' lowe']
    >>> enc.decode(enc.encode("lowest low"))
    'lowest low'
    """
    specials = list(special_tokens or ())
    for s in specials:
        if not isinstance(s, str) or not s:
            raise ValueError(f"special tokens must be non-empty str, got {s!r}")
    if len(set(specials)) != len(specials):
        raise ValueError("special tokens must be distinct")
    pat_str = resolve_pattern(pattern)
    merges = learn_merges(
        data, vocab_size, pattern=pat_str, min_frequency=min_frequency, progress=progress
    )
    tokens = tokens_from_merges(merges)
    mergeable_ranks = {t: i for i, t in enumerate(tokens)}
    special_ids = {s: len(tokens) + j for j, s in enumerate(specials)}
    if isinstance(pat_str, PreTokenizer):
        return Encoding(name, pretokenizer=pat_str, mergeable_ranks=mergeable_ranks, special_tokens=special_ids)
    return Encoding(
        name, pat_str=pat_str, mergeable_ranks=mergeable_ranks, special_tokens=special_ids
    )
