import pickle

import pytest
from hypothesis import given, settings, strategies as st

import bpe_stream
from bpe_stream.prependable import PrependableEncoder

from _streaming_helpers import text_st
from conftest import ENCODING_NAMES, corpus_text, tiktoken_oracle

ops_st = st.lists(st.tuples(st.booleans(), text_st, st.floats(0, 1)), min_size=1, max_size=15)


@pytest.mark.parametrize("name", ENCODING_NAMES)
@settings(max_examples=60, deadline=None)
@given(ops=ops_st)
def test_prepend_truncate_matches_count(name, ops):
    enc = bpe_stream.get_encoding(name)
    pe = PrependableEncoder(enc)
    text = ""
    for is_trunc, piece, frac in ops:
        if is_trunc and text:
            n = int(frac * len(text))
            pe.truncate(n)
            text = text[len(text) - n :]
        else:
            pe.prepend(piece)
            text = piece + text
        assert pe.token_count == enc.count(text)
        assert len(pe) == len(text)


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=60) | text_st.map(lambda s: s.encode()), cuts=st.lists(st.integers(1, 7), max_size=20))
def test_raw_prepend(data, cuts):
    bpe = bpe_stream.get_encoding("cl100k_base").bpe
    pe = PrependableEncoder(bpe)
    p = len(data)
    for c in cuts + [len(data)]:
        q = max(0, p - c)
        pe.prepend(data[q:p])
        p = q
        assert pe.token_count == bpe.count(data[p:])
    assert pe.tokens() == bpe.encode(data)
    pe.truncate(len(data) // 2)
    assert pe.token_count == bpe.count(data[len(data) - len(data) // 2 :])


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_corpus_backwards_vs_tiktoken(name):
    enc = bpe_stream.get_encoding(name)
    tt = tiktoken_oracle(name)
    text = corpus_text("markdown_docs.md")[:3000]
    pe = PrependableEncoder(enc)
    for k in range(len(text), 0, -50):
        pe.prepend(text[max(0, k - 50) : k])
        assert pe.token_count == len(tt.encode_ordinary(text[max(0, k - 50) :]))


def test_errors_pickle():
    enc = bpe_stream.get_encoding("cl100k_base")
    pe = PrependableEncoder(enc)
    with pytest.raises(TypeError):
        pe.prepend(b"x")
    with pytest.raises(ValueError):
        pe.truncate(1)
    pe.prepend("world")
    pe.prepend("hello ")
    assert pickle.loads(pickle.dumps(pe)).token_count == 2
