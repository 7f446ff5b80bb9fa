"""Pre-tokenizers that normalize (Qwen's NFC): every object counts the normalized text.

The model sees ``unicodedata.normalize("NFC", text)``; counts, streaming counts and
interval counts must be its counts for every input, normalized or not.  Cuts fall on
normalization boundaries (never inside a character sequence that normalization joins)
and are maximal among them; chunks are chunks of the normalized text.
"""

from __future__ import annotations

import functools
import random
import unicodedata

import pytest
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
from bpe_stream.pretokenize.normalize import combines_backward, is_boundary
from bpe_stream.text.normalized import NormalizedView

# letters and the accents, jamo and marks that NFC composes with them, reorders or keeps
PARTS = ["e", "E", "a", "o", "\u0301", "\u0302", "\u0308", "\u0323", "\u0304", "\u1100", "\u1161", "\u11a8",
         "\uac00", "\u212b", "\u0958", "\u00e9", " ", "\n", "1", "!", "x" * 5, "\u4e2d", "\u3099", "\u304b"]
texts = st.lists(st.sampled_from(PARTS), max_size=30).map("".join)


@functools.lru_cache(maxsize=None)
def qwen(name="qwen2") -> Encoding:
    return Encoding(name, pretokenizer=name, bpe=get_encoding("cl100k_base").bpe)


def nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


def test_boundaries_split_normalization():
    # normalize(x + y) == normalize(x) + normalize(y) whenever y starts at a boundary
    rng = random.Random(5)
    chars = [chr(c) for c in range(0x3000) if not 0xD800 <= c <= 0xDFFF] + list("\u1100\u1161\u11a8\uac00")
    joins = combines_backward("NFC")
    starters = [c for c in chars if c not in joins]
    for _ in range(30_000):
        x = "".join(rng.choice(chars) for _ in range(rng.randrange(1, 4)))
        y = rng.choice(starters) + "".join(rng.choice(chars) for _ in range(rng.randrange(3)))
        assert nfc(x + y) == nfc(x) + nfc(y), (x, y)
    # and the set is not too small: each of these joins the character before it
    for c in "\u0301\u1161\u11a8\u3099\u0cd5":
        assert c in joins and not is_boundary("a" + c, 1)


@functools.lru_cache(maxsize=None)
def oracle():
    """tiktoken with Qwen's pattern and the cl100k ranks: counts of the normalized text."""
    tiktoken = pytest.importorskip("tiktoken")
    from conftest import tiktoken_oracle

    return tiktoken.Encoding("q", pat_str=qwen().pat_str, mergeable_ranks=tiktoken_oracle("cl100k_base")._mergeable_ranks,
                             special_tokens={})


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.sampled_from(PARTS), max_size=30), cuts=st.lists(st.integers(0, 40), max_size=6))
def test_streaming_counts_are_counts_of_the_normalized_text(parts, cuts):
    enc = qwen()
    ae, pe = AppendableEncoder(enc), PrependableEncoder(enc)
    text = ""
    for part in parts:
        ae.append(part)
        text += part
        assert ae.token_count == enc.count(text) == len(oracle().encode_ordinary(nfc(text)))
    for part in reversed(parts):
        pe.prepend(part)
    assert pe.token_count == enc.count(text) and pe.text() == text and ae.text() == text
    head, tail = text, text
    for k in cuts:
        head, tail = head[: max(0, len(head) - k)], tail[min(k, len(tail)) :]
        ae.truncate(len(head))
        pe.truncate(len(tail))
        assert ae.token_count == enc.count(head) and ae.text() == head
        assert pe.token_count == enc.count(tail) and pe.text() == tail


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, data=st.data())
def test_interval_counts(text, data):
    enc = qwen("qwen3.5")
    ic = IntervalCounter(enc, text)
    for _ in range(15):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, len(text)))
        assert ic.count(i, j) == enc.count(text[i:j]), (text, i, j)


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, budget=st.integers(0, 14))
def test_cuts_are_maximal_among_boundaries(text, budget):
    enc = qwen()
    view = NormalizedView("NFC", text)
    aligned = [i for i in range(len(text) + 1) if view.to_norm(i) is not None]
    j = enc.split_at(text, budget)
    assert j in aligned and enc.count(text[:j]) <= budget
    assert all(enc.count(text[:k]) > budget for k in aligned if k > j)
    i = len(text) - len(enc.truncate_start(text, budget))
    assert i in aligned and enc.count(text[i:]) <= budget
    assert all(enc.count(text[k:]) > budget for k in aligned if k < i)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, budget=st.integers(1, 12), pieces=st.integers(1, 6))
def test_chunks_are_chunks_of_the_normalized_text(text, budget, pieces):
    enc = qwen()
    chunker = Chunker(enc, budget)
    try:
        chunks = chunker.chunks(text)
    except ValueError:
        return  # one character needs more than the budget
    assert "".join(c.text for c in chunks) == nfc(text)
    for c in chunks:
        assert c.token_count == enc.count(c.text) <= budget and c.text == nfc(text)[c.start : c.end]
    step = max(1, len(text) // pieces)
    streamed = list(chunker.chunk_stream(text[k : k + step] for k in range(0, len(text), step)))
    assert streamed == chunks


def test_a_corpus_that_is_not_normalized():
    enc = qwen()
    text = corpus_text("utf8_demo.txt")
    assert nfc(text) != text
    ae = AppendableEncoder(enc)
    for k in range(0, len(text), 101):
        ae.append(text[k : k + 101])
    assert ae.token_count == enc.count(text)
    ic = IntervalCounter(enc, text)
    rng = random.Random(3)
    for _ in range(200):
        i = rng.randrange(len(text))
        j = rng.randrange(i, len(text) + 1)
        assert ic.count(i, j) == enc.count(text[i:j])


# ------------------------------------------------------------------ normalize() by unstable runs

_NORMALIZE_POOL = (
    [chr(c) for c in range(0x300, 0x370)] + list("aeiouAEIOU sS'") + [chr(c) for c in range(0x1100, 0x1200)]
    + list("가각힣ﬁ™Å\u212b\u2126\u0958\u0f73\u0f81\u0bbe\u0bc6\u0b47\u0b3e\u1026\u102e\u1b05\u1b35\u0344\u0340"
           "\u1e9b\u0323\u0307\u05b0\u0591\u3099\u304b\uff76\uff9e\ufb1d\U0001d15e\U000110ab\U000110ba"
           # quiet seconds and their firsts, plain marks, characters whose decomposition
           # ends in a mark (tails)
           "\u09c7\u09be\u09d7\u0b92\u0bd7\u0915\u094d\u093c\u0651\u064e\u0650\u0316\u00e0\u1ea1\u01d6")
    + [chr(c) for c in range(0xAC00, 0xAC40)]
)


@pytest.mark.parametrize("form", ["NFC", "NFKC"])
@settings(max_examples=examples(2000), deadline=None)
@given(text=st.lists(st.sampled_from(_NORMALIZE_POOL), max_size=24).map("".join) | st.text(max_size=24))
def test_normalize_by_runs_equals_unicodedata(form, text):
    from bpe_stream.pretokenize.normalize import normalize

    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    assert normalize(form, text) == unicodedata.normalize(form, text)


@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_normalize_by_runs_on_every_code_point(form):
    from bpe_stream.pretokenize.normalize import normalize

    cps = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    contexts = ["a", "\u0301", "\u1100", "\u1161", "\uac00", "\u00e0", "\u0316", "\u09c7"]
    k = len(contexts)
    texts = ["".join(contexts[j % k] + c + contexts[(j // k) % k] for j, c in enumerate(cps)),
             "".join("e" + c + "\u0323" for c in cps)]
    for text in texts:
        assert normalize(form, text) == unicodedata.normalize(form, text)
    for name in ("multilingual_sentences.txt", "utf8_demo.txt", "blns.txt", "emoji_test.txt"):
        text = corpus_text(name)
        assert normalize(form, text) == unicodedata.normalize(form, text)


@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_normalization_runs_native_equals_python(form):
    # the compiled quick check against its pure-Python twin (the reference)
    from bpe_stream.bpe import native
    from bpe_stream.pretokenize.normalize import _check_table

    if native.normalization_runs is native._normalization_runs_py:
        pytest.skip("compiled core not built")
    table = _check_table(form)
    pool = "".join(_NORMALIZE_POOL) + "\u0627\u0644\u0639\u0631\u0628\u064a\u0629 x\U0001f600"
    rng = random.Random(5)
    texts = ["".join(rng.choice(pool) for _ in range(rng.randrange(40))) for _ in range(300)]
    for name in ("multilingual_sentences.txt", "utf8_demo.txt", "blns.txt"):
        texts.append(corpus_text(name))
    for text in texts:
        assert native.normalization_runs(text, table) == native._normalization_runs_py(text, table)
    with pytest.raises(ValueError):
        native.normalization_runs("abc", table[:100])


def test_normalization_classes_cache(tmp_path, monkeypatch):
    from bpe_stream.pretokenize import normalize as nm

    monkeypatch.setenv("BPE_STREAM_CACHE_DIR", str(tmp_path))
    expected = nm._classes("NFC")
    nm._classes.cache_clear()
    try:
        path = nm._store_path("NFC")
        computed = nm._classes("NFC")  # nothing stored under tmp_path: computed and written
        assert computed == expected and path.is_file()
        nm._classes.cache_clear()
        assert nm._classes("NFC") == expected  # read back
        nm._classes.cache_clear()
        path.write_text('[[769], [1, 55296]]')  # a surrogate: refused, computed again
        assert nm._classes("NFC") == expected
        nm._classes.cache_clear()
        path.write_text('[[65], []]')  # joins not within the unstable set: refused
        assert nm._classes("NFC") == expected
    finally:
        nm._classes.cache_clear()
