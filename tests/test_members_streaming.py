"""Every streaming object answers exactly for every member of the pre-tokenizer family.

Each member runs on the ranks of cl100k_base (o200k_base for the cased-letter members),
the way issue-free vocabularies of those families are built; the answers are checked
against ``enc.count`` of the exact text (itself checked against tiktoken and HF tokenizers
in tests/test_family.py).
"""

from __future__ import annotations

import functools
import random

import pytest
from _streaming_helpers import exhaustive_appends
from conftest import corpus_text, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_stream import (
    AppendableEncoder,
    Chunker,
    Encoding,
    IntervalCounter,
    PrependableEncoder,
    get_encoding,
)
from bpe_stream.pretokenize.family import MEMBERS
from bpe_stream.text.normalized import NormalizedView

NAMES = [n for n in MEMBERS if n not in ("cl100k_base", "o200k_base")]  # those two: everywhere else


@functools.lru_cache(maxsize=None)
def member_encoding(name: str) -> Encoding:
    member = MEMBERS[name]
    base = "o200k_base" if member.letters == "cased" else "cl100k_base"
    return Encoding(f"{base}+{name}", pretokenizer=member, bpe=get_encoding(base).bpe)


PARTS = ["a", "B", "\u01c5", "\u02b0", "\u4e2d\u6587", "\u0301", "1", "123", "\u0663", "\u00b2", " ", "  ", "\t",
         "\n", "\r\n", "\u00a0", "'", "'s", "'LL", "/", "!", "?!", "\u20ac", "\u3042", "word", " word", "Hello",
         "x" * 30, " " * 20, "\n" * 5, "!" * 12, "9" * 10]
texts = st.lists(st.sampled_from(PARTS), max_size=25).map("".join)
edits = st.lists(st.tuples(st.sampled_from(["add", "cut"]), st.sampled_from(PARTS), st.integers(0, 40)), max_size=25)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("make, at_end", [(AppendableEncoder, True), (PrependableEncoder, False)],
                         ids=["appendable", "prependable"])
@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=edits)
def test_one_end_streams(name, make, at_end, ops):
    """``ops`` on a stream that grows at its end (``append``) or at its start (``prepend``):
    add a part, or ``truncate`` to drop k characters; its count checked after each."""
    enc = member_encoding(name)
    stream = make(enc)
    text = ""
    for op, part, k in ops:
        if op == "add":
            if at_end:
                stream.append(part)
                text += part
            else:
                stream.prepend(part)
                text = part + text
        else:
            k = min(k, len(text))
            stream.truncate(len(text) - k)
            text = text[: len(text) - k] if at_end else text[k:]
        assert stream.token_count == enc.count(text), (name, text)
    assert stream.tokens() == enc.encode_ordinary(text)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, data=st.data())
def test_intervals(name, text, data):
    enc = member_encoding(name)
    ic = IntervalCounter(enc, text)
    n = len(text)
    for _ in range(20):
        i = data.draw(st.integers(0, n))
        j = data.draw(st.integers(i, n))
        assert ic.count(i, j) == enc.count(text[i:j]), (name, text, i, j)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, budget=st.integers(0, 12))
def test_cuts(name, text, budget):
    enc = member_encoding(name)
    # cut points: every position, or for a member that normalizes, the positions where the
    # text and its normalized form align (tests/test_normalization.py)
    points = range(len(text) + 1)
    if enc.pretokenizer.normalizer:
        view = NormalizedView(enc.pretokenizer.normalizer, text)
        points = [i for i in points if view.to_norm(i) is not None]
    assert enc.split_at(text, budget) == max(j for j in points if enc.count(text[:j]) <= budget)
    suffix = enc.truncate_start(text, budget)
    assert len(text) - len(suffix) == min(i for i in points if enc.count(text[i:]) <= budget)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, budget=st.integers(1, 16), overlap=st.integers(0, 4), mode=st.sampled_from(["exact", "semantic"]))
def test_chunker(name, text, budget, overlap, mode):
    enc = member_encoding(name)
    overlap = min(overlap, budget - 1)
    try:
        chunks = Chunker(enc, budget, overlap=overlap, boundaries=mode).chunks(text)
    except ValueError:
        return  # a character that alone needs more than the budget: refused, with its offset
    # a member that normalizes (Qwen's NFC) has chunks of the text the model reads
    seen = enc._text(text)
    for c in chunks:
        assert c.token_count == enc.count(c.text) <= budget
        assert c.text == seen[c.start : c.end]
    if overlap == 0:
        assert "".join(c.text for c in chunks) == seen


@pytest.mark.parametrize("name", NAMES)
def test_corpus_slices(name):
    enc = member_encoding(name)
    rng = random.Random(name)
    for corpus in ("multilingual_sentences.txt", "code_python_black.py.txt", "utf8_demo.txt"):
        text = corpus_text(corpus)
        start = rng.randrange(len(text) - 3000)
        piece = text[start : start + 3000]
        ae = AppendableEncoder(enc)
        for k in range(0, len(piece), 37):
            ae.append(piece[k : k + 37])
        assert ae.token_count == enc.count(piece)
        ic = IntervalCounter(enc, piece)
        for _ in range(50):
            i = rng.randrange(len(piece))
            j = rng.randrange(i, len(piece) + 1)
            assert ic.count(i, j) == enc.count(piece[i:j])
        for budget in (1, 17, 300):
            j = enc.split_at(piece, budget)
            assert enc.count(piece[:j]) <= budget
            assert all(enc.count(piece[:k]) > budget for k in range(j + 1, min(len(piece), j + 60) + 1))


# ---------------------------------------------------------------- one character at a time
# The regex-free one-character path (pretokenize/fast_split.py) derived from a member's
# choices: every transition, from every kind, against the member's own regex, by
# enumeration of every string over one character per class the member tells apart (cased
# letters, marks, digits, the whitespace kinds, "/", the apostrophe and contraction letters).
FAST_MEMBERS = ["gpt2", "starcoder", "llama3", "qwen2", "qwen3.5", "tekken", "deepseek_v3"]
SMALL_CLASSES = "aB1 \n\t!'s"
ALL_CLASSES = "aB1 \n\r\t!/'sl\u0301\u4e2d\u02b0\u3000\u01c5"
CONTRACTION_CLASSES = "'slrevmtdLa1 !\n"
# DeepSeek-V3's: ASCII and other letters, marks, ASCII and other punctuation, digit groups,
# CJK runs, whitespace kinds, a format character (a lead only)
DEEPSEEK_CLASSES = "a\u00e9\u0301(\u00ab1\u4e2d \n\t\u200d"
LETTER_CLASSES = "aB\u4e2d\u02b0\u0301 !'"
MARK_CLASSES = "a!/\u0301 \t1\n'B"


def _unnormalized(name: str) -> Encoding:
    """The member over its ranks without its normalization: the split streamed is the split
    of the text as given (the normalizing stream feeds it normalized text)."""
    from dataclasses import replace

    enc = member_encoding(name)
    return Encoding(enc.name + "-split", pretokenizer=replace(enc.pretokenizer, normalizer=None), bpe=enc.bpe)


def _exhaustive_member(enc, alphabet: str, depth: int) -> int:
    """Append every string over ``alphabet`` up to ``depth`` characters one at a time:
    pieces and count equal the member's regex and ``enc.count`` (see exhaustive_appends).
    Returns how many appends took the regex-free path."""
    from bpe_stream.text.appendable import TextAppendable

    assert TextAppendable(enc).fast is not None
    return exhaustive_appends(enc, alphabet, depth, enc.pretokenizer.compiled())


@pytest.mark.parametrize("name", FAST_MEMBERS)
def test_fast_path_small(name):
    enc = _unnormalized(name)
    assert _exhaustive_member(enc, SMALL_CLASSES, 3) > 300
    assert _exhaustive_member(enc, ALL_CLASSES, 2) > 100
    assert _exhaustive_member(enc, MARK_CLASSES, 3) > 100


@pytest.mark.slow
@pytest.mark.parametrize("name", FAST_MEMBERS)
def test_fast_path_exhaustive(name):
    enc = _unnormalized(name)
    assert _exhaustive_member(enc, SMALL_CLASSES, 5) > 10_000
    assert _exhaustive_member(enc, ALL_CLASSES, 3) > 1_000
    assert _exhaustive_member(enc, LETTER_CLASSES, 5) > 1_000
    assert _exhaustive_member(enc, MARK_CLASSES, 4) > 1_000
    assert _exhaustive_member(enc, CONTRACTION_CLASSES, 4) > 1_000
    assert _exhaustive_member(enc, DEEPSEEK_CLASSES, 4) > 1_000


@pytest.mark.parametrize("name", FAST_MEMBERS)
def test_no_fast_path_for_other_shapes(name):
    from bpe_stream.pretokenize.fast_split import fast_split_for_member

    assert fast_split_for_member(MEMBERS[name]) is not None
    # a pattern the choices do not describe gets no transitions
    from dataclasses import replace

    assert fast_split_for_member(replace(MEMBERS[name], pattern=MEMBERS[name].pattern + "|x", spellings=())) is None


CHAR_PARTS = PARTS + ["\u00e9", "e\u0301", "\u1100\u1161", "\u0958", "\u212b", "A\u030a", "\U0001f600", "\U0001f44d\U0001f3fd"]


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.sampled_from(CHAR_PARTS), max_size=20), cut=st.integers(0, 12))
def test_appendable_one_character_at_a_time(name, parts, cut):
    # the regex-free path (and, for the NFC members, appends that normalize nothing back)
    enc = member_encoding(name)
    ae = AppendableEncoder(enc)
    text = ""
    for ch in "".join(parts):
        ae.append(ch)
        text += ch
        assert ae.token_count == enc.count(text), (name, text)
    n = max(0, len(text) - cut)
    ae.truncate(n)
    text = text[:n]
    assert ae.token_count == enc.count(text)
    for ch in "".join(reversed(parts)):
        ae.append(ch)
        text += ch
        assert ae.token_count == enc.count(text), (name, text)
    assert ae.tokens() == enc.encode_ordinary(text)


@pytest.mark.parametrize("name", ["qwen2", "qwen3.5"])
def test_normalizing_one_character_appends_keep_marks_apart(name):
    # one-character appends that normalize nothing back move the last mark instead of adding
    # one per character: marks stay about a block apart, and a truncation re-normalizes at
    # most about a block
    from bpe_stream.stream.normalizing import _BLOCK, NormalizingStream

    enc = member_encoding(name)
    ae = AppendableEncoder(enc)
    stream = ae._impl
    assert isinstance(stream, NormalizingStream)
    text = ("Cafe\u0301 na\u00efve \u1100\u1161 \u212b " * 300)[:5000]
    for ch in text:
        ae.append(ch)
    assert ae.token_count == enc.count(text)
    assert len(stream.raw_at) <= len(text) // _BLOCK + 3
    assert list(stream.raw_at) == sorted(set(stream.raw_at))
    for n in (4999, 4000, 2500, 1023, 1, 0):
        ae.truncate(n)
        assert ae.token_count == enc.count(text[:n])
        for ch in text[n : n + 40]:
            ae.append(ch)
        assert ae.token_count == enc.count(text[: n + 40])
        ae.truncate(n)


@pytest.mark.parametrize("name", ["qwen2", "qwen3.5"])
def test_normalizing_long_runs_of_boundary_appends_then_edits(name):
    # more than a block of one-character appends that each combine with nothing (marks set
    # only every block and before the next other edit), then truncations inside the run and
    # appends that combine backward (re-normalized from those marks); \u212b (Angstrom sign)
    # changes under NFC on its own
    from bpe_stream.stream.normalizing import _BLOCK

    enc = member_encoding(name)
    text = ("ab A\u212b. " * (3 * _BLOCK // 8 + 5))[: 3 * _BLOCK + 7]
    ae = AppendableEncoder(enc)
    for ch in text:
        ae.append(ch)
    assert ae.token_count == enc.count(text)
    for n in (len(text) - 1, 2 * _BLOCK + 1, 2 * _BLOCK, _BLOCK + 3, _BLOCK, _BLOCK - 1, 5):
        ae.truncate(n)
        edited = text[:n] + "\u0301"
        ae.append("\u0301")
        assert ae.token_count == enc.count(edited), (name, n)
        for ch in "xy z":
            ae.append(ch)
        ae.append("\u0308")
        edited += "xy z\u0308"
        assert ae.token_count == enc.count(edited) and ae.text() == edited, (name, n)
