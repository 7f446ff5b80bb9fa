"""The chunker's layers hand over batches of chunks (lists, many per compiled call):
``chunks``, ``iter_chunks`` and ``chunk_stream`` give the same chunks, lazily for the
last two; with surrogates in the input (surrogate pairs, lone surrogates: the offset
mapping of ``_SurrogateMapper``, batch by batch) the chunks are those of
``fix_surrogates(text)`` with their offsets mapped back by ``caller_offsets``; with
``overlap=0`` they tile the input.  The texts (runs of CJK, of whitespace, of letters,
prose) make the compiled paths return many chunks per call, so most batches hold more
than one chunk."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from chunk_compare import random_pieces

import bpe_stream
from bpe_stream import Chunker
from bpe_stream.text.input import caller_offsets, fix_surrogates

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _families import family_text  # noqa: E402

ENCODINGS = {name: bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
FAMILIES = ["CJK without spaces", "tabs and mixed whitespace", "one random-letter word", "prose"]
SURROGATES = ["\ud83d\ude00", "\ud83c\udf89", "\ud800", "\udfff"]  # two pairs, two lone ones


def _with_surrogates(text: str, seed: int) -> str:
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(len(text)), 6))
    parts, prev = [], 0
    for c in cuts:
        parts += [text[prev:c], rng.choice(SURROGATES)]
        prev = c
    return "".join(parts) + text[prev:]


def _pieces(text: str, seed: int) -> list[str]:
    return random_pieces(random.Random(seed), text, 700)


def _tuples(chunks):
    return [(c.start, c.end, c.token_count, c.text) for c in chunks]


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("budget,overlap", [(4, 0), (16, 4), (64, 0), (64, 16)])
def test_batches_give_the_same_chunks(name, family, budget, overlap):
    enc = ENCODINGS[name]
    text = family_text(family, 3000)
    chunker = Chunker(enc, budget, overlap=overlap, boundaries="exact")
    chunks = chunker.chunks(text)
    assert _tuples(chunker.iter_chunks(text)) == _tuples(chunks)
    assert _tuples(chunker.chunk_stream(_pieces(text, budget))) == _tuples(chunks)
    lazy = chunker.iter_chunks(text)
    assert _tuples([next(lazy), next(lazy)]) == _tuples(chunks[:2])
    for c in chunks:
        assert text[c.start : c.end] == c.text and c.token_count == enc.count(c.text) <= budget
    if not overlap:
        assert [c.start for c in chunks] == [0] + [c.end for c in chunks[:-1]]
        assert chunks[-1].end == len(text)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("budget,overlap", [(4, 0), (16, 4), (64, 16)])
def test_surrogates_map_every_chunk_of_a_batch(name, family, budget, overlap):
    enc = ENCODINGS[name]
    text = _with_surrogates(family_text(family, 3000), budget)
    fixed = fix_surrogates(text)
    offs = caller_offsets(text, fixed)
    assert offs is not None
    chunker = Chunker(enc, budget, overlap=overlap, boundaries="exact")
    want = [(offs[c.start], offs[c.end], c.token_count, text[offs[c.start] : offs[c.end]])
            for c in chunker.chunks(fixed)]
    assert _tuples(chunker.chunks(text)) == want
    assert _tuples(chunker.iter_chunks(text)) == want
    assert _tuples(chunker.chunk_stream(_pieces(text, budget + 1))) == want
