"""run_cuts (``_native/chunk_runs.c``) waiting for more text: when the text held ends
inside a one-piece run before a chunk's cut is decided (or sooner than the previous
chunk's length from its start) it answers need_more instead of leaving the chunk to the
Python steps, and the chunker waits.  Waiting changes no chunk: streams in small pieces
and long texts fed in blocks (a small ``_BLOCK_CHARS``) give the reference's chunks (the
Python steps), and the waiting answers did occur."""

from __future__ import annotations

import random

import conftest
import pytest
from test_chunk_runs import ENCODINGS, RUN_FAMILIES, _same, family_text

import bpe_stream.chunk.chunker as chunker_module


class _Waits:
    """run_cuts, counting the answers that ask for more text."""

    def __init__(self, fn):
        self.fn = fn
        self.waits = 0

    def __call__(self, *args):
        result = self.fn(*args)
        self.waits += bool(result[3])
        return result


def _cases():
    if conftest.FULL:
        return [(1, 0), (16, 4), (16, 0), (64, 16), (150, 40), (150, 0), (400, 100)]
    return [(16, 4), (150, 40), (150, 0)]


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_streams_that_wait_inside_runs(name, monkeypatch):
    enc = ENCODINGS[name]
    rng = random.Random(11)
    families = RUN_FAMILIES if conftest.FULL else RUN_FAMILIES[:2]
    waits = _Waits(chunker_module._run_cuts)
    for family in families:
        text = family_text(family, 3000 if conftest.FULL else 1200)
        pieces, i = [], 0
        while i < len(text):
            k = rng.randint(20, 200)
            pieces.append(text[i : i + k])
            i += k
        for budget, overlap in _cases():
            # (_same swaps chunker_module._run_cuts for its own counter around this one)
            monkeypatch.setattr(chunker_module, "_run_cuts", waits)
            _same(enc, text, budget, overlap, pieces)
            # a long text chunked in blocks: each block ends inside the run
            monkeypatch.setattr(chunker_module, "_BLOCK_CHARS", 150)
            _same(enc, text, budget, overlap)
            monkeypatch.setattr(chunker_module, "_BLOCK_CHARS", 1 << 16)
    assert waits.waits > 0


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_tables_resumed_over_long_overlaps(name):
    """Overlaps longer than max_token_len bytes: the next chunk's table meets the previous
    one's inside the overlap and takes the rest over (table_meet.c)."""
    enc = ENCODINGS[name]
    families = RUN_FAMILIES if conftest.FULL else RUN_FAMILIES[1:]
    cases = [(300, 150), (300, 299), (500, 125)] if conftest.FULL else [(300, 150)]
    for family in families:
        text = family_text(family, 6000 if conftest.FULL else 2500)
        for budget, overlap in cases:
            assert _same(enc, text, budget, overlap) > 0
