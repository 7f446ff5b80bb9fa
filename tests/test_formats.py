"""Vocabulary files: each format against HF tokenizers on vocabularies HF itself trained,
every pre-tokenizer and normalizer a tokenizer.json may hold, the merge-order rules, and
every kind of bad file refused with an error naming the problem.

The vocabularies are trained here by HF's own BPE trainer (byte level, a few thousand
merges over the corpus), so HF is the independent reference on files HF wrote.
"""

from __future__ import annotations

import base64
import functools
import gzip
import json
import random

import pytest
from conftest import CORPUS_FILES, examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import bpe_stream
from bpe_stream import Encoding

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, trainers  # noqa: E402

_LLAMA3 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
           r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


def _byte_level(use_regex: bool):
    return pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=use_regex)


# name -> (pre-tokenizer, normalizer): the layouts published tokenizer.json files use
LAYOUTS = {
    "gpt2": (lambda: _byte_level(True), None),
    "split-then-bytes": (lambda: pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(_LLAMA3), "isolated"),
                                                          _byte_level(False)]), None),
    "digits-then-gpt2": (lambda: pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                          _byte_level(True)]), None),
    "digit-runs-nfkc": (lambda: pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=False),
                                                         _byte_level(True)]), normalizers.NFKC),
    "split-string-nfc": (lambda: pre_tokenizers.Sequence([pre_tokenizers.Split("\n", "isolated"),
                                                          pre_tokenizers.Split(Regex(_LLAMA3), "isolated"),
                                                          _byte_level(False)]),
                         lambda: normalizers.Sequence([normalizers.NFC()])),
}


@functools.lru_cache(maxsize=None)
def _trained(layout: str) -> str:
    """The tokenizer.json text of a byte-level BPE HF trains over the corpus."""
    pre, norm = LAYOUTS[layout]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre()
    if norm is not None:
        tok.normalizer = norm()
    tok.decoder = tokenizers.decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1500, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  special_tokens=["<|endoftext|>", "<pad>"], show_progress=False)
    texts = [p.read_text(encoding="utf-8")[:40_000] for p in CORPUS_FILES] or ["hello world " * 100]
    tok.train_from_iterator(texts, trainer)
    return tok.to_str()


def _load(tmp_path, text: str, name: str = "tokenizer.json") -> Encoding:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return bpe_stream.load(path)


def _sample_texts():
    rng = random.Random(3)
    out = ["", " ", "hello world", "Hello  World!!\n\n", "12345 67", "e\u0301t\u00e9 \ufb01ne \u2460",
           "<|endoftext|> is special", "\r\n\t x"]
    for p in CORPUS_FILES:
        t = p.read_text(encoding="utf-8")
        for _ in range(3):
            i = rng.randrange(max(1, len(t) - 2000))
            out.append(t[i : i + 2000])
    return out


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_trained_tokenizer_json_encodes_like_hf(tmp_path, layout):
    text = _trained(layout)
    hf = Tokenizer.from_str(text)
    enc = _load(tmp_path, text)
    assert enc.vocabulary_info()["engine"] == "rank order"
    assert enc.special_tokens == {"<|endoftext|>": 0, "<pad>": 1}
    for t in _sample_texts():
        assert enc.encode(t, allowed_special="all") == hf.encode(t, add_special_tokens=False).ids, t[:60]
    # the pair form of merges reads the same
    data = json.loads(text)
    data["model"]["merges"] = [m.split(" ") if isinstance(m, str) else m for m in data["model"]["merges"]]
    again = _load(tmp_path, json.dumps(data), "pairs.json")
    assert again.encode_ordinary("hello world 123") == enc.encode_ordinary("hello world 123")


_ATOMS = list("aZ09 \t\n\r'sS.,!?/-_()\"#") + ["\r\n", "\u00a0", "é", "e\u0301", "\ufb01", "\u2460", "中文",
                                              "\U0001F600", "１２", "hello", " world", "1234567", "   "]


@pytest.mark.parametrize("layout", list(LAYOUTS))
@given(text=st.lists(st.sampled_from(_ATOMS), max_size=30).map("".join))
@settings(max_examples=examples(100), deadline=None)
def test_trained_tokenizer_json_on_any_text(tmp_path_factory, layout, text):
    enc = _cached_load(tmp_path_factory, layout)
    hf = _cached_hf(layout)
    assert enc.encode_ordinary(text) == hf.encode(text, add_special_tokens=False).ids


@functools.lru_cache(maxsize=None)
def _cached_hf(layout):
    return Tokenizer.from_str(_trained(layout))


_loaded: dict = {}


def _cached_load(factory, layout):
    if layout not in _loaded:
        _loaded[layout] = _load(factory.mktemp(layout), _trained(layout))
    return _loaded[layout]


def test_merges_rank_order_cannot_follow_are_served_by_hfs_loop(tmp_path):
    """Dropping merges leaves tokens no merge makes (HF emits them only whole, and only
    with ignore_merges) and tokens rank order would build from unlisted pairs: HF's own
    merge loop then serves the pieces, and the repr says so."""
    data = json.loads(_trained("gpt2"))
    rng = random.Random(5)
    merges = data["model"]["merges"]
    data["model"]["merges"] = [m for m in merges if rng.random() > 0.1]
    for ignore_merges in (False, True):
        data["model"]["ignore_merges"] = ignore_merges
        text = json.dumps(data)
        hf = Tokenizer.from_str(text)
        enc = _load(tmp_path, text)
        assert "served by HF's merge loop" in repr(enc)
        assert enc.vocabulary_info()["engine"].startswith("HF's merge loop")
        for t in _sample_texts():
            assert enc.encode(t, allowed_special="all") == hf.encode(t, add_special_tokens=False).ids
            n = len(hf.encode(t, add_special_tokens=False).ids)
            if "<|endoftext|>" not in t:
                assert enc.count_till_limit(t, n) == n and (n == 0 or enc.count_till_limit(t, n - 1) is None)
        saved = tmp_path / "saved.bpe"
        enc.save(saved)
        back = bpe_stream.load(saved)
        assert repr(back).endswith(repr(enc).split(",", 1)[1])
        for t in _sample_texts():
            assert back.encode(t, allowed_special="all") == enc.encode(t, allowed_special="all")
        for make in (lambda: bpe_stream.AppendableEncoder(enc), lambda: bpe_stream.Chunker(enc, 10),
                     lambda: enc.truncate("abc", 1), lambda: bpe_stream.IntervalCounter(enc, "abc")):
            with pytest.raises(ValueError, match="merges follow its rank order"):
                make()


def test_ignore_merges_false_never_gives_an_unlisted_token_alone(tmp_path):
    data = json.loads(_trained("gpt2"))
    vocab = data["model"]["vocab"]
    # a token no merge makes: HF gives it for a piece equal to it only with ignore_merges
    vocab["Ġzyzzyvas"] = max(vocab.values()) + 1
    for ignore_merges in (False, True):
        data["model"]["ignore_merges"] = ignore_merges
        text = json.dumps(data)
        hf, enc = Tokenizer.from_str(text), _load(tmp_path, text)
        enc.save(tmp_path / "saved.bpe")
        back = bpe_stream.load(tmp_path / "saved.bpe")
        for t in (" zyzzyvas", "a zyzzyvas b", " zyzzyvasx"):
            assert enc.encode_ordinary(t) == hf.encode(t, add_special_tokens=False).ids, (ignore_merges, t)
            assert back.encode_ordinary(t) == enc.encode_ordinary(t)
        assert enc.decode([vocab["Ġzyzzyvas"]]) == " zyzzyvas"


def test_tiktoken_files_need_a_pattern_and_take_members_or_regexes(tmp_path):
    path = tmp_path / "r50k.tiktoken"
    bpe_stream.get_encoding("r50k_base").save(path)
    plain = tmp_path / "plain.tiktoken"
    plain.write_bytes(b"\n".join(ln for ln in path.read_bytes().split(b"\n") if not ln.startswith(b"#")))
    with pytest.raises(ValueError, match="needs|give pattern=.*gpt2.*llama3"):
        bpe_stream.load(plain)
    by_name = bpe_stream.load(plain, pattern="gpt2", special_tokens={"<|endoftext|>": 50256})
    by_regex = bpe_stream.load(plain, pattern=bpe_stream.get_encoding("r50k_base").pat_str)
    text = "Hello world, it's 2025!"
    assert by_name.encode_ordinary(text) == by_regex.encode_ordinary(text) == \
        bpe_stream.get_encoding("r50k_base").encode_ordinary(text)
    assert by_name.special_tokens == {"<|endoftext|>": 50256}
    whole = bpe_stream.load(plain, pattern="")
    assert whole.pretokenizer is None and whole.count("hello world") >= 1
    gz = tmp_path / "plain.tiktoken.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    assert bpe_stream.load(gz, pattern="gpt2").encode_ordinary(text) == by_name.encode_ordinary(text)


def test_tekken_layout(tmp_path):
    ranks = {bytes([b]): b for b in range(256)} | {b"he": 256, b"ll": 257, b"hell": 258, b"hello": 259}
    vocab = [{"rank": r, "token_bytes": base64.b64encode(t).decode(), "token_str": None}
             for t, r in sorted(ranks.items(), key=lambda kv: kv[1])]
    data = {"config": {"pattern": r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|\s+", "default_vocab_size": 263,
                       "default_num_special_tokens": 4, "version": "v3"}, "vocab": vocab}
    enc = _load(tmp_path, json.dumps(data), "tekken.json")
    # the first 263 - 4 ranks are used; ids are rank + 4; the specials take 0..3
    assert enc.special_tokens == {"<unk>": 0, "<s>": 1, "</s>": 2, "[INST]": 3}
    assert enc.encode_ordinary("hello") == [258 + 4, ord("o") + 4]
    data["special_tokens"] = [{"rank": i, "token_str": f"<S{i}>", "is_control": True} for i in range(4)]
    assert _load(tmp_path, json.dumps(data), "tekken.json").special_tokens == {f"<S{i}>": i for i in range(4)}


@pytest.mark.parametrize(("content", "message"), [
    (b"", "empty"),
    (b"   \n", "empty"),
    (b"{not json", "not valid JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "not a vocabulary file"),
    (b'{"a": 1}', "neither a tokenizer.json nor a Tekken"),
    (json.dumps({"model": {"type": "WordPiece", "vocab": {"a": 0}}}).encode(), "WordPiece"),
    (json.dumps({"model": {"type": "Unigram", "vocab": [["a", 0.0]]}}).encode(), "Unigram"),
    (json.dumps({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "byte_fallback": True}}).encode(),
     "byte_fallback"),
    (json.dumps({"model": {"type": "BPE", "vocab": {"\u2581a": 0, "a": 1}, "merges": []},
                 "pre_tokenizer": {"type": "Metaspace"}}).encode(), "not a byte-level token|Metaspace"),
    (json.dumps({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "dropout": 0.1}}).encode(), "dropout"),
    (json.dumps({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["ab"]},
                 "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False}}).encode(), "not two tokens"),
    (json.dumps({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
                 "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": True}}).encode(), "add_prefix_space"),
    (json.dumps({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
                 "pre_tokenizer": {"type": "Whitespace"}}).encode(), "Whitespace"),
    (json.dumps({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
                 "normalizer": {"type": "Lowercase"},
                 "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False}}).encode(), "Lowercase"),
    (b"not base64 at all\n", "not a vocabulary file.*'not base64 at all'"),
    (b"YQ== 0\nYg== x\n", "line 2"),
    (b"GGUF\x03\x00\x00\x00", "ends early"),
])
def test_bad_files_are_refused_naming_the_problem(tmp_path, content, message):
    path = tmp_path / "vocab.json"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        if content.lstrip()[:1] == b"{" or content.startswith(b"GGUF"):
            bpe_stream.load(path)
        else:  # .tiktoken-like: with a pattern, the lines themselves are judged
            bpe_stream.load(path, pattern="gpt2")


def test_paths_that_are_no_files(tmp_path):
    with pytest.raises(ValueError, match="is a directory"):
        bpe_stream.load(tmp_path)
    with pytest.raises(FileNotFoundError, match="no such vocabulary file"):
        bpe_stream.load(tmp_path / "missing.json")
    with pytest.raises(TypeError):
        bpe_stream.load(12)


def test_gzip_that_expands_too_far_is_refused(tmp_path, monkeypatch):
    import bpe_stream.encoding.formats as formats

    monkeypatch.setattr(formats, "MAX_FILE_BYTES", 1000)
    path = tmp_path / "bomb.tiktoken.gz"
    path.write_bytes(gzip.compress(b"\0" * 10_000))
    with pytest.raises(ValueError, match="decompresses to more than 1000 bytes"):
        bpe_stream.load(path, pattern="gpt2")


@given(st.binary(max_size=300))
@settings(max_examples=examples(200), deadline=None)
def test_any_bytes_load_or_raise_a_clear_error(tmp_path_factory, content):
    assume(content.strip())
    path = tmp_path_factory.mktemp("fuzz") / "vocab"
    path.write_bytes(content)
    try:
        bpe_stream.load(path, pattern="gpt2")
    except ValueError:
        pass  # every refusal is a ValueError naming the problem


# ------------------------------------------------------------ loaded files are parsed once


@pytest.fixture
def file_cache(tmp_path, monkeypatch):
    """A fresh cache directory in which any file counts as settled (see load._SETTLE_NS)."""
    from bpe_stream.encoding import load as load_module

    monkeypatch.setenv("BPE_STREAM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(load_module, "_SETTLE_NS", -1)
    return load_module


def _no_reading(monkeypatch, load_module):
    def refuse(*args, **kwargs):
        raise AssertionError("the file was parsed again")

    monkeypatch.setattr(load_module, "read_vocabulary", refuse)


@pytest.mark.parametrize("layout", ["gpt2", "split-string-nfc", "digits-then-gpt2"])
def test_a_loaded_file_is_parsed_once_and_loads_back_the_same(tmp_path, monkeypatch, file_cache, layout):
    text = _trained(layout)
    cold = _load(tmp_path, text)
    _no_reading(monkeypatch, file_cache)
    warm = bpe_stream.load(tmp_path / "tokenizer.json")
    hf = _cached_hf(layout)
    for t in _sample_texts():
        assert warm.encode(t, allowed_special="all") == hf.encode(t, add_special_tokens=False).ids, t[:60]
    assert warm.vocabulary_info() == cold.vocabulary_info()
    assert warm._mergeable_ranks == cold._mergeable_ranks and warm.n_vocab == cold.n_vocab
    assert warm.special_tokens == cold.special_tokens and warm.pretokenizer == cold.pretokenizer
    assert warm.decode(list(range(cold.n_vocab))) == cold.decode(list(range(cold.n_vocab)))
    cold.save(tmp_path / "cold.bpe")
    warm.save(tmp_path / "warm.bpe")
    assert (tmp_path / "cold.bpe").read_bytes() == (tmp_path / "warm.bpe").read_bytes()


def test_unlisted_tokens_survive_the_file_cache(tmp_path, monkeypatch, file_cache):
    data = json.loads(_trained("gpt2"))
    data["model"]["vocab"]["Ġzyzzyvas"] = max(data["model"]["vocab"].values()) + 1  # no merge makes it
    data["model"]["ignore_merges"] = True
    text = json.dumps(data)
    cold = _load(tmp_path, text)
    assert cold.vocabulary_info()["engine"] == "rank order"
    _no_reading(monkeypatch, file_cache)
    warm = bpe_stream.load(tmp_path / "tokenizer.json")
    hf = Tokenizer.from_str(text)
    for t in [" zyzzyvas", "a zyzzyvas b", " zyzzyvasx", *_sample_texts()[:6]]:
        assert warm.encode_ordinary(t) == cold.encode_ordinary(t) == hf.encode(t, add_special_tokens=False).ids
    assert warm.decode([data["model"]["vocab"]["Ġzyzzyvas"]]) == " zyzzyvas"
    assert warm._mergeable_ranks == cold._mergeable_ranks


def test_added_tokens_listed_in_the_vocabulary_are_special_only(tmp_path):
    data = json.loads(_trained("gpt2"))
    vocab = data["model"]["vocab"]
    end = max(vocab.values()) + 1
    vocab["<|endoftext|>"] = end  # as GPT-2's own file: in the vocabulary and added
    data["added_tokens"] = [{"id": end, "content": "<|endoftext|>", "single_word": False, "lstrip": False,
                             "rstrip": False, "normalized": False, "special": True}]
    text = json.dumps(data)
    enc = _load(tmp_path, text)
    assert b"<|endoftext|>" not in enc._mergeable_ranks and len(enc._mergeable_ranks) == len(vocab) - 1
    assert enc.special_tokens == {"<|endoftext|>": end}
    hf = Tokenizer.from_str(text)
    for t in ["a<|endoftext|>b", *_sample_texts()[:4]]:
        assert enc.encode(t, allowed_special="all") == hf.encode(t, add_special_tokens=False).ids


@pytest.mark.parametrize("entry", [{"id": 5}, {"content": "<x>"}, {"content": 3, "id": 5},
                                   {"content": "<x>", "id": "5"}, {"content": "<x>", "id": True}, "<x>"])
def test_a_malformed_added_token_is_refused_by_name(tmp_path, entry):
    data = json.loads(_trained("gpt2"))
    data["added_tokens"] = [entry]
    with pytest.raises(ValueError, match="added_tokens entry"):
        _load(tmp_path, json.dumps(data))


def test_a_loaded_file_is_stored_once(tmp_path, monkeypatch, file_cache):
    from bpe_stream.encoding import cache

    monkeypatch.setattr(cache, "_built", {})
    monkeypatch.setattr(file_cache, "_not_stored", set())
    entries = tmp_path / "cache"
    rank_order = _load(tmp_path, _trained("gpt2"))
    assert rank_order.vocabulary_info()["engine"] == "rank order"
    # the file's entry holds the tables: no second copy under the content's key
    assert [p.name.split("-")[0] for p in entries.iterdir()] == ["file"]
    # merges that rank order cannot follow have no file entry: the content entry is kept
    data = json.loads(_trained("gpt2"))
    merges = data["model"]["merges"]
    data["model"]["merges"] = merges[1:] + merges[:1]
    for p in entries.iterdir():
        p.unlink()
    loop = _load(tmp_path, json.dumps(data), name="moved.json")
    assert loop.vocabulary_info()["engine"].startswith("HF's merge loop")
    assert [p.name.split("-")[0] for p in entries.iterdir()] == ["ordered"]
    again = bpe_stream.load(tmp_path / "moved.json")
    hf = Tokenizer.from_str(json.dumps(data))
    for t in _sample_texts()[:6]:
        assert again.encode_ordinary(t) == loop.encode_ordinary(t) == hf.encode(t, add_special_tokens=False).ids


def test_the_file_cache_follows_the_file_and_the_arguments(tmp_path, monkeypatch, file_cache):
    import os

    path = tmp_path / "tokenizer.json"
    text = json.dumps(json.loads(_trained("gpt2")), ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    first = bpe_stream.load(path)
    # another file of the same size in the same place (two ids swapped): read again
    data = json.loads(text)
    vocab = data["model"]["vocab"]
    a, b = "Ġthe", "Ġand"
    assert len(str(vocab[a])) == len(str(vocab[b]))
    vocab[a], vocab[b] = vocab[b], vocab[a]
    changed = json.dumps(data, ensure_ascii=False)
    before = os.stat(path)
    path.write_text(changed, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))
    assert os.path.getsize(path) == before.st_size
    second = bpe_stream.load(path)
    hf = Tokenizer.from_str(changed)
    assert second.encode_ordinary(" the and") == hf.encode(" the and").ids != first.encode_ordinary(" the and")
    # other arguments, another entry
    named = bpe_stream.load(path, name="mine")
    assert named.name == "mine" and second.name != "mine"
    assert bpe_stream.load(path).name == second.name
    # a damaged entry is rebuilt from the file
    entries = list((tmp_path / "cache").glob("file-*"))
    assert entries
    for entry in entries:
        entry.write_bytes(entry.read_bytes()[:-7])
    assert bpe_stream.load(path).encode_ordinary(" the and") == hf.encode(" the and").ids


def test_a_file_written_just_now_is_not_stored(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_STREAM_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "tokenizer.json"
    path.write_text(_trained("gpt2"), encoding="utf-8")
    bpe_stream.load(path)
    # a second write within the clock tick could keep size and times: such a file waits
    assert not list((tmp_path / "cache").glob("file-*"))


def test_tiktoken_files_are_cached_per_pattern(tmp_path, monkeypatch, file_cache):
    ranks = {bytes([b]): b for b in range(256)} | {b" w": 256, b"or": 257, b"ld": 258, b" wor": 259, b"12": 260}
    path = tmp_path / "v.tiktoken"
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items()))
    gpt2 = bpe_stream.load(path, pattern="gpt2")
    digits = bpe_stream.load(path, pattern="qwen2")
    assert gpt2.encode_ordinary(" world 123") != digits.encode_ordinary(" world 123")
    _no_reading(monkeypatch, file_cache)
    assert bpe_stream.load(path, pattern="gpt2").encode_ordinary(" world 123") == gpt2.encode_ordinary(" world 123")
    assert bpe_stream.load(path, pattern="qwen2").encode_ordinary(" world 123") == digits.encode_ordinary(" world 123")
    assert bpe_stream.load(path, pattern="qwen2").pretokenizer == digits.pretokenizer
