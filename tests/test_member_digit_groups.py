"""Overlap starts in digit runs by rule for the members whose digits are ``\\p{N}{1,3}``
groups that nothing else takes (``digit_groups_member`` in ``chunk/digit_runs.py``):
the premise on the members' own splits (brute force over short texts of digits and other
characters), and the chunker with the rule against the chunker without it -- the
reference, which re-splits the suffix of every candidate -- and against HF tokenizers on
the real vocabularies (Llama 3, DeepSeek-V3's layout), in exact and semantic mode, budgets
1-64 with overlaps, digit texts mixed with other characters, hypothesis texts."""

from __future__ import annotations

import itertools
import random

import conftest
import pytest
import regex
from chunk_compare import real_vocabulary, same_without_rule
from conftest import examples, full_tier_only
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_stream.chunk.chunker as chunker_module
from bpe_stream.chunk import digit_runs
from bpe_stream.chunk.chunker import Chunker
from bpe_stream.pretokenize.family import MEMBERS

GROUPED = {"cl100k_base", "o200k_base", "llama3", "deepseek_v3"}
_N_RUN = regex.compile(r"\p{N}+")
# digits, non-ASCII \p{N} characters, and what may lead or follow them in a piece
_CHARS = ["1", "2", "3", "²", "٣", "Ⅻ", "a", "é", " ", "\n", ".", "'", "中", "\u0301", "_"]


def test_grouped_members():
    assert {name for name, m in MEMBERS.items() if digit_runs.digit_groups_member(m)} == GROUPED
    assert not digit_runs.digit_groups_member(None)


@pytest.mark.parametrize("name", sorted(GROUPED))
def test_premise_on_the_members_split(name):
    """Every \\p{N} run splits into groups of three from its first character, each a piece."""
    member = MEMBERS[name]
    rng = random.Random(7)
    texts = ["".join(t) for t in itertools.product(_CHARS[:1] + _CHARS[3:], repeat=3)]
    texts += ["".join(rng.choice(_CHARS) for _ in range(rng.randint(1, 14))) for _ in range(400)]
    for text in texts:
        text = member.normalize(text)
        expected = []
        for run in _N_RUN.finditer(text):
            expected += [text[p : min(p + 3, run.end())] for p in range(run.start(), run.end(), 3)]
        digit_pieces = [p for p in member.split(text) if _N_RUN.search(p)]
        assert digit_pieces == expected, (name, text)


# the rule under test off: the Python steps find the chunks
NO_DIGIT_GROUPS = {(chunker_module, "digit_groups_member"): lambda member: False}


def _check(enc, count, text, budget, overlap, mode):
    same_without_rule(enc, count, text, budget, overlap, mode, NO_DIGIT_GROUPS)


def _digits(rng: random.Random, n: int, other_share: float) -> str:
    others = ["a", "x1", " ", "\n", ".", "+/", "²", "٣", "Ⅻ", "é", "中", " 12"]
    return "".join(rng.choice(others) if rng.random() < other_share else rng.choice("0123456789") for _ in range(n))


@pytest.mark.parametrize("key", ["llama3", "deepseek_v3"])
@pytest.mark.parametrize("mode", ["exact", "semantic"])
def test_real_vocabulary_digit_overlaps(key, mode):
    if key != "deepseek_v3":
        full_tier_only()  # loading a second real vocabulary costs half a second
    enc, count = real_vocabulary(key)
    rng = random.Random(11)
    if conftest.FULL:
        texts = [_digits(rng, 600, 0.0), _digits(rng, 500, 0.05), _digits(rng, 400, 0.3), "ab " + "7" * 400 + "."]
        settings_ = ((1, 0), (2, 1), (5, 2), (16, 4), (33, 8), (64, 16), (64, 63))
    else:
        texts = [_digits(rng, 200, 0.04)]
        settings_ = ((7, 3),)
    for text in texts:
        for budget, overlap in settings_:
            _check(enc, count, text, budget, overlap, mode)


@pytest.mark.parametrize("key", ["llama3", "deepseek_v3"])
@settings(max_examples=examples(40, fast=2), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), length=st.integers(1, 300), share=st.sampled_from([0.0, 0.02, 0.2]),
       budget=st.integers(1, 64), overlap=st.integers(0, 63), mode=st.sampled_from(["exact", "semantic"]))
def test_hypothesis_digit_overlaps(key, seed, length, share, budget, overlap, mode):
    if not conftest.FULL:
        if key != "deepseek_v3":
            return
        length = min(length, 120)
    enc, count = real_vocabulary(key)
    _check(enc, count, _digits(random.Random(seed), length, share), budget, min(overlap, budget - 1), mode)


@pytest.mark.parametrize("key", ["llama3", "deepseek_v3"])
def test_long_digit_run_overlap_starts(key):
    """Exact mode reaches the overlap-start steps on long runs with large budgets: every
    start is the earliest whose suffix fits (HF counts one character earlier and at it),
    and, in the full tier, the same chunks as without the rule."""
    if key != "deepseek_v3":
        full_tier_only()
    enc, count = real_vocabulary(key)
    rng = random.Random(3)
    texts = [_digits(rng, 2400, 0.0)] + ([_digits(rng, 2400, 0.002), "x " + _digits(rng, 3000, 0.0)]
                                         if conftest.FULL else [])
    for text in texts:
        for budget, overlap in ((256, 8), (200, 50)) if conftest.FULL else ((256, 8),):
            for mode in ("exact", "semantic") if conftest.FULL else ("exact",):
                if conftest.FULL:
                    _check(enc, count, text, budget, overlap, mode)
                chunks = Chunker(enc, budget, overlap=overlap, boundaries=mode).chunks(text)
                assert len(chunks) > 2
                for a, b in zip(chunks, chunks[1:]):
                    assert a.start < b.start and count(text[b.start : a.end]) <= overlap
                    if mode == "exact":
                        assert count(text[b.start - 1 : a.end]) > overlap, (key, budget, overlap, b.start)
                assert all(c.token_count == count(c.text) <= budget for c in chunks)
