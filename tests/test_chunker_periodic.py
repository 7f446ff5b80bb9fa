"""The chunker's replay of periodic text (``chunk/periodic.py``) against its own steps,
the reference: identical chunks with and without the replay, whole texts and streams,
both bundled encodings, exact and semantic, budgets 1-64 with overlaps (1-16 for the units), on runs of one
character and of short units (the periodic families of bench_chunk_vs_count), with
other text before, between and after the runs.  The replay must also take place (the
tests count its chunks), so that the comparison is not empty."""

from __future__ import annotations

import contextlib
import random
import sys
from pathlib import Path

import pytest
import conftest
from conftest import full_tier_only

import bpe_stream
import bpe_stream.chunk.chunker as chunker_module
import bpe_stream.chunk.periodic as periodic
from bpe_stream.chunk.chunker import CharacterOverBudget, Chunker
from bpe_stream.chunk.periodic import periodic_stretch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _families import family_text  # noqa: E402

ENCODINGS = {name: bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
UNITS = [" ", "\n", "\x00", "!", "a\u0301", "!\u0301/", "\u3000 ", "/\n", "\t\n ", "ab", "\u4e00\u4e01",
         "\U0001F600", "12345678"]
# bench_chunk_vs_count's periodic families
FAMILIES = ["spaces", "newlines", "NUL bytes", "'!' repeated", "'a\\u0301' repeated", "'!\\u0301/' repeated",
            "'\\u3000 ' repeated", "'/\\n' repeated"]


# the fast tier's cases (the reference, the chunker's own steps, takes seconds on the units
# that o200k scans character by character: "!\u0301/", "\t\n ")
FAST_UNITS = {("cl100k_base", "a\u0301"), ("cl100k_base", "/\n"), ("o200k_base", "\x00"), ("o200k_base", "\u3000 ")}


# units whose steps (the reference) take the per-character scan: seconds per budget
SCANNED = {("o200k_base", "!\u0301/"), ("o200k_base", "\t\n "), ("cl100k_base", "\t\n ")}


class _Replays:
    """PeriodicReplay.at, counting the chunks it replays (or switched off)."""

    def __init__(self, on: bool):
        self.on = on
        self.chunks = 0
        self.original = periodic.PeriodicReplay.at

    def __enter__(self):
        original = self.original
        counter = self

        def at(replay, *args):
            if not counter.on:
                return None
            found = original(replay, *args)
            if found is not None:
                counter.chunks += len(found[0]) // 3
            return found

        periodic.PeriodicReplay.at = at
        return self

    def __exit__(self, *exc):
        periodic.PeriodicReplay.at = self.original


def _chunks(enc, text, budget, overlap, mode, replay: bool, pieces=None):
    with _Replays(replay) as counter:
        try:
            chunker = Chunker(enc, budget, overlap=overlap, boundaries=mode)
            found = chunker.chunks(text) if pieces is None else list(chunker.chunk_stream(pieces))
            got = [(c.start, c.end, c.token_count, c.text) for c in found]
        except CharacterOverBudget as e:
            got = ("refused", e.position, e.tokens)
    return got, counter.chunks


@contextlib.contextmanager
def _no_compiled_cuts():
    saved = chunker_module._exact_cuts
    chunker_module._exact_cuts = None
    try:
        yield
    finally:
        chunker_module._exact_cuts = saved


def _same(enc, text, budget, overlap, mode="exact", pieces=None) -> int:
    """Assert the chunks with and without the replay agree; the chunks replayed."""
    got, replayed = _chunks(enc, text, budget, overlap, mode, True, pieces)
    want, _ = _chunks(enc, text, budget, overlap, mode, False, pieces)
    assert got == want, (enc.name, repr(text[:20]), budget, overlap, mode)
    return replayed


def _horizon(budget: int) -> int:
    return budget * 128 + 258  # byte_horizon + LOOKAHEAD + 2 for cl100k/o200k


def _text(unit: str, budget: int, rng: random.Random) -> str:
    reps = (3 * _horizon(budget)) // len(unit) + rng.randrange(50)
    mid = rng.choice(["x", " word. ", "\n\n", "é", unit[:-1] or "y"])
    return "Lead text, " + unit * reps + mid + unit * (reps // 2 + rng.randrange(40)) + rng.choice(["", " end."])


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@pytest.mark.parametrize("unit", UNITS)
def test_units_exact(name, unit):
    if (name, unit) not in FAST_UNITS:
        full_tier_only()
    enc = ENCODINGS[name]
    rng = random.Random(sum(map(ord, name + unit)))
    # (units that o200k/cl100k scan character by character: budget 1 only in the full tier)
    budgets = [1] if (name, unit) in SCANNED else [1, 3] if not conftest.FULL else [1, 16]
    replayed = 0
    for budget in budgets:
        text = _text(unit, budget, rng)
        for overlap in sorted({0, budget // 4, budget - 1, min(1, budget - 1)}):
            replayed += _same(enc, text, budget, overlap)
    if replayed == 0:
        # the compiled exact cuts took every chunk (chunk_counted_cuts.c): the replay must
        # still agree where the chunker steps in Python
        with _no_compiled_cuts():
            replayed = _same(enc, _text(unit, 3, rng), 3, 1)
    assert replayed > 0


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@pytest.mark.parametrize("unit", [" ", "a\u0301", "/\n", "\u3000 "])
def test_units_semantic(name, unit):
    if (name, unit) != ("cl100k_base", " "):
        full_tier_only()
    enc = ENCODINGS[name]
    rng = random.Random(7)
    budgets = [1, 4, 16] if conftest.FULL else [4]
    replayed = 0
    for budget in budgets:
        text = _text(unit, budget, rng)
        for overlap in sorted({0, budget // 4}):
            replayed += _same(enc, text, budget, overlap, "semantic")
    assert replayed > 0


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_streams(name):
    """Random splits: the recorded steps carry over from one held window to the next."""
    enc = ENCODINGS[name]
    rng = random.Random(11)
    cases = [("\x00", 1, 0), ("/\n", 4, 1)]
    if conftest.FULL:
        cases += [("a\u0301", 2, 0), ("!\u0301/", 5, 1), (" ", 16, 4), ("\u3000 ", 8, 2), ("ab", 3, 2)]
    for unit, budget, overlap in cases:
        text = unit * (6 * _horizon(budget) // len(unit)) + "tail"
        cuts = sorted(rng.sample(range(1, len(text)), 12))
        pieces = [text[i:j] for i, j in zip([0] + cuts, cuts + [len(text)])]
        _same(enc, text, budget, overlap, pieces=pieces)
    if conftest.FULL:
        # the long-text path (blocks of 64K characters) replays across its windows
        text = "\x00" * 150_000 + "x" + "a\u0301" * 70_000
        assert _same(enc, text, 2, 0) > 50_000


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@pytest.mark.parametrize("family", FAMILIES)
def test_bench_families(name, family):
    """Short texts from bench_chunk_vs_count's generators, and chunks re-counted."""
    full_tier_only()
    enc = ENCODINGS[name]
    base = family_text(family, 6000)
    text = base + " x " + base[: 2000]
    settings = [(1, 0), (4, 1), (16, 4)]
    if name == "cl100k_base" or "u0301/" not in family:
        settings.append((64, 16))
    for budget, overlap in settings:
        _same(enc, text, budget, overlap)
    chunks = Chunker(enc, 4, overlap=1, boundaries="exact").chunks(text)
    assert all(c.token_count == enc.count(c.text) <= 4 for c in chunks)


def test_periodic_stretch_against_brute_force():
    rng = random.Random(3)
    for _ in range(300 if conftest.FULL else 40):
        unit = "".join(rng.choice("ab ") for _ in range(rng.randrange(1, 10)))
        text = rng.choice(["", "ba", "x"]) + unit * rng.randrange(1, 30) + "".join(
            rng.choice("abc") for _ in range(rng.randrange(5)))
        s = rng.randrange(len(text))
        need = rng.randrange(1, 40)
        found = periodic_stretch(text, s, len(text), need)
        n = len(text)

        def reach(p):  # the largest r with text[s:r] of period p
            r = s + p
            while r < n and text[r] == text[r - p]:
                r += 1
            return min(r, n)

        candidates = [(p, reach(p)) for p in range(1, 9) if s + p + 16 <= n and reach(p) >= s + p + 16]
        if found is None:
            assert not candidates or candidates[0][1] - s < need
        else:
            assert candidates and found == candidates[0] and found[1] - s >= need


def test_stalls_inside_a_stretch():
    """A unit whose overlap start sometimes cannot pass the previous end (the chunker then
    starts at that end): the states differ only in the end to pass, which the replay keys
    on (the key without it replays the wrong cycle here)."""
    enc = ENCODINGS["cl100k_base"]
    unit = "\u4e001\U0001F468\u200d"
    text = "x " + unit * ((3 * _horizon(3)) // len(unit) + 5)
    assert _same(enc, text, 3, 2) > 0
