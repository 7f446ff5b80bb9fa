"""BytePairEncoding: construction check, pair validity and every encoder against naive BPE."""

from __future__ import annotations

import pickle
import random

import pytest
from conftest import CORPUS_FILES, README_TOKENS, corpus_text, examples, naive_bpe
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_stream import METHODS, BytePairEncoding, get_encoding

BPE_METHODS = ["backtracking", "table", "heap"]


def random_vocabulary(seed: int, alphabet: bytes = b"abc", merges: int = 20) -> list[bytes]:
    """A vocabulary grown by random merges, keeping only tokens that encode to themselves."""
    rng = random.Random(seed)
    tokens = [bytes([b]) for b in alphabet]
    ranks = {t: i for i, t in enumerate(tokens)}
    for _ in range(merges * 5):
        if len(tokens) >= len(alphabet) + merges:
            break
        a, b = rng.choice(tokens), rng.choice(tokens)
        new = a + b
        if new in ranks or len(new) > 8:
            continue
        if naive_bpe(ranks, new) != [ranks[a], ranks[b]]:
            continue
        ranks[new] = len(tokens)
        tokens.append(new)
    return tokens


@pytest.fixture(scope="module")
def readme_bpe():
    return BytePairEncoding.from_tokens(README_TOKENS)


# ---------------------------------------------------------------- construction


def test_readme_example(readme_bpe):
    ranks = {t: i for i, t in enumerate(README_TOKENS)}
    assert readme_bpe.encode(b"abacb") == naive_bpe(ranks, b"abacb")
    # ab, then cb, then c+b -> cbb, then a+cbb -> acbb
    assert [README_TOKENS[t] for t in readme_bpe.encode(b"abacbb")] == [b"ab", b"acbb"]
    # greedy leftmost-longest would take "ac" here; BPE merges "cb" first
    assert [README_TOKENS[t] for t in readme_bpe.encode(b"acb")] == [b"a", b"cb"]


def test_split_table_is_bpe_history(readme_bpe):
    ranks = {t: i for i, t in enumerate(README_TOKENS)}
    for t, token in enumerate(README_TOKENS):
        if len(token) > 1:
            left, right = readme_bpe.split_left[t], readme_bpe.split_right[t]
            assert README_TOKENS[left] + README_TOKENS[right] == token
            sub = {k: v for k, v in ranks.items() if v < t}
            assert naive_bpe(sub, token) == [left, right]


def test_rejects_token_that_does_not_encode_to_itself():
    # No pair of earlier tokens spells "abc", so BPE can never produce it.
    with pytest.raises(ValueError, match=r"token 3 b'abc'"):
        BytePairEncoding.from_tokens([b"a", b"b", b"c", b"abc"])
    # "abcd" is spelled ab+cd, but on "abcd" BPE merges "bc" (rank 4) first and
    # ends as a|bc|d, so it never produces "abcd".
    with pytest.raises(ValueError, match=r"token 7 b'abcd'"):
        BytePairEncoding.from_tokens([b"a", b"b", b"c", b"d", b"bc", b"ab", b"cd", b"abcd"])


def test_rejects_bad_token_lists():
    with pytest.raises(ValueError, match="duplicates"):
        BytePairEncoding.from_tokens([b"a", b"a"])
    with pytest.raises(ValueError, match="empty"):
        BytePairEncoding.from_tokens([b"a", b""])
    with pytest.raises(TypeError):
        BytePairEncoding.from_tokens(["a"])
    with pytest.raises(TypeError):
        BytePairEncoding.from_tokens(b"abc")


@given(seed=st.integers(0, 10_000))
@settings(max_examples=examples(60), deadline=None)
def test_random_vocabularies_pass_construction(seed):
    tokens = random_vocabulary(seed)
    bpe = BytePairEncoding.from_tokens(tokens)
    for t in range(len(tokens)):
        assert bpe.encode(tokens[t]) == [t]


# ---------------------------------------------------------------- pair validity


@given(seed=st.integers(0, 10_000), data=st.data())
@settings(max_examples=examples(60), deadline=None)
def test_is_valid_token_pair_matches_naive(seed, data):
    tokens = random_vocabulary(seed)
    ranks = {t: i for i, t in enumerate(tokens)}
    bpe = BytePairEncoding.from_tokens(tokens)
    for _ in range(30):
        a = data.draw(st.integers(0, len(tokens) - 1))
        b = data.draw(st.integers(0, len(tokens) - 1))
        assert bpe.is_valid_token_pair(a, b) == (naive_bpe(ranks, tokens[a] + tokens[b]) == [a, b])


def test_is_valid_token_pair_cl100k_sample():
    bpe = get_encoding("cl100k_base").bpe
    rng = random.Random(7)
    short = [t for t in range(len(bpe)) if len(bpe.tokens[t]) <= 4]
    for _ in range(400):
        a, b = rng.choice(short), rng.choice(short)
        expected = naive_bpe(bpe.ranks, bpe.tokens[a] + bpe.tokens[b]) == [a, b]
        assert bpe.is_valid_token_pair(a, b) == expected


# ---------------------------------------------------------------- encoders


@pytest.mark.parametrize("method", BPE_METHODS)
@given(seed=st.integers(0, 10_000), data=st.binary(max_size=60))
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_methods_equal_naive_on_small_vocabularies(method, seed, data):
    tokens = random_vocabulary(seed)
    bpe = BytePairEncoding.from_tokens(tokens)
    ranks = bpe.ranks
    text = bytes(b"abc"[x % 3] for x in data)
    assert bpe.encode(text, method=method) == naive_bpe(ranks, text)


@pytest.mark.parametrize("method", BPE_METHODS)
@given(text=st.text(alphabet="abc", max_size=80))
@settings(max_examples=examples(150), deadline=None)
def test_methods_equal_naive_on_readme_vocabulary(method, text):
    bpe = BytePairEncoding.from_tokens(README_TOKENS)
    data = text.encode()
    assert bpe.encode(data, method=method) == naive_bpe(bpe.ranks, data)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("method", BPE_METHODS)
@given(data=st.data())
@settings(max_examples=examples(40), deadline=None)
def test_methods_equal_naive_on_token_concatenations(name, method, data):
    bpe = get_encoding(name).bpe
    ids = data.draw(st.lists(st.integers(0, len(bpe) - 1), max_size=12))
    text = bpe.decode(ids)
    assert bpe.encode(text, method=method) == naive_bpe(bpe.ranks, text)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_methods_equal_naive_on_corpus_slices(name, path):
    bpe = get_encoding(name).bpe
    data = path.read_bytes()
    rng = random.Random(path.name)
    for _ in range(6):
        start = rng.randrange(len(data))
        piece = data[start : start + rng.randrange(1, 300)]
        expected = naive_bpe(bpe.ranks, piece)
        for method in BPE_METHODS:
            assert bpe.encode(piece, method=method) == expected, method


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_methods_agree_on_large_corpus_slices(name):
    # The heap encoder is the original algorithm; the others must agree with it
    # on inputs too large for the naive reference.
    bpe = get_encoding(name).bpe
    for fname in ["tinyshakespeare.txt", "multilingual_sentences.txt", "code_python_black.py.txt"]:
        data = corpus_text(fname).encode()[:20_000]
        expected = bpe.encode(data, method="heap")
        assert bpe.encode(data, method="backtracking") == expected
        assert bpe.encode(data, method="table") == expected
        assert bpe.decode(expected) == data


@given(text=st.binary(max_size=200))
@settings(max_examples=examples(100), deadline=None)
def test_cl100k_random_bytes_all_methods_agree(text):
    bpe = get_encoding("cl100k_base").bpe
    expected = naive_bpe(bpe.ranks, text)
    for method in BPE_METHODS:
        assert bpe.encode(text, method=method) == expected


@given(seed=st.integers(0, 10_000), data=st.binary(max_size=60))
@settings(max_examples=examples(100), deadline=None)
def test_greedy_and_minimal_are_valid_segmentations(seed, data):
    bpe = BytePairEncoding.from_tokens(random_vocabulary(seed))
    text = bytes(b"abc"[x % 3] for x in data)
    greedy = bpe.encode(text, method="greedy")
    minimal = bpe.encode(text, method="minimal")
    assert bpe.decode(greedy) == text
    assert bpe.decode(minimal) == text
    assert len(minimal) <= len(bpe.encode(text))
    assert len(minimal) <= len(greedy)


def test_unknown_method_and_types(readme_bpe):
    with pytest.raises(ValueError, match="unknown method"):
        readme_bpe.encode(b"ab", method="fast")
    with pytest.raises(TypeError, match="expected bytes, got str"):
        readme_bpe.encode("ab")
    with pytest.raises(TypeError):
        readme_bpe.count(12)


@pytest.mark.parametrize("method", METHODS)
def test_missing_byte_is_a_clear_error(readme_bpe, method):
    with pytest.raises(ValueError, match=r"byte 0x7a at offset 2"):
        readme_bpe.encode(b"abz", method=method)


def test_decode_rejects_invalid_ids(readme_bpe):
    with pytest.raises(ValueError, match="invalid token id"):
        readme_bpe.decode([0, 99])


# ---------------------------------------------------------------- counts


@given(seed=st.integers(0, 10_000), data=st.binary(max_size=120), limit=st.integers(0, 80))
@settings(max_examples=examples(200), deadline=None)
def test_count_till_limit_small(seed, data, limit):
    bpe = BytePairEncoding.from_tokens(random_vocabulary(seed))
    text = bytes(b"abc"[x % 3] for x in data)
    count = bpe.count(text)
    assert bpe.count_till_limit(text, limit) == (count if count <= limit else None)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_count_till_limit_around_true_count(name):
    bpe = get_encoding(name).bpe
    for fname in ["tinyshakespeare.txt", "multilingual_sentences.txt", "blns.txt"]:
        data = corpus_text(fname).encode()[:5000]
        count = bpe.count(data)
        for limit in [0, 1, count // 2, count - 2, count - 1, count, count + 1, count + 50]:
            if limit >= 0:
                assert bpe.count_till_limit(data, limit) == (count if count <= limit else None)


def test_count_till_limit_rejects_negative(readme_bpe):
    with pytest.raises(ValueError, match="limit must be >= 0"):
        readme_bpe.count_till_limit(b"ab", -1)
    with pytest.raises(TypeError):
        readme_bpe.count_till_limit(b"ab", 1.5)


# ---------------------------------------------------------------- objects


def test_pickle_round_trip(readme_bpe):
    clone = pickle.loads(pickle.dumps(readme_bpe))
    assert clone.tokens == readme_bpe.tokens
    assert clone.encode(b"abacbbcab") == readme_bpe.encode(b"abacbbcab")


def test_from_tiktoken_file(tmp_path):
    import base64
    import gzip

    lines = b"".join(base64.b64encode(t) + b" %d\n" % i for i, t in enumerate(README_TOKENS))
    plain = tmp_path / "v.tiktoken"
    plain.write_bytes(lines)
    packed = tmp_path / "v.tiktoken.gz"
    packed.write_bytes(gzip.compress(lines))
    for path in (plain, packed):
        bpe = BytePairEncoding.from_tiktoken_file(path)
        assert bpe.tokens == README_TOKENS
    bad = tmp_path / "bad.tiktoken"
    bad.write_bytes(b"YQ== 0\nnot-base64!! 1\n")
    with pytest.raises(ValueError, match="malformed .tiktoken line 2"):
        BytePairEncoding.from_tiktoken_file(bad)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("unit", [b" ", b"a", b"1", b"\n", b"!", b"ab ", b"\xe4\xb8\xad"])
def test_long_runs_across_scan_windows(name, unit):
    # Runs longer than the backtracking encoder's scan window (2 KB).
    bpe = get_encoding(name).bpe
    for size in [2047, 2048, 2049, 5000]:
        data = (unit * size)[:size]
        expected = bpe.encode(data, method="heap")
        assert bpe.encode(data) == expected
        assert bpe.encode(data, method="table") == expected


def test_merged_token(readme_bpe):
    ids = {t: i for i, t in enumerate(README_TOKENS)}
    assert readme_bpe.merged_token(ids[b"a"], ids[b"b"]) == ids[b"ab"]
    assert readme_bpe.merged_token(ids[b"a"], ids[b"cbb"]) == ids[b"acbb"]
    assert readme_bpe.merged_token(ids[b"b"], ids[b"a"]) is None
