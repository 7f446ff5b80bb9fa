"""A chunker step inside periodic text taken on its unit's reach (``chunk/periodic_step.py``)
against the step on the whole text, the reference: the same first chunk, count and next
start, both bundled encodings, budgets 1-64 with overlaps, the periodic families' units in
every phase and hypothesis-made units, exact and semantic; and the replay's records kept across held windows (a wait at the held
text's end, partial cycles) against the chunker without the replay, streamed in small pieces."""

from __future__ import annotations

import random

import pytest
import conftest
from conftest import examples, full_tier_only
from hypothesis import given, settings, strategies as st

import bpe_stream
import bpe_stream.chunk.periodic as periodic
from bpe_stream.chunk.boundaries import LOOKAHEAD
from bpe_stream.chunk.chunker import CharacterOverBudget, Chunker
from bpe_stream.chunk.periodic import PeriodicReplay
from bpe_stream.chunk.periodic_reach import unit_horizon
from bpe_stream.chunk.periodic_step import step_end

ENCODINGS = {name: bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
UNITS = ["!\u0301/", "/\n", "\u3000 ", " ", "a\u0301", "ab", "\x00"]


def _first_step(enc, text: str, budget: int, overlap: int, mode: str):
    """The first chunk of ``text`` (start, end, count) and where the next one starts, from the
    chunker's steps alone (the replay and so the reach switched off)."""
    saved = PeriodicReplay.at
    PeriodicReplay.at = lambda self, *args: None
    try:
        chunks = Chunker(enc, budget, overlap=overlap, boundaries=mode).iter_chunks(text)
        try:
            first = next(chunks)
        except CharacterOverBudget:
            return ("refused",) * 4  # the first character alone is over the budget
        try:
            second = next(chunks, None)
        except CharacterOverBudget:
            return first.start, first.end, first.token_count, "refused"  # (after the overlap start)
    finally:
        PeriodicReplay.at = saved
    return first.start, first.end, first.token_count, None if second is None else second.start


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_step_on_reach(name):
    enc = ENCODINGS[name]
    rng = random.Random(5)
    max_token_bytes = Chunker(enc, 1)._byte_horizon
    budgets = [1, 2, 5, 16, 64] if conftest.FULL else [1, 6]
    for unit in UNITS if conftest.FULL else UNITS[:3]:
        for budget in budgets:
            horizon = unit_horizon(enc, unit, budget, max_token_bytes, LOOKAHEAD)
            text = unit * (2 * horizon // len(unit) + rng.randrange(8)) + rng.choice(["", "x", " end."])
            for overlap in sorted({0, budget // 4, budget - 1}):
                for mode in ("exact", "semantic") if budget > 1 else ("exact",):
                    s = rng.randrange(len(unit))  # any phase of the unit
                    h = unit_horizon(enc, text[s : s + len(unit)], budget, max_token_bytes, LOOKAHEAD)
                    assert s + h < len(text)
                    want = _first_step(enc, text[s:], budget, overlap, mode)
                    got = _first_step(enc, text[s : s + h], budget, overlap, mode)
                    assert got[:3] == want[:3], (name, unit, budget, overlap, mode)
                    if overlap:  # the overlap start is inside the chunk, read from it alone
                        assert got[3] == want[3], (name, unit, budget, overlap, mode)


_UNIT_CHARS = st.sampled_from(list("a!/ \n\t.\u0301\u3000\x00,'7Z") + ["\u4e00", "\U0001F600", "\u200d"])


@settings(max_examples=examples(40, fast=4), deadline=None)
@given(unit=st.lists(_UNIT_CHARS, min_size=1, max_size=6).map("".join), budget=st.integers(1, 24),
       overlap_share=st.integers(0, 3), phase=st.integers(0, 5), semantic=st.booleans(),
       name=st.sampled_from(sorted(ENCODINGS)))
def test_step_on_reach_hypothesis(unit, budget, overlap_share, phase, semantic, name):
    enc = ENCODINGS[name]
    max_token_bytes = Chunker(enc, 1)._byte_horizon
    s = phase % len(unit)
    h = unit_horizon(enc, unit[s:] + unit[:s], budget, max_token_bytes, LOOKAHEAD)
    text = unit * ((s + 2 * h) // len(unit) + 2) + " y"
    overlap = budget * overlap_share // 4
    mode = "semantic" if semantic and budget > 1 else "exact"
    want = _first_step(enc, text[s:], budget, overlap, mode)
    got = _first_step(enc, text[s : s + h], budget, overlap, mode)
    if want[:3] == ("refused",) * 3:
        return
    assert got[:3] == want[:3]
    if overlap and "refused" not in (got[3], want[3]):
        assert got[3] == want[3]


def test_step_end_only_inside_the_stretch():
    replay = PeriodicReplay(1000, 0, lambda unit: 40)
    text = "x" * 5 + "ab" * 100 + "y" * 50
    n = len(text)
    assert step_end(replay, n, 5) == -1  # no stretch found yet
    assert replay.at(text, n, 5, 5) is None
    assert (replay.p, replay.a, replay.r, replay.horizon) == (2, 5, 205, 40)
    assert step_end(replay, n, 5) == 45
    assert step_end(replay, n, 165) == 205
    assert step_end(replay, n, 166) == -1  # the reach would pass the stretch's end
    assert step_end(replay, n, 4) == -1  # before the stretch
    assert step_end(replay, 45, 5) == -1  # the held text is no longer than the reach
    assert step_end(None, n, 5) == -1


def _chunks(enc, pieces, budget, overlap, on: bool):
    saved = PeriodicReplay.at
    replayed = [0]

    def at(self, *args):
        found = saved(self, *args) if on else None
        if found is not None:
            replayed[0] += len(found[0]) // 3
        return found

    PeriodicReplay.at = at
    try:
        chunks = Chunker(enc, budget, overlap=overlap, boundaries="exact").chunk_stream(pieces)
        got = [(c.start, c.end, c.token_count) for c in chunks]
    finally:
        PeriodicReplay.at = saved
    return got, replayed[0]


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_records_across_windows(name):
    """Small pieces: the reach decides chunks early, so each held window holds a few cycles
    at most; the replay resumes from its records and replays partial cycles."""
    enc = ENCODINGS[name]
    # (cl100k's "!\u0301/" and "\u3000 " in 700-character pieces replay partial cycles)
    cases = [("!\u0301/", 5, 1, 700)] if name == "cl100k_base" else [("/\n", 4, 1, 700)]
    if conftest.FULL:
        cases += [("\u3000 ", 3, 0, 700), ("\u3000 ", 5, 1, 300), ("!\u0301/", 5, 1, 700), ("a\u0301", 7, 0, 1500), ("\x00", 2, 0, 300),
                  ("ab", 3, 2, 700), ("/\n", 33, 8, 1500)]
    for unit, budget, overlap, size in cases:
        text = "Lead, " + unit * (8_000 // len(unit)) + "x" + unit * 500
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        got, replayed = _chunks(enc, pieces, budget, overlap, True)
        want, _ = _chunks(enc, pieces, budget, overlap, False)
        assert got == want, (name, unit, budget, overlap)
        assert replayed > len(got) // 2


def test_long_text_windows():
    full_tier_only()
    enc = ENCODINGS["o200k_base"]
    text = "/\n" * 100_000 + "x" + "\u3000 " * 40_000
    saved = PeriodicReplay.at
    try:
        on = [(c.start, c.end, c.token_count) for c in Chunker(enc, 64, overlap=16, boundaries="exact").chunks(text)]
        PeriodicReplay.at = lambda self, *args: None
        off = [(c.start, c.end, c.token_count) for c in Chunker(enc, 64, overlap=16, boundaries="exact").chunks(text)]
    finally:
        PeriodicReplay.at = saved
    assert on == off
    assert periodic  # (the module whose replay is compared)
