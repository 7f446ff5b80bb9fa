"""FrontText (the prepended text read by distance from its end) against a plain string."""

import pytest
from conftest import examples  # noqa: E402
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_stream.stream.front.text import FrontText


class _Text(FrontText):
    __slots__ = ("chunks", "bottoms", "n")

    def __init__(self):
        self.chunks, self.bottoms, self.n = [], [], 0


_ops = st.lists(st.one_of(
    st.tuples(st.just("push"), st.text(alphabet="abc\u00e9\u4e2d", min_size=1, max_size=12)),
    st.tuples(st.just("drop"), st.integers(0, 15)),
    st.tuples(st.just("front"), st.integers(0, 40)),
    st.tuples(st.just("window"), st.integers(0, 40), st.integers(0, 40)),
), max_size=40)


@pytest.mark.parametrize("block", [1, 3, 4096])
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_ops)
def test_reads_by_distance_agree_with_a_plain_string(ops, block, monkeypatch):
    monkeypatch.setattr(FrontText, "_BLOCK", block)
    t = _Text()
    model = ""
    for op in ops:
        if op[0] == "push":
            t._push_text(op[1])
            t.n += len(op[1])
            model = op[1] + model
        elif op[0] == "drop":
            k = min(op[1], len(model))
            t._drop_front(k)
            t.n -= k
            model = model[k:]
        elif op[0] == "front":
            assert t._front(op[1]) == model[: op[1]]
        else:
            lo, hi = sorted(min(x, len(model)) for x in op[1:])
            # distances hi down to lo (exclusive): indices len - hi to len - lo
            assert t._window(hi, lo) == model[len(model) - hi : len(model) - lo]
        assert "".join(reversed(t.chunks)) == model
        assert all(len(c) <= max(block, 1) for c in t.chunks)
        top = 0
        for c, b in zip(t.chunks, t.bottoms):
            assert b == top
            top += len(c)
        assert len(t.bottoms) == len(t.chunks)
