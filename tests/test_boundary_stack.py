"""BoundaryStack against a naive model that keeps every hidden segment as a nested list.

The model states the meaning of hiding in the plainest terms: ``hide_above(x)`` moves the
entries above ``x`` (with whatever they hide) into a new *layer* on ``x``; a truncation
drops the entries above ``n`` and, while the top entry has layers, puts the entries at or
below ``n`` of its newest layer back on top (when there are none, the layer is gone).
``push_under_hole`` puts entries on top of ``x`` and moves its newest layer onto the last
of them, with a *floor*: the number of entries that go (from the top) when the layer comes
back.  (The real stack writes a floor over the slots of the hole's lowest entries, so it
takes one only when the hole keeps more entries in its lists than that: ``_slots``.)
BoundaryStack must show the same visible entries through every accessor, whatever the
order of pushes, pops, hides and drops.
"""

from conftest import examples  # noqa: E402
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bpe_stream.stream.front.boundary_stack import BoundaryStack


class _Entry:
    def __init__(self, d, s):
        self.d, self.s, self.layers = d, s, []


def _slots(layers) -> int:
    """The entries the real stack keeps in its lists for these layers (a floor's entries
    take the slots of as many hidden ones)."""
    return sum(sum(1 + _slots(e.layers) for e in layer) - floor for layer, floor in layers)


def _max_d(entries) -> int:
    return max((max(e.d, _max_d([x for layer, _ in e.layers for x in layer])) for e in entries), default=-1)


class NaiveStack:
    def __init__(self):
        self.vis = [_Entry(0, 0)]

    def push(self, d, s):
        top = self.vis[-1]
        if top.layers and d <= _max_d([x for layer, _ in top.layers for x in layer]):
            top.layers = []  # BoundaryStack discards what the top entry hides
        self.vis.append(_Entry(d, s))

    def pop(self):
        self.vis.pop()

    def hide_above(self, i):
        layer = self.vis[i + 1 :]
        del self.vis[i + 1 :]
        if layer:
            self.vis[i].layers.append((layer, 0))

    def push_under_hole(self, entries):
        top = self.vis[-1]
        if not entries or not top.layers:
            return 0
        hidden = [e.d for lay, _ in top.layers for e in lay]  # (one hole in the real stack)
        k = sum(d < min(hidden) for d, _ in entries)
        if (k == 0 or k >= _slots(top.layers) or not top.d < entries[0][0]
                or (k < len(entries) and entries[k][0] <= _max_d([top]))):
            return 0
        layer, floor = top.layers.pop()
        self.vis.extend(_Entry(d, s) for d, s in entries[:k])
        self.vis[-1].layers.append((layer, floor + k))
        return k

    def drop_above(self, n):
        vis = self.vis
        while vis[-1].d > n:
            vis.pop()
        while vis[-1].layers:
            layer, floor = vis[-1].layers.pop()
            kept = [e for e in layer if e.d <= n]
            if kept:  # the layer comes back, the floor goes
                del vis[len(vis) - floor :]
                vis.extend(kept)
            # else the layer is gone and the floor stays: the split of the text from a floor
            # entry on is what it was (the patterns have no look-behind)


ops_st = st.lists(
    st.one_of(
        st.tuples(st.just("push"), st.integers(1, 3)),
        st.tuples(st.just("push_low"), st.integers(0, 10)),
        st.tuples(st.just("pop"), st.none()),
        st.tuples(st.just("hide"), st.integers(0, 30)),
        st.tuples(st.just("drop"), st.integers(0, 40)),
        st.tuples(st.just("copy"), st.none()),
        st.tuples(st.just("under"), st.lists(st.integers(0, 12), min_size=1, max_size=4)),
    ),
    max_size=60,
)


@settings(max_examples=examples(400), deadline=None)
@given(ops=ops_st)
# a merge (hiding 2, 3 on 1) swallowed by a later one (hiding 1, 4, 5 on 0); a truncation
# that splits only the later merge must leave the earlier one hidden
@example(ops=[("push", 1), ("push", 1), ("push", 1), ("hide", 1), ("push", 1), ("push", 1), ("hide", 0),
              ("push", 1), ("drop", 1)])
# a hole with a floor revealed, with an earlier hole inside it that stays hidden (below 12)
@example(ops=[("push", 3), ("push", 3), ("push", 3), ("hide", 2), ("push", 3), ("push", 3), ("hide", 1),
              ("under", [0]), ("drop", 2)])
# a floor of two entries revealed while the hole inside it is cut away
@example(ops=[("push", 3), ("push", 3), ("push", 3), ("push", 3), ("hide", 3), ("push", 3), ("hide", 1),
              ("under", [0, 1]), ("drop", 5), ("push", 3)])
# a truncation below every hidden entry of a hole with a floor: the hole goes, its floor stays
@example(ops=[("push", 3), ("push", 3), ("push", 3), ("push", 3), ("hide", 1), ("under", [0]), ("drop", 7)])
# ... and to its lowest hidden entry: the hole is revealed
@example(ops=[("push", 3), ("push", 3), ("push", 3), ("push", 3), ("hide", 1), ("under", [0]), ("drop", 6)])
# a floor as long as the hole's entries in the lists is not taken: its hole would keep no
# entry there, and a later push among its hidden entries would not discard it
@example(ops=[("push", 3), ("push", 3), ("push", 3), ("hide", 2), ("under", [0]), ("push_low", 0), ("pop", None),
              ("push", 3), ("drop", 1)])
# a second floor under the same hole, then a truncation between its stashed entries
@example(ops=[("push", 3), ("push", 3), ("push", 3), ("push", 3), ("push", 3), ("hide", 1), ("under", [0]),
              ("under", [0]), ("drop", 8)])
def test_boundary_stack_matches_the_naive_model(ops):
    real, model = BoundaryStack(), NaiveStack()
    for op, arg in ops:
        vis = model.vis
        if op == "push":
            d = max(_max_d(vis), 0) + arg
            real.push(d, d * 7)
            model.push(d, d * 7)
        elif op == "push_low":  # above the visible front but maybe below hidden entries
            lo = vis[-1].d
            d = lo + 1 + arg
            real.push(d, d * 7)
            model.push(d, d * 7)
        elif op == "pop":
            if len(vis) > 1:
                real.pop()
                model.pop()
        elif op == "hide":
            i = arg % len(vis)
            p = real.find(vis[i].d)
            assert p is not None
            real.hide_above(p)
            model.hide_above(i)
        elif op == "drop":
            n = max(0, max(_max_d(vis), 0) - arg)
            real.drop_above(n)
            model.drop_above(n)
        elif op == "under":  # entries between the front and the hole just above it, if any
            lo = vis[-1].d
            ds = sorted({lo + 1 + x for x in arg})
            entries = [(d, d * 7) for d in ds]
            k = real.push_under_hole(entries)
            assert k == model.push_under_hole(entries)
            for d, suf in entries[k:]:
                real.push(d, suf)
                model.push(d, suf)
        else:
            real = real.copy()
        _assert_same(real, model)


def _assert_same(real, model):
    want = [(e.d, e.s) for e in model.vis]
    # every distance in the lists is indexed at its position (a floor moves no entry)
    assert real.index == {d: i for i, d in enumerate(real.D)}
    assert real.D == sorted(set(real.D))
    assert real.visible() == want
    for k in range(1, len(want) + 1):
        assert real.has(k)
        assert real.last(k) == want[-k][0]
        assert real.last_suf(k) == want[-k][1]
    assert not real.has(len(want) + 1)
    visible = {d for d, _ in want}
    for d in range(max(real.D) + 2):
        p = real.find(d)
        assert (p is not None) == (d in visible), d
    for (below, _), (d, _) in zip(want, want[1:]):
        assert real.prev_dist(real.find(d)) == below
