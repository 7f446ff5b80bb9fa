"""The replay's horizon per unit (``chunk/periodic_reach.py``): the longest token inside a
unit's repetition against a scan of the whole vocabulary, and the chunker with the
replay on texts sized to that horizon (budgets 1-64, and 256-8192 on short texts, with
overlaps, whole texts and streams) against its own steps without the replay and against
tiktoken's counts of the chunks."""

from __future__ import annotations

import random

import pytest
import conftest
from conftest import examples, full_tier_only, tiktoken_oracle
from hypothesis import given, settings, strategies as st

import bpe_stream
from bpe_stream.chunk.periodic_reach import unit_horizon, unit_token_bytes
from test_chunker_periodic import SCANNED, _chunks, _no_compiled_cuts

ENCODINGS = {name: bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
UNITS = ["!\u0301/", "a\u0301", "\u3000 ", "/\n", "\n", "\x00", "!", " ", "\t\n ", "ab", "\U0001F600"]
LOOKAHEAD = 256  # boundaries.LOOKAHEAD


def _brute_unit_token_bytes(enc, unit: str) -> int:
    """Every token of the vocabulary (and the whole-piece ones) tested as a substring."""
    data = unit.encode("utf-8")
    max_len = max(enc.bpe.max_token_len, enc._whole_max_len())
    hay = data * (max_len // len(data) + 2)
    tokens = list(enc.bpe.tokens) + list(enc.bpe.unreachable) + list(enc._whole)
    return max((len(t) for t in tokens if t in hay), default=1)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_unit_token_bytes_against_the_vocabulary(name):
    enc = ENCODINGS[name]
    units = UNITS if conftest.FULL else UNITS[:3]
    for unit in units:
        max_len = max(enc.bpe.max_token_len, enc._whole_max_len())
        assert unit_token_bytes(enc, unit, max_len) == _brute_unit_token_bytes(enc, unit), (name, unit)


def _horizon(enc, unit: str, budget: int) -> int:
    return unit_horizon(enc, unit, budget, enc.bpe.max_token_len, LOOKAHEAD)


def _check(enc, text: str, budget: int, overlap: int, pieces=None) -> int:
    """Chunks with the replay == chunks without it, each counted as tiktoken counts it,
    joined back; the chunks replayed."""
    got, replayed = _chunks(enc, text, budget, overlap, "exact", True, pieces)
    want, _ = _chunks(enc, text, budget, overlap, "exact", False, pieces)
    assert got == want, (enc.name, repr(text[:12]), budget, overlap)
    if got and got[0] != "refused":
        oracle = tiktoken_oracle(enc.name)
        assert all(len(oracle.encode_ordinary(c[3])) == c[2] <= budget for c in got)
        if not overlap:
            assert "".join(c[3] for c in got) == text
    return replayed


def _text(enc, unit: str, budget: int, rng: random.Random, horizons: int = 4) -> str:
    reps = horizons * _horizon(enc, unit, budget) // len(unit) + rng.randrange(30)
    mid = rng.choice(["x", " word. ", "\n\n", unit[:-1] or "y"])
    return rng.choice(["", "Lead, "]) + unit * reps + mid + unit * (reps // 3 + rng.randrange(20)) + rng.choice(["", " end."])


# (units whose steps, the reference, take the per-character scan in o200k: full tier)
FAST = {("o200k_base", "\x00")}


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@pytest.mark.parametrize("unit", UNITS)
def test_replay_at_the_unit_horizon(name, unit):
    """Small budgets: the replay starts once its unit's horizon of periodic text follows."""
    if (name, unit) not in FAST:
        full_tier_only()
    enc = ENCODINGS[name]
    rng = random.Random(sum(map(ord, name + unit)))
    budgets = [3] if not conftest.FULL else [1, 5, 16] if (name, unit) in SCANNED else [1, 2, 5, 16]
    if conftest.FULL and (name, unit) not in SCANNED and unit_token_bytes(enc, unit, enc.bpe.max_token_len) <= 4:
        budgets.append(64)  # (a longer unit token makes the text, and the steps over it, long)
    replayed = 0
    for budget in budgets:
        text = _text(enc, unit, budget, rng)
        for overlap in sorted({0, budget // 4, budget - 1}):
            replayed += _check(enc, text, budget, overlap)
    if replayed == 0:
        # the compiled exact cuts took every chunk (chunk_counted_cuts.c): the replay must
        # still agree where the chunker steps in Python
        with _no_compiled_cuts():
            replayed = _check(enc, _text(enc, unit, 3, rng), 3, 1)
    assert replayed > 0


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_large_budgets_short_texts(name):
    """Budgets 256-8192 on texts of a few unit horizons (tens of KB): replayed chunks there
    only with the horizon of the unit (the byte horizon would be 128 x budget)."""
    enc = ENCODINGS[name]
    rng = random.Random(5)
    cases = [("\u3000 ", 256, 64)] if name == "cl100k_base" else [("a\u0301", 256, 64)]
    if conftest.FULL:
        cases += [("!\u0301/", 256, 64), ("/\n", 1024, 256), ("\x00", 8192, 2048), ("a\u0301", 8192, 0),
                  ("!", 4096, 1024), ("\u3000 ", 8192, 2048)]
    replayed = 0
    for unit, budget, overlap in cases:
        text = _text(enc, unit, budget, rng, horizons=3)
        replayed += _check(enc, text, budget, overlap)
    # (the compiled exact cuts may take every chunk of a unit whose pieces are short, as
    # cl100k's "/\n": the chunks agree all the same)
    assert replayed > 0


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_streams_at_the_unit_horizon(name):
    enc = ENCODINGS[name]
    rng = random.Random(13)
    cases = [("\x00", 3, 1)] if name == "o200k_base" else [("/\n", 4, 1)]
    if conftest.FULL:
        cases += [("a\u0301", 16, 4), ("!\u0301/", 5, 1), ("\u3000 ", 64, 16), ("\n", 256, 64)]
    for unit, budget, overlap in cases:
        text = unit * (6 * _horizon(enc, unit, budget) // len(unit)) + "tail"
        cuts = sorted(rng.sample(range(1, len(text)), 10))
        pieces = [text[i:j] for i, j in zip([0] + cuts, cuts + [len(text)])]
        _check(enc, text, budget, overlap, pieces=pieces)


_UNIT_CHARS = st.sampled_from(list("a!/ \n\t.\u0301\u3000\x00,'7Z") + ["\u4e00", "\U0001F600", "\u200d"])


@settings(max_examples=examples(40, fast=3), deadline=None)
@given(unit=st.lists(_UNIT_CHARS, min_size=1, max_size=6).map("".join),
       budget=st.integers(1, 24), overlap_share=st.integers(0, 3), name=st.sampled_from(sorted(ENCODINGS)))
def test_hypothesis_units(unit, budget, overlap_share, name):
    enc = ENCODINGS[name]
    max_len = enc.bpe.max_token_len
    assert unit_token_bytes(enc, unit, max_len) == _brute_unit_token_bytes(enc, unit) if conftest.FULL else True
    reps = 3 * _horizon(enc, unit, budget) // len(unit) + 3
    _check(enc, "x" + unit * reps + " y", budget, budget * overlap_share // 4)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_periodic_long_pieces_counted(name):
    """Ranges inside long periodic pieces (o200k's ``"/\\n" * n`` is one piece): the interval
    counts (compiled and the Python reference, which counts such a piece from its unit's
    period) against tiktoken, at every phase and with partial units at the end."""
    from bpe_stream.text.intervals import text_intervals

    if name != "o200k_base":
        full_tier_only()
    enc = ENCODINGS[name]
    oracle = tiktoken_oracle(name)
    rng = random.Random(17)
    units = ["/\n", "!\u0301/", "\u3000 ", "ab", "!"]
    for unit in units if conftest.FULL else units[:1]:
        text = "x " + unit * rng.randrange(300, 400) + " y"
        index = text_intervals(enc, text)
        for _ in range(60 if conftest.FULL else 12):
            i = rng.randrange(len(text) - 1)
            j = rng.randrange(i + 1, len(text) + 1)
            want = len(oracle.encode_ordinary(text[i:j]))
            assert index.count(i, j) == want, (unit, i, j)
            assert index._count_python(i, j) == want, (unit, i, j)
