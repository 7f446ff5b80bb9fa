"""The cut and overlap start of periodic text from its unit's period (``chunk/periodic_counts.py``)
against independent references: the one-piece unit shapes against the encoding's own split
of every short prefix, the cut and the start against counting every prefix and suffix with
``enc.count``, and the chunker with them against the chunker without them (both bundled
encodings, compiled and pure-Python pieces, budgets 1-64 with overlaps, both boundary modes,
the periodic families' units in every phase and hypothesis-made units)."""

from __future__ import annotations

import contextlib
import random

import pytest
import conftest
from conftest import IMPLEMENTATIONS, encoding_with, examples
from hypothesis import given, settings, strategies as st

import bpe_stream
import bpe_stream.chunk.chunker as chunker_module
from bpe_stream.bpe.intervals import _periodic_run
from bpe_stream.chunk.chunker import CharacterOverBudget, Chunker
from bpe_stream.chunk.periodic_counts import largest_fit, one_piece_unit, periodic_cut, periodic_overlap_start

ENCODINGS = {name: bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
# the benchmark's periodic families and units that take each rule, a head, or none
UNITS = ["!\u0301/", "/\n", "\u3000 ", "a\u0301", "\n", " ", "!", "ab", "/!\u0301", "..\u0301", "/\n\n", "\r\n",
         " !\u0301", "\t\n ", "x\u0301\u0302y"]
_UNIT_CHARS = st.sampled_from(list("a!/ \n\r\t.\u0301\u3000\x00,'7Z\u02b0") + ["\u4e00", "\U0001F600", "\u200d"])


def _split_count(enc, text: str) -> int:
    return len(enc._split(text))


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_one_piece_units_against_the_split(name):
    """Every unit shape claimed one piece is: each prefix of each rotation, as split."""
    enc = ENCODINGS[name]
    rng = random.Random(3)
    chars = list("a!/ \n\r\t\x0b\x1c\x85\xa0.\u0301\u0302\u3000,'7Z\u02b0\u4e00") + ["\U0001F600"]
    claimed = 0
    for _ in range(3000 if conftest.FULL else 600):
        unit = "".join(rng.choice(chars) for _ in range(rng.randrange(1, 5)))
        for r in range(len(unit)):
            y = (unit[r:] + unit[:r]) * 12
            if not one_piece_unit(enc.pat_str, y, len(unit)):
                continue
            claimed += 1
            for m in range(1, 3 * len(unit) + 6):
                assert _split_count(enc, y[:m]) == 1, (name, unit, r, m)
    assert claimed > 50
    for unit in ("/!\u0301", "/\n", "\u3000 ", "\n", "!"):
        assert one_piece_unit(enc.pat_str, unit * 4, len(unit)) or (name, unit) == ("cl100k_base", "/\n")


def test_largest_fit_against_every_length():
    enc = ENCODINGS["o200k_base"]
    rng = random.Random(4)
    for unit in ("!", " ", "/!\u0301", "a\u0301", "\u3000 "):
        data = unit.encode()
        run = _periodic_run(enc.bpe, data)
        for _ in range(40):
            low, top = sorted(rng.randrange(0, 3000) for _ in range(2))
            budget = rng.randrange(0, 900)
            res = {rng.randrange(len(data))}
            want = max((b for b in range(low, top + 1) if b % len(data) in res and run.count(b) <= budget), default=-1)
            assert largest_fit(run, low, top, budget, len(data), res) == want
            # the raw counts themselves against BPE's count of the bytes
            b = rng.randrange(0, 3000)
            assert run.count(b) == enc.bpe.count((data * (b // len(data) + 1))[:b])


def _brute_start(enc, text, s, e, k):
    return next(i for i in range(s, e + 1) if enc.count(text[i:e]) <= k)


def _brute_cut(enc, text, s, budget):
    fits = [j for j in range(s + 1, len(text) + 1) if enc.count(text[s:j]) <= budget]
    return (max(fits), enc.count(text[s : max(fits)])) if fits else None


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_start_and_cut_against_counts(name, implementation):
    enc = encoding_with(name, implementation)
    rng = random.Random(5)
    answered = 0
    units = UNITS if conftest.FULL or implementation == "compiled" else UNITS[:6]
    for unit in units:
        for _ in range(3 if conftest.FULL else 1):
            phase = rng.randrange(len(unit))
            text = rng.choice(["", "x"]) + (unit[phase:] + unit * rng.randrange(8, 60))
            s = len(text) - len(unit[phase:]) - len(unit) * rng.randrange(6, 8) if rng.random() < 0.5 else 1
            s = max(0, min(s, len(text) - 20))
            for k in (1, 2, 3, 7, 16, 40):
                e = len(text) - rng.randrange(3)
                got = periodic_overlap_start(enc, text, s, e, k)
                if got is not None:
                    answered += 1
                    assert got == _brute_start(enc, text, s, e, k), (name, unit, s, e, k)
                got = periodic_cut(enc, text, s, k)
                if got is not None:
                    answered += 1
                    assert got == _brute_cut(enc, text, s, k), (name, unit, s, k)
    assert answered > 20


@contextlib.contextmanager
def _without_periodic_counts():
    saved = chunker_module.periodic_cut, chunker_module.periodic_overlap_start
    chunker_module.periodic_cut = chunker_module.periodic_overlap_start = lambda *args: None
    try:
        yield
    finally:
        chunker_module.periodic_cut, chunker_module.periodic_overlap_start = saved


def _chunks(enc, text, budget, overlap, mode):
    try:
        return [(c.start, c.end, c.token_count) for c in
                Chunker(enc, budget, overlap=overlap, boundaries=mode).chunks(text)]
    except CharacterOverBudget as e:
        return ("refused", e.position, e.tokens)


def _same(enc, text, budget, overlap, mode):
    got = _chunks(enc, text, budget, overlap, mode)
    with _without_periodic_counts():
        want = _chunks(enc, text, budget, overlap, mode)
    assert got == want, (enc.name, repr(text[:24]), len(text), budget, overlap, mode)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@pytest.mark.parametrize("unit", UNITS)
def test_chunker_against_the_steps(name, unit):
    enc = ENCODINGS[name]
    rng = random.Random(sum(map(ord, name + unit)))
    budgets = [1, 2, 5, 16, 64] if conftest.FULL else [1, 5, 16]
    for budget in budgets:
        reps = rng.randrange(20, 300 if conftest.FULL else 120)
        text = rng.choice(["", "x", "ab "]) + unit * reps + rng.choice(["", "y", "."])
        for overlap in sorted({0, min(1, budget - 1), budget // 4, budget - 1}):
            for mode in ("exact", "semantic"):
                _same(enc, text, budget, overlap, mode)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_chunker_pure_python(name):
    enc = encoding_with(name, "python")
    for unit in ("!\u0301/", "/\n", "\u3000 ") if not conftest.FULL else UNITS:
        for budget, overlap in ((3, 1), (8, 2)):
            _same(enc, "x" + unit * 60, budget, overlap, "exact")


@settings(max_examples=examples(60, fast=6), deadline=None)
@given(unit=st.lists(_UNIT_CHARS, min_size=1, max_size=6).map("".join), reps=st.integers(4, 80),
       budget=st.integers(1, 64), overlap_share=st.integers(0, 3), lead=st.sampled_from(["", "x", " ", "a\u0301"]),
       semantic=st.booleans(), name=st.sampled_from(sorted(ENCODINGS)))
def test_chunker_hypothesis(unit, reps, budget, overlap_share, lead, semantic, name):
    enc = ENCODINGS[name]
    overlap = min(budget - 1, budget * overlap_share // 4)
    _same(enc, lead + unit * reps, budget, overlap, "semantic" if semantic else "exact")


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_streams(name):
    """Held windows shorter than the unit's reach wait (periodic_cut's WAIT), longer ones are
    cut from the period: streamed in pieces, the chunks of the whole text, with and without."""
    enc = ENCODINGS[name]
    rng = random.Random(7)
    for unit in ("!\u0301/", "/\n", "\u3000 ", "\n") if not conftest.FULL else UNITS:
        for budget, overlap in ((4, 1), (16, 4), (64, 0)):
            text = "Lead, " + unit * rng.randrange(200, 2000) + rng.choice(["", " end."])
            cuts = sorted(rng.sample(range(1, len(text)), 12))
            pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
            chunker = Chunker(enc, budget, overlap=overlap, boundaries="exact")
            got = [(c.start, c.end, c.token_count) for c in chunker.chunk_stream(pieces)]
            assert got == _chunks(enc, text, budget, overlap, "exact"), (name, unit, budget, overlap)
            with _without_periodic_counts():
                want = [(c.start, c.end, c.token_count) for c in chunker.chunk_stream(pieces)]
            assert got == want, (name, unit, budget, overlap)


def test_ascii_classes_against_the_tables():
    """The ASCII shortcut of the character classes against the reference tables."""
    from bpe_stream.chunk import periodic_counts as pc

    for cp in range(128):
        want = 0
        if pc._in("White_Space", cp):
            want = 16 | (32 if chr(cp) in "\r\n" else 0)
        elif pc._in("L", cp):
            want = 4 | (8 if pc._in("Ll", cp) or pc._in("Lm", cp) or pc._in("Lo", cp) else 0)
        elif not pc._in("N", cp):
            want = 1 | (8 if pc._in("M", cp) else 2)
        assert pc._char_classes(chr(cp)) == want, cp
