"""Cuts in text without whitespace (``_native/chunk_nospace_cuts.c``): exact_cuts' cut
from the global piece boundaries whether hard or not, for o200k emoji text (variation
selectors, keycaps: boundaries next to marks are not hard).  The compiled chunks against
the pure-Python chunker (the reference), tiktoken, and brute force (every chunk maximal,
every overlap start the earliest that fits), for budgets 1-64 with overlaps, whole texts
and streams, and the family members the routine takes or leaves out."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
import conftest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_stream.chunk.chunker as chunker_module

from chunk_compare import CountingCalls
from chunk_compare import random_pieces as _pieces
from test_chunker_native import ENCODINGS, _chunks, _member_case, _same

pytestmark = pytest.mark.skipif(chunker_module._exact_cuts is None, reason="compiled core not built")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _families import _EMOJI, family_text  # noqa: E402

# emoji and their parts (variation selector, keycap mark, ZWJ, skin tone), a symbol before
# marks, digits and letters (hard boundaries), marks after letters, and a little whitespace
# (the routine steps aside next to it)
ATOMS = _EMOJI + ["\u2764\ufe0f", "1\ufe0f\u20e3", "\ufe0f", "\u20e3", "\u200d", "\U0001F3FD", "!", "?!", "/", "1",
                  "42", "a", "Ab", "e\u0301", "\u0301", "\u4e2d", "'s", " ", "\n", "\t\t", "  ", "! "]
MEMBER_NAMES = ["cl100k_base", "o200k_base", "gpt2", "llama3", "deepseek_v3", "qwen3.5", "tekken"]


def _text(rng: random.Random, atoms: int, space: float = 0.05) -> str:
    out = []
    for _ in range(atoms):
        atom = rng.choice(ATOMS)
        if atom.isspace() and rng.random() > space * len(ATOMS):
            atom = rng.choice(_EMOJI)
        out.append(atom)
    return "".join(out)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_nospace_cuts_against_python_tiktoken_and_brute_force(name):
    rng = random.Random(2032)
    texts = [family_text("emoji with ZWJ sequences", 500)]
    texts += [_text(rng, rng.randint(1, 60)) for _ in range(40 if conftest.FULL else 4)]
    for text in texts:
        for budget in (1, 2, 3, 4, 5, 8, 11, 16, 33, 64) if conftest.FULL else (2, 5, 16, 33):
            for overlap in sorted({0, budget // 4, budget - 1}):
                # compiled == Python, every count == tiktoken's, maximal chunks, earliest overlaps
                _member_case(name, text, budget, overlap)


def test_o200k_emoji_chunks_decided_in_c():
    # o200k: every chunk of emoji text is decided by exact_cuts (the global boundaries
    # next to variation selectors and keycaps are not hard, the cuts come from here or the
    # recounts), none by the Python path
    enc = ENCODINGS["o200k_base"]
    text = family_text("emoji with ZWJ sequences", 3000)
    for budget, overlap in ((16, 0), (16, 4), (7, 0), (40, 10)):
        counting = CountingCalls(chunker_module._exact_cuts)
        saved = chunker_module._exact_cuts
        chunker_module._exact_cuts = counting
        try:
            found = _chunks(enc, text, budget, overlap, True)
        finally:
            chunker_module._exact_cuts = saved
        assert counting.chunks == len(found), (budget, overlap, counting.chunks, len(found))
        _same(enc, text, budget, overlap)


@pytest.mark.parametrize("name", MEMBER_NAMES)
def test_nospace_cuts_members(name):
    # members the routine takes (cl100k, o200k, Llama 3) and leaves out (GPT-2's space
    # lead, DeepSeek-V3's chain): the same chunks as the Python path and tiktoken
    from bpe_stream.pretokenize.family import MEMBERS
    if name not in MEMBERS:
        pytest.skip(f"no member {name}")
    rng = random.Random(name)
    for _ in range(20 if conftest.FULL else 2):
        text = _text(rng, rng.randint(5, 50))
        budget = rng.choice([2, 3, 5, 8, 16, 33])
        _member_case(name, text, budget, rng.choice([0, budget // 4, budget - 1]))


@settings(max_examples=examples(200, fast=12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(atoms=st.lists(st.sampled_from(ATOMS), min_size=1, max_size=50), budget=st.integers(1, 64),
       share=st.floats(0, 1), name=st.sampled_from(sorted(ENCODINGS)), seed=st.integers(0, 2**32))
def test_hypothesis_nospace_cuts(atoms, budget, share, name, seed):
    overlap = min(budget - 1, int(share * budget))
    text = "".join(atoms)
    _same(ENCODINGS[name], text, budget, overlap)
    # as a stream in random pieces (the held text ends inside pieces: the streaming rule)
    _same(ENCODINGS[name], text, budget, overlap, _pieces(random.Random(seed), text, 30))
