"""Pickles written by bpe-stream 0.1.0 (the flat module layout) still load, and the objects
they hold answer like the ones this version builds (tests/data/pickles-0.1.0)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from bpe_stream import (
    AppendableEncoder,
    BytePairEncoding,
    Chunk,
    Chunker,
    Encoding,
    IntervalCounter,
    PrependableEncoder,
    get_encoding,
)

DATA = Path(__file__).resolve().parent / "data" / "pickles-0.1.0"
TEXT = "Streaming counts stay exact.\n    def f(x):  return x ** 2  # 12345 caf\u00e9 \u4e2d\u6587 don't!!\n" * 3
TINY = [b"a", b"b", b"c", b"ab", b"cb", b"ac", b"bb", b"cbb", b"acbb"]
NAMES = {"cl100k": "cl100k_base", "o200k": "o200k_base"}


def load(name: str):
    with open(DATA / f"{name}.pickle", "rb") as f:
        return pickle.load(f)


def test_every_pickle_of_the_folder_loads():
    names = sorted(p.stem for p in DATA.glob("*.pickle"))
    assert len(names) == 15
    for name in names:
        load(name)


def test_encodings():
    assert load("encoding_cl100k") is get_encoding("cl100k_base")
    bpe = load("bpe_tiny")
    assert isinstance(bpe, BytePairEncoding) and bpe.tokens == TINY
    assert bpe.encode(b"abacb") == [3, 0, 4]
    tiny = load("encoding_tiny")
    assert isinstance(tiny, Encoding) and tiny.special_tokens == {"<|end|>": 9}
    assert tiny.encode("abacb<|end|>", allowed_special="all") == [3, 0, 4, 9]


@pytest.mark.parametrize("short", ["cl100k", "o200k"])
def test_streaming_objects(short):
    enc = get_encoding(NAMES[short])
    ae = load(f"appendable_{short}")
    assert isinstance(ae, AppendableEncoder)
    assert ae.text() == TEXT and ae.token_count == enc.count(TEXT)
    ae.append(" more")
    assert ae.token_count == enc.count(TEXT + " more")
    pe = load(f"prependable_{short}")
    assert isinstance(pe, PrependableEncoder)
    assert pe.text() == TEXT and pe.token_count == enc.count(TEXT)
    pe.prepend("Before: ")
    assert pe.token_count == enc.count("Before: " + TEXT)
    ic = load(f"interval_{short}")
    assert isinstance(ic, IntervalCounter)
    assert all(ic.count(i, j) == enc.count(TEXT[i:j]) for i in range(0, len(TEXT), 17) for j in range(i, len(TEXT), 23))
    chunk = load(f"chunk_{short}")
    assert isinstance(chunk, Chunk)
    assert chunk == list(Chunker(enc, 16, overlap=4).chunks(TEXT))[1]


def test_raw_streaming_objects_and_chunker():
    bpe = BytePairEncoding.from_tokens(TINY)
    ab = load("appendable_raw")
    assert ab.text() == b"abacbbacbb" and ab.token_count == bpe.count(b"abacbbacbb")
    pb = load("prependable_raw")
    pb.prepend(b"c")
    assert pb.token_count == bpe.count(b"cabacbbacbb")
    ic = load("interval_raw")
    data = b"abacbbacbbcab"
    assert all(ic.count(i, j) == bpe.count(data[i:j]) for i in range(len(data)) for j in range(i, len(data) + 1))
    chunker = load("chunker_tiny")
    assert [c.text for c in chunker.chunks(b"abacbbacbb")] == [c.text for c in Chunker(bpe, 3).chunks(b"abacbbacbb")]


def test_an_unknown_name_of_an_old_module_is_a_clear_error():
    import importlib

    old = importlib.import_module("bpe_stream." + "piece_stream")  # a 0.1.0 module name
    assert old.TextAppendable.__module__ == "bpe_stream.text.appendable"
    with pytest.raises(AttributeError, match="bpe-stream 0.1.0"):
        old.no_such_name  # noqa: B018
