"""Token counts of any substring of a byte string after one pass (raw BPE).

Invariant (as the Rust crate's interval encoding): ``last[p]`` is the last token of
BPE's encoding of ``data[:p]`` (one table pass, :class:`~bpe_stream.bpe.table.PrefixTable`);
the parent of prefix ``p`` is ``p - len(last[p])``, so the prefixes form a tree whose
root-to-``p`` path is the encoding of ``data[:p]`` and whose depth is its count.
``tree_id``/``tree_end`` number the tree in pre-order, so "``p`` is an ancestor of
``j``" is ``tree_id[p] <= tree_id[j] < tree_end[p]`` in O(1).  ``count(i, j)`` builds
*some* encoding of ``data[i:p]`` whose adjacent pairs are all valid -- which is BPE's
encoding of ``data[i:p]`` -- and stops at the first ``p`` that is an ancestor of ``j``
and whose last token is the whole text's last token at ``p`` (same length, same end):
followed by the tree path from ``p`` to ``j`` (whose junction pair the whole text uses,
so it is valid) it is the encoding of ``data[i:j]``, and the count is ``tokens so far
+ depth[j] - depth[p]``.  First try: greedy leftmost-longest tokens from one
``iter_long`` call, kept while each pair is valid (the continuation masks settle ~85 %
of pairs without unwinding); if a pair is invalid, the prefix recurrence of the table
encoder from ``i``.  Typically a few tokens (O(1)); O(j - i) worst case when the
encodings never re-synchronise (e.g. some long runs of one repeated byte), which the
periodic shortcut (:class:`_PeriodicRun`) answers in O(1) for periodic runs.
Memory: ``last`` stored as the token *length* (one byte) plus three 4-byte arrays:
13 bytes per input byte, plus the data.  Build: one table pass plus two linear loops.

With the compiled core the index is built in C (``Core.interval_index``,
``_native/prefix_table.c``) and keeps 1.19 bytes per input byte instead: ``lens`` and one
bit per position, "``p`` is a boundary of the whole text's encoding", with a 4-byte rank
every 64 bits.  The path from ``j`` meets the whole text's path within a few tokens on
real input, so the ancestor test walks back from ``j`` to that meeting point ``m``: ``p``
is an ancestor of ``j`` iff it is one of the positions passed, or ``p <= m`` and a
boundary of the whole text's encoding, and ``depth[j] - depth[p]`` is the steps to ``m``
plus the boundaries in ``(p, m]``.  A query first runs the greedy and table steps there
(about a microsecond); only a query that meets no ancestor within a bounded stretch (or
whose ``j`` is more than 64 steps from the whole text's path) comes back to the Python
steps below (periodic runs, the memo of slow queries), which then make the full arrays
from the lengths (``IntervalIndex.arrays()``, 13 bytes per byte from then on).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from typing import TYPE_CHECKING

from .native import periodic_runs
from .pairs import _valid_pair_memo

if TYPE_CHECKING:  # annotations only: the vocabulary module imports the encoders
    from .vocabulary import BytePairEncoding

_PERIODIC = re.compile(rb"(.{1,4}?)\1{15,}", re.S)


_MIN_RUN = 64
_SLOW_MEMO = 4096  # entries of the per-vocabulary memo of slow raw interval queries
_SLOW_MEMO_LEN = 1024  # longest query memoized (bytes)


def _periodic_count(bpe, unit: bytes, need: int) -> int:
    """BPE count of the first ``need`` bytes of ``unit * k`` (a substring of a periodic run)."""
    return _periodic_run(bpe, unit).count(need)


def _single_byte_run(bpe, data: bytes):
    """The :class:`_PeriodicRun` of ``data`` when it is one byte repeated, else None.

    Why: a table pass over a run of one byte (spaces) meets tens of automaton matches per
    byte, while the run's prefix counts are O(1) each from their verified period."""
    if data and data.count(data[:1]) == len(data):
        return _periodic_run(bpe, data[:1])
    return None


def _periodic_run(bpe, unit: bytes) -> "_PeriodicRun":
    cache = bpe.__dict__.get("_bpe_stream_periodic")
    if cache is None or len(cache) > 64:
        cache = bpe._bpe_stream_periodic = {}
    run = cache.get(unit)
    if run is None:
        run = cache[unit] = _PeriodicRun(bpe, unit)
    return run


class _PeriodicRun:
    """Counts of the prefixes of ``unit * infinity`` in O(1) after O(max_token_len) work.

    Why it is exact: in the table recurrence, the last token ending at ``p`` is a function
    of the bytes ``data[p-L:p]`` and of the last tokens at ``p-L .. p-1`` (``L`` the longest
    token length; the candidates ending at ``p`` and the pair checks look no further back).
    The data repeat with period ``len(unit)``, so once the last-token lengths of a window of
    ``L`` positions equal those ``P`` positions later (``P`` a multiple of ``len(unit)``)
    they repeat with period ``P`` forever, and ``counts[p] = counts[p - lens[p]] + 1`` then
    gives ``counts[p + P] - counts[p] = d`` for every later ``p`` once it holds on that
    window.  We compute a prefix long enough to see such a window, verify it, and answer
    longer prefixes as ``counts[n0 + s] + q * d``.  If no period shows up (never seen), the
    prefix table simply grows to the length asked for.
    """

    __slots__ = ("bpe", "unit", "counts", "n0", "period", "d")

    def __init__(self, bpe, unit: bytes):
        self.bpe = bpe
        self.unit = unit
        self.period = 0
        L = max(1, bpe.max_token_len)
        u = len(unit)
        reps = (12 * L) // u + 4
        while True:
            data = unit * reps
            lens, counts = _table_pass(bpe, data, data.decode("latin-1"))
            self.counts = counts
            if self._find_period(lens, counts, u, L, len(data)) or reps * u > 1 << 16:
                return
            reps *= 2

    def _find_period(self, lens, counts, u: int, L: int, n: int) -> bool:
        for P in range(u, (n - 3 * L) // 2 + 1, u):
            n0 = n - P
            a = n0 - L + 1  # window (a..n0] of L positions, all at least 2L from the start
            if lens[a : n0 + 1] != lens[a + P : n + 1]:
                continue
            d = counts[n] - counts[n0]
            if all(counts[q + P] - counts[q] == d for q in range(a, n0 + 1)):
                # The same check at the earliest window it holds (its positions must see
                # L bytes of data behind them): a shorter transient means fewer distinct
                # starts for _BytesIntervals.count's shift.
                for m0 in range(2 * L - 1, n0):
                    b = m0 - L + 1
                    if lens[b : m0 + 1] == lens[b + P : m0 + P + 1] and all(
                        counts[q + P] - counts[q] == d for q in range(b, m0 + 1)
                    ):
                        n0 = m0
                        break
                self.n0, self.period, self.d = n0, P, d
                return True
        return False

    def count(self, need: int) -> int:
        counts = self.counts
        if need < len(counts):
            return counts[need]
        if not self.period:  # no period proven: extend the table (linear in need)
            reps = need // len(self.unit) + 1
            data = self.unit * reps
            self.counts = _table_pass(self.bpe, data, data.decode("latin-1"))[1]
            return self.counts[need]
        q, s = divmod(need - self.n0, self.period)
        return counts[self.n0 + s] + q * self.d


def _table_pass(bpe, data: bytes, latin: str):
    """The recurrence of :class:`~bpe_stream.bpe.table.PrefixTable` in one automaton pass:
    ``lens[p]`` = length of the last token of the encoding of ``data[:p]``, ``counts[p]`` its
    count.  Pair checks: continuation mask first, then the memoized check of
    :mod:`bpe_stream.stream.appendable` (runs of one byte try tens of invalid pairs per byte), and
    the periodic shortcut of :mod:`bpe_stream.bpe.table` (no pair check at all inside periodic
    runs once the last ``max_token_len`` positions repeat)."""
    n = len(data)
    token_lens = bpe.token_lens
    core = bpe._core
    if core is not None:
        zeros = bytes(4 * (n + 1))
        last_c, counts_c = array("i", zeros), array("i", zeros)
        done = core.table_fill(data, last_c, counts_c, 0, n, 1, 0)[0]
        if done != n:
            raise bpe.missing_byte_error(data, done)
        lens = [token_lens[t] for t in last_c]
        lens[0] = 0
        return lens, counts_c.tolist()
    masks = bpe.continuation_masks
    lens = [0] * (n + 1)
    counts = [0] * (n + 1)
    last = [0] * (n + 1)
    done = 0
    M = bpe.max_token_len
    per = 1  # periodic shortcut, as in BytesAppendable._append_bytewise
    eq = 0
    for e, t in bpe.automaton.iter(latin):
        p = e + 1
        if p <= done:
            continue  # a longer valid token already ends here
        if p != done + 1:
            break
        if eq > M and p - per > M and data[p - 1] == data[p - 1 - per]:
            t = last[p - per]
            tl = token_lens[t]
            last[p] = t
            lens[p] = tl
            counts[p] = counts[p - tl] + 1
            done = p
            eq += 1
            continue
        tl = token_lens[t]
        start = p - tl
        if start == 0 or not (masks[last[start]] >> data[start]) & 1 or _valid_pair_memo(bpe, last[start], t):
            last[p] = t
            lens[p] = tl
            counts[p] = counts[start] + 1
            done = p
            if p > per and data[p - 1] == data[p - 1 - per] and last[p - per] == t:
                eq += 1
            else:
                eq = 0
                per = tl
    if done != n:
        raise bpe.missing_byte_error(data, done)
    return lens, counts


class _BytesIntervals:
    def __init__(self, bpe: BytePairEncoding, data: bytes):
        self.bpe = bpe
        self.data = bytes(data)
        data = self.data
        # Long periodic runs (unit of 1-4 bytes repeated): encodings of substrings starting at
        # different phases may never re-synchronise with the whole text's, so they are counted
        # from the prefix counts of the repeated unit instead (O(1) after a one-time O(run)).
        core = bpe._core
        if core is not None and periodic_runs is not None:
            runs = periodic_runs(data, _MIN_RUN)  # the same spans, scanned in C
        else:
            runs = [(m.start(), m.end(), len(m.group(1))) for m in _PERIODIC.finditer(data)
                    if m.end() - m.start() >= _MIN_RUN]
        self.run_starts = [r[0] for r in runs]
        self.run_ends = [r[1] for r in runs]
        self.run_units = [r[2] for r in runs]
        self._index = None
        if core is not None:
            # the index in C; the Python arrays below only if a query comes back here
            self._index = core.interval_index(data)
            return
        self._build_python()

    def __getattr__(self, name):
        # the Python arrays of an index built in C, made when a query first needs them
        if name in ("_latin", "lens", "depth", "tree_id", "tree_end") and self.__dict__.get("_index") is not None:
            lens, depth, tree_id, tree_end = self._index.arrays()
            self.lens = array("B" if self.bpe.max_token_len < 256 else "H")
            self.lens.frombytes(lens)
            for attr, raw in (("depth", depth), ("tree_id", tree_id), ("tree_end", tree_end)):
                a = array("I")
                a.frombytes(raw)
                setattr(self, attr, a)
            self._latin = self.data.decode("latin-1")
            return getattr(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _build_python(self) -> None:
        bpe, data = self.bpe, self.data
        self._latin = data.decode("latin-1")
        n = len(data)
        lens, depth = _table_pass(bpe, data, self._latin)
        size = [1] * (n + 1)
        for p in range(n, 0, -1):
            size[p - lens[p]] += size[p]
        tree_id = [0] * (n + 1)
        nxt = [1] * (n + 1)  # next free id among the children of p
        for p in range(1, n + 1):
            parent = p - lens[p]
            tid = nxt[parent]
            tree_id[p] = tid
            nxt[parent] = tid + size[p]
            nxt[p] = tid + 1
        del nxt
        tree_end = [a + b for a, b in zip(tree_id, size)]
        del size
        code = "B" if bpe.max_token_len < 256 else "H"
        self.lens = array(code, lens)
        self.depth = array("I", depth)
        self.tree_id = array("I", tree_id)
        self.tree_end = array("I", tree_end)

    def memory_bytes(self) -> int:
        arrays = [self.__dict__[a] for a in ("lens", "depth", "tree_id", "tree_end") if a in self.__dict__]
        own = sum(a.itemsize * len(a) for a in arrays)
        return own + (self._index.memory_bytes() if self._index is not None else 0)

    def _count_memo(self, i: int, j: int) -> int:
        memo = self.__dict__.setdefault("_memo", {})
        c = memo.get((i, j))
        if c is None:
            c = self.count(i, j)
            if len(memo) >= 4096:
                memo.clear()
            memo[(i, j)] = c
        return c

    def count(self, i: int, j: int) -> int:
        if i == j:
            return 0
        if self.run_starts:
            k = bisect_right(self.run_starts, i) - 1
            if k >= 0 and i < self.run_ends[k]:
                re_ = self.run_ends[k]
                unit = self.data[i : i + self.run_units[k]]
                if j <= re_:
                    if j - i >= _MIN_RUN:
                        return _periodic_count(self.bpe, unit, j - i)
                else:
                    # Start inside a run, end past it: after the state of the encoding
                    # from i repeats (see _PeriodicRun), moving i forward by m periods only
                    # drops m * d tokens, so start near the run's end instead (a few hundred
                    # distinct starts per run, memoized: truncate_start asks for every one).
                    run = _periodic_run(self.bpe, unit)
                    P = run.period
                    if P and re_ - i >= run.n0 + P:
                        m = (re_ - i - run.n0) // P
                        return self._count_memo(i + m * P, j) + m * run.d
        if self._index is not None:
            c = self._index.count(i, j)
            if c >= 0:
                return c
        bpe = self.bpe
        token_lens = bpe.token_lens
        masks = bpe.continuation_masks
        data = self.data
        lens, depth, tree_id, tree_end = self.lens, self.depth, self.tree_id, self.tree_end
        leaf = tree_id[j]
        # Greedy leftmost-longest tokens while every pair is valid.
        hi = j if j - i <= 256 else i + 256
        pos = i
        prev = -1
        c = 0
        for e, t in bpe.automaton.iter_long(self._latin[i:hi]):
            p = i + e + 1
            if p - token_lens[t] != pos:
                break
            if prev >= 0 and (masks[prev] >> data[pos]) & 1 and not bpe.pair_ok(prev, t):
                break
            c += 1
            if p == j:
                return c
            if lens[p] == token_lens[t] and tree_id[p] <= leaf < tree_end[p]:
                return c + depth[j] - depth[p]
            prev = t
            pos = p
        if j - i <= _SLOW_MEMO_LEN:
            # Slow queries memoized by their bytes, per vocabulary: the same short
            # stretches recur (a run of spaces before a newline on every line, of one
            # length after another as truncate_start walks back), and a table pass over
            # a run of spaces iterates tens of automaton matches per byte.
            memo = bpe.__dict__.get("_bpe_stream_slow_counts")
            if memo is None:
                memo = bpe._bpe_stream_slow_counts = {}
            key = data[i:j]
            c = memo.get(key)
            if c is None:
                c = self._count_table(i, j)
                if len(memo) >= _SLOW_MEMO:
                    memo.clear()
                memo[key] = c
            return c
        return self._count_table(i, j)

    def _count_table(self, i: int, j: int) -> int:
        bpe = self.bpe
        token_lens = bpe.token_lens
        masks = bpe.continuation_masks
        data = self.data
        lens, depth, tree_id, tree_end = self.lens, self.depth, self.tree_id, self.tree_end
        leaf = tree_id[j]
        W = max(64, bpe.max_token_len)
        last = {i: -1}
        cnt = {i: 0}
        done = i
        lo = i
        while True:
            hi = min(j, lo + W)
            for e, t in bpe.automaton.iter(self._latin[lo:hi]):
                p = lo + e + 1
                if p <= done:
                    continue
                start = p - token_lens[t]
                if start < i:
                    continue
                if (
                    start == i
                    or not (masks[last[start]] >> data[start]) & 1
                    or _valid_pair_memo(bpe, last[start], t)
                ):
                    last[p] = t
                    c = cnt[start] + 1
                    cnt[p] = c
                    done = p
                    if p == j:
                        return c
                    if lens[p] == token_lens[t] and tree_id[p] <= leaf < tree_end[p]:
                        return c + depth[j] - depth[p]
            if hi >= j:
                raise bpe.missing_byte_error(self.data, done)
            if self.run_starts:
                jumped = self._periodic_jump(i, j, done, last, cnt)
                if jumped > done:
                    done = hi = jumped
            lo = max(i, hi - bpe.max_token_len + 1)
            W *= 2

    def _periodic_jump(self, i: int, j: int, done: int, last: dict, cnt: dict) -> int:
        """Skip ahead inside a periodic run during :meth:`_count_table`; returns the new
        ``done`` (or ``done`` if no skip is proven).

        The last tokens at ``p`` are a function of the ``L`` last tokens before ``p`` and
        of ``data[p-L:p]`` (``L`` = longest token).  If those ``L`` tokens equal the ones
        ``P`` positions earlier and the data repeat with period ``P`` (a multiple of the
        run's unit), the table repeats with period ``P`` up to the run's end, and every
        count grows by the same ``d`` per period: positions ``q`` of the last window map
        to ``q + m*P`` with count ``+ m*d``.  Why: encodings from a start inside or
        before a long run of one repeated unit need not meet the whole text's encoding
        until the run ends, which made such queries O(run)."""
        k = bisect_right(self.run_starts, done) - 1
        if k < 0 or done >= self.run_ends[k]:
            return done
        L = self.bpe.max_token_len
        u = self.run_units[k]
        limit = min(self.run_ends[k], j - 1)
        # window positions q (and q - P) must have only in-run data behind them and
        # must not see the query's start (where the recurrence has no previous token)
        floor = max(self.run_starts[k] + L, i + L + 1)
        span = done - floor - L + 1  # largest P the window allows
        if span < u or limit - done < u:
            return done
        lo = done - L - min(span, 2 * L)
        seq = [last[q] for q in range(lo, done + 1)]
        counts = [cnt[q] for q in range(lo, done + 1)]
        tail = seq[-L:]
        for P in range(u, min(span, 2 * L) + 1, u):
            if seq[-L - P : -P] != tail:
                continue
            d = counts[-1] - counts[-1 - P]
            if any(counts[-1 - x] - counts[-1 - x - P] != d for x in range(L)):
                continue
            m = (limit - done) // P
            if m <= 0:
                return done
            shift = m * P
            for q in range(done - L, done + 1):
                last[q + shift] = last[q]
                cnt[q + shift] = cnt[q] + m * d
            return done + shift
        return done
