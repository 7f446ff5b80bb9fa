"""The semantic steps' lazy level walk (``chunk/level_walk.py``), their ASCII grapheme ends
and their ``e_max`` from the compiled ``exact_cuts`` against the reference, the steps with
``Chunker._level_walk = False`` (each level's scan of its slice, the grapheme scan and
``ChunkView.cut``): identical chunks, whole texts and streams, for cl100k, o200k and a
tokenizer.json member (Llama 3), budgets 1-512 with overlaps, fill floors, Markdown
headings, custom levels, with the compiled core on and off; and the walk itself against
``BoundaryLevel.positions`` on texts dense in every level's boundaries, both ways (the
overlap start's walk goes upwards)."""

from __future__ import annotations

import functools
import random
from unittest import mock

import conftest
import pytest
import real_vocabularies as rv
from conftest import CORPUS_FILES, corpus_text, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_stream
import bpe_stream.chunk.chunker as chunker_module
from bpe_stream.chunk.boundaries import SEMANTIC_LEVELS, BoundaryLevel
from bpe_stream.chunk.chunker import CharacterOverBudget, Chunker, _grapheme_before, _grapheme_before_scan
from bpe_stream.chunk.level_walk import ascending, descending

# Pieces dense in the levels' boundaries and in their edge cases: blank lines with
# blanks and \r, \x1c (whitespace to Python, not to the levels' \s), headings, fences,
# runs of sentence ends with closers, CJK ends, combining marks, CR LF.
PIECES = ["\n", "\n", "\n\n", " \n", "\r\n", "\t", " ", "  ", "\x1c", "\u3000", "\u00a0", "a", "word", "Ab",
          "1", ".", "!", "?", "...", "\u2026", "\"", "'", ")", "]", "\u201d", "\u2019", "\u3002", "\uff01",
          "\u300d", "#", "# Title\n", "## H\n\n", "```", "```py\n", "~~~\n", "e\u0301", "\u0301", "\U0001F600",
          "\u200d", "\u4e2d\u6587", "x y z", "Hi. Yo!", ". ", "\n```\n"]
texts = st.lists(st.sampled_from(PIECES), max_size=80).map("".join)
CUSTOM = BoundaryLevel("comma", r",\s*")


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, data=st.data())
def test_walk_equals_each_levels_scan(text, data):
    n = len(text)
    if n < 2:
        return
    lo = data.draw(st.integers(0, n - 2))
    stop = data.draw(st.integers(lo, n - 1))
    hi = data.draw(st.integers(stop + 1, n))
    for level in (*SEMANTIC_LEVELS, CUSTOM, BoundaryLevel("line", r"\n")):
        assert list(descending(level, text, lo, hi, stop)) == list(reversed(level.positions(text, lo, hi, stop))), (
            level.name, text, lo, hi, stop)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, data=st.data())
def test_upward_walk_equals_each_levels_scan(text, data):
    """The overlap start's walk: the scan's positions in [start, hi), first first."""
    n = len(text)
    if n < 2:
        return
    lo = data.draw(st.integers(0, n - 2))
    hi = data.draw(st.integers(lo + 1, n))
    start = data.draw(st.integers(lo, hi + 1))
    for level in (*SEMANTIC_LEVELS, CUSTOM, BoundaryLevel("line", r"\n")):
        want = [p for p in level.positions(text, lo, hi) if start <= p < hi]
        assert list(ascending(level, text, lo, hi, start)) == want, (level.name, text, lo, hi, start)


@settings(max_examples=examples(400), deadline=None)
@given(text=st.lists(st.sampled_from(["a", " ", "\r", "\n", "\r\n", "\x00", "\x1c", "e\u0301", "\u0301",
                                      "\U0001F1E6", "\U0001F1E8", "\u200d", "\U0001F468", "\ufe0f", "\u1100",
                                      "\u1161", "\u11a8", "\uac00", "\u0915", "\u094d", "\u0924", "\u0600",
                                      "\u0e33", "\u4e2d", "\U0001F3FB"]), min_size=2,
                     max_size=40).map("".join), data=st.data())
def test_ascii_grapheme_ends_equal_the_scan(text, data):
    n = len(text)
    e_max = data.draw(st.integers(1, n - 1))
    lo = data.draw(st.integers(max(0, e_max - 64), e_max - 1))
    hi = data.draw(st.integers(e_max + 1, n))
    assert _grapheme_before(text, lo, hi, e_max) == _grapheme_before_scan(text, lo, hi, e_max), (text, lo, hi, e_max)


@functools.lru_cache(maxsize=None)
def _encoding(name: str):
    if name != "llama3":
        return bpe_stream.get_encoding(name)
    try:
        return bpe_stream.load(rv.built("llama3/tokenizer.json"))
    except rv.Unavailable as e:
        if rv.REQUIRE:
            pytest.fail(f"BPE_STREAM_REQUIRE_VOCABS is set and {e}")
        pytest.skip(str(e))


def _chunks(enc, text, budget, walk: bool, *, compiled=True, pieces=None, **kwargs):
    chunker = Chunker(enc, budget, **kwargs)
    chunker._level_walk = walk
    with mock.patch.object(chunker_module, "_exact_cuts", chunker_module._exact_cuts if compiled else None):
        try:
            found = chunker.chunks(text) if pieces is None else list(chunker.chunk_stream(pieces))
        except CharacterOverBudget as e:
            return ("refused", e.position, e.tokens)
    return [(c.start, c.end, c.token_count, c.headings) for c in found]


def _same(enc, text, budget, *, compiled=True, pieces=None, **kwargs):
    new = _chunks(enc, text, budget, True, compiled=compiled, pieces=pieces, **kwargs)
    assert new == _chunks(enc, text, budget, False, compiled=compiled, pieces=pieces, **kwargs), (
        enc.name, budget, kwargs)
    return new


ENCODINGS = ["cl100k_base", "o200k_base", "llama3"]


@pytest.mark.parametrize("name", ENCODINGS)
def test_corpus_slices(name):
    if not CORPUS_FILES:
        pytest.skip("no corpora")
    enc = _encoding(name)
    rng = random.Random(7)
    budgets = [1, 2, 3, 8, 16, 64, 256, 512] if conftest.FULL else [2, 16, 256]
    size = 6000 if conftest.FULL else 2500
    for path in CORPUS_FILES:
        whole = corpus_text(path.name)
        start = rng.randrange(max(1, len(whole) - size))
        text = whole[start : start + size]
        for budget in budgets:
            for overlap in sorted({0, budget // 4}):
                _same(enc, text, budget, overlap=overlap)
            _same(enc, text, budget, fill_floor=0.3, markdown=True)


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                             HealthCheck.function_scoped_fixture])
@given(text=texts, budget=st.integers(1, 64), data=st.data())
def test_hypothesis_texts_whole_and_streamed(name, text, budget, data):
    enc = _encoding(name)
    overlap = data.draw(st.sampled_from(sorted({0, budget // 4, budget // 2, budget - 1} - {budget})))
    fill_floor = data.draw(st.sampled_from([0.0, 0.5, 0.8, 1.0]))
    levels = data.draw(st.sampled_from(["semantic", ["paragraph", "sentence", CUSTOM, "word"], ["line"]]))
    whole = _same(enc, text, budget, overlap=overlap, fill_floor=fill_floor, boundaries=levels)
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=6)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    assert _same(enc, text, budget, pieces=pieces, overlap=overlap, fill_floor=fill_floor,
                 boundaries=levels) == whole


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, budget=st.integers(1, 32), overlap_share=st.sampled_from([0, 4]))
def test_pure_python_path(name, text, budget, overlap_share):
    # without the compiled core the walk and the grapheme ends still run (no exact_cuts)
    enc = _encoding(name)
    overlap = budget // overlap_share if overlap_share else 0
    _same(enc, text, budget, compiled=False, overlap=overlap)


def test_long_text_in_blocks():
    # a text over two blocks goes through the streaming path in 64K windows
    text = ("Para one. Line two!\nThird line?\n\n# Head\n\nWords and words, more words. " * 2600)
    assert len(text) > 2 * chunker_module._BLOCK_CHARS
    enc = _encoding("cl100k_base")
    for budget in (16, 300):
        _same(enc, text, budget, overlap=budget // 4)


def test_blank_line_characters_are_python_whitespace():
    # level_walk._blank skips the pattern for a line whose first character str.isspace
    # rejects: sound only if every character of the paragraph level's blank class is one
    import regex

    blank = regex.compile(r"[^\S\n]")
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000 and blank.match(chr(c))]
    assert chars and all(ch.isspace() for ch in chars)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, data=st.data())
def test_suffix_counts(name, text, data):
    # SuffixView.count answers a start on a global boundary from the prefix sums alone
    from bpe_stream.chunk.counts import SuffixView, TextCounts

    enc = _encoding(name)
    if not text:
        return
    tc = TextCounts(enc, text)
    e = data.draw(st.integers(1, len(text)))
    view = SuffixView(tc, e)
    for i in range(e + 1):
        assert view.count(i) == enc.count(text[i:e]), (text, i, e)
