"""The cuts of bpe_stream.pretokenize.long_pieces against the regex itself.

The streaming counters re-split a proxy of the text with the cuts of its long pieces
deleted; long_pieces states that each cut is sound (no match boundary falls inside it and
every boundary after it moves by its length, in any text holding the piece).  Here that
claim is checked directly: the split of the text with every cut of every long piece
deleted, mapped back, must be the split of the text.  The streaming tests only see a
wrong cut when it changes a count.  The records the cuts are read from are kept as the
piece grows and shrinks; they are checked against records built at once.
"""

from __future__ import annotations

import pytest
from conftest import examples  # noqa: E402
from hypothesis import example, given, settings
from hypothesis import strategies as st

import bpe_stream
from bpe_stream.pretokenize.long_pieces import (
    _COMPRESSIBLE,
    _LongPiece,
    long_piece_cuts,
    run_regex_for,
)
from bpe_stream.pretokenize.patterns import compile_pattern

# units of every class the cuts know (letters of each o200k class, marks, apostrophes and
# contractions, slashes, punctuation, each kind of whitespace), repeated into long runs
UNITS = ["a", "A", "\xe1", "\u02b0", "\u4e2d", "\u0301", "'", "'s", "'LL", "/", "/\n", "!", "-", "<",
         " ", "\t", "\n", "\r\n", "\n \n", " \n", "1", "x", "Ab", "\U0001f600", "\xa0", "\u0301!", " '",
         "\u4e2d\u0301", "A\u4e2d\u0301"]

runs_st = st.lists(st.tuples(st.sampled_from(UNITS), st.integers(1, 90)), min_size=1, max_size=5)


def _split(pattern, text: str) -> list:
    return [m.span() for m in pattern.finditer(text)]


def _split_without_cuts(enc, pattern, text: str) -> tuple[list, list]:
    """(the split of text, the split of the text with every cut of every piece longer than
    64 characters deleted, mapped back to text positions)"""
    run_re = run_regex_for(enc.pat_str)
    mergeable = _COMPRESSIBLE[run_re]
    spans = _split(pattern, text)
    cuts = []
    for a, b in spans:
        if b - a > 64:
            rec = _LongPiece(enc.bpe, a)
            rec.set_end(text, b, run_re, mergeable)
            # (the proxy is split from its start and keeps the boundaries before a cut, so
            # a match starts at a)
            piece_cuts = long_piece_cuts(rec, a, b, run_re, mergeable, text[a : a + 2])
            # the proxy builders take them in order: disjoint and sorted, inside the piece
            assert all(a <= lo < hi <= b for lo, hi in piece_cuts), piece_cuts
            assert all(p[1] <= q[0] for p, q in zip(piece_cuts, piece_cuts[1:])), piece_cuts
            cuts += piece_cuts
    kept = []  # (proxy start, text start) of each kept segment
    chunks = []
    q = cur = 0
    for lo, hi in cuts:
        assert cur <= lo < hi, cuts
        kept.append((q, cur))
        chunks.append(text[cur:lo])
        q += lo - cur
        cur = hi
    kept.append((q, cur))
    chunks.append(text[cur:])
    proxy = "".join(chunks)

    def back(p: int, end: bool) -> int:
        # an end maps with the segment of its last character
        p0 = p - 1 if end else p
        qs, xs = max((s for s in kept if s[0] <= p0), default=kept[0])
        return xs + (p0 - qs) + (1 if end else 0)

    return spans, [(back(a, False), back(b, True)) for a, b in _split(pattern, proxy)]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=examples(300), deadline=None)
@given(runs=runs_st)
def test_deleting_the_cuts_of_long_pieces_keeps_the_split(name, runs):
    enc = bpe_stream.get_encoding(name)
    pattern = compile_pattern(enc.pat_str)
    text = "".join(unit * count for unit, count in runs)
    spans, mapped = _split_without_cuts(enc, pattern, text)
    assert mapped == spans


@pytest.mark.parametrize("name, text", [
    # the cases of the characters-read tests in test_appendable, whole
    ("o200k_base", "'" * 178 + "\n" * 336 + "x\n"),
    ("cl100k_base", "\n\n \n" * 360 + " " * 246),
    ("o200k_base", "/" * 281 + "/\n" * 70 + "\u02b0 '"),
    ("o200k_base", "!''" * 254 + "\u0301" * 110 + "0"),
    ("o200k_base", "\u4e2d\u0301" * 340 + "\xe1'sA"),
    ("o200k_base", "\u4e2d\u0301\u4e2d" * 277 + "'s."),
    ("o200k_base", "\u4e2d" * 100 + "A\u4e2d" + "'s"),
    # the slash tail's cut deleted the newline that stops the punctuation repetition, which
    # then took the apostrophe after the stretch (found by the property test above)
    ("o200k_base", "/" * 20 + "\n" * 69 + "/" * 49 + "'LL" * 76),
    ("o200k_base", "\U0001f600" * 86 + "/" * 53 + "\r\n" * 76 + "/" * 38 + "<" * 68),
    # one punctuation character before a newline starts a punctuation match whose tail is
    # the [\r\n/] stretch after it (not when it is a mark: that is a word)
    ("o200k_base", "a\u0301\U0001f600" * 40 + "\n" * 200 + "/" * 150 + " a-?"),
    ("o200k_base", "\U0001f600" + "\n" * 100 + "/" * 70 + "\n/" * 40 + "'s"),
    ("o200k_base", "x\u0301" + "\n" * 100 + "/" * 150 + "!"),
])
def test_the_cuts_of_known_long_pieces_keep_the_split(name, text):
    enc = bpe_stream.get_encoding(name)
    spans, mapped = _split_without_cuts(enc, compile_pattern(enc.pat_str), text)
    assert mapped == spans


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=examples(300), deadline=None)
@given(runs=st.lists(st.tuples(st.sampled_from(UNITS + ["A\u0301", "'LL"]), st.integers(1, 6)), min_size=1,
                     max_size=12),
       ends=st.lists(st.floats(0, 1), min_size=1, max_size=8))
@example(runs=[("'LL", 5), ("A\u4e2d\u0301", 6), ("/", 2), ("\u0301!", 5)], ends=[1.0, 0.75, 1.0])
@example(runs=[("'LL", 6), ("A\u4e2d\u0301", 6), ("/", 5), ("\u0301!", 5)], ends=[1.0, 0.75, 0.8125])
def test_a_record_grown_and_cut_holds_the_stretches_of_one_built_at_once(name, runs, ends):
    # The cuts are read from a record's runs and stretches, which set_end keeps in
    # O(changed) as the piece grows and shrinks.  Each must equal what a record built for
    # that end in one go holds.  A truncation into the marks of "A\u0301" * n + "'LL" lost
    # the last mark of the upper stretch left (-1: no upper-word cut, the piece read on
    # every re-split).  A truncation that cut a punctuation stretch's trailing streak of
    # non-mark characters forgot where it started, and growing the same text again set it
    # a character late: "\u0301//" + "\u0301!" * n cut between the slashes never found its
    # pair of non-marks (q) again (found by this test in the thirteenth session).
    enc = bpe_stream.get_encoding(name)
    run_re = run_regex_for(enc.pat_str)
    mergeable = _COMPRESSIBLE[run_re]
    text = "".join(unit * count for unit, count in runs)
    rec = _LongPiece(enc.bpe, 0)
    for f in ends:
        rec.set_end(text, round(f * len(text)), run_re, mergeable)
        fresh = _LongPiece(enc.bpe, 0)
        fresh.set_end(text, rec.end, run_re, mergeable)
        for field in ("runs", "lruns", "wruns", "uruns", "pruns", "truns"):
            assert getattr(rec, field) == getattr(fresh, field), (field, text[: rec.end])
        assert rec.ba.token_count == enc.bpe.count(text[: rec.end].encode("utf-8"))
