"""The compiled text interval query (_native/text_intervals.c) against the Python one.

``_TextIntervals.native_count(i, j)`` answers a count or -1 ("ask the Python index");
every answer must equal ``_count_python(i, j)`` (the reference) and ``enc.count`` of the
slice.  Also: ``IntervalCounter`` with and without it gives the same counts and raises the
same exceptions for bad arguments.  And the raw index's compiled periodic-run scan
(_native/periodic_runs.c) against the regex it replaces.
"""

import random

import pytest
from _streaming_helpers import CLASS_ALPHABET, ENCODINGS_WITH_CROSS, encoding_by_name, long_text_st, text_st
from conftest import corpus_text, examples
from hypothesis import example, given, settings
from hypothesis import strategies as st

import bpe_stream
from bpe_stream.bpe.native import compiled_available, text_query
from bpe_stream.stream.interval import IntervalCounter

pytestmark = pytest.mark.skipif(text_query is None or not compiled_available(), reason="compiled core not built or off")

HAND_PICKED = [
    "Hello world, this is a test.  It's 12345 o'clock!\n\n  Done?\r\n\tyes",
    "Ünïcode wörds, café déjà-vu; naïve résumé.\n",
    "中文字符没有空格的文本，还有标点。日本語のテキストも。",
    "emoji 😀👍🏽 and 👨‍👩‍👧 joined; flags 🇫🇷🇩🇪 end",
    "CamelCaseWords and HTTPServer XMLHttpRequest ʰʲ modifier\u0301 marks",
    "!!! ... ??? /// '' 'll 'S 'VE --- *** \n\n\n///\n'",
    "    indented\n        more\n\n\n    x = 1  \n",
    "a" * 100 + " " + "中" * 80 + " \n" * 40 + "!" * 70 + "x",
    "Ωμέγα Ελληνικά кириллица текст العربية עברית हिन्दी ไทย",
]


def _check_all(enc, text, pairs):
    ti = IntervalCounter(enc, text)._impl
    assert ti.native_count is not None
    answered = 0
    for i, j in pairs:
        c = ti.native_count(i, j)
        assert c >= -1
        if c >= 0:
            answered += 1
            assert c == ti._count_python(i, j) == enc.count(text[i:j]), (i, j, text[i:j])
    return answered


@pytest.mark.parametrize("name", ENCODINGS_WITH_CROSS)
def test_every_range_of_hand_picked_texts(name):
    enc = encoding_by_name(name)
    answered = total = 0
    for text in HAND_PICKED:
        n = len(text)
        # every range of the short ones; every range starting or ending near a 7th position
        # of the long ones (cuts inside pieces, next to multi-byte characters, empty ranges)
        pairs = [(i, j) for i in range(n + 1) for j in range(i, n + 1) if n <= 70 or i % 7 == 0 or j % 7 == 0]
        answered += _check_all(enc, text, pairs)
        total += len(pairs)
    assert answered > total // 3  # the compiled query takes the bulk of the queries


@pytest.mark.parametrize("name", ENCODINGS_WITH_CROSS)
@settings(max_examples=examples(80), deadline=None)
@given(
    text=text_st | long_text_st | st.text(alphabet=CLASS_ALPHABET, max_size=40),
    qs=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=30),
)
@example(text="a\u0301b'sS中 ʰ\u3000!", qs=[(0.0, 1.0)])
def test_native_query_equals_reference(name, text, qs):
    enc = encoding_by_name(name)
    n = len(text)
    pairs = [tuple(sorted((int(x * n), int(y * n)))) for x, y in qs]
    pairs += [(i, i) for i, _ in pairs]
    _check_all(enc, text, pairs)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_corpus_ranges(name):
    enc = bpe_stream.get_encoding(name)
    rng = random.Random(3)
    for corpus in ["multilingual_sentences.txt", "emoji_test.txt", "utf8_demo.txt"]:
        text = corpus_text(corpus)[:30000]
        pairs = []
        for _ in range(300):
            i = rng.randrange(len(text))
            pairs.append((i, min(len(text), i + rng.choice([1, 2, 5, 30, 300, 3000]))))
        _check_all(enc, text, pairs)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_same_exceptions_and_surrogate_offsets(name):
    enc = bpe_stream.get_encoding(name)
    text = "hello wörld 😀 end"
    ic = IntervalCounter(enc, text)
    assert ic._native_count is not None
    for args, exc in [((3, 2), ValueError), ((0, len(text) + 1), ValueError), ((-1, 2), ValueError),
                      ((True, 2), TypeError), ((0, 2.0), TypeError), ((0, "2"), TypeError),
                      ((0, 2**70), ValueError)]:
        with pytest.raises(exc):
            ic.count(*args)
    # a str with a surrogate pair: offsets are the caller's, the compiled query is not used
    sur = "ab\ud83d\ude00cd efg"
    ic2 = IntervalCounter(enc, sur)
    assert ic2._native_count is None
    assert ic2.count(0, len(sur)) == IntervalCounter(enc, "ab😀cd efg").count(0, 9)


@pytest.mark.parametrize("name", ENCODINGS_WITH_CROSS)
def test_every_range_of_random_short_strings(name):
    # every class of both patterns' fast split next to every other: leads before words,
    # marks after leads, apostrophes, whitespace pieces first in a range's end
    from _streaming_helpers import LETTER_ALPHABET

    enc = encoding_by_name(name)
    rng = random.Random(11)
    alphabet = CLASS_ALPHABET + LETTER_ALPHABET + "é😀\u3000"
    for _ in range(examples(400, fast=60)):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 11)))
        n = len(text)
        _check_all(enc, text, [(i, j) for i in range(n + 1) for j in range(i, n + 1)])


_PERIODIC_ATOMS = [b"a", b"ab", b"abc", b"abcd", b"abcde", b" ", b"\n", b"x" * 70, b"ab" * 40, b"abc" * 30,
                   b"aab" * 25, b"\xe4\xb8\xad" * 30, b" \n" * 40, b"aaaab" * 20, b"ab" * 8, b"a" * 15, b"a" * 16]


@settings(max_examples=examples(400), deadline=None)
@given(parts=st.lists(st.sampled_from(_PERIODIC_ATOMS), max_size=12), min_run=st.sampled_from([0, 16, 64]))
def test_periodic_runs_equal_the_regex(parts, min_run):
    # the compiled scan of the raw index's periodic runs (_native/periodic_runs.c): the
    # matches of bpe/intervals.py's _PERIODIC, units found lazily, repeats greedily
    from bpe_stream.bpe.intervals import _PERIODIC
    from bpe_stream.bpe.native import periodic_runs

    data = b"".join(parts)
    want = [(m.start(), m.end(), len(m.group(1))) for m in _PERIODIC.finditer(data) if m.end() - m.start() >= min_run]
    assert periodic_runs(data, min_run) == want


@settings(max_examples=examples(200, fast=30), deadline=None)
@given(text=st.text(max_size=300) | st.sampled_from(HAND_PICKED))
def test_distinct_chars_as_set(text):
    # the distinct characters the text index classes (text_intervals.c), against set(text);
    # also astral characters and surrogates (a str may hold lone ones)
    from bpe_stream.bpe.native import distinct_chars

    for t in [text, text + "\U0010ffff\ud800\x00", text * 3]:
        assert distinct_chars(t) == "".join(sorted(set(t)))
    with pytest.raises(TypeError):
        distinct_chars(b"bytes")
