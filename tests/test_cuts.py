import pytest
from hypothesis import given, settings, strategies as st

import bpe_stream
from bpe_stream.cuts import bytes_split_at, text_split_at

from _streaming_helpers import text_st
from conftest import ENCODING_NAMES, corpus_text


def _brute_prefix(count, text, m, start=0):
    return max(j for j in range(start, len(text) + 1) if count(text[start:j]) <= m)


@pytest.mark.parametrize("name", ENCODING_NAMES)
@settings(max_examples=40, deadline=None)
@given(text=text_st, m=st.integers(0, 12), s=st.floats(0, 1))
def test_split_at_exact(name, text, m, s):
    enc = bpe_stream.get_encoding(name)
    start = int(s * len(text))
    assert text_split_at(enc, text, m, start=start) == _brute_prefix(enc.count, text, m, start)
    assert enc.split_at(text, m) == _brute_prefix(enc.count, text, m)
    suffix = enc.truncate_start(text, m)
    best = min(i for i in range(len(text) + 1) if enc.count(text[i:]) <= m)
    assert suffix == text[best:]
    data = text.encode()
    assert bytes_split_at(enc.bpe, data, m, start=min(start, len(data))) == _brute_prefix(
        enc.bpe.count, data, m, min(start, len(data))
    )
    bsuf = enc.bpe.truncate_start(data, m)
    assert bsuf == data[min(i for i in range(len(data) + 1) if enc.bpe.count(data[i:]) <= m) :]


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_corpus_truncate(name):
    enc = bpe_stream.get_encoding(name)
    text = corpus_text("tinyshakespeare.txt")[:60000]
    for m in (1, 100, 1000):
        j = enc.split_at(text, m)
        assert enc.count(text[:j]) <= m < enc.count(text[: j + 1])
        suf = enc.truncate_start(text, m)
        assert enc.count(suf) <= m < enc.count(text[len(text) - len(suf) - 1 :])


def test_errors():
    enc = bpe_stream.get_encoding("cl100k_base")
    with pytest.raises(ValueError):
        enc.split_at("abc", -1)
    with pytest.raises(ValueError):
        text_split_at(enc, "abc", 1, start=5)
    with pytest.raises(TypeError):
        enc.split_at(b"abc", 1)
