"""DistanceRecords against a naive model: a list of (key, value, top, size), oldest first;
DistanceMap (front_alts) against a dict."""

import doctest

import pytest
from conftest import examples  # noqa: E402
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import bpe_stream.stream.front.alts as front_alts
import bpe_stream.text.records as front_records
from bpe_stream.stream.front.alts import DistanceMap
from bpe_stream.text.records import DistanceRecords


@pytest.mark.parametrize("module", [front_records, front_alts])
def test_docstring_examples(module):
    assert doctest.testmod(module).failed == 0


_ops = st.lists(st.one_of(
    st.tuples(st.just("put"), st.integers(0, 12), st.integers(0, 15), st.integers(1, 30), st.integers(0, 40)),
    st.tuples(st.just("pop"), st.integers(0, 12)),
    st.tuples(st.just("drop"), st.integers(-1, 16)),
    st.tuples(st.just("range"), st.integers(-1, 16), st.integers(-1, 16)),
    st.tuples(st.just("lowest"), st.integers(-1, 17)),
), max_size=60)


@pytest.mark.parametrize("budget", [30, 1 << 16])  # (30: the budget pushes records out)
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_ops)
@example(ops=[("put", 1, 5, 1, 0), ("put", 2, 5, 1, 0), ("put", 3, 9, 1, 0), ("pop", 2), ("drop", 4)])
def test_records_answer_as_a_naive_list_does(ops, budget, monkeypatch):
    monkeypatch.setattr(front_records, "_MIN_BUDGET", budget)
    records = DistanceRecords()
    model = []  # [key, value, top, size], oldest first
    for step, op in enumerate(ops):
        if op[0] == "put":
            _, key, top, size, n = op
            value = ("v", step)
            records.put(key, value, top, size, n)
            model = [r for r in model if r[0] != key] + [[key, value, top, size]]
            while sum(r[3] for r in model) > max(2 * n, budget) and len(model) > 1:
                model.pop(0)
        elif op[0] == "pop":
            expected = next((r[1] for r in model if r[0] == op[1]), None)
            assert records.pop(op[1]) == expected
            model = [r for r in model if r[0] != op[1]]
        elif op[0] == "drop":
            got = records.drop_above(op[1])
            assert sorted(got) == sorted((r[0], r[1], r[2]) for r in model if r[2] > op[1])
            model = [r for r in model if r[2] <= op[1]]
        elif op[0] == "range":
            _, lo, hi = op
            got = records.starting_in(lo, hi)
            assert sorted(got) == sorted((r[0], r[1]) for r in model if lo <= r[2] <= hi)
            assert [records.get(k) for k, _ in got] == [v for _, v in got]
        else:
            got = records.lowest_top_from(op[1])
            tops = [r[2] for r in model if r[2] >= op[1]]
            if not tops:
                assert got is None
            else:
                assert got[2] == min(tops)
                assert [got[0], got[1], got[2]] in [r[:3] for r in model]
        assert dict(records) == {r[0]: r[1] for r in model}
        assert records.top() == max((r[2] for r in model), default=0)
        assert list(records._meta) == [r[0] for r in model]  # the eviction order
        # (white-box: the sorted index holds exactly the records, with their tops)
        assert sorted((top, key) for top, _, key in records._tops) == sorted((r[2], r[0]) for r in model)


@settings(max_examples=examples(300), deadline=None)
@given(ops=st.lists(st.one_of(st.tuples(st.just("put"), st.integers(0, 20), st.integers(0, 5)),
                              st.tuples(st.just("drop"), st.integers(-1, 21)),
                              st.tuples(st.just("copy"), st.just(0))), max_size=60))
def test_distance_map_answers_as_a_dict_does(ops):
    m, model = DistanceMap(), {}
    for op, a, *b in ops:
        if op == "put":
            m.put(a, b[0])
            model[a] = b[0]
        elif op == "drop":
            m.drop_above(a)
            model = {d: v for d, v in model.items() if d <= a}
        else:
            m = m.copy()
        assert dict(m) == model
        assert m._keys == sorted(model)  # (white-box: drop_above reads the sorted keys)
    with pytest.raises(TypeError, match="put"):
        m[1] = 2
