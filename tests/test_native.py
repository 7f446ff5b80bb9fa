"""The compiled core against the pure-Python reference (and a naive BPE, and tiktoken).

Every native routine (table construction, backtracking encoder, table pass, interval
index, the data-only cache, the batch API that runs it on threads) is checked against
its pure-Python twin or an independent reference: random and trained vocabularies,
the bundled ones, and adversarial inputs (long single pieces of every class, every
byte value, invalid UTF-8 in raw mode).
"""

from __future__ import annotations

import functools
import os
import pickle
import random
import threading
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_stream import BytePairEncoding, Encoding, get_encoding
from bpe_stream.bpe.intervals import _BytesIntervals
from bpe_stream.bpe.native import Core, compiled_available
from bpe_stream.bpe.table import PrefixTable
from bpe_stream.bpe.tables import build_splits, derived_tables
from conftest import ENCODING_NAMES, README_TOKENS, corpus_text, examples, full_tier_only, naive_bpe, tiktoken_oracle
from test_vocabulary import random_vocabulary

pytestmark = pytest.mark.skipif(not compiled_available(), reason="compiled core not built")

# A vocabulary whose last token BPE cannot build from two earlier ones ("bbbabb" BPE
# encodes as bb b a bb): unreachable.
UNREACHABLE_TOKENS = [b"a", b"b", b"bb", b"bba", b"bbabb", b"bbbabb"]


def both(tokens):
    native = BytePairEncoding(tokens, native=True)
    assert native.native
    python = native._python_twin()
    assert not python.native
    return native, python


def python_tables(tokens):
    ranks = {t: i for i, t in enumerate(tokens)}
    left, right, exceptional = build_splits(tokens, ranks)
    next_prefix, masks = derived_tables(tokens, ranks)
    return left, right, next_prefix, masks, sorted(exceptional)


def native_tables(bpe):
    core = bpe._core
    from bpe_stream.bpe.vocabulary import _masks_from_bytes

    return (core.split_left(), core.split_right(), core.next_prefix(), _masks_from_bytes(core.masks_bytes()),
            core.exceptional())


# ----------------------------------------------------------------- tables


@given(seed=st.integers(0, 100_000), alphabet=st.sampled_from([b"ab", b"abc", b"abcd", bytes(range(256))]))
@settings(max_examples=examples(200), deadline=None)
def test_tables_equal_python_on_random_vocabularies(seed, alphabet):
    tokens = random_vocabulary(seed, alphabet, merges=40)
    native = BytePairEncoding(tokens, native=True)
    assert native_tables(native) == python_tables(tokens)
    assert native._core.unreachable() == []


def test_tables_equal_python_on_trained_vocabulary():
    from bpe_stream import train

    enc = train(corpus_text("taylorswift.txt")[:30_000], 600)
    tokens = enc.bpe.tokens
    assert native_tables(BytePairEncoding(tokens, native=True)) == python_tables(tokens)


@pytest.mark.slow
@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_tables_equal_python_on_bundled_vocabularies(name):
    bpe = get_encoding(name).bpe
    assert bpe.native
    assert native_tables(bpe) == python_tables(bpe.tokens)


@pytest.mark.slow
@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_derived_tables_equal_python_on_bundled_vocabularies(name):
    bpe = get_encoding(name).bpe
    core = bpe._core
    from bpe_stream.bpe.vocabulary import _masks_from_bytes

    ranks = {t: i for i, t in enumerate(bpe.tokens)}
    assert (core.next_prefix(), _masks_from_bytes(core.masks_bytes())) == derived_tables(bpe.tokens, ranks)
    # the stored parts rebuild the same core
    again = Core.from_parts(*core.parts())
    assert again.masks_bytes() == core.masks_bytes() and again.next_prefix() == core.next_prefix()


def test_unreachable_tokens_are_listed_and_rejected_alike():
    core = Core(UNREACHABLE_TOKENS)
    assert core.unreachable() == [5]
    assert core.split_left()[5] == -1 and core.split_right()[5] == -1
    assert core.rank(b"bbbabb") is None  # left out of the tables the encoders read
    assert core.encode_bytes(b"bbbabb") == [2, 1, 0, 2]  # raw BPE: the merges
    assert core.encode(b"bbbabb") == (5,)  # a whole pre-split piece equal to the token
    assert core.encode(b"abbbabb") == (0, 2, 1, 0, 2)
    messages = []
    for native in (True, False):
        with pytest.raises(ValueError, match="does not encode to itself") as info:
            BytePairEncoding(UNREACHABLE_TOKENS, native=native)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_bad_vocabularies_give_the_same_errors():
    for tokens, error in [([b"a", "b"], TypeError), ([b"a", b""], ValueError), ([b"a", b"a"], ValueError)]:
        messages = []
        for native in (True, False):
            with pytest.raises(error) as info:
                BytePairEncoding(tokens, native=native)
            messages.append(str(info.value))
        assert messages[0] == messages[1], messages


def test_from_parts_rejects_damaged_tables():
    core = Core(README_TOKENS)
    blob, offsets, left, right = core.parts()
    import array

    bad_left = array.array("i", left)
    bad_left[8] = 8  # a token split into itself: the pair test would not end
    bad_offsets = array.array("I", offsets)
    bad_offsets[3] = 100
    for parts in [
        (blob, offsets, bad_left.tobytes(), right),
        (blob, bad_offsets.tobytes(), left, right),
        (blob[:-1], offsets, left, right),
        (blob, offsets[:-4], left, right),
    ]:
        with pytest.raises(ValueError, match="stored tables"):
            Core.from_parts(*parts)


# ------------------------------------------------------------- raw encoders


@given(seed=st.integers(0, 100_000), data=st.binary(max_size=400))
@settings(max_examples=examples(400), deadline=None)
def test_raw_encode_equals_naive_and_python_on_random_vocabularies(seed, data):
    tokens = random_vocabulary(seed, b"abc", merges=30)
    ranks = {t: i for i, t in enumerate(tokens)}
    data = bytes(b"abc"[x % 3] for x in data)
    native, python = both(tokens)
    expected = naive_bpe(ranks, data)
    assert native.encode(data) == expected
    assert native.count(data) == len(expected)
    assert python.encode(data) == expected
    assert native.encode(data, method="table") == expected
    table = PrefixTable(native, data)
    reference = PrefixTable(python, data)
    table.extend_to(len(data))
    reference.extend_to(len(data))
    assert list(table.counts) == list(reference.counts)
    assert list(table.last) == list(reference.last)


def _adversarial(name):
    rng = random.Random(name)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return {
        "random letters": "".join(rng.choice(letters) for _ in range(20_000)).encode(),
        "random CJK": "".join(chr(rng.randrange(0x4E00, 0x9FFF)) for _ in range(5_000)).encode(),
        "one letter": b"a" * 30_000,
        "spaces": b" " * 30_000,
        "base64": __import__("base64").b64encode(rng.randbytes(15_000)),
        "digits": "".join(rng.choice("0123456789") for _ in range(20_000)).encode(),
        "punctuation": "".join(rng.choice("!?.,;:-_()[]{}") for _ in range(20_000)).encode(),
        "every byte": bytes(range(256)) * 40,
        "random bytes": rng.randbytes(20_000),
        "newlines": b"\n \n\t" * 5_000,
    }


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_raw_encode_on_adversarial_inputs(name):
    bpe = get_encoding(name).bpe
    python = bpe._python_twin()
    for label, data in _adversarial(name).items():
        expected = bpe.encode(data, method="heap")  # the merge loop by its definition
        assert bpe.encode(data) == expected, label
        assert bpe.count(data) == len(expected), label
        assert bpe.encode(data[:4000], method="table") == python.encode(data[:4000]), label


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_long_single_pieces_equal_tiktoken(name):
    enc = get_encoding(name)
    oracle = tiktoken_oracle(name)
    rng = random.Random(5)
    texts = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(50_000)),
        "".join(chr(rng.randrange(0x4E00, 0x9FFF)) for _ in range(20_000)),
        "z" * 60_000,
        __import__("base64").b64encode(rng.randbytes(30_000)).decode().replace("+", "x").replace("/", "y"),
    ]
    for text in texts:
        expected = oracle.encode_ordinary(text)
        assert enc.encode_ordinary(text) == expected
        assert enc.count(text) == len(expected)


def test_raw_errors_name_the_missing_byte():
    native, python = both(README_TOKENS)
    for data in [b"abz", b"z", b"abcabc" * 100 + b"\xff"]:
        messages = []
        for bpe in (native, python):
            with pytest.raises(ValueError, match="not in the vocabulary") as info:
                bpe.encode(data)
            messages.append(str(info.value))
            with pytest.raises(ValueError, match="not in the vocabulary"):
                bpe.count(data)
        assert messages[0] == messages[1]
    with pytest.raises(TypeError):
        native.encode("abc")


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_cuts_and_limits_equal_python(name):
    bpe = get_encoding(name).bpe
    python = bpe._python_twin()
    data = corpus_text("tinyshakespeare.txt")[:3000].encode() + b" " * 500 + "中文".encode() * 50
    for limit in [0, 1, 7, 100, 400, 5000]:
        assert bpe.count_till_limit(data, limit) == python.count_till_limit(data, limit)
        assert bpe.split_at(data, limit) == python.split_at(data, limit)


# ---------------------------------------------------------- interval index


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_interval_index_equals_python(name):
    bpe = get_encoding(name).bpe
    python = bpe._python_twin()
    rng = random.Random(11)
    data = (
        corpus_text("multilingual_sentences.txt")[:1500].encode()
        + b" " * 300
        + b"ab" * 200
        + rng.randbytes(300)
        + corpus_text("code_python_black.py.txt")[:1500].encode()
    )
    native_index = _BytesIntervals(bpe, data)
    python_index = _BytesIntervals(python, data)
    assert native_index._index is not None and python_index._index is None
    # compiled: token lengths (1 byte) and the on-path bits with a 4-byte rank per 64 bits;
    # Python: lengths and three 4-byte arrays
    n1 = len(data) + 1
    assert native_index.memory_bytes() == n1 + 12 * (-(-n1 // 64))
    assert python_index.memory_bytes() == 13 * n1
    # the full tree arrays the Python query reads, made from the compiled index's lengths
    for attr in ("lens", "depth", "tree_id", "tree_end"):
        assert getattr(native_index, attr) == getattr(python_index, attr), attr
    native_index = _BytesIntervals(bpe, data)  # (the arrays above would answer queries too)
    for _ in range(400):
        i = rng.randrange(len(data))
        j = rng.randrange(i, min(len(data), i + rng.choice([5, 50, 500, 3000])) + 1)
        assert native_index.count(i, j) == python_index.count(i, j) == python.count(data[i:j]), (i, j)
    assert "lens" not in native_index.__dict__  # every query above answered by the compiled index


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_interval_index_every_range_of_long_pieces(name):
    """The compiled index's ancestor test (the walk back from j to the whole text's path,
    the on-path bits and their ranks) on every range of one long piece: random letters,
    CJK without spaces, random bytes; and its character-to-byte map (a sample every 64
    characters) against the Python offsets."""
    from bpe_stream.text.intervals import _char_offsets

    bpe = get_encoding(name).bpe
    rng = random.Random(7)
    letters = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(150))
    cjk = "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(50))
    mixed = "".join(rng.choice(["a", "é", "中", "😀", " ", "\n"]) for _ in range(200))
    for data in [letters.encode(), cjk.encode(), rng.randbytes(150)]:
        index = _BytesIntervals(bpe, data)
        for i in range(len(data) + 1):
            for j in range(i, len(data) + 1):
                assert index._index.count(i, j) == bpe.count(data[i:j]), (data, i, j)
    for text in [mixed, cjk * 3, "a" * 64 + "é", "é" * 128]:
        data = text.encode()
        index = bpe._core.interval_index(data)
        offs = _char_offsets(text, data)
        assert [index.byte_offset(k) for k in range(len(text) + 1)] == list(offs)
        with pytest.raises(IndexError):
            index.byte_offset(len(text) + 1)


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_interval_index_pair_filter_equals_the_table_pass(name):
    """From 256 KiB the compiled index's build asks a Bloom filter over the vocabulary
    before each byte-hash probe of its pair tests (_native/pair_filter.c): its token
    lengths equal those of the compiled table pass, which tests every pair without it
    (and is tested against Python above), and its counts equal the count of the slice."""
    from bpe_stream.bpe.intervals import _table_pass

    bpe = get_encoding(name).bpe
    rng = random.Random(3)
    letters = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=180_000))
    data = (
        letters[:120_000].encode()
        + corpus_text("multilingual_sentences.txt")[:20_000].encode()
        + b" " * 300
        + rng.randbytes(2_000)
        + corpus_text("code_python_black.py.txt")[:20_000].encode()
        + letters[120_000:].encode()
        + "中文字符没有空格的文本".encode() * 3_000
    )
    assert len(data) >= 1 << 18  # prefix_table.c PAIR_FILTER_MIN_INPUT
    index = bpe._core.interval_index(data)
    lens = array("B" if bpe.max_token_len < 256 else "H")
    lens.frombytes(index.arrays()[0])
    assert lens.tolist() == _table_pass(bpe, data, "")[0]
    for _ in range(20):
        i = rng.randrange(len(data))
        j = min(len(data), i + rng.choice([10, 1000, 10_000]))
        assert index.count(i, j) in (-1, bpe.count(data[i:j])), (i, j)


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_interval_queries_back_in_python_read_the_full_arrays(name):
    """A query the compiled index gives up on comes back to the Python steps, which read
    the full tree arrays made from the compiled index's token lengths (arrays())."""
    if name != "cl100k_base":
        full_tier_only()
    bpe = get_encoding(name).bpe
    rng = random.Random(5)
    data = corpus_text("multilingual_sentences.txt")[:800].encode() + rng.randbytes(200)

    class GivesUp:  # the compiled index, answering every query with "ask Python"
        def __init__(self, index):
            self.index = index

        def count(self, i, j):
            return -1

        def arrays(self):
            return self.index.arrays()

        def memory_bytes(self):
            return self.index.memory_bytes()

    index = _BytesIntervals(bpe, data)
    index._index = GivesUp(index._index)
    for _ in range(200):
        i = rng.randrange(len(data))
        j = rng.randrange(i, len(data) + 1)
        assert index.count(i, j) == bpe.count(data[i:j]), (i, j)
    assert "tree_id" in index.__dict__


# -------------------------------------------------------------------- cache


def _cache_entry(tmp_path, monkeypatch, tokens):
    from bpe_stream.encoding import cache

    monkeypatch.setenv("BPE_STREAM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cache, "_built", {})
    bpe = cache.bpe_from_tokens(tokens)
    entries = list(tmp_path.glob("*.bin"))
    assert len(entries) == 1
    return cache, bpe, entries[0]


def test_cache_entry_is_data_and_reads_back(tmp_path, monkeypatch):
    tokens = random_vocabulary(3, b"abcd", merges=40)
    cache, bpe, path = _cache_entry(tmp_path, monkeypatch, tokens)
    raw = path.read_bytes()
    assert raw.startswith(b"BPESTRM\0")
    assert b"pickle" not in raw and b"\x80\x05" not in raw[:40]
    key = path.name.split("-v")[0]
    back = cache._read(path, key)
    assert back is not None and back.tokens == tokens
    assert back.split_left == bpe.split_left and back.split_right == bpe.split_right
    # the pure-Python reader reads the same entry
    monkeypatch.setenv("BPE_STREAM_PURE_PYTHON", "1")
    back = cache._read(path, key)
    assert back is not None and not back.native and back.split_left == bpe.split_left


def test_damaged_cache_entries_are_ignored(tmp_path, monkeypatch):
    tokens = random_vocabulary(4, b"abcd", merges=40)
    cache, bpe, path = _cache_entry(tmp_path, monkeypatch, tokens)
    key = path.name.split("-v")[0]
    good = path.read_bytes()
    variants = {
        "truncated": good[:-3],
        "longer": good + b"\0",
        "bit flip": good[:60] + bytes([good[60] ^ 1]) + good[61:],
        "empty": b"",
        "wrong magic": b"X" + good[1:],
    }
    for label, blob in variants.items():
        path.write_bytes(blob)
        assert cache._read(path, key) is None, label
    # a crafted entry with a valid checksum: a split that is no split of its token
    import struct
    import zlib

    header = cache._HEADER
    magic, fmt, n, blob_len, crc, key_len, flags, m, ublob_len, meta_len = header.unpack(good[: header.size])
    payload = bytearray(good[header.size :])
    left_at = key_len + 4 * (n + 1)
    big = [r for r, t in enumerate(tokens) if len(t) > 1][-1]
    payload[left_at + 4 * big : left_at + 4 * big + 4] = struct.pack("<i", big)
    crafted = header.pack(magic, fmt, n, blob_len, zlib.crc32(bytes(payload)), key_len, flags, m, ublob_len, meta_len)
    crafted += bytes(payload)
    path.write_bytes(crafted)
    for pure in ("", "1"):
        monkeypatch.setenv("BPE_STREAM_PURE_PYTHON", pure)
        back = cache._read(path, key)
        # refused (C), or rebuilt from the tokens (Python): never the crafted table
        assert back is None or back.split_left == bpe.split_left
    # a symlink to /dev/zero and a FIFO are not read (and do not block)
    path.unlink()
    if os.path.exists("/dev/zero"):
        path.symlink_to("/dev/zero")
        assert cache._read(path, key) is None
        path.unlink()
    if hasattr(os, "mkfifo"):
        os.mkfifo(path)
        assert cache._read(path, key) is None
        path.unlink()
    # and load_or_build rebuilds and rewrites it silently
    path.write_bytes(b"garbage")
    monkeypatch.setenv("BPE_STREAM_PURE_PYTHON", "")
    monkeypatch.setattr(cache, "_built", {})
    again = cache.bpe_from_tokens(tokens)
    assert again.encode(b"abcdabcd") == bpe.encode(b"abcdabcd")
    assert path.read_bytes() == good


# ------------------------------------------------------------------ pickling


def test_vocabulary_pickles_as_data():
    bpe = BytePairEncoding.from_tokens(README_TOKENS)
    state = bpe.__getstate__()
    assert set(state) == {"tokens", "tables"} and set(state["tables"]) == {"split_left", "split_right", "exceptional"}
    for value in state["tables"].values():
        assert all(type(x) is int for x in value)
    clone = pickle.loads(pickle.dumps(bpe))
    assert clone.native == bpe.native and clone.encode(b"abacbb") == bpe.encode(b"abacbb")


# ------------------------------------------------------------------ batches


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_batches_equal_one_by_one(name):
    enc = get_encoding(name)
    texts = [corpus_text(f)[k * 3000 : k * 3000 + 3000] for f in ("tinyshakespeare.txt", "multilingual_sentences.txt",
                                                                  "code_python_black.py.txt") for k in range(5)]
    texts += ["", "x" * 5000, "<|endoftext|> after"]
    assert enc.count_batch(texts, num_threads=4) == [enc.count(t) for t in texts]
    assert enc.encode_ordinary_batch(texts, num_threads=3) == [enc.encode_ordinary(t) for t in texts]
    assert enc.encode_batch(texts, allowed_special="all") == [enc.encode(t, allowed_special="all") for t in texts]
    with pytest.raises(ValueError, match="disallowed special token"):
        enc.encode_batch(texts)
    assert enc.encode_batch(texts, disallowed_special=()) == [enc.encode(t, disallowed_special=()) for t in texts]
    with pytest.raises(ValueError):
        enc.count_batch(texts, num_threads=0)
    with pytest.raises(TypeError):
        enc.count_batch("a single string")
    assert enc.count_batch(iter(texts[:3]), num_threads=1) == [enc.count(t) for t in texts[:3]]


def test_shared_objects_stay_exact_under_threads():
    # A fresh Encoding (empty caches) shared by many threads: every count equals the
    # sequential one, whatever order the caches fill in.
    base = get_encoding("o200k_base")
    oracle = tiktoken_oracle("o200k_base")
    rng = random.Random(3)
    source = corpus_text("multilingual_sentences.txt") + corpus_text("tinyshakespeare.txt")[:200_000]
    texts = [source[a : a + rng.randrange(100, 4000)] for a in (rng.randrange(len(source) - 5000) for _ in range(120))]
    expected = [len(oracle.encode_ordinary(t)) for t in texts]
    for enc in (Encoding("fresh", pat_str=base.pat_str, bpe=base.bpe),
                Encoding("fresh-python", pat_str=base.pat_str, bpe=base.bpe._python_twin())):
        results = [None] * len(texts)

        def work(k0):
            for k in range(k0, len(texts), 6):
                results[k] = enc.count(texts[k])

        threads = [threading.Thread(target=work, args=(k0,)) for k0 in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == expected
        assert enc.count_batch(texts, num_threads=5) == expected


def test_piece_cache_shared_across_calls_and_threads_stays_exact():
    # The core's piece cache outlives calls and is filled, read and emptied by several
    # threads at once (count_text / encode_text run without the GIL on texts of 512 bytes
    # or more, count_batch on its own threads): random words, most of them new, collide
    # in the direct-mapped table; counts filled by count must not serve encode; a fifth of
    # the words are long (pieces of more than 32 bytes: the table of long pieces, and
    # some longer than it takes); every result equals tiktoken's, on the first pass and
    # the warm ones.
    base = get_encoding("cl100k_base")
    oracle = tiktoken_oracle("cl100k_base")
    core = base.bpe._core
    rng = random.Random(11)
    letters = "etaoinshrdlcumwfgypbvkjxqzÉéüßçñ中文日本語한국어ДЖЯ"
    texts = [" ".join("".join(rng.choice(letters) for _ in range(rng.randrange(1, 9) if rng.random() < 0.8
                                                                 else rng.randrange(12, 60)))
                      for _ in range(rng.randrange(90, 160))) for _ in range(240)]
    counts = [len(oracle.encode_ordinary(t)) for t in texts]
    tokens = [oracle.encode_ordinary(t) for t in texts]
    enc = Encoding("fresh", pat_str=base.pat_str, bpe=base.bpe)
    core.clear_piece_cache()
    failures = []

    def work(k0):
        for rounds in range(2):
            for k in range(k0, len(texts), 4):
                if enc.count(texts[k]) != counts[k] or enc.encode_ordinary(texts[k]) != tokens[k]:
                    failures.append(k)

    def clear():
        for _ in range(20):
            core.clear_piece_cache()

    threads = [threading.Thread(target=work, args=(k0,)) for k0 in range(4)] + [threading.Thread(target=clear)]
    for t in threads:
        t.start()
    batches = [enc.count_batch(texts, num_threads=2) for _ in range(3)]
    for t in threads:
        t.join()
    assert failures == []
    assert all(b == counts for b in batches)
    assert enc.encode_ordinary_batch(texts, num_threads=2) == tokens
    assert [enc.count(t) for t in texts] == counts



def test_short_piece_count_table_keys_length_and_evicts_exactly():
    # Counts of pieces of up to 7 bytes go to the piece cache's table of one word per
    # piece (bytes, length, count; eight to a cache line, piece_cache.h): runs of NUL
    # bytes differ only in their length (their words' bytes are all zero), and 20,000
    # distinct short words overfill some lines, so entries are replaced.  Every count,
    # cold and warm, one by one, in batches on two threads, and after encodings (which use
    # the other tables), equals tiktoken's; o200k's pattern keeps NUL runs apart too.
    rng = random.Random(23)
    letters = "etaoinshrdlcumwfgypbvkjxqzAEIO"
    words = {" " + "".join(rng.choice(letters) for _ in range(rng.randrange(2, 7))) for _ in range(20_000)}
    words = sorted(words)
    rng.shuffle(words)
    nul_runs = ["a" + "\x00" * k + " " for k in range(1, 8)] + ["\x00" * k + "." for k in range(1, 8)]
    texts = ["".join(words[k : k + 300]) + "".join(rng.sample(nul_runs, len(nul_runs)))
             for k in range(0, len(words), 300)]
    for name in ("cl100k_base", "o200k_base"):
        base = get_encoding(name)
        oracle = tiktoken_oracle(name)
        counts = [len(oracle.encode_ordinary(t)) for t in texts]
        enc = Encoding("fresh", pat_str=base.pat_str, bpe=base.bpe)
        base.bpe._core.clear_piece_cache()
        for _ in range(2):  # cold, then warm
            assert [enc.count(t) for t in texts] == counts
            assert enc.count_batch(texts, num_threads=2) == counts
        assert [len(enc.encode_ordinary(t)) for t in texts[:5]] == counts[:5]
        assert [enc.count(t) for t in texts[:5]] == counts[:5]
        assert [enc.count(nul) for nul in nul_runs] == [len(oracle.encode_ordinary(nul)) for nul in nul_runs]


@functools.lru_cache(maxsize=None)
def _neighbour_source():
    return corpus_text("code_python_black.py.txt")[:40_000] + corpus_text("multilingual_sentences.txt")[:20_000]


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 55_000), st.sampled_from((0, 1, 7, 60, 300, 900, 2500, 9000))),
                min_size=2, max_size=40),
       st.integers(2, 9))
def test_batch_runs_of_neighbours_take_every_text_once(spans, threads):
    # The batch hands its texts out as runs of neighbours, one run per thread, the other
    # threads taking from a run's far end once theirs is done, the long texts (over twice
    # the mean) first from a shared counter (batch.c split_ranges, take_range): texts of
    # very different lengths, overlapping slices, fewer texts than threads, empty texts;
    # every result in its slot, equal to tiktoken's, counted and encoded, through the
    # member's scanner (text_batch) and the ASCII scanner (ascii_batch).
    enc = get_encoding("cl100k_base")
    oracle = tiktoken_oracle("cl100k_base")
    source = _neighbour_source()
    texts = [source[a : a + n] for a, n in spans]
    tokens = [oracle.encode_ordinary(t) for t in texts]
    assert enc.count_batch(texts, num_threads=threads) == [len(t) for t in tokens]
    assert enc.encode_ordinary_batch(texts, num_threads=threads) == tokens
    ascii_texts = [t for t in texts if t.isascii()]
    core = enc._compiled()
    assert core.ascii_batch(ascii_texts, 1, threads, False) == [len(oracle.encode_ordinary(t)) for t in ascii_texts]


def _pool_texts():
    """Texts of very different lengths (so the threads take them out of turn), nearly all
    with different counts (so a result in the wrong slot shows)."""
    rng = random.Random(5)
    source = corpus_text("code_python_black.py.txt")[:60_000] + corpus_text("multilingual_sentences.txt")[:30_000]
    return [source[a : a + rng.choice((0, 1, 9, 200, 700, 4000))] for a in (rng.randrange(len(source) - 4000)
                                                                          for _ in range(90))]


def test_batch_worker_pool_keeps_every_text_in_order():
    # The batches' persistent workers (pool.c), woken again call after call with other
    # thread counts, and calls from several Python threads at once (one has the pool, the
    # others start threads of their own): each result in its text's slot, none lost.
    enc = get_encoding("cl100k_base")
    texts = _pool_texts()
    counts = [enc.count(t) for t in texts]
    tokens = [enc.encode_ordinary(t) for t in texts]
    for threads in (2, 3, 2, 8, 2):
        assert enc.count_batch(texts, num_threads=threads) == counts
    assert enc.encode_ordinary_batch(texts, num_threads=3) == tokens
    failures = []

    def caller(k0):
        for rounds in range(4):
            mine = texts[k0:] + texts[:k0]
            if enc.count_batch(mine, num_threads=2 + k0 % 3) != counts[k0:] + counts[:k0]:
                failures.append(k0)

    callers = [threading.Thread(target=caller, args=(k0,)) for k0 in range(4)]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    assert failures == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # fork of a process with threads
def test_batch_worker_pool_after_fork():
    # The parent's workers do not exist in a child of fork(): the child starts its own
    # (pool.c's pthread_atfork handler) instead of waiting on them forever.
    import signal

    enc = get_encoding("cl100k_base")
    texts = _pool_texts()
    counts = enc.count_batch(texts, num_threads=2)  # the parent's workers exist now
    pid = os.fork()
    if pid == 0:  # the child: exit status 0 if right, 1 if wrong, killed if stuck
        ok = False
        try:
            signal.alarm(60)
            ok = enc.count_batch(texts, num_threads=3) == counts and enc.count_batch(texts, num_threads=2) == counts
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert enc.count_batch(texts, num_threads=2) == counts


def test_batch_worker_pool_at_interpreter_exit():
    # Workers asleep, or at work for a daemon thread, when the interpreter exits: a clean
    # exit (they hold no Python state and call no Python API).
    import subprocess
    import sys

    code = ("import threading\n"
            "from bpe_stream import Encoding\n"
            "from bpe_stream.pretokenize.patterns import PATTERNS\n"
            "enc = Encoding('t', pat_str=PATTERNS['cl100k_base'], mergeable_ranks={bytes([b]): b for b in range(256)})\n"
            "texts = ['x y z' * 2000 + str(k) for k in range(40)]\n"
            "assert enc.count_batch(texts, num_threads=3) == [enc.count(t) for t in texts]\n"
            "def spin():\n"
            "    while True:\n"
            "        enc.count_batch(texts, num_threads=4)\n"
            "threading.Thread(target=spin, daemon=True).start()\n"
            "enc.count_batch(texts, num_threads=2)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


# ------------------------------------------------------------------ start-up


def test_a_count_needs_no_python_tables_and_no_regex(tmp_path):
    # A fresh process that loads a bundled encoding and counts ASCII text compiles no
    # regex and makes none of the Python tables (they are made on first access).
    import subprocess
    import sys

    script = (
        "import gc, bpe_stream\n"
        "from bpe_stream.pretokenize.unicode import LazyPattern\n"
        "enc = bpe_stream.get_encoding('o200k_base')\n"
        "assert enc.count('hello world, hello there') == 5\n"
        "compiled = [o for o in gc.get_objects() if isinstance(o, LazyPattern) and o._pattern is not None]\n"
        "made = sorted(k for k in ('tokens', 'ranks', 'split_left', 'continuation_masks', 'automaton')"
        " if k in enc.bpe.__dict__)\n"
        "print(len(compiled), made)\n"
    )
    env = dict(os.environ, BPE_STREAM_CACHE_DIR=str(tmp_path))
    env.pop("BPE_STREAM_PURE_PYTHON", None)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == "0 []"


def test_lazy_patterns_match_like_compiled_ones():
    from bpe_stream.pretokenize.unicode import LazyPattern, compile_regex

    lazy = LazyPattern(r"\p{L}+|\s+", 0)
    assert lazy._pattern is None
    assert lazy.findall("ab c") == ["ab", " ", "c"]
    assert lazy._pattern is not None and lazy.compiled() is lazy._pattern
    assert [m.span() for m in lazy.finditer("x y")] == [(0, 1), (1, 2), (2, 3)]
    clone = pickle.loads(pickle.dumps(compile_regex(r"\d+")))
    assert clone.match("123").group() == "123"
    with pytest.raises(ValueError, match="invalid pre-split pattern"):
        Encoding("bad", pat_str="(", mergeable_ranks={b"a": 0})


def test_regex_class_store_is_data_and_damage_is_ignored(tmp_path, monkeypatch):
    import json

    from bpe_stream.pretokenize import unicode

    monkeypatch.setenv("BPE_STREAM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(unicode, "_stored", None)
    unicode._installed_ranges.cache_clear()
    try:
        first = unicode._installed_ranges(r"\p{Lu}")
        path = unicode._store_path()
        stored = json.loads(path.read_text())
        assert [tuple(r) for r in stored[r"\p{Lu}"]] == list(first)
        for damaged in ["{", json.dumps({r"\p{Lu}": [[5, 3]]}), json.dumps({r"\p{Lu}": "x"}), "[]"]:
            path.write_text(damaged)
            monkeypatch.setattr(unicode, "_stored", None)
            unicode._installed_ranges.cache_clear()
            assert unicode._installed_ranges(r"\p{Lu}") == first
    finally:
        unicode._installed_ranges.cache_clear()


@given(values=st.lists(st.integers(-(2**31), 2**31 - 1), max_size=300), probes=st.lists(st.integers(-(2**32), 2**32), max_size=30))
@settings(max_examples=examples(200), deadline=None)
def test_bisect_right_array_equals_bisect(values, probes):
    from array import array
    from bisect import bisect_right

    from bpe_stream.bpe.native import bisect_right_array

    values.sort()
    for code in "iq":
        a = array(code, values)
        for x in probes + values:
            if code == "i" and not -(2**31) <= x < 2**31:
                continue
            assert bisect_right_array(a, x) == bisect_right(a, x)
    with pytest.raises(TypeError):
        bisect_right_array(array("d", [1.0]), 1)


def test_ascii_batch_in_c_equals_one_by_one():
    from bpe_stream.pretokenize.patterns import PATTERNS

    enc = get_encoding("o200k_base")
    core = enc._compiled()
    rng = random.Random(8)
    source = corpus_text("code_python_black.py.txt")
    texts = [source[a : a + rng.randrange(0, 3000)] for a in (rng.randrange(len(source) - 3000) for _ in range(60))]
    texts = [t for t in texts if t.isascii()] + ["", " " * 5000, "x" * 3000]
    for threads in (1, 2, 5):
        assert core.ascii_batch(texts, 2, threads, False) == [enc.count(t) for t in texts]
        assert core.ascii_batch(texts, 2, threads, True) == [enc.encode_ordinary(t) for t in texts]
    with pytest.raises(ValueError, match="not an ASCII str"):
        core.ascii_batch(["ok", "caf\u00e9"], 2, 2, False)
    # mixed batches through the Encoding: ASCII in C, the rest in Python, order kept
    mixed = texts[:10] + ["caf\u00e9 \u4e2d\u6587", "\ud83d\ude00 pair", "lone \ud800 surrogate"] + texts[10:20]
    assert enc.count_batch(mixed, num_threads=3) == [enc.count(t) for t in mixed]
    assert enc.encode_ordinary_batch(mixed, num_threads=2) == [enc.encode_ordinary(t) for t in mixed]
    # a text C does not take (a byte that is no token) gets the Python path's error
    readme = Encoding("readme", pat_str=PATTERNS["cl100k_base"], mergeable_ranks={t: i for i, t in enumerate(README_TOKENS)})
    assert readme._compiled().ascii_batch(["abacb", "abz", "ab ca"], 1, 2, False) == [3, None, None]
    with pytest.raises(ValueError, match="not in the vocabulary"):
        readme.count_batch(["abacb", "abz"], num_threads=2)
    assert readme.count_batch(["abacb", "ba"], num_threads=2) == [readme.count("abacb"), readme.count("ba")]


@functools.lru_cache(maxsize=None)
def _differing_chars(name):
    from bpe_stream.pretokenize.patterns import PATTERNS, _rust_dollar_to_python
    from bpe_stream.pretokenize.unicode import differing_bitmap

    bits = differing_bitmap(_rust_dollar_to_python(PATTERNS[name]))
    if bits is None:
        return bits, []
    return bits, [chr(c) for c in range(0x110000) if (bits[c >> 3] >> (c & 7)) & 1][::97]


@pytest.mark.parametrize("name", ENCODING_NAMES)
@given(data=st.data())
@settings(max_examples=examples(200), deadline=None)
def test_unicode_split_equals_the_rewritten_pattern(name, data):
    # The pattern as written is used only on stretches without a character the
    # installed regex classes differently; the pieces are the rewritten pattern's.
    from bpe_stream.bpe.native import _first_in_bitmap_py, first_in_bitmap

    enc = get_encoding(name)
    bits, differing = _differing_chars(name)
    alphabet = ["a", "Z", " ", "\n", "1", "!", "'s", "\u4e2d", "\u00e9", "\u0301", "\u3000", "\U0001F600", "\u0416", "\u0436"]
    if differing:
        alphabet += data.draw(st.lists(st.sampled_from(differing), min_size=1, max_size=4))
    text = "".join(data.draw(st.lists(st.sampled_from(alphabet), max_size=60)))
    splitter = enc._splitter
    assert splitter.unicode_findall(text, 0, len(text)) == splitter.pattern.findall(text)
    assert splitter.findall(text) == splitter.pattern.findall(text)
    if bits is not None:
        for a, b in [(0, len(text)), (len(text) // 2, len(text))]:
            assert first_in_bitmap(text, a, b, bits) == _first_in_bitmap_py(text, a, b, bits)
    assert enc.count(text) == len(tiktoken_oracle(name).encode_ordinary(text))


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_tiktoken_file_parsed_in_c_equals_python(name):
    from bpe_stream.bpe.ranks import parse_tiktoken, tokens_from_ranks
    from bpe_stream.encoding.registry import bundled_tiktoken_bytes

    raw = bundled_tiktoken_bytes(name)
    core = Core.from_tiktoken(raw)
    assert core.tokens() == tokens_from_ranks(parse_tiktoken(raw))
    assert core.split_left() == get_encoding(name).bpe.split_left


def test_tiktoken_parser_in_c_leaves_odd_files_to_python():
    from bpe_stream.bpe.ranks import parse_tiktoken, tokens_from_ranks

    good = b"YQ== 0\nYg== 1\nYWI= 2\n"
    assert Core.from_tiktoken(good).tokens() == tokens_from_ranks(parse_tiktoken(good)) == [b"a", b"b", b"ab"]
    assert Core.from_tiktoken(b"YQ== 0\r\n\nYg==  1\n").tokens() == [b"a", b"b"]
    for odd in [b"YQ== 0\nYQ== 1\n",  # a duplicate token
                b"YQ== 1\n",  # ranks not 0..n-1
                b"YQ== 0\nYg== 0\n",  # a rank twice
                b"YQ 0\n",  # bad padding
                b"Y!== 0\n",  # not base64
                b" 0\n",  # no token
                b"YQ==\n",  # no rank
                b"YQ== x\n",  # not a number
                b"YQ== 0 7\n"]:  # a third field
        assert Core.from_tiktoken(odd) is None, odd
