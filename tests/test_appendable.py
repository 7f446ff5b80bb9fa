import pickle

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import bpe_stream
import bpe_stream.piece_stream as ps
from bpe_stream.appendable import AppendableEncoder

from _streaming_helpers import ATOMS, text_st
from conftest import ENCODING_NAMES, corpus_text, tiktoken_oracle

ops_st = st.lists(st.tuples(st.booleans(), text_st, st.floats(0, 1)), min_size=1, max_size=15)


@pytest.fixture(params=[False, True], ids=["default", "tiny-keep"])
def small_compression(request, monkeypatch):
    # with tiny constants the long-piece compression runs on short hypothesis texts
    if request.param:
        monkeypatch.setattr(ps, "_KEEP", 3)
        monkeypatch.setattr(ps, "_MIN_CUT", 1)
        monkeypatch.setattr(ps, "_LONG", 6)


@pytest.mark.parametrize("name", ENCODING_NAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=ops_st)
def test_append_truncate_matches_count(name, ops, small_compression):
    enc = bpe_stream.get_encoding(name)
    ae = AppendableEncoder(enc)
    text = ""
    for is_trunc, piece, frac in ops:
        if is_trunc and text:
            n = int(frac * len(text))
            ae.truncate(n)
            text = text[:n]
        else:
            ae.append(piece)
            text += piece
        assert ae.token_count == enc.count(text)
        assert len(ae) == len(text)
    assert ae.tokens() == enc.encode_ordinary(text)


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=60) | text_st.map(lambda s: s.encode()), cuts=st.lists(st.integers(1, 7), max_size=20))
def test_raw_append_bytes_in_pieces(data, cuts):
    enc = bpe_stream.get_encoding("cl100k_base")
    ae = AppendableEncoder(enc.bpe)
    p = 0
    for c in cuts + [len(data)]:
        ae.append(data[p : p + c])  # splits inside multi-byte characters too
        p += c
        assert ae.token_count == enc.bpe.count(data[:p][: len(ae)])
    assert ae.tokens() == enc.bpe.encode(data)
    for n in (len(data) // 2, 0):
        ae.truncate(n)
        assert ae.token_count == enc.bpe.count(data[:n])


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_corpora_char_by_char_vs_tiktoken(name):
    enc = bpe_stream.get_encoding(name)
    tt = tiktoken_oracle(name)
    for corpus in ["tinyshakespeare.txt", "blns.txt", "multilingual_sentences.txt", "code_python_black.py.txt"]:
        text = corpus_text(corpus)[:1500]
        ae = AppendableEncoder(enc)
        for k, ch in enumerate(text, 1):
            ae.append(ch)
            if k % 97 == 0:
                assert ae.token_count == len(tt.encode_ordinary(text[:k]))
        assert ae.token_count == len(tt.encode_ordinary(text))


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_long_pieces_grow_and_shrink(name):
    enc = bpe_stream.get_encoding(name)
    tt = tiktoken_oracle(name)  # enc.count itself is the object under test elsewhere
    count = lambda t: len(tt.encode_ordinary(t))  # noqa: E731
    for base in ["x" * 3000, " " * 3000, "\n" + " " * 3000, "中" * 2000, "!" * 3000, "A" * 2000 + "bc"]:
        ae = AppendableEncoder(enc)
        text = ""
        for i in range(0, len(base), 7):
            ae.append(base[i : i + 7])
            text += base[i : i + 7]
        assert ae.token_count == count(text)
        for tail in ["x", " ", "\n", "'ll", "1", " y"]:
            c = ae.copy()
            c.append(tail)
            assert c.token_count == count(text + tail)
        ae.truncate(len(text) - 1)
        assert ae.token_count == count(text[:-1])


def test_errors_and_pickle():
    enc = bpe_stream.get_encoding("cl100k_base")
    ae = AppendableEncoder(enc)
    with pytest.raises(TypeError):
        ae.append(b"bytes")
    with pytest.raises(ValueError):
        ae.truncate(5)
    with pytest.raises(TypeError):
        AppendableEncoder("cl100k")
    raw = AppendableEncoder(enc.bpe)
    with pytest.raises(TypeError):
        raw.append("str")
    ae.append("hello world")
    ae2 = pickle.loads(pickle.dumps(ae))
    assert ae2.token_count == ae.token_count == 2
    raw.append(b"hello")
    assert pickle.loads(pickle.dumps(raw)).token_count == raw.token_count
