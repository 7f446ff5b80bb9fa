"""Whitespace stretches: the piece rule of ``text/whitespace_pieces.py`` brute-forced
against the members' regexes and tiktoken over every short string of a whitespace
alphabet, the vocabulary property against its compiled twin, and the exact chunker's
chunks from ``_native/chunk_ws.c`` (ws_cuts) against the Python steps, the reference:
identical chunks (whole texts and streams) on the whitespace family of
bench_chunk_vs_count, hand-made stretches and hypothesis texts, budgets 1-64 with
overlaps, for both bundled encodings."""

from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path

import conftest
import pytest
from chunk_compare import budget_cases, overlaps_for, same_as_steps
import regex
from conftest import examples, tiktoken_oracle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_stream
import bpe_stream.chunk.chunker as chunker_module
from bpe_stream.bpe.native import ws_split_holds
from bpe_stream.text.whitespace_pieces import (
    _holds_for,
    last_break_end,
    line_break_split_holds,
    whitespace_count,
    whitespace_pieces,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _families import family_text  # noqa: E402

ENCODINGS = {name: bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
# the family's alphabet (as characters) and the other whitespace the brief names
ALPHABET = [" ", "\t", "\n", "\r", "\u00a0", "\x0b", "\x0c", "\u2028", "\u3000"]


def _short_strings(max_len: int):
    for n in range(1, max_len + 1):
        for t in itertools.product(ALPHABET, repeat=n):
            yield "".join(t)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_pieces_and_counts_brute_force(name):
    """Every whitespace string of up to 3 characters (5 with --full): the pieces equal the
    regex split, and count = the two parts' counts = tiktoken's count."""
    enc = ENCODINGS[name]
    pattern = regex.compile(enc.pat_str)
    oracle = tiktoken_oracle(name)
    checked = 0
    for w in _short_strings(5 if conftest.FULL else 3):
        assert whitespace_pieces(w, enc.pat_str) == pattern.findall(w), repr(w)
        k = len(oracle.encode(w, disallowed_special=()))
        assert whitespace_count(enc, w) == k == enc.count(w), repr(w)
        checked += 1
    assert checked > 800


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_pieces_before_other_text(name):
    """How a stretch meets the text after it: w[:N], w[N:-1], then the last character alone
    or with the next piece (the module docstring's rule), against the regex."""
    enc = ENCODINGS[name]
    pattern = regex.compile(enc.pat_str)
    for w in _short_strings(3):
        for x in ("a", "!", "1", "\u0301", "A"):
            pieces = pattern.findall(w + x)
            n = last_break_end(w)
            expected = [p for p in (w[:n], w[n:-1]) if p]
            last = w[-1]
            # the letter alternative (o200k's takes marks too), else the punctuation one
            # (a space before it; in cl100k a mark is punctuation)
            joins = (x in "aA" or (x == "\u0301" and name == "o200k_base")) or (
                last == " " and x in ("!", "\u0301"))
            if n < len(w):
                expected += [last + x] if joins else [last, x]
            else:
                expected += [x]
            assert pieces == expected, (repr(w), x, pieces)


def test_vocabulary_property():
    """line_break_split_holds: true for both bundled vocabularies, the compiled check equal
    to the Python one, false once a token crosses a last line break into whitespace."""
    for enc in ENCODINGS.values():
        assert line_break_split_holds(enc)
        if conftest.FULL:
            assert _holds_for(enc.bpe.tokens)
        if ws_split_holds is not None:
            assert ws_split_holds(enc.bpe._core)
    for crossing in (b"\n ", b"\r\n\t", b"\n\xc2", b"\n\xe3\x80", b"x\n\xe2\x80\xa8"):
        assert not _holds_for([b"a", crossing])
    for fine in (b"\n\n", b" \n", b"\nx", b"\n\xe3\x81"):
        assert _holds_for([b"a", fine])


def _same(enc, text, budget, overlap, pieces=None) -> int:
    """Asserts the compiled and the reference chunks agree; the chunks ws_cuts made."""
    return same_as_steps(enc, text, budget, overlap, "_ws_cuts", pieces)


needs_compiled = pytest.mark.skipif(chunker_module._ws_cuts is None, reason="compiled core not built")


@needs_compiled
@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_whitespace_family(name):
    enc = ENCODINGS[name]
    if conftest.FULL:
        text = family_text("tabs and mixed whitespace", 1500)
        cases = budget_cases(full=True)
    else:
        text = family_text("tabs and mixed whitespace", 400)
        cases = [(3, 1), (16, 4)]
    made = 0
    for budget, overlap in cases:
        made += _same(enc, text, budget, overlap)
    assert made > 0  # the compiled routine took part


HAND_MADE = [
    "\t\t  \n" * 30 + "\u3000\u2028\x0b\x0c " * 20 + "\r\n" * 15,      # blanks, line breaks, rare spaces
    "word " + " \t\n" * 80 + "next!" + "\n  " * 60 + "\u00a0end",       # stretches between words
    "\n" * 50 + "\t" * 120 + " " * 70 + "\r" * 30 + "x",                 # long one-kind runs inside a stretch
    " " * 200 + "\n",                                                    # no line break until the end
]


@needs_compiled
@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_hand_made_stretches(name):
    enc = ENCODINGS[name]
    budgets = (1, 2, 5, 16, 64) if conftest.FULL else (16,)
    for text in HAND_MADE if conftest.FULL else HAND_MADE[1:2]:
        for budget in budgets:
            for overlap in overlaps_for(budget):
                _same(enc, text, budget, overlap)


@needs_compiled
@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_streams(name):
    """chunk_stream over random splits (windows ending inside a stretch wait for more text)."""
    enc = ENCODINGS[name]
    rng = random.Random(32)
    text = family_text("tabs and mixed whitespace", 3000 if conftest.FULL else 900)
    for budget, overlap in ((4, 1), (16, 0), (64, 16)) if conftest.FULL else ((16, 4),):
        cuts = sorted(rng.sample(range(1, len(text)), 40))
        pieces = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
        _same(enc, text, budget, overlap, pieces)


@needs_compiled
@settings(max_examples=examples(120, fast=12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.lists(st.sampled_from(ALPHABET + ["\r\n", "  ", "a", "!"]), min_size=1, max_size=120).map("".join),
       budget=st.integers(1, 64), share=st.sampled_from([0, 4, 2]), name=st.sampled_from(sorted(ENCODINGS)))
def test_hypothesis_texts(text, budget, share, name):
    _same(ENCODINGS[name], text, budget, budget // share if share else 0)
