"""Chunks inside long one-piece runs for the members beyond cl100k/o200k (the members' run
rules of ``chunk/member_runs.py``: ChunkView's run mode, and the compiled run_cuts' class
mode for members whose runs split as cl100k's) against the chunker without them -- the
reference, which re-splits and re-counts -- and against HF tokenizers on the real
vocabularies (GPT-2, Qwen2, Llama 3, DeepSeek-V3's layout), and against ``enc.count`` on
every member with cl100k/o200k ranks.  Texts: long runs of letters, CJK, punctuation,
digits and whitespace, their mixtures, and hypothesis texts of such runs."""

from __future__ import annotations

import random

import conftest
import pytest
from chunk_compare import real_vocabulary, same_without_rule
from conftest import examples, full_tier_only
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_members_streaming import NAMES, member_encoding

import bpe_stream.chunk.chunker as chunker_module
import bpe_stream.chunk.counts as counts_module
from bpe_stream.chunk.chunker import Chunker

VOCABS = ["deepseek_v3", "gpt2", "llama3", "qwen2"]
# the rule under test off: the Python steps find the chunks
NO_RUN_RULES = {(counts_module, "member_runs"): lambda member: (None, None), (chunker_module, "_run_cuts"): None}


def _random(alphabet: str, n: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(n))


LETTERS = "abcdefghijklmnopqrstuvwxyz"
PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
CJK = "".join(chr(c) for c in range(0x4E00, 0x4E00 + 400))
TEXTS = [
    _random(LETTERS, 700, 1),
    _random(CJK, 250, 2),
    _random(PUNCT, 600, 3),
    _random("0123456789", 600, 4),
    " " + _random(LETTERS, 300, 5) + "!!" + _random(PUNCT, 200, 6) + " " + _random("0123456789", 200, 7)
    + "\n" * 70 + " " * 130 + "x" + _random(LETTERS, 120, 13) + _random("0123456789", 100, 14) + "x",
    _random(LETTERS + "\u00e9\u00df", 300, 8) + _random(CJK, 100, 9) + "\n\n" + _random(PUNCT, 150, 10) + "\n",
    "x" * 300 + " " * 150 + "\t" * 70 + "\n" * 90 + "!" * 200,
    _random(PUNCT + "\u00a1\u00bf\u2014", 300, 11) + " \u0301" + _random(LETTERS.upper(), 200, 12),
]


def _check(enc, count, text, budget, overlap, mode):
    same_without_rule(enc, count, text, budget, overlap, mode, NO_RUN_RULES)


SETTINGS_FAST = ((16, 4),)
SETTINGS_FULL = ((1, 0), (5, 2), (16, 4), (64, 16))


@pytest.mark.parametrize("key", VOCABS)
@pytest.mark.parametrize("mode", ["exact", "semantic"])
def test_real_vocabulary_runs(key, mode):
    if (key, mode) not in (("gpt2", "semantic"), ("qwen2", "exact")):
        full_tier_only()
    enc, count = real_vocabulary(key)
    texts = TEXTS if conftest.FULL else TEXTS[4:5]
    for text in texts:
        for budget, overlap in SETTINGS_FULL if conftest.FULL else SETTINGS_FAST:
            _check(enc, count, text, budget, overlap, mode)


@pytest.mark.parametrize("name", NAMES)
def test_members_runs_on_bundled_ranks(name):
    if name not in ("gpt2", "qwen2"):
        full_tier_only()
    enc = member_encoding(name)
    for text in TEXTS[4:] if conftest.FULL else [TEXTS[5][:200]]:
        for budget, overlap in ((5, 2), (33, 8)) if conftest.FULL else ((5, 1),):
            for mode in ("exact", "semantic"):
                _check(enc, enc.count, text, budget, overlap, mode)


PARTS = [_random(LETTERS, 90, 20), _random(CJK, 40, 21), _random(PUNCT, 80, 22), _random("0123456789", 70, 23),
         " " * 40, "\n" * 12, "x" * 70, " ", "\n", "'s", "\u0301", "\u00e9" * 30, "\r\n", "!!!/", "9", "Ab"]


@pytest.mark.parametrize("key", ["gpt2", "qwen2"])
@settings(max_examples=examples(40, fast=2), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.sampled_from(PARTS), min_size=1, max_size=8), budget=st.integers(1, 64),
       overlap=st.integers(0, 16), mode=st.sampled_from(["exact", "semantic"]))
def test_hypothesis_runs(key, parts, budget, overlap, mode):
    enc, count = real_vocabulary(key)
    _check(enc, count, "".join(parts), budget, min(overlap, budget - 1), mode)


# A pattern outside the family (no run rule): its cuts in long pieces take the descent of
# text/cuts.py, whose long pieces share one prefix table per start (text/descent.py).
CUSTOM = r"""'s|'t|'re|'ve|'m|'ll|'d|(?: )?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


@pytest.mark.parametrize("text", [_random(LETTERS, 300, 30), "ab" + _random(CJK, 120, 31) + " !!" + "x" * 90,
                                  "a\u0301" * 70 + "\u00e9" + _random(LETTERS, 80, 32)])
def test_descent_counts(text):
    from bpe_stream import Encoding, get_encoding
    from bpe_stream.text.descent import DescentIntervals

    for enc in (Encoding("custom", pat_str=CUSTOM, bpe=get_encoding("cl100k_base").bpe), member_encoding("qwen3.5")):
        index = DescentIntervals(enc, enc._text(text))
        seen = enc._text(text)
        for j in range(len(seen), 0, -7 if not conftest.FULL else -1):
            assert index.count(0, j) == enc.count(seen[:j]), (enc.name, j)
        chunks = Chunker(enc, 9, overlap=2, boundaries="exact").chunks(text)
        assert all(c.token_count == enc.count(c.text) <= 9 for c in chunks)
