"""The exact chunker's chunks inside long one-piece runs from the compiled core
(``_native/chunk_runs.c``: run_cuts, run_overlap_start, longest_token_in) against the
Python steps, the reference: identical chunks (whole texts and streams) on the run
families of bench_chunk_vs_count and on hand-made runs, budgets 1-64 with overlaps,
for both bundled encodings; the overlap start against SuffixView; the longest token of
a region against the Python automaton."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import conftest
import pytest
from chunk_compare import budget_cases, chunk_triples, same_as_steps
from conftest import examples, full_tier_only
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_stream
import bpe_stream.chunk.chunker as chunker_module
from bpe_stream.bpe.native import longest_token_in
from bpe_stream.chunk.counts import SuffixView, TextCounts

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _families import family_text  # noqa: E402

pytestmark = pytest.mark.skipif(chunker_module._run_cuts is None, reason="compiled core not built")

ENCODINGS = {name: bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
RUN_FAMILIES = ["CJK without spaces", "one random-letter word", "random ASCII punctuation"]
OTHER_FAMILIES = ["emoji with ZWJ sequences", "tabs and mixed whitespace", "multilingual", "prose",
                  "'a\\u0301' repeated", "'!\\u0301/' repeated", "'\\u3000 ' repeated"]
HAND_MADE = [
    "abcDEFghiJKLmnoPQR" * 20 + "!?" * 30 + "ÄÖÜäöü" * 10,     # cased letters, punctuation
    "'" + "!'" * 60 + "word" + "'" * 40 + "s" + "x" * 70,      # apostrophes (cl100k's contraction)
    "中文" * 40 + "abc" + "日本語のテキスト" * 10 + "。" * 30,    # CJK, ASCII, kana, CJK punctuation
    "ΑΒΓΔΕ" * 30 + "αβγδε" * 30 + "ǅǅǅ" * 10 + "ʰʰʰ" * 10,     # Lu, Ll, Lt, Lm
    "x" * 300 + "\n" + "y" * 300,                               # a run ending in a newline
    "#" * 200 + "/" * 50 + "\r\n" + "%" * 100,                  # o200k's '/' and newlines after punctuation
]


def _same(enc, text, budget, overlap, pieces=None) -> int:
    """Asserts the compiled and the reference chunks agree; the chunks run_cuts made."""
    return same_as_steps(enc, text, budget, overlap, "_run_cuts", pieces)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@pytest.mark.parametrize("family", RUN_FAMILIES)
def test_run_families(name, family):
    enc = ENCODINGS[name]
    text = family_text(family, 600 if conftest.FULL else 160)
    made = sum(_same(enc, text, budget, overlap) for budget, overlap in budget_cases(conftest.FULL))
    assert made > 0  # the compiled routine took part


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@pytest.mark.parametrize("family", OTHER_FAMILIES)
def test_other_families(name, family):
    full_tier_only()
    enc = ENCODINGS[name]
    text = family_text(family, 500)
    for budget, overlap in budget_cases(full=True):
        _same(enc, text, budget, overlap)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_hand_made_runs(name):
    enc = ENCODINGS[name]
    made = 0
    cases = ((1, 0), (3, 1), (16, 4), (40, 20)) if conftest.FULL else ((3, 1), (16, 4))
    for text in HAND_MADE:
        for budget, overlap in cases:
            made += _same(enc, text, budget, overlap)
    assert made > 0


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_longer_runs_and_streams(name):
    full_tier_only()
    enc = ENCODINGS[name]
    rng = random.Random(7)
    for family in RUN_FAMILIES:
        text = family_text(family, 20000)
        pieces = []
        i = 0
        while i < len(text):
            k = rng.randint(1, 700)
            pieces.append(text[i : i + k])
            i += k
        for budget, overlap in ((1, 0), (16, 4), (64, 16), (256, 64), (2000, 500)):
            _same(enc, text, budget, overlap)
            _same(enc, text, budget, overlap, pieces)


_ALPHABETS = ["abcXYZ", "中文字日本", "!#$%&'()*+,-./:;<=>?@[]^_`{|}~", "aé中!' \n", "ΑβγǅʰxX'"]


@settings(max_examples=examples(200, fast=8), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(sorted(ENCODINGS)), st.integers(0, len(_ALPHABETS) - 1), st.integers(0, 2**32),
       st.integers(20, 400), st.integers(1, 64), st.floats(0, 0.9))
def test_hypothesis_runs(name, alphabet, seed, length, budget, share):
    rng = random.Random(seed)
    letters = _ALPHABETS[alphabet]
    # long stretches of one character class with a few others between them
    text = "".join(rng.choice(letters[: rng.randint(1, len(letters))]) * rng.randint(1, 3) for _ in range(length))
    _same(ENCODINGS[name], text, budget, int(budget * share))


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_overlap_start_against_suffix_view(name):
    full_tier_only("slow: the Python suffix encoder builds its automaton (the chunk tests compare overlaps too)")
    enc = ENCODINGS[name]
    mode = chunker_module._run_mode_of(enc.pretokenizer)
    core = enc.bpe._core
    whole = chunker_module._whole_tokens(enc)
    whole_max = chunker_module.whole_longer_than(enc, 0)
    rng = random.Random(3)
    checked = 0
    for family in RUN_FAMILIES + ["prose"]:
        text = family_text(family, 3000)
        tc = TextCounts(enc, text)
        for _ in range(12):
            s = rng.randrange(0, len(text) - 10)
            e = rng.randrange(s + 2, min(len(text), s + 400))
            k = rng.choice([1, 2, 4, 16, 64])
            got = chunker_module._run_overlap_start(core, text, s, e, k, mode, whole_max, whole)
            if got < 0:
                continue
            # the reference: the earliest start in (s, e) whose suffix fits, else e
            suffix = SuffixView(tc, e)
            i0 = suffix.earliest_start(s, k)
            i0 = max(i0 if i0 is not None else s + 1, s + 1)
            while i0 < e and suffix.count(i0) > k:
                i0 += 1
            assert got == i0, (family, s, e, k)
            assert all(enc.count(text[i:e]) > k for i in range(max(s + 1, got - 20), got))
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_longest_token_in_against_the_automaton(name):
    full_tier_only("slow: builds the Python automaton")
    bpe = ENCODINGS[name].bpe
    lens = bpe.token_lens
    it = bpe.automaton.iter
    rng = random.Random(5)
    samples = [family_text(f, 300).encode() for f in RUN_FAMILIES + OTHER_FAMILIES]
    samples += [bytes(rng.randrange(256) for _ in range(rng.randint(1, 200))) for _ in range(20)]
    samples += [b"", b"a", b" " * 200, b"\n" * 3]
    for data in samples:
        expected = 0
        for _, token in it(data.decode("latin-1")):
            expected = max(expected, lens[token])
        assert longest_token_in(bpe._core, data) == expected, data[:30]


@pytest.mark.parametrize("pattern", ["cl100k_base", "o200k_base"])
def test_whole_piece_tokens_in_runs(pattern):
    """A vocabulary with whole-piece tokens (unreachable by merges, one token when a piece
    equals them): a chunk of a run that starts where one begins may end after it at count 1,
    and a suffix equal to one counts 1 for the overlap."""
    from bpe_stream import Encoding
    from bpe_stream.pretokenize.patterns import PATTERNS

    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"ab"] = 256
    for extra in (b"kqzvjxw", b"ab" * 5, b"!?#%&", "中文字".encode()):
        ranks[extra] = len(ranks)
    enc = Encoding("whole-" + pattern, pat_str=PATTERNS[pattern], mergeable_ranks=ranks, special_tokens={})
    rng = random.Random(13)
    texts = [
        "".join(rng.choice(["kqzvjxw", "ab", "k", "q", "z", "x", "abababab"]) for _ in range(120)),
        "".join(rng.choice(["!?#%&", "!", "?", "#", "%&"]) for _ in range(120)),
        "".join(rng.choice(["中文字", "中", "文", "字字"]) for _ in range(120)),
    ]
    made = 0
    for text in texts:
        for budget, overlap in ((1, 0), (2, 1), (3, 1), (8, 2), (8, 4)):
            made += _same(enc, text, budget, overlap)
    assert made > 0


def _llama3():
    import real_vocabularies as rv

    tokenizers = pytest.importorskip("tokenizers")
    try:
        file = rv.built("llama3/tokenizer.json")
    except rv.Unavailable as e:
        pytest.skip(str(e))
    tok = tokenizers.Tokenizer.from_file(str(file))
    return bpe_stream.load(file), lambda text: len(tok.encode(text, add_special_tokens=False).ids)


def test_llama3_takes_cl100k_run_mode_and_its_chunks_are_the_steps():
    # Llama 3 splits letter, punctuation and digit runs as cl100k (only whitespace at the
    # text's end differs), and its vocabulary holds whole-piece tokens: run_cuts with
    # whole_max > 0 against the Python steps, each chunk's count against HF tokenizers
    enc, hf_count = _llama3()
    assert chunker_module._run_mode_of(enc.pretokenizer) == 1
    size, settings = (3000, ((1, 0), (5, 2), (16, 4), (64, 0))) if conftest.FULL else (500, ((5, 2), (16, 4)))
    texts = [family_text(name, size) for name in RUN_FAMILIES] + HAND_MADE[: None if conftest.FULL else 2]
    texts.append("qwxzvbnme\u0301kj" * 60)  # marks: o200k's letters take them, cl100k's do not
    texts.append(family_text("digits", size))  # digit runs by rule (chunk/digit_runs.py)
    made = 0
    for text in texts:
        for budget, overlap in settings:
            made += _same(enc, text, budget, overlap)
            chunks = chunk_triples(enc, text, budget, overlap, {})
            if chunks[0] != "refused":
                for s, e, k in chunks[:: max(1, len(chunks) // 8)]:
                    assert k == hf_count(text[s:e]) <= budget
    assert made > 0
