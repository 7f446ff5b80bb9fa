"""The exact chunker's compiled routines for the members beyond cl100k/o200k, on runs of
many short pieces: ``chunk_counted_cuts.c``'s recounts (every member: its margin 4 is every
member's) and ``chunk_ws.c``'s whitespace stretches (members with the newlines whitespace
choice), against the Python steps (the reference: the same chunks with the compiled
routines off) and against HF ``tokenizers`` on the real vocabularies (every chunk's count),
on short texts of the benchmark families and hypothesis texts, budgets 1-64 with overlaps.
The argument for each rule is in docs/design/chunker.md ("Members on runs of short
pieces")."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import conftest
import pytest
from chunk_compare import CountingCalls, assert_counts, chunk_triples, real_vocabulary, same_as_steps
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_stream.chunk.chunker as chunker_module
from bpe_stream import Encoding, get_encoding
from bpe_stream.pretokenize.family import MEMBERS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _families import family_text  # noqa: E402

needs_compiled = pytest.mark.skipif(chunker_module._exact_cuts is None or chunker_module._ws_cuts is None,
                                    reason="compiled core not built")

REAL = ["gpt2", "qwen2", "llama3", "deepseek_v3_layout"]
FAST_REAL = "qwen2"  # the one real vocabulary the fast tier loads (about a second each)
FAMILIES = ["NUL bytes", "emoji with ZWJ sequences", "base64", "'a\\u0301' repeated", "digits", "spaces",
            "newlines", "tabs and mixed whitespace", "prose", "code", "multilingual"]
# the routines the reference runs without (all of them hang on _exact_cuts; named for clarity)
OFF = ("_ws_cuts", "_run_cuts", "_digit_cuts")


@functools.lru_cache(maxsize=None)
def _member_encoding(name: str) -> Encoding:
    member = MEMBERS[name]
    base = "o200k_base" if member.letters == "cased" else "cl100k_base"
    return Encoding(f"{base}+{name}", pretokenizer=member, bpe=get_encoding(base).bpe)


def _check(enc, hf_count, text, budget, overlap) -> None:
    text = enc.pretokenizer.normalize(text)  # (Qwen's NFC: the chunks are of the text the model sees)
    same_as_steps(enc, text, budget, overlap, "_exact_cuts", also_off=OFF)
    chunks = chunk_triples(enc, text, budget, overlap, {})
    if chunks and chunks[0] != "refused":
        assert_counts(chunks, text, hf_count, budget, (enc.name, budget, overlap))


@needs_compiled
@pytest.mark.parametrize("name", REAL)
def test_families_against_steps_and_hf(name):
    if name != FAST_REAL:
        conftest.full_tier_only()
    enc, hf_count = real_vocabulary(name)
    size = 300 if conftest.FULL else 160
    budgets = (1, 3, 16, 64) if conftest.FULL else (16,)
    for family in FAMILIES if conftest.FULL else ("emoji with ZWJ sequences", "tabs and mixed whitespace"):
        text = family_text(family, size)
        for budget in budgets:
            for overlap in sorted({0, budget // 4}):
                _check(enc, hf_count, text, budget, overlap)


@needs_compiled
def test_counted_cuts_take_gpt2_emoji():
    conftest.full_tier_only()
    # gpt2's emoji run is one long punctuation piece between keycaps: without the recounts
    # the compiled routine stopped at every cut inside it (1063x count on 100 KB)
    enc, _ = real_vocabulary("gpt2")
    text = family_text("emoji with ZWJ sequences", 3000)
    counting = CountingCalls(chunker_module._exact_cuts)
    found = chunk_triples(enc, text, 16, 0, {"_exact_cuts": counting})
    assert counting.chunks >= 0.8 * len(found)


@needs_compiled
@pytest.mark.parametrize("name", ["qwen2", "deepseek_v3_layout"])
def test_ws_cuts_take_member_stretches(name):
    if name != FAST_REAL:
        conftest.full_tier_only()
    enc, hf_count = real_vocabulary(name)
    text = family_text("tabs and mixed whitespace", 3000 if conftest.FULL else 600)
    counting = CountingCalls(chunker_module._ws_cuts)
    found = chunk_triples(enc, text, 16, 4, {"_ws_cuts": counting})
    assert counting.chunks >= 0.9 * len(found)
    _check(enc, hf_count, text, 16, 4)


def test_which_members_take_the_routines():
    for name, member in MEMBERS.items():
        assert chunker_module._counted_member(member)
        assert chunker_module._ws_member(member) == (member.whitespace == "newlines")
    assert not chunker_module._ws_member(MEMBERS["gpt2"]) and not chunker_module._ws_member(MEMBERS["starcoder"])
    assert not chunker_module._counted_member(None)
    # and the chunker takes the recounts for every member, not only cl100k's and o200k's
    for name in MEMBERS:
        assert chunker_module.Chunker(_member_encoding(name), 16, boundaries="exact")._counted_cuts, name


STRETCH_ATOMS = [" ", "\t", "\n", "\r\n", "  ", "\u00a0", "\u3000", " " * 70, "\t \n" * 25, "x", "!", "1", "'s",
                 "\U0001F468\u200d\U0001F469", "\ufe0f", "\x00", "a\u0301", "\u4e2d"]


@needs_compiled
@settings(max_examples=examples(150, fast=15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(atoms=st.lists(st.sampled_from(STRETCH_ATOMS), min_size=1, max_size=40), budget=st.integers(1, 64),
       share=st.sampled_from([0, 4, 1]), name=st.sampled_from(sorted(MEMBERS)))
def test_hypothesis_members(atoms, budget, share, name):
    text = "".join(atoms)
    overlap = 0 if not share else (budget - 1 if share == 1 else budget // share)
    enc = _member_encoding(name)
    same_as_steps(enc, enc.pretokenizer.normalize(text), budget, overlap, "_exact_cuts", also_off=OFF)


@needs_compiled
@settings(max_examples=examples(60, fast=6), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(atoms=st.lists(st.sampled_from(STRETCH_ATOMS), min_size=1, max_size=40), budget=st.integers(1, 64),
       share=st.sampled_from([0, 4, 1]), name=st.sampled_from(REAL if conftest.FULL else [FAST_REAL]))
def test_hypothesis_real_vocabularies(atoms, budget, share, name):
    text = "".join(atoms)
    overlap = 0 if not share else (budget - 1 if share == 1 else budget // share)
    enc, hf_count = real_vocabulary(name)
    _check(enc, hf_count, text, budget, overlap)
