import pytest
from hypothesis import given, settings, strategies as st

import bpe_stream
from bpe_stream.interval import IntervalCounter

from _streaming_helpers import text_st
from conftest import ENCODING_NAMES, corpus_text, tiktoken_oracle


@pytest.mark.parametrize("name", ENCODING_NAMES)
@settings(max_examples=40, deadline=None)
@given(text=text_st, qs=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=20))
def test_text_intervals(name, text, qs):
    enc = bpe_stream.get_encoding(name)
    ic = IntervalCounter(enc, text)
    data = text.encode()
    ib = IntervalCounter(enc.bpe, data)
    for x, y in qs:
        i, j = sorted((int(x * len(text)), int(y * len(text))))
        assert ic.count(i, j) == enc.count(text[i:j])
        i, j = sorted((int(x * len(data)), int(y * len(data))))
        assert ib.count(i, j) == enc.bpe.count(data[i:j])


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
