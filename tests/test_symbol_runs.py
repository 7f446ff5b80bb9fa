"""Symbol runs (``_native/chunk_symbol_runs.c``): the pieces of punctuation and symbols that
exact_cuts takes as it takes letter runs.  symbol_run against brute force (every substring
one piece under the member's split), and the chunks of emoji text, where these runs
decide the chunks, against the pure-Python chunker and tiktoken."""

from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path

import pytest
import conftest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_stream.chunk.chunker as chunker_module
from bpe_stream.chunk.chunker import Chunker
from bpe_stream.pretokenize.family import MEMBERS
from bpe_stream.pretokenize.hard_boundaries import hard_rule

from chunk_compare import CountingCalls
from test_chunker_native import ENCODINGS, _same

try:
    from bpe_stream._native._core import symbol_prefixes, symbol_run
except ImportError:
    symbol_prefixes = symbol_run = None

pytestmark = pytest.mark.skipif(symbol_run is None or chunker_module._exact_cuts is None,
                                reason="compiled core not built")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _families import _EMOJI, family_text  # noqa: E402

# symbols, emoji parts (ZWJ, variation selector, keycap, skin tone, flag letters), marks,
# punctuation with a newline tail, and the classes that end a run
ALPHABET = ["!", "/", "$", "'", "\U0001F600", "\u2764", "\u200d", "\ufe0f", "\u20e3", "\U0001F3FD", "\U0001F1FA",
            "\u0301", "\u3001", "\u00a0", " ", "\n", "\r", "1", "a", "\u4e2d", "\x00"]


def _every_substring_one_piece(split, text: str) -> bool:
    return all(split(text[a:b]) == [text[a:b]] for a, b in itertools.combinations(range(len(text) + 1), 2))


@pytest.mark.parametrize("name", sorted(MEMBERS))
def test_symbol_run_by_brute_force(name):
    member = MEMBERS[name]
    rule = hard_rule(member)
    if rule is None:
        pytest.skip("no hard-boundary rule")
    split = member.compiled().findall
    rng = random.Random(name)
    texts = ["".join(t) for t in itertools.product(ALPHABET, repeat=2)]
    texts += ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 7))) for _ in range(2000 if conftest.FULL else 300)]
    texts += [rng.choice(_EMOJI) + rng.choice(_EMOJI) for _ in range(100)]
    accepted = 0
    for text in texts:
        if symbol_run(text, rule.flags):
            accepted += 1
            assert _every_substring_one_piece(split, text), (name, text)
            assert symbol_prefixes(text, rule.flags), (name, text)
        if symbol_prefixes(text, rule.flags):
            assert all(split(text[:k]) == [text[:k]] for k in range(1, len(text) + 1)), (name, text)
    if name in ("cl100k_base", "o200k_base"):
        assert accepted > 50
        assert symbol_run("\U0001F600\U0001F468\u200d\U0001F469!", rule.flags)
    # cl100k takes marks in its punctuation; o200k's words take them after a symbol
    assert symbol_run("\u2764\ufe0f\U0001F600", hard_rule(MEMBERS["cl100k_base"]).flags)
    assert not symbol_run("\u2764\ufe0f\U0001F600", hard_rule(MEMBERS["o200k_base"]).flags)
    # but its prefixes from the symbol are one piece each; from a mark they are not
    assert symbol_prefixes("\U0001F600\u2764\ufe0f\U0001F600", hard_rule(MEMBERS["o200k_base"]).flags)
    assert not symbol_prefixes("\u2764\ufe0f\U0001F600", hard_rule(MEMBERS["o200k_base"]).flags)


def _emoji_text(rng: random.Random, atoms: int) -> str:
    return "".join(rng.choice(_EMOJI) for _ in range(atoms))


def test_no_whitespace_in_symbol_runs():
    """Every character Python calls whitespace ends a symbol run (past ASCII the C reads
    only the class flags, which must then hold all of them)."""
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    assert any(ord(ch) > 127 for ch in spaces)
    for name in sorted(MEMBERS):
        flags = hard_rule(MEMBERS[name]).flags
        for ch in spaces:
            assert not symbol_run(ch, flags), (name, hex(ord(ch)))
            assert not symbol_run("!" + ch + "!", flags), (name, hex(ord(ch)))
            assert not symbol_prefixes("!" + ch, flags), (name, hex(ord(ch)))


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_emoji_chunks_against_python_and_tiktoken(name):
    enc = ENCODINGS[name]
    oracle = conftest.tiktoken_oracle(name)
    rng = random.Random(32)
    texts = [family_text("emoji with ZWJ sequences", 600)] + [_emoji_text(rng, rng.randint(1, 80))
                                                             for _ in range(40 if conftest.FULL else 2)]
    for text in texts:
        for budget in (1, 2, 3, 5, 8, 16, 33, 64) if conftest.FULL else (3, 8, 16, 64):
            for overlap in sorted({0, budget // 4, budget - 1}):
                _same(enc, text, budget, overlap)
                if budget < 4:
                    continue  # (a 4-byte emoji alone may cost 3 tokens: refused, as _same checked)
                found = Chunker(enc, budget, overlap=overlap, boundaries="exact").chunks(text)
                for c in found:
                    assert c.token_count == len(oracle.encode_ordinary(c.text)) <= budget
                if overlap == 0:
                    assert "".join(c.text for c in found) == text


def test_emoji_chunks_need_no_recounts():
    # cl100k's pieces of emoji text are symbol runs between keycap digits: exact_cuts
    # decides every chunk from the prefix sums and one table pass per straddling run,
    # without the recounts of slices (turned off here)
    enc = ENCODINGS["cl100k_base"]
    text = family_text("emoji with ZWJ sequences", 4000)
    for budget, overlap in ((16, 4), (7, 0), (40, 10)):
        counting = CountingCalls(chunker_module._exact_cuts)
        in_runs = CountingCalls(chunker_module._run_cuts)
        saved = chunker_module._exact_cuts, chunker_module._run_cuts
        chunker_module._exact_cuts, chunker_module._run_cuts = counting, in_runs
        try:
            chunker = Chunker(enc, budget, overlap=overlap, boundaries="exact")
            chunker._counted_cuts = False
            found = chunker.chunks(text)
        finally:
            chunker_module._exact_cuts, chunker_module._run_cuts = saved
        compiled = counting.chunks + in_runs.chunks
        assert compiled >= len(found) * 19 // 20, (budget, overlap, counting.chunks, in_runs.chunks, len(found))
        _same(enc, text, budget, overlap)


@settings(max_examples=examples(200, fast=15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(atoms=st.lists(st.sampled_from(_EMOJI + ["!", "/", "1", "\u0301", " ", "\n"]), min_size=1, max_size=60),
       budget=st.integers(1, 64), share=st.floats(0, 1), name=st.sampled_from(sorted(ENCODINGS)),
       seed=st.integers(0, 2**32))
def test_hypothesis_emoji(atoms, budget, share, name, seed):
    overlap = min(budget - 1, int(share * budget))
    text = "".join(atoms)
    _same(ENCODINGS[name], text, budget, overlap)
    # and as a stream in random pieces (the held text ends inside runs: the streaming rule)
    rng = random.Random(seed)
    pieces, j = [], 0
    while j < len(text):
        k = j + rng.randint(0, 40)
        pieces.append(text[j:k])
        j = k
    _same(ENCODINGS[name], text, budget, overlap, pieces)


def test_long_emoji_stream():
    # a text longer than a held window, fed in pieces, and runs longer than 256 characters
    enc = ENCODINGS["cl100k_base"]
    text = family_text("emoji with ZWJ sequences", 20000 if conftest.FULL else 6000) + "\U0001F600" * 300 + "1"
    pieces = [text[i : i + 997] for i in range(0, len(text), 997)]
    for budget, overlap in ((16, 4), (33, 0)):
        _same(enc, text, budget, overlap, pieces)
