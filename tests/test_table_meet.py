"""The table pass resumed from an earlier start's table at the first position no token
crosses (``_native/table_meet.c``, used by run_cuts after an overlap start): the table
of ``data[shift:]`` made that way equals the table pass from scratch (the compiled pass,
and in the full tier the pure-Python ``PrefixTable``), for short texts from the
benchmark's family generators, random shifts and fill blocks, and random strings over
small alphabets (hypothesis); and run_cuts' chunks at budgets 1-64 with overlaps, where
the tables now meet, equal the Python steps'."""

from __future__ import annotations

import random
import sys
from array import array
from pathlib import Path

import conftest
import pytest
from chunk_compare import same_as_steps
from conftest import examples, pure_python_twin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_stream
import bpe_stream.chunk.chunker as chunker_module
from bpe_stream.bpe.table import PrefixTable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _families import family_text  # noqa: E402

try:
    from bpe_stream._native._core import table_meet_fill
except ImportError:  # the compiled core is not built
    table_meet_fill = None

pytestmark = pytest.mark.skipif(table_meet_fill is None or chunker_module._run_cuts is None,
                                reason="compiled core not built")

ENCODINGS = {name: bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
FAMILIES = ["CJK without spaces", "random ASCII punctuation", "one random-letter word",
            "emoji with ZWJ sequences", "'!' repeated", "spaces", "prose", "'a\\u0301' repeated"]
ALPHABETS = ["!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "ab", "=-", "中文日本語", " \n"]


def _scratch(enc, data: bytes) -> tuple[list[int], list[int]]:
    """The table of data from its start, the compiled pass (or the Python one in the full tier)."""
    if conftest.FULL:
        table = PrefixTable(pure_python_twin(enc).bpe, data)
        table.extend_to(len(data))
        return list(table.last[1:]), list(table.counts[1:])
    n = len(data)
    last, counts = array("i", bytes(4 * (n + 1))), array("i", bytes(4 * (n + 1)))
    enc.bpe._core.table_fill(data, last, counts, 0, n, 1, 0)
    return list(last[1:]), list(counts[1:])


def _same_table(enc, data: bytes, shift: int, block: int) -> bool:
    last, counts, synced = table_meet_fill(enc.bpe._core, data, shift, block)
    assert (last, counts) == _scratch(enc, data[shift:]), (enc.name, data, shift, block)
    return synced


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_meet_on_family_texts(name):
    enc = ENCODINGS[name]
    rng = random.Random(5)
    met = 0
    for family in FAMILIES:
        data = family_text(family, 4000).encode()
        for _ in range(examples(40, fast=8)):
            length = rng.randint(2, 160)
            at = rng.randint(0, len(data) - length)
            met += _same_table(enc, data[at : at + length], rng.randint(0, length - 1), rng.choice([1, 3, 16, 1000]))
    assert met > 0  # the tables met (the new rule took part)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@settings(max_examples=examples(300, fast=25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_meet_on_random_strings(name, data):
    enc = ENCODINGS[name]
    alphabet = data.draw(st.sampled_from(ALPHABETS))
    text = data.draw(st.text(alphabet=alphabet, min_size=2, max_size=80)).encode()
    shift = data.draw(st.integers(0, len(text) - 1))
    _same_table(enc, text, shift, data.draw(st.sampled_from([1, 2, 7, 1000])))


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@settings(max_examples=examples(60, fast=3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_run_cuts_with_short_overlaps(name, data):
    """Budgets 1-64 with overlaps below max_token_len bytes: each chunk's table resumes the
    previous one's where no token crosses; the chunks equal the Python steps'."""
    enc = ENCODINGS[name]
    family = data.draw(st.sampled_from(["CJK without spaces", "random ASCII punctuation", "one random-letter word"]))
    text = family_text(family, data.draw(st.integers(200, 700 if conftest.FULL else 400)))
    budget = data.draw(st.integers(1, 64))
    overlap = data.draw(st.integers(0, budget - 1))
    same_as_steps(enc, text, budget, overlap, "_run_cuts")
