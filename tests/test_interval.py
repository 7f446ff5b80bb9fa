import pytest
from _streaming_helpers import (
    ENCODINGS_WITH_CROSS,
    encoding_by_name,
    long_text_st,
    text_st,
)
from conftest import ENCODING_NAMES, IMPLEMENTATIONS, corpus_text, encoding_with, examples, full_tier_only, tiktoken_oracle
from hypothesis import example, given, settings
from hypothesis import strategies as st

import bpe_stream
from bpe_stream.stream.interval import IntervalCounter


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_corpus_intervals_vs_tiktoken(name):
    import random

    enc = bpe_stream.get_encoding(name)
    tt = tiktoken_oracle(name)
    rng = random.Random(5)
    for corpus in ["taylorswift.txt", "utf8_demo.txt", "emoji_test.txt"]:
        text = corpus_text(corpus)[:20000]
        ic = IntervalCounter(enc, text)
        for _ in range(150):
            i = rng.randrange(len(text))
            j = min(len(text), i + rng.choice([1, 10, 100, 1000, 10000]))
            assert ic.count(i, j) == len(tt.encode_ordinary(text[i:j]))


def test_errors():
    enc = bpe_stream.get_encoding("cl100k_base")
    ic = IntervalCounter(enc, "hello")
    with pytest.raises(ValueError):
        ic.count(3, 2)
    with pytest.raises(ValueError):
        ic.count(0, 6)
    with pytest.raises(TypeError):
        IntervalCounter(enc.bpe, "str")


@pytest.mark.parametrize("name", ENCODINGS_WITH_CROSS)
@settings(max_examples=examples(60), deadline=None)
@given(text=text_st | long_text_st, qs=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=25))
def test_intervals_short_texts_and_long_runs(name, text, qs):
    # long words, whitespace runs mixing spaces and newlines, digit runs, punctuation runs,
    # periodic byte runs: the paths that avoid re-splitting (and re-counting) long pieces;
    # also with a vocabulary whose tokens cross piece boundaries
    enc = encoding_by_name(name)
    ic = IntervalCounter(enc, text)
    data = text.encode()
    ib = IntervalCounter(enc.bpe, data)
    for x, y in qs:
        i, j = sorted((int(x * len(text)), int(y * len(text))))
        assert ic.count(i, j) == enc.count(text[i:j]), (i, j)
        assert ic.count(i, len(text)) == enc.count(text[i:])
        assert ic.count(0, j) == enc.count(text[:j])
        i, j = sorted((int(x * len(data)), int(y * len(data))))
        assert ib.count(i, j) == enc.bpe.count(data[i:j])


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_every_interval_small_texts(name):
    # all (i, j) of texts built to hit each shortcut: word prefixes/suffixes, punctuation runs,
    # whitespace-only pieces after non-whitespace ones, contractions, marks, o200k case changes
    enc = bpe_stream.get_encoding(name)
    for text in ["Hello world's  end!!\n\n  x", "ab'll \u0301Ba ʰBa 中文Ab", "a \n \n b!?\n/x 123456 7",
                 "  word\t\tWORD  'tis", "x" * 70 + " " + "!" * 66 + "\n" * 65 + "y"]:
        ic = IntervalCounter(enc, text)
        for i in range(len(text) + 1):
            for j in range(i, len(text) + 1):
                assert ic.count(i, j) == enc.count(text[i:j]), (text, i, j)


def test_memory_and_periodic_runs():
    enc = bpe_stream.get_encoding("cl100k_base")
    data = b"abc " * 50 + b" " * 3000 + b"xy" * 500
    ib = IntervalCounter(enc.bpe, data)
    n1 = len(data) + 1  # token lengths, on-path bits and their ranks (4 bytes per 64 bits)
    assert ib.memory_bytes() == (n1 + 12 * (-(-n1 // 64)) if enc.bpe._core is not None else 13 * n1)
    for i, j in [(200, 3200), (201, 3199), (3200, 4200), (3201, 4200), (0, len(data)), (250, 3500)]:
        assert ib.count(i, j) == enc.bpe.count(data[i:j])


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_long_pieces_indexed_with_the_split(name, implementation, monkeypatch):
    """Pieces of ``_EAGER_LONG`` characters or more get their raw index with the split and
    their count from it (runs of one character excepted), in blocks and in one split; the
    ASCII-letter skip of the block search.  Thresholds made small so the text stays short."""
    import random

    from bpe_stream.text import intervals

    if implementation == "python" and name != "cl100k_base":
        full_tier_only()
    monkeypatch.setattr(intervals, "_EAGER_LONG", 300)
    monkeypatch.setattr(intervals, "_BUILD_BLOCK", 1024)
    monkeypatch.setattr(intervals, "_ALPHA_SKIP", 64)
    enc = encoding_with(name, implementation)
    rng = random.Random(3)
    letters = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(700))
    accented = "".join(rng.choice("abcé中ü") for _ in range(400))
    prose = "The quick brown fox, it's 12345 jumps! \n\n  over the lazy dog. "
    parts = [prose * 3, letters, " ", accented, prose * 20, "q" * 500, ". ", letters[:350] + "Z", prose * 30, letters]
    for text in ["".join(parts), letters + " " + accented + " " + "q" * 400]:
        ti = IntervalCounter(enc, text)._impl
        eager = {k for k in range(len(ti.starts) - 1) if ti.starts[k + 1] - ti.starts[k] >= 300
                 and len(set(text[ti.starts[k]:ti.starts[k + 1]])) > 1}
        assert eager and set(ti.long) == eager
        assert ti.cum[-1] == enc.count(text)
        n = len(text)
        qs = [(ti.starts[k], ti.starts[k + 1]) for k in eager]
        qs += [(rng.randrange(n), rng.randrange(n)) for _ in range(60)]
        for i, j in qs:
            i, j = min(i, j), max(i, j)
            assert ti.count(i, j) == enc.count(text[i:j]), (i, j)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ab \n.中"), st.sampled_from([1, 5, 31, 32, 33, 63, 64, 65, 96, 97, 200, 3000])), max_size=8))
def test_uniform_runs_as_the_pattern(parts):
    """The windowed scan finds what ``(.)\\1{63}`` searched left to right (then widened) finds."""
    import re

    from bpe_stream.text.intervals import _uniform_runs

    text = "".join(c * k for c, k in parts)
    want, pos = [], 0
    while (m := re.compile(r"(.)\1{63}", re.S).search(text, pos)) is not None:
        pos = re.compile(re.escape(m.group(1)) + "*").match(text, m.end()).end()
        want.append((m.start(), pos))
    assert _uniform_runs(text) == want


WS_RUN_HEADS = ["", "word", "WORD", "x'", "42", "!", "!?", "!\n\n", "!\n" + "\n" * 70, "it's", "/", "中", "\u0301", " ", "a "]
WS_CHARS = st.sampled_from([" ", "\n", "\r", "\t", "\r\n", "\u3000", "  "])


@pytest.mark.parametrize("name", ENCODING_NAMES)
@settings(max_examples=examples(60), deadline=None)
@given(
    head=st.sampled_from(WS_RUN_HEADS + ["!" + "\n" * 80, "x!\n\n", "a " + "!" * 70 + "\n" * 70]),
    run=st.lists(WS_CHARS, min_size=40, max_size=120).map("".join),
    tail=st.sampled_from(["", "x", " y", "!", "\n", "9"]),
    qs=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=25),
)
def test_intervals_ending_inside_long_whitespace_runs(name, head, run, tail, qs):
    # queries whose end lies deep inside a whitespace run longer than the shortcut's threshold,
    # after letters, digits, punctuation (absorbing newlines), marks or other whitespace
    enc = bpe_stream.get_encoding(name)
    text = head + run + tail
    ic = IntervalCounter(enc, text)
    for x, y in qs:
        i, j = sorted((int(x * len(text)), int(y * len(text))))
        assert ic.count(i, j) == enc.count(text[i:j]), (i, j)
        j2 = len(head) + int(y * len(run))
        assert ic.count(i, max(i, j2)) == enc.count(text[i:max(i, j2)]), (i, j2)


LONG_PIECE_ALPHABETS = ["abcdefghijklmnopqrstuvwxyz", "etaoinsh", "中文字母汉语言", "éàüßøa", "ab中é😀", "АБВгде"]


@pytest.mark.parametrize("name", ENCODING_NAMES)
@settings(max_examples=examples(100, fast=6), deadline=None)
@given(
    alphabet=st.sampled_from(LONG_PIECE_ALPHABETS),
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(65, 700),
    qs=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=20),
)
def test_intervals_inside_long_pieces_vs_tiktoken(name, alphabet, seed, n, qs):
    # one long word (random letters, CJK without spaces, accented, mixed widths): the raw
    # index of a long piece (compiled: token lengths and the whole text's path, characters
    # mapped to bytes by samples) against tiktoken's count of the slice
    import random

    rng = random.Random(seed)
    text = "".join(rng.choice(alphabet) for _ in range(n))
    enc = bpe_stream.get_encoding(name)
    tt = tiktoken_oracle(name)
    ic = IntervalCounter(enc, text)
    for x, y in qs + [(0, 1)]:
        i, j = sorted((int(x * n), int(y * n)))
        assert ic.count(i, j) == len(tt.encode_ordinary(text[i:j])), (i, j)


RAW_RUNS = [b"\n", b" ", b"\r\n", b"\n ", b"ab", b"7", b"!", b"\xe4\xb8\xad"]


@pytest.mark.parametrize("name", ENCODING_NAMES)
@settings(max_examples=examples(40), deadline=None)
@given(
    parts=st.lists(
        st.tuples(st.sampled_from(RAW_RUNS), st.integers(1, 500)) | st.sampled_from([(b"x", 1), (b"!", 1), (b"a!", 1)]),
        min_size=1,
        max_size=5,
    ),
    qs=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=12),
)
def test_raw_intervals_across_periodic_runs(name, parts, qs):
    # queries that start inside a long periodic run and end past it (shifted by whole periods),
    # or cross several runs (periodic skips inside the table pass), and their memo
    enc = bpe_stream.get_encoding(name)
    data = b"".join(unit * k for unit, k in parts)
    ib = IntervalCounter(enc.bpe, data)
    for x, y in qs:
        i, j = sorted((int(x * len(data)), int(y * len(data))))
        assert ib.count(i, j) == enc.bpe.count(data[i:j]), (i, j)
        assert ib.count(i, len(data)) == enc.bpe.count(data[i:])


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_raw_intervals_skip_through_long_runs(name):
    # starts whose encodings do not meet the whole text's before a long run of another
    # unit (o200k: spaces, a newline, then 3,000 newlines; found by search): the table
    # pass skips whole periods inside that run
    enc = bpe_stream.get_encoding(name)
    for data in [b" " * 100 + b"\n" * 3001 + b"z", b"\n" * 300 + b" " * 900 + b"ab" * 400 + b"\r\n" * 300 + b"x"]:
        ib = IntervalCounter(enc.bpe, data)
        for i in range(0, 101, 3):
            for j in (len(data), len(data) - 1, 2000):
                assert ib.count(i, j) == enc.bpe.count(data[i:j]), (i, j)


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_pickle_after_queries(name):
    # lazily built parts (long-piece indexes, memos, the hard-boundary test) must not
    # make a used counter unpicklable
    import pickle

    enc = bpe_stream.get_encoding(name)
    text = "word" + " \n" * 100 + "!" + "\n" * 80 + "  x" + " " * 300 + "y"
    for counter, data in ((IntervalCounter(enc, text), text), (IntervalCounter(enc.bpe, text.encode()), text.encode())):
        for i in range(0, len(data), 7):
            counter.count(i, len(data))
            counter.count(0, i)
        copy = pickle.loads(pickle.dumps(counter))
        count = enc.count if isinstance(data, str) else enc.bpe.count
        for i, j in [(0, len(data)), (3, 50), (5, len(data) - 2), (200, 400)]:
            assert copy.count(i, j) == count(data[i:j])


PUNCT_MARKS = "!!'/\u0301a A\n.中"


@pytest.mark.parametrize("name", ENCODINGS_WITH_CROSS)
@settings(max_examples=examples(150), deadline=None)
@given(text=st.text(alphabet=PUNCT_MARKS, min_size=1, max_size=20))
@example(text="!!!\u0301.aA a !!a.A")  # a mark after "!!" stays in the punctuation piece
@example(text="!A!  .!\u0301/.")  # "  " before "." in text[:5]: one whitespace piece
@example(text="!/\n//!\nAa")  # "//" in the tail, then "!": one piece from the first "/"
def test_every_interval_punctuation_with_marks_apostrophes_slashes(name, text):
    # o200k words take marks after a punctuation lead ("!\u0301" is a word, "!!\u0301" a
    # punctuation piece), an o200k "/" may sit in a piece's [\r\n/]* tail, a space-led
    # punctuation piece follows a whitespace piece that reads one character into it: the
    # shortcuts for punctuation pieces must respect all three
    enc = encoding_by_name(name)
    ic = IntervalCounter(enc, text)
    for i in range(len(text) + 1):
        for j in range(i, len(text) + 1):
            assert ic.count(i, j) == enc.count(text[i:j]), (i, j)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=examples(100), deadline=None)
@given(text=st.lists(st.sampled_from(["a", " ", "\n", "1", "\ud83d\ude00", "\ud83d", "\ude00", "\u4e2d"]),
                     max_size=14).map("".join))
def test_interval_counts_on_the_callers_offsets(name, text):
    # a str holding surrogates: offsets are the caller's, pairs count as tiktoken counts them
    enc = bpe_stream.get_encoding(name)
    ic = bpe_stream.IntervalCounter(enc, text)
    assert len(ic) == len(text)
    for a in range(len(text) + 1):
        for b in range(a, len(text) + 1):
            assert ic.count(a, b) == enc.count(text[a:b]), (text, a, b)
