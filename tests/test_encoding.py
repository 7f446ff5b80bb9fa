"""Encoding: token-for-token equality with tiktoken, special tokens, loading, caching."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest
import regex
from conftest import (
    full_tier_only,
    CORPUS_FILES,
    ENCODING_NAMES,
    TIKTOKEN_NAMES,
    IMPLEMENTATIONS,
    README_TOKENS,
    encoding_with,
    examples,
    tiktoken_oracle,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_stream
from bpe_stream import Encoding, get_encoding

# Text rich in the characters the pre-split patterns treat specially.
tricky_text = st.lists(
    st.sampled_from(
        list("aAzZ09 \t\n\r'sStTdDmMlLvVeErR.,!?/-_<|>")
        + ["\u00a0", "\u3000", "\u2028", "\u0085", "é", "É", "ǅ", "ʰ", "\u0301", "中", "文",
           "日本", "한", "ق", "\U0001F600", "\U0001F468\u200d\U0001F469", "\ufeff", "①", "٣"]
    ),
    max_size=60,
).map("".join)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", TIKTOKEN_NAMES)
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_encode_ordinary_equals_tiktoken_on_corpus_files(name, path, implementation):
    if implementation == "python" and name not in ("cl100k_base", "o200k_base"):
        full_tier_only()  # the same pure-Python code as those two, on a smaller vocabulary
    text = path.read_text(encoding="utf-8")
    enc = encoding_with(name, implementation)
    enc._pieces.clear()
    enc._piece_counts.clear()  # cold: every piece encoded by this implementation
    assert enc.count(text) == len(tiktoken_oracle(name).encode_ordinary(text))
    ours = enc.encode_ordinary(text)
    assert ours == tiktoken_oracle(name).encode_ordinary(text)
    assert enc.count(text) == len(ours)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", TIKTOKEN_NAMES)
@given(text=tricky_text)
@settings(max_examples=examples(300), deadline=None)
def test_encode_ordinary_equals_tiktoken_on_tricky_text(name, text, implementation):
    enc = encoding_with(name, implementation)
    expected = tiktoken_oracle(name).encode_ordinary(text)
    assert enc.encode_ordinary(text) == expected
    assert enc.count(text) == len(expected)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", ENCODING_NAMES)
@given(text=st.text(max_size=40))
@settings(max_examples=examples(300), deadline=None)
def test_encode_equals_tiktoken_on_any_str(name, text, implementation):
    # st.text includes lone surrogates: both replace them with U+FFFD.
    enc = encoding_with(name, implementation)
    oracle = tiktoken_oracle(name)
    assert enc.encode(text, disallowed_special=()) == oracle.encode(text, disallowed_special=())
    assert enc.count(text) == len(oracle.encode_ordinary(text))


def test_lone_surrogates_become_replacement_character():
    enc = get_encoding("cl100k_base")
    assert enc.encode("a\ud800b") == enc.encode("a\ufffdb")
    # a surrogate pair written as two code points is joined into one character
    assert enc.encode("\ud83d\ude00") == enc.encode("\U0001F600")


@pytest.mark.parametrize("name", TIKTOKEN_NAMES)
def test_special_tokens_like_tiktoken(name):
    enc = get_encoding(name)
    oracle = tiktoken_oracle(name)
    text = "hi <|endoftext|> there <|endofprompt|>!"
    with pytest.raises(ValueError, match="disallowed special token '<\\|endoftext\\|>'"):
        enc.encode(text)
    with pytest.raises(ValueError):
        oracle.encode(text)
    for kwargs in [
        {"allowed_special": "all"},
        {"disallowed_special": ()},
        {"allowed_special": {"<|endoftext|>"}, "disallowed_special": ()},
        {"allowed_special": {"<|endoftext|>", "<|endofprompt|>"}},
    ]:
        assert enc.encode(text, **kwargs) == oracle.encode(text, **kwargs), kwargs
    # encode_ordinary and count treat special-looking text as ordinary text
    assert enc.encode_ordinary(text) == oracle.encode_ordinary(text)
    assert enc.count(text) == len(oracle.encode_ordinary(text))
    assert enc.special_tokens_set == oracle.special_tokens_set
    assert enc.n_vocab == oracle.n_vocab
    assert enc.eot_token == oracle.eot_token


@pytest.mark.parametrize("name", TIKTOKEN_NAMES)
def test_decode(name):
    enc = get_encoding(name)
    oracle = tiktoken_oracle(name)
    text = "héllo wörld 中文 \U0001F600 <|endoftext|>"
    ids = enc.encode(text, allowed_special="all")
    assert enc.decode(ids) == text
    assert enc.decode_bytes(ids) == text.encode()
    # a cut inside a character decodes with U+FFFD like tiktoken
    assert enc.decode(ids[:-3]) == oracle.decode(ids[:-3])
    with pytest.raises(ValueError, match="invalid token id"):
        enc.decode([enc.n_vocab + 5])


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("name", ENCODING_NAMES)
@given(text=st.one_of(tricky_text, st.text(alphabet="ab '\n.!1\u00e9\u4e2d", max_size=300)),
       slack=st.integers(-3, 3), fraction=st.floats(0, 1))
@settings(max_examples=examples(100), deadline=None)
def test_count_till_limit(name, text, slack, fraction, implementation):
    enc = encoding_with(name, implementation)
    count = len(tiktoken_oracle(name).encode_ordinary(text))
    for limit in {max(0, count + slack), int(count * fraction)}:
        assert enc.count_till_limit(text, limit) == (count if count <= limit else None)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_count_till_limit_long_single_piece(implementation):
    enc = encoding_with("cl100k_base", implementation)
    word = "".join(chr(97 + (i * 7919) % 26) for i in range(20_000))
    for text in [word, "x y " * 50 + word, word + " \u00e9\u4e2d"]:
        total = len(tiktoken_oracle("cl100k_base").encode_ordinary(text))
        for limit in [10, total - 1, total, total + 1]:
            assert enc.count_till_limit(text, limit) == (total if total <= limit else None)


def test_bad_input_types():
    enc = get_encoding("cl100k_base")
    with pytest.raises(TypeError, match="expected str, got bytes"):
        enc.encode_ordinary(b"abc")
    with pytest.raises(TypeError, match="expected str, got int"):
        enc.count(3)
    with pytest.raises(ValueError, match="limit must be >= 0"):
        enc.count_till_limit("abc", -1)
    with pytest.raises(ValueError, match="unknown encoding"):
        get_encoding("p51k_base")


def test_registry_and_models():
    assert set(bpe_stream.list_encoding_names()) == {*TIKTOKEN_NAMES, "gpt2"}
    assert bpe_stream.encoding_for_model("gpt-4o").name == "o200k_base"
    assert bpe_stream.encoding_for_model("gpt-4o-mini-2024-07-18").name == "o200k_base"
    assert bpe_stream.encoding_for_model("gpt-4").name == "cl100k_base"
    assert bpe_stream.encoding_for_model("text-embedding-3-small").name == "cl100k_base"
    assert bpe_stream.encoding_for_model("davinci").name == "r50k_base"
    assert bpe_stream.encoding_for_model("code-davinci-002").name == "p50k_base"
    assert bpe_stream.encoding_for_model("gpt-oss-120b").name == "o200k_harmony"
    with pytest.raises(KeyError):
        bpe_stream.encoding_for_model("llama-3")
    assert get_encoding("cl100k_base") is get_encoding("cl100k_base")


def test_pickle():
    enc = get_encoding("o200k_base")
    assert pickle.loads(pickle.dumps(enc)) is enc
    custom = Encoding("tiny", pat_str=r"\w+|\W+", mergeable_ranks={t: i for i, t in enumerate(README_TOKENS)},
                      special_tokens={"<eot>": 100})
    clone = pickle.loads(pickle.dumps(custom))
    assert clone.encode("abacbbcab<eot>", allowed_special="all") == custom.encode(
        "abacbbcab<eot>", allowed_special="all"
    )


def test_constructor_like_tiktoken_and_from_tiktoken():
    oracle = tiktoken_oracle("cl100k_base")
    enc = Encoding(
        "mine",
        pat_str=oracle._pat_str,
        mergeable_ranks=oracle._mergeable_ranks,
        special_tokens=oracle._special_tokens,
    )
    text = "Some text, with 12345 digits and   spaces\n\n"
    assert enc.encode(text) == oracle.encode(text)
    wrapped = Encoding.from_tiktoken(oracle)
    assert wrapped.encode(text) == oracle.encode(text)
    assert wrapped.name == "cl100k_base"
    with pytest.raises(TypeError, match="not a tiktoken Encoding"):
        Encoding.from_tiktoken(object())


def test_constructor_rejects_bad_vocabularies():
    # ranks may start above 0 and leave holes, as tiktoken allows; they must be ints >= 0, each once
    holes = Encoding("x", pat_str=None, mergeable_ranks={b"a": 3, b"b": 5, b"ab": 9})
    assert holes.encode("aab") == [3, 9] and holes.decode([3, 9]) == "aab" and holes.n_vocab == 10
    with pytest.raises(ValueError, match="share rank 1"):
        Encoding("x", pat_str=None, mergeable_ranks={b"a": 1, b"b": 1})
    with pytest.raises(ValueError, match="must be an int in 0..2\\*\\*32-1"):
        Encoding("x", pat_str=None, mergeable_ranks={b"a": -1})
    with pytest.raises(ValueError, match="collides"):
        Encoding("x", pat_str=None, mergeable_ranks={b"a": 0, b"b": 1}, special_tokens={"<s>": 1})
    with pytest.raises(ValueError, match="invalid pre-split pattern"):
        Encoding("x", pat_str="(", mergeable_ranks={b"a": 0})


def test_no_pattern_means_raw_bpe():
    enc = Encoding("raw", pat_str=None, mergeable_ranks={t: i for i, t in enumerate(README_TOKENS)})
    assert enc.encode("abacbb") == enc.bpe.encode(b"abacbb")
    assert enc.count("") == 0


@pytest.mark.slow
def test_disk_cache_is_rebuilt_when_corrupt(tmp_path):
    # Runs in a subprocess so that the in-process memo does not hide the disk.
    script = (
        "import bpe_stream;"
        "enc = bpe_stream.get_encoding('cl100k_base');"
        "print(enc.encode('hello world'))"
    )
    env = {"BPE_STREAM_CACHE_DIR": str(tmp_path), "PATH": "", "PYTHONPATH": ":".join(sys.path)}
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert first.stdout.strip() == "[15339, 1917]", first.stderr
    entries = list(tmp_path.glob("*.bin"))
    assert len(entries) == 1
    blob = entries[0].read_bytes()
    corrupt = blob[: len(blob) // 2] + b"garbage" + blob[len(blob) // 2 + 7 :]
    entries[0].write_bytes(corrupt)
    second = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert second.stdout.strip() == "[15339, 1917]", second.stderr
    # rebuilt and rewritten: the same entry again (plain arrays, so byte for byte)
    rewritten = entries[0].read_bytes()
    assert rewritten == blob
    from bpe_stream.encoding import cache

    key = entries[0].name.split("-v")[0]
    first_bpe, second_bpe = cache._read(_write_tmp(tmp_path, blob), key), cache._read(entries[0], key)
    assert first_bpe is not None and second_bpe is not None
    assert first_bpe.__getstate__()["tokens"] == second_bpe.__getstate__()["tokens"]
    for table in ("split_left", "split_right", "next_prefix", "continuation_masks"):
        assert getattr(first_bpe, table) == getattr(second_bpe, table)


def _write_tmp(directory, blob):
    path = directory / "first-entry"
    path.write_bytes(blob)
    return path


def test_bundled_file_is_verified(monkeypatch):
    from bpe_stream.encoding import registry

    monkeypatch.setitem(registry._BUNDLED, "cl100k_base", dict(registry._BUNDLED["cl100k_base"], sha256="0" * 64))
    with pytest.raises(RuntimeError, match="corrupt"):
        registry.bundled_tiktoken_bytes("cl100k_base")


@pytest.mark.parametrize("name", ENCODING_NAMES)
@given(
    blocks=st.lists(
        st.one_of(
            tricky_text,
            st.text(alphabet="ab \n\r\t.'/12", max_size=300),
            st.just("\n"), st.just("\nword"), st.just("\n/x"), st.just(" \n\n9"),
            st.just("\n    def"), st.just("\n  /"), st.just("\n\t)"), st.just(".\n  \n x"),
            st.just("\n \u00a0x"), st.just("\n  \u4e2d"), st.just("é\n  é"),
            st.just("a b"), st.just("caf\u00e9 bar"), st.just("x 'll"), st.just("I 'm"), st.just("z\u00a0y"),
        ),
        max_size=60,
    )
)
@settings(max_examples=examples(150), deadline=None)
def test_pre_split_fast_path_equals_regex(name, blocks):
    # Mixed ASCII/Unicode text exercises the stretch logic (forced on by treating
    # no text as dense, and with tiny dense blocks).
    from bpe_stream.pretokenize import splitter as pretokenize
    from bpe_stream.pretokenize.patterns import PATTERNS, compile_pattern
    from bpe_stream.pretokenize.splitter import PreSplitter

    text = "".join(blocks)
    expected = compile_pattern(PATTERNS[name]).findall(text)
    assert PreSplitter(PATTERNS[name]).findall(text) == expected
    saved = pretokenize._DENSE_TEXT, pretokenize._DENSE_BLOCK
    try:
        pretokenize._DENSE_TEXT, pretokenize._DENSE_BLOCK = 0, 16
        assert PreSplitter(PATTERNS[name]).findall(text) == expected
    finally:
        pretokenize._DENSE_TEXT, pretokenize._DENSE_BLOCK = saved


@pytest.mark.parametrize("name", ENCODING_NAMES)
@given(
    text=st.one_of(
        st.text(alphabet=st.characters(max_codepoint=127), max_size=200),
        # case changes, contractions, punctuation leads, digit runs, '/' after punctuation
        st.text(alphabet="aBcZ'sStTlLdDmMrReEvV .,-/\t\r\n0123", max_size=200),
    )
)
@settings(max_examples=examples(400), deadline=None)
def test_ascii_translation_equals_unicode_pattern(name, text):
    from bpe_stream.pretokenize.patterns import PATTERNS, compile_pattern
    from bpe_stream.pretokenize.splitter import PreSplitter

    assert PreSplitter(PATTERNS[name]).findall(text) == compile_pattern(PATTERNS[name]).findall(text)


def test_shared_across_threads():
    from concurrent.futures import ThreadPoolExecutor

    from conftest import CORPORA_DIR

    enc = Encoding("fresh-cache", pat_str=get_encoding("cl100k_base").pat_str, bpe=get_encoding("cl100k_base").bpe)
    texts = [f"thread {i}: " + "naïve café 12345 " * (i + 1) + "\n" * i for i in range(64)]
    if (CORPORA_DIR / "taylorswift.txt").exists():
        corpus = (CORPORA_DIR / "taylorswift.txt").read_text(encoding="utf-8")
        texts += [corpus[i * 3000 : (i + 1) * 3000] for i in range(32)]
    expected = [tiktoken_oracle("cl100k_base").encode_ordinary(t) for t in texts]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(enc.encode_ordinary, texts * 4))
    assert got == expected * 4


@pytest.mark.parametrize("name", ENCODING_NAMES)
@pytest.mark.parametrize("text", ["\U0003d000:A", "\U000323b0x", "\U000323b0:A", "\u0890!", "\U0001e4d0a",
                                  "\U00031350:B", "1\U00016ea0", "a\U00011b00:"])
def test_unicode_version_matches_tiktoken(name, text):
    # Characters assigned in recent Unicode versions: their letter/number class
    # decides the pre-split, so the classes must be those of tiktoken's Rust regex whatever
    # the regex module's Unicode tables (found by hypothesis with regex 2026.11, Unicode 17;
    # "\U000323b0:A" with regex 2026.5.9, which already classes CJK Extension J as letters).
    assert get_encoding(name).encode_ordinary(text) == tiktoken_oracle(name).encode_ordinary(text)


@settings(max_examples=examples(150), deadline=None)
@given(text=st.text(alphabet="abc", max_size=24), pattern=st.sampled_from([r"\S+|\s+", r"[ab]+|c+", r".{1,3}"]))
def test_small_vocabulary_pieces_equal_naive_bpe(text, pattern):
    # short pieces take the merge loop, long ones the backtracking encoder: both must be BPE
    from conftest import README_TOKENS, naive_bpe

    ranks = {t: i for i, t in enumerate(README_TOKENS)}
    enc = Encoding("readme", pat_str=pattern, mergeable_ranks=ranks)
    expected = []
    for piece in regex.findall(pattern, text):
        expected += naive_bpe(ranks, piece.encode())
    assert enc.encode_ordinary(text) == expected
    assert enc.count(text) == len(expected)


def test_byte_outside_the_vocabulary_is_a_clear_error():
    from conftest import README_TOKENS

    enc = Encoding("readme", pat_str=r"\S+", mergeable_ranks={t: i for i, t in enumerate(README_TOKENS)})
    for text in ["abz", "ab" * 20 + "z"]:  # a short piece (merge loop) and a long one
        with pytest.raises(ValueError, match=r"byte 0x7a .* not in the vocabulary"):
            enc.encode(text)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_count_till_limit_reads_no_more_than_the_budget_needs(implementation):
    # "stops early": past limit * max_token_len bytes the count is over the limit, so a
    # huge input is neither tabled nor copied (memory, not time: tracemalloc's peak)
    import tracemalloc

    enc = encoding_with("cl100k_base", implementation)
    data = b"hello world " * 500_000
    word = "x" * 6_000_000
    prose = "hello world " * 500_000
    tracemalloc.start()
    try:
        assert enc.bpe.count_till_limit(data, 10) is None
        assert enc.count_till_limit(word, 10) is None
        assert enc.count_till_limit(prose, 10) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, peak


def test_space_chars_are_the_patterns_whitespace():
    # pretokenize.SPACE_CHARS stands for the patterns' \s in the streaming counters' reasoning
    # about whitespace pieces; str.isspace() differs from it on U+001C..U+001F
    import sys

    from bpe_stream.pretokenize.patterns import SPACE_CHARS, is_space
    from bpe_stream.pretokenize.unicode import compile_regex

    ws = compile_regex(r"\s")
    assert sorted(SPACE_CHARS) == [chr(c) for c in range(sys.maxunicode + 1) if ws.match(chr(c))]
    assert not is_space("\x1c") and "\x1c".isspace()


def test_tiktoken_model_names_map_like_tiktoken():
    tiktoken_model = pytest.importorskip("tiktoken.model")
    for model, name in tiktoken_model.MODEL_TO_ENCODING.items():
        assert bpe_stream.encoding_name_for_model(model) == name, model
    for prefix, name in tiktoken_model.MODEL_PREFIX_TO_ENCODING.items():
        assert bpe_stream.encoding_name_for_model(prefix + "x") == name, prefix


def test_gpt2_is_r50k_base_and_shared_special_ids():
    gpt2, r50k = get_encoding("gpt2"), get_encoding("r50k_base")
    assert gpt2.bpe is r50k.bpe and gpt2.pat_str == r50k.pat_str
    assert gpt2.special_tokens == r50k.special_tokens and gpt2.n_vocab == 50257
    # o200k_harmony gives <|endofprompt|> and <|reserved_200018|> one id, as tiktoken does
    harmony = get_encoding("o200k_harmony")
    assert harmony.encode("<|endofprompt|>", allowed_special="all") == [200018]
    assert harmony.encode("<|reserved_200018|>", allowed_special="all") == [200018]
    assert harmony.decode([200018]) in ("<|endofprompt|>", "<|reserved_200018|>")
    assert pickle.loads(pickle.dumps(harmony)) is harmony
