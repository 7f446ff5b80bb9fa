"""Chunks inside runs of ASCII digits by rule (``chunk/digit_runs.py``, its compiled twin
``_native/digit_runs.c``): the rule's premise for both bundled encodings; the Python twin
against brute force (every chunk's count from tiktoken, its end the largest that fits,
the overlap start the earliest whose suffix fits); the compiled functions against the
twin; the chunker with them against the Python steps (whole texts and streams, budgets
1-64 with overlaps, the digits and base64 families and digit runs between other
characters, \\p{N} characters that are no ASCII digit among them)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import conftest
import pytest
from chunk_compare import budget_cases, same_as_steps
from conftest import examples, full_tier_only, tiktoken_oracle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_stream
import bpe_stream.chunk.chunker as chunker_module
from bpe_stream.chunk import digit_runs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _families import family_text  # noqa: E402

ENCODINGS = {name: bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
compiled = pytest.mark.skipif(chunker_module._digit_cuts is None, reason="compiled core not built")

# Between digits: letters, punctuation, spaces, newlines, and \p{N} characters that are no
# ASCII digit (superscript two, one half, Arabic-Indic three, fullwidth five, Roman twelve).
_OTHERS = ["a", "x1", " ", "\n", ".", "+/", "²", "½", "٣", "５", "Ⅻ", "é", "中"]


def _digit_text(rng: random.Random, length: int, other_share: float) -> str:
    return "".join(rng.choice(_OTHERS) if rng.random() < other_share else rng.choice("0123456789")
                   for _ in range(length))


def test_premise_every_short_digit_string_is_one_token():
    for name in ENCODINGS:
        tk = tiktoken_oracle(name)
        assert all(len(tk.encode(d)) == 1 for d in digit_runs._ALL_SHORT_DIGITS), name
        assert digit_runs.digits_one_token(ENCODINGS[name])

    class TwoTokensFor999:
        def count(self, text: str) -> int:
            return 2 if text == "999" else 1

    assert not digit_runs.digits_one_token(TwoTokensFor999())  # a vocabulary without the premise


def _brute_cut(count, text: str, s: int, budget: int) -> int:
    """The largest end whose count from s fits (every end tried)."""
    return max(e for e in range(s, len(text) + 1) if count(text[s:e]) <= budget)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_twin_against_brute_force(name):
    tk = tiktoken_oracle(name)

    def count(t: str) -> int:
        return len(tk.encode(t, disallowed_special=()))

    rng = random.Random(11)
    checked = 0
    for _ in range(60 if conftest.FULL else 12):
        text = _digit_text(rng, rng.randint(5, 90), rng.choice([0.0, 0.03, 0.1]))
        budget = rng.randint(1, 12)
        overlap = rng.randint(0, budget - 1)
        start = rng.randrange(len(text))
        final = rng.random() < 0.7
        cuts, next_start, min_end, need_more = digit_runs.digit_cuts(text, start, -1, budget, overlap, final, 0)
        for i in range(0, len(cuts), 3):
            s, e, k = cuts[i : i + 3]
            assert k == count(text[s:e]) <= budget
            assert e == _brute_cut(count, text, s, budget), (text, s, budget)
            if i + 3 < len(cuts):
                # the next start: the earliest in (s, e) whose suffix fits the overlap
                fits = [p for p in range(s + 1, e) if count(text[p:e]) <= overlap] if overlap else [e]
                assert cuts[i + 3] == min(fits)
            checked += 1
        for _ in range(4):
            s = rng.randrange(len(text))
            e = rng.randrange(s, len(text) + 1)
            k = rng.randint(1, 8)
            p = digit_runs.digit_overlap_start(text, s, e, k)
            if p >= 0:
                assert p == min(q for q in range(s + 1, e) if count(text[q:e]) <= k)
                checked += 1
    assert checked > 0


@compiled
def test_compiled_against_twin():
    rng = random.Random(5)
    for _ in range(3000 if conftest.FULL else 400):
        text = _digit_text(rng, rng.randint(0, 300), rng.choice([0.0, 0.01, 0.05, 0.2]))
        n = len(text)
        budget = rng.randint(1, 40)
        overlap = rng.randint(0, budget - 1)
        start = rng.randint(0, n)
        min_end = rng.choice([-1, start, start + rng.randint(0, 3 * budget + 3)])
        final = rng.random() < 0.5
        lookahead = rng.choice([0, 5, 300])
        args = (text, start, min_end, budget, overlap, final, lookahead)
        assert chunker_module._digit_cuts(*args) == digit_runs.digit_cuts(*args), args
        s = rng.randint(0, n)
        e = rng.randint(s, n)
        k = rng.randint(0, 30)
        assert chunker_module._digit_overlap_start(text, s, e, k) == digit_runs.digit_overlap_start(text, s, e, k)


def _same(enc, text, budget, overlap, pieces=None) -> int:
    """Asserts the chunks by rule and the Python steps' chunks agree; the chunks digit_cuts made."""
    return same_as_steps(enc, text, budget, overlap, "_digit_cuts", pieces, also_off=("_digit_overlap_start",))


@compiled
@pytest.mark.parametrize("name", sorted(ENCODINGS))
@pytest.mark.parametrize("family", ["digits", "base64"])
def test_families(name, family):
    enc = ENCODINGS[name]
    text = family_text(family, 700 if conftest.FULL else 200)
    made = sum(_same(enc, text, budget, overlap) for budget, overlap in budget_cases(conftest.FULL))
    if family == "digits":
        assert made > 0  # the rule took part


@compiled
@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_digit_runs_between_others_and_streams(name):
    enc = ENCODINGS[name]
    rng = random.Random(9)
    made = 0
    for _ in range(20 if conftest.FULL else 3):
        text = _digit_text(rng, rng.randint(50, 1500 if conftest.FULL else 400), rng.choice([0.01, 0.05]))
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 12))))
        pieces = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)])]
        for budget, overlap in ((1, 0), (2, 1), (7, 3), (16, 4), (64, 16)):
            made += _same(enc, text, budget, overlap)
            made += _same(enc, text, budget, overlap, pieces)
    assert made > 0


@compiled
@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_long_digit_run_streamed(name):
    full_tier_only()
    enc = ENCODINGS[name]
    rng = random.Random(2)
    text = family_text("digits", 150000) + " x " + family_text("digits", 20000)
    pieces = []
    i = 0
    while i < len(text):
        k = rng.randint(1, 5000)
        pieces.append(text[i : i + k])
        i += k
    for budget, overlap in ((1, 0), (16, 4), (256, 64), (8192, 2048)):
        assert _same(enc, text, budget, overlap) > 0
        _same(enc, text, budget, overlap, pieces)


@compiled
@settings(max_examples=examples(200, fast=8), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(sorted(ENCODINGS)), st.integers(0, 2**32), st.integers(1, 400), st.integers(1, 64),
       st.floats(0, 0.9), st.sampled_from([0.0, 0.01, 0.05, 0.3]))
def test_hypothesis_digit_runs(name, seed, length, budget, share, others):
    rng = random.Random(seed)
    _same(ENCODINGS[name], _digit_text(rng, length, others), budget, int(budget * share))
