"""The compiled routines of loading a vocabulary file against their pure-Python twins:
byte-level strings and GGUF string arrays (``_native/load_strings.c``), a tokenizer.json's
vocab and merges read from its bytes (``json_sections.c``), the tokens that
hold waiting ones (``holding.c``), the waiting tokens decided by the merge loop
(``waiting.c``), a vocabulary's parts without some tokens
(``dropping.c``), merge order and the merges-agree check
(``merges.c``), and a vocabulary with unreachable tokens built once
(``BytePairEncoding.from_ordered``) against a second build of the other tokens.
The real vocabularies run in the full tier."""

from __future__ import annotations

import json
import os
import random
import struct
from array import array

import pytest
import real_vocabularies as rv
from conftest import examples, full_tier_only
from hypothesis import given, settings
from hypothesis import strategies as st
from test_vocabulary import random_vocabulary

from bpe_stream.bpe import merges as merges_mod
from bpe_stream.bpe import vocabulary as vocabulary_mod
from bpe_stream.bpe.native import (
    compiled_available,
    load_strings,
    merges_compiled,
    merges_products_compiled,
    tokens_holding_compiled,
)
from bpe_stream.bpe.tables import UnreachableTokens, tokens_holding
from bpe_stream.bpe.merges import PackedMerges
from bpe_stream.bpe.vocabulary import BytePairEncoding
from bpe_stream.encoding.formats.hf_json import _decode_byte_level_py, byte_encoder, decode_byte_level

pytestmark = pytest.mark.skipif(not compiled_available(), reason="compiled core not built")

_ENC = byte_encoder()
# byte-level characters, a few characters outside the table, the space
_CHARS = [*_ENC.values(), "\u0100", "\u4e00", "é", "\U0001f600", " ", "a"]


def _to_byte_level(data: bytes) -> str:
    return "".join(_ENC[b] for b in data)


def _python(items, pairs):
    """The reference: each item (str, UTF-8 bytes or, with pairs, [a, b]) read in Python."""
    texts = []
    for m in items:
        if isinstance(m, (list, tuple)):
            texts += m
            continue
        text = m.decode("utf-8", "replace") if isinstance(m, bytes) else m
        if pairs:
            if text.count(" ") != 1:
                raise ValueError("not two tokens")
            texts += text.split(" ")
        else:
            texts.append(text)
    return _decode_byte_level_py(texts)


def _both(items, pairs=False):
    native = load_strings()[0]
    try:
        expected = _python(items, pairs)
    except ValueError:
        expected = ValueError
    try:
        got = native(items, pairs=pairs)
    except ValueError as e:
        assert len(e.args) == 2 and 0 <= e.args[1] < len(items)
        got = ValueError
    assert got == expected


@given(st.lists(st.text(alphabet=st.sampled_from(_CHARS), max_size=8), max_size=20), st.booleans(),
       st.booleans())
@settings(max_examples=examples(200), deadline=None)
def test_byte_level_decode_equals_python(strings, as_bytes, pairs):
    items = [s.encode("utf-8") for s in strings] if as_bytes else strings
    _both(items, pairs)


@given(st.lists(st.binary(min_size=1, max_size=6), max_size=20), st.binary(max_size=3))
@settings(max_examples=examples(200), deadline=None)
def test_byte_level_round_trip_and_merge_forms(tokens, noise):
    strings = [_to_byte_level(t) for t in tokens]
    native = load_strings()[0]
    assert native(strings) == tokens
    assert native([s.encode("utf-8") for s in strings]) == tokens
    pairs = [f"{a} {b}" for a, b in zip(strings, strings[1:])]
    listed = [[a, b] for a, b in zip(strings, strings[1:])]
    expected = [t for a, b in zip(tokens, tokens[1:]) for t in (a, b)]
    assert native(pairs, pairs=True) == native(listed, pairs=True) == expected
    assert native([p.encode("utf-8") for p in pairs], pairs=True) == expected
    # the merges as (a, b) tuples: in C, and in Python (the compiled core switched off)
    as_tuples = list(zip(tokens, tokens[1:]))
    assert native(pairs, pairs=True, tuples=True) == native(listed, pairs=True, tuples=True) == as_tuples
    assert native([p.encode("utf-8") for p in pairs], pairs=True, tuples=True) == as_tuples
    assert native(strings, tuples=True) == tokens  # tuples only with pairs
    before = os.environ.get("BPE_STREAM_PURE_PYTHON")
    os.environ["BPE_STREAM_PURE_PYTHON"] = "1"
    try:
        assert decode_byte_level(pairs, pairs=True, tuples=True) == as_tuples
        assert decode_byte_level(listed, pairs=True, tuples=True) == as_tuples
    finally:
        if before is None:
            del os.environ["BPE_STREAM_PURE_PYTHON"]
        else:
            os.environ["BPE_STREAM_PURE_PYTHON"] = before
    # bytes that are not UTF-8 (or not of the table) are refused as Python refuses them
    _both([noise + b"!"], False)
    _both([b"!" + noise + b" !"], True)


def test_byte_level_decode_refusals_name_the_item():
    native = load_strings()[0]
    for items, pairs in [(["Ġa", "a b"], False), (["a b", "ab"], True), (["a b", "a b c"], True),
                         ([["a"]], True), ([["a", 1]], True), ([b"\xc3("], False), ([b"\xe4\xb8\x80"], False)]:
        for tuples in (False, True):
            with pytest.raises(ValueError) as info:
                native(items, pairs=pairs, tuples=tuples)
            assert info.value.args[1] == len(items) - 1
    with pytest.raises(TypeError):
        native([1])
    # the wrapper words the error as the Python reading does
    with pytest.raises(ValueError, match="is not a byte-level token"):
        decode_byte_level(["a", "a\u4e00"])
    with pytest.raises(ValueError, match="merge 'ab' is not two tokens"):
        decode_byte_level(["a b", "ab"], pairs=True)


def _gguf_array(strings: list[bytes], count: str) -> bytes:
    return b"".join(struct.pack(count, len(s)) + s for s in strings)


@given(st.lists(st.binary(max_size=40), max_size=30), st.sampled_from(["<I", "<Q"]), st.integers(0, 5),
       st.integers(0, 2000))
@settings(max_examples=examples(200), deadline=None)
def test_gguf_strings_reads_the_whole_strings_of_a_window(strings, count, pad, cut):
    gguf_strings = load_strings()[1]
    size = struct.calcsize(count)
    data = b"\x07" * pad + _gguf_array(strings, count)
    window = data[: pad + cut]
    got, end = gguf_strings(window, pad, len(strings), size)
    # the reference: whole strings that fit in the window, in order
    expected, at = [], pad
    for s in strings:
        if at + size + len(s) > len(window):
            break
        expected.append(s)
        at += size + len(s)
    assert (got, end) == (expected, at)
    # the rest from where it stopped, with the whole data
    rest, end2 = gguf_strings(data, end, len(strings) - len(got), size)
    assert got + rest == strings and end2 == len(data)
    assert gguf_strings(data, pad, min(1, len(strings)), size)[0] == strings[:1]


def test_gguf_strings_refuses_bad_arguments():
    gguf_strings = load_strings()[1]
    for args in [(b"abc", 4, 1, 4), (b"abc", 0, 1, 2), (b"abc", -1, 1, 4)]:
        with pytest.raises(ValueError):
            gguf_strings(*args)
    # a count larger than the window is not read past
    assert gguf_strings(struct.pack("<Q", 1 << 62) + b"x", 0, 1, 8) == ([], 0)


_BYTE_LEVEL = byte_encoder()


def _gguf_string(rng: random.Random, merge: bool) -> bytes:
    """A GGUF token or merge string: mostly byte level, sometimes not (a space, a character
    outside the table, bytes that are not UTF-8, a merge without one space)."""
    def side() -> str:
        return "".join(_BYTE_LEVEL[rng.randrange(256)] for _ in range(rng.randint(0, 4)))

    text = f"{side()} {side()}" if merge else side()
    roll = rng.random()
    if roll < 0.08:
        return text.encode("utf-8") + b"\xc3("
    if roll < 0.16:
        return (text + rng.choice([" ", "\u4e00", "\u0100 x", "\x80"])).encode("utf-8")
    if merge and roll < 0.2:
        return text.replace(" ", "").encode("utf-8")
    return text.encode("utf-8")


@given(seed=st.integers(0, 100_000), count=st.sampled_from(["<I", "<Q"]), merges=st.booleans(),
       cut=st.integers(0, 400))
@settings(max_examples=examples(200), deadline=None)
def test_gguf_byte_level_equals_reading_then_decoding(seed, count, merges, cut):
    # gguf_byte_level.c against its reference: gguf_strings, then byte_level_decode of each
    from bpe_stream.bpe.native import gguf_byte_level

    gguf_tokens, gguf_merges = gguf_byte_level()
    gguf_strings, decode = load_strings()[1], load_strings()[0]
    rng = random.Random(seed)
    strings = [_gguf_string(rng, merges) for _ in range(rng.randint(0, 30))]
    size = struct.calcsize(count)
    data = b"\x07" * 3 + _gguf_array(strings, count)
    window = data[: 3 + cut]
    raw, raw_end = gguf_strings(window, 3, len(strings), size)
    if not merges:
        got, end, raw_at = gguf_tokens(window, 3, len(strings), size)
        assert end == raw_end and len(got) == len(raw)
        for i, (item, s) in enumerate(zip(got, raw)):
            try:
                expected = decode([s])[0]
            except ValueError:
                assert i in raw_at and item == s
            else:
                assert i not in raw_at and item == expected
        assert raw_at == sorted(raw_at)
        return
    base = rng.choice([0, 5, 1 << 20])
    blob, ends, end, stopped = gguf_merges(window, 3, len(strings), size, base)
    expected = []
    for s in raw:
        try:
            expected += decode([s], pairs=True, tuples=True)
        except ValueError:
            break
    at = array("I", ends)
    assert at.tolist() == sorted(at) and (not at or at[-1] == base + len(blob))
    # the ends count from base: the bytes before it stand for a first merge (b"", prefix)
    assert PackedMerges(b"\0" * base + blob, array("I", [0, base]).tobytes() + ends)[1:] == expected
    got = PackedMerges(blob, array("I", [e - base for e in at]).tobytes())
    assert got == expected and list(got) == expected and stopped == (len(expected) < len(raw))
    assert [got[j] for j in range(-len(got), len(got))] == expected + expected
    assert end == 3 + sum(size + len(s) for s in raw[: len(got)])
    # read as the compiled order_by_merges reads them, and as a list of tuples
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update((a + b, 256 + j) for j, (a, b) in enumerate(expected) if a + b not in ranks)
    assert merges_mod.order_by_merges(ranks, got, products=True) == \
        merges_mod.order_by_merges(ranks, expected, products=True)


def test_gguf_byte_level_refuses_bad_arguments():
    from bpe_stream.bpe.native import gguf_byte_level

    gguf_tokens, gguf_merges = gguf_byte_level()
    for args in [(b"abc", 4, 1, 4), (b"abc", 0, 1, 2), (b"abc", -1, 1, 4)]:
        with pytest.raises(ValueError):
            gguf_tokens(*args)
        with pytest.raises(ValueError):
            gguf_merges(*args, 0)
    with pytest.raises(ValueError):
        gguf_merges(b"", 0, 0, 4, -1)
    assert gguf_tokens(struct.pack("<Q", 1 << 62) + b"x", 0, 1, 8)[:2] == ([], 0)
    assert gguf_merges(struct.pack("<Q", 1 << 62) + b"x", 0, 1, 8, 0)[:3] == (b"", b"", 0)
    with pytest.raises(ValueError, match="4 GiB"):
        gguf_merges(struct.pack("<I", 3) + b"a b", 0, 1, 4, (1 << 32) - 1)
    # packed merges whose ends do not fit are refused, by PackedMerges and by order_by_merges
    with pytest.raises(ValueError):
        PackedMerges(b"ab", array("I", [1, 3]).tobytes())
    with pytest.raises(ValueError):
        merges_compiled()[0]({b"a": 0}, (b"ab", array("I", [2, 1]).tobytes()))
    with pytest.raises(TypeError):
        merges_compiled()[0]({b"a": 0}, "ab")


@given(seed=st.integers(0, 100_000), alphabet=st.sampled_from([b"ab", b"abc", b"abcd"]), k=st.integers(1, 6))
@settings(max_examples=examples(200), deadline=None)
def test_tokens_holding_equals_python(seed, alphabet, k):
    tokens = random_vocabulary(seed, alphabet, merges=30)
    rng = random.Random(seed)
    inner = sorted(rng.sample(range(len(tokens)), min(k, len(tokens))))
    blob = b"".join(tokens)
    offsets = [0]
    for t in tokens:
        offsets.append(offsets[-1] + len(t))
    from array import array

    got = tokens_holding_compiled(blob, array("I", offsets).tobytes(), inner)
    assert got == sorted(tokens_holding(tokens, [tokens[i] for i in inner]))


@given(seed=st.integers(0, 100_000), alphabet=st.sampled_from([b"ab", b"abc", b"abcd"]), shuffled=st.integers(0, 12))
@settings(max_examples=examples(200), deadline=None)
def test_classify_waiting_equals_python(seed, alphabet, shuffled):
    # tokens out of training order (some built only after a later one, some never): every
    # token decided by the compiled loop and by tables.classify_waiting
    from array import array

    from bpe_stream.bpe.native import classify_waiting_compiled
    from bpe_stream.bpe.tables import classify_waiting

    rng = random.Random(seed)
    tokens = random_vocabulary(seed, alphabet, merges=30)
    singles = [t for t in tokens if len(t) == 1]
    longer = [t for t in tokens if len(t) > 1]
    moved = rng.sample(range(len(longer)), min(shuffled, len(longer)))
    picked = [longer[i] for i in moved]
    rng.shuffle(picked)
    for i, t in zip(sorted(moved), picked):
        longer[i] = t
    tokens = singles + longer
    if rng.random() < 0.2 and longer:
        tokens.append(rng.choice(longer))  # bytes held twice: the later rank is theirs
    offsets = [0]
    for t in tokens:
        offsets.append(offsets[-1] + len(t))
    blob, offs = b"".join(tokens), array("I", offsets).tobytes()
    waiting = list(range(len(tokens)))
    rng.shuffle(waiting)
    flagged, unreachable = classify_waiting_compiled()(blob, offs, waiting)
    left, right = [-1] * len(tokens), [-1] * len(tokens)
    ranks = dict(zip(tokens, range(len(tokens))))
    exceptional, unreachable_py = classify_waiting(tokens, ranks.get, set(waiting), left, right)
    assert {r for r, _, _ in flagged} == exceptional and set(unreachable) == unreachable_py
    assert len(flagged) + len(unreachable) == sum(len(t) > 1 for t in tokens)
    assert all((left[r], right[r]) == (a, b) for r, a, b in flagged)
    with pytest.raises(ValueError):
        classify_waiting_compiled()(blob, offs, [len(tokens)])
    with pytest.raises(ValueError):
        classify_waiting_compiled()(blob[:-1], offs, [])


def _merges_of(tokens: list[bytes]) -> list[tuple[bytes, bytes]]:
    """A merge list that builds ``tokens`` (each by its split, in rank order)."""
    bpe = BytePairEncoding(tokens, native=False)
    return [(tokens[bpe.split_left[t]], tokens[bpe.split_right[t]]) for t in range(len(tokens)) if len(tokens[t]) > 1]


def _compare_merges(ranks, merges):
    order_c, check_c = merges_compiled()
    if isinstance(merges, PackedMerges):  # read packed by the compiled order as the list is read
        packed, merges = merges, list(merges)
        assert order_c(ranks, (packed.blob, packed.ends), True) == order_c(ranks, merges, True)
    got = order_c(ranks, merges)
    expected = merges_mod._order_by_merges_py(ranks, merges)
    assert got == expected and list(got[2]) == list(expected[2])
    tokens, ids, _ = expected
    bpe = BytePairEncoding.from_ordered(tokens, ids)
    reference = merges_mod._merges_agree_py(bpe, merges)
    assert merges_mod.merges_agree(bpe, merges) == reference
    # the check from order_by_merges' products (merges_products.c), where they name the pairs
    *ordered, products = order_c(ranks, merges, True)
    assert tuple(ordered) == tuple(got)
    named = all(a + b in ranks for a, b in merges) and sorted(ranks.values()) == list(range(len(ranks)))
    assert (products is not None) == named
    if products is not None:
        assert len(products) == 8 * len(merges)
        blob, offsets, left, right = bpe._core.parts()
        ids_arg = None if bpe.ids is None else array("i", bpe.ids)
        unreachable = list(bpe.unreachable)
        assert merges_products_compiled()(offsets, left, right, ids_arg, products, ranks, unreachable) == \
            check_c(blob, offsets, left, right, merges, unreachable)
    assert merges_mod.merges_agree(bpe, merges, ranks=ranks, products=products) == reference
    return products


@given(seed=st.integers(0, 100_000), alphabet=st.sampled_from([b"ab", b"abc", b"abcd"]),
       edit=st.sampled_from(["none", "swap", "drop", "extra", "duplicate"]))
@settings(max_examples=examples(200), deadline=None)
def test_merge_order_and_check_equal_python(seed, alphabet, edit):
    tokens = random_vocabulary(seed, alphabet, merges=25)
    merges = _merges_of(tokens)
    rng = random.Random(seed)
    if merges and edit == "swap":
        i, j = rng.randrange(len(merges)), rng.randrange(len(merges))
        merges[i], merges[j] = merges[j], merges[i]
    elif merges and edit == "drop":
        del merges[rng.randrange(len(merges))]
    elif edit == "extra":
        merges.insert(rng.randrange(len(merges) + 1), (rng.choice(tokens), rng.choice(tokens)))
    elif merges and edit == "duplicate":
        merges.append(merges[rng.randrange(len(merges))])
    ids = list(range(len(tokens)))
    rng.shuffle(ids)
    _compare_merges(dict(zip(tokens, ids)), merges)


def test_merge_products_only_where_they_name_the_pairs():
    order_c, _ = merges_compiled()
    tokens = [b"a", b"b", b"ab", b"ba", b"aba"]
    merges = [(b"a", b"b"), (b"b", b"a"), (b"ab", b"a"), (b"a", b"ba")]
    ranks = dict(zip(tokens, range(5)))
    products = order_c(ranks, merges, True)[3]
    assert array("i", products).tolist() == [2, 1, 3, 1, 4, 2, 4, 1]  # (product id, len(a)) per merge
    assert order_c({**ranks, b"aba": 7}, merges, True)[3] is None  # an id past the tokens
    assert order_c({**ranks, b"aba": 2, b"ab": 4}, merges, True)[3] is not None  # any order of 0..n-1
    assert order_c(dict(zip(tokens, [0, 1, 2, 3, 3])), merges, True)[3] is None  # an id twice
    assert order_c(ranks, merges + [(b"b", b"b")], True)[3] is None  # "bb" is no token
    assert len(order_c(ranks, merges)) == 3
    bpe = BytePairEncoding.from_ordered(*order_c(ranks, merges)[:2])
    check = merges_products_compiled()
    blob, offsets, left, right = bpe._core.parts()
    assert check(offsets, left, right, None, products, ranks, []) is None
    # the split of "aba" is ab + a (cut 2): unlisted without that merge, out of order after "ba"'s
    assert check(offsets, left, right, None, array("i", [2, 1, 3, 1, 4, 1]).tobytes(), ranks, []) == ("unlisted", 4)
    assert check(offsets, left, right, None, array("i", [2, 1, 4, 2, 3, 1]).tobytes(), ranks, []) == ("order", 4)
    assert check(offsets, left, right, None, array("i", [10**6, 1]).tobytes(), ranks, []) is False
    with pytest.raises(ValueError):
        check(offsets, left, right, None, products[:-1], ranks, [])
    with pytest.raises(ValueError):
        check(offsets, left, right, array("i", [0, 1]), products, ranks, [])


def test_merge_check_of_unreachable_tokens():
    # "bbbabb": rank order never builds it; listing the merge that makes it whole in HF's
    # loop is a disagreement, leaving it out is none
    tokens = [b"a", b"b", b"bb", b"bba", b"bbabb", b"bbbabb"]
    ranks = {t: i for i, t in enumerate(tokens)}
    merges = [(b"b", b"b"), (b"bb", b"a"), (b"bba", b"bb")]
    _compare_merges(ranks, merges)
    # merge lists under which HF's loop builds it whole (b + bbabb), in several orders
    whole = [(b"b", b"a"), (b"b", b"ba"), (b"bba", b"b"), (b"bbab", b"b"), (b"b", b"bbabb"), (b"b", b"b")]
    for listed in (whole, whole[::-1], merges + whole):
        _compare_merges({**ranks, b"ba": 6, b"bbab": 7}, listed)
    # "abab": rank order cannot build it ("ab" is no token), HF's loop can (a + b, then
    # ab + ab): both checks name it
    ranks, merges = {b"a": 0, b"b": 1, b"abab": 2}, [(b"a", b"b"), (b"ab", b"ab")]
    _compare_merges(ranks, merges)
    tokens_, ids, _ = merges_mod.order_by_merges(ranks, merges)
    bpe = BytePairEncoding.from_ordered(tokens_, ids)
    assert bpe.unreachable == {b"abab": 2}
    assert "built by the listed merges but not in rank order" in merges_mod.merges_agree(bpe, merges)
    assert merges_mod.merges_agree(bpe, [(b"b", b"a"), (b"ab", b"ab")]) is None


def _built_twice(tokens, ids):
    """from_ordered with the second build of the reachable tokens (the reference)."""
    saved = vocabulary_mod._without_unreachable
    vocabulary_mod._without_unreachable = lambda *args: None
    try:
        return BytePairEncoding.from_ordered(tokens, ids)
    finally:
        vocabulary_mod._without_unreachable = saved


def _assert_same_vocabulary(a, b):
    assert a._core.parts() == b._core.parts()
    assert a._core.exceptional() == b._core.exceptional() and a.exceptional == b.exceptional
    assert a._core.masks_bytes() == b._core.masks_bytes()
    assert a.ids == b.ids and list(a.unreachable.items()) == list(b.unreachable.items())


@given(seed=st.integers(0, 100_000), alphabet=st.sampled_from([b"ab", b"abc"]), extra=st.integers(1, 6))
@settings(max_examples=examples(200), deadline=None)
def test_unreachable_tokens_removed_without_a_second_build(seed, alphabet, extra):
    # random tokens inserted among a vocabulary's: some are unreachable, some exceptional
    rng = random.Random(seed)
    tokens = random_vocabulary(seed, alphabet, merges=25)
    for _ in range(extra):
        t = bytes(rng.choice(alphabet) for _ in range(rng.randint(2, 6)))
        if t not in tokens:
            tokens.insert(rng.randint(len(alphabet), len(tokens)), t)
    ids = list(range(len(tokens)))
    rng.shuffle(ids)
    _assert_same_vocabulary(BytePairEncoding.from_ordered(tokens, ids), _built_twice(tokens, ids))


@given(seed=st.integers(0, 100_000), alphabet=st.sampled_from([b"ab", b"abc"]), extra=st.integers(0, 6))
@settings(max_examples=examples(200), deadline=None)
def test_core_build_is_the_first_pass_of_core(seed, alphabet, extra):
    """Core.build: Core(tokens) where no token waits, else that core's parts and waiting
    ranks; the vocabulary settled from it has the pure-Python build's splits."""
    rng = random.Random(seed)
    tokens = random_vocabulary(seed, alphabet, merges=25)
    for _ in range(extra):
        t = bytes(rng.choice(alphabet) for _ in range(rng.randint(2, 6)))
        if t not in tokens:
            tokens.insert(rng.randint(len(alphabet), len(tokens)), t)
    full = vocabulary_mod.Core(tokens)
    built = vocabulary_mod.Core.build(tokens)
    if full.unreachable():
        assert built == (*full.parts(), list(full.unreachable()))
    else:
        assert built.parts() == full.parts() and built.masks_bytes() == full.masks_bytes()
    try:
        native = BytePairEncoding(tokens)
    except UnreachableTokens as e:
        with pytest.raises(UnreachableTokens) as python_error:
            BytePairEncoding(tokens, native=False)
        assert python_error.value.tokens == e.tokens
        return
    python = BytePairEncoding(tokens, native=False)
    # (the compiled settling may flag more tokens exceptional: see vocabulary._settle)
    assert (native.split_left, native.split_right) == (python.split_left, python.split_right)
    assert native.exceptional >= python.exceptional


@given(seed=st.integers(0, 100_000), alphabet=st.sampled_from([b"ab", b"abc"]), n_drop=st.integers(0, 8))
@settings(max_examples=examples(200), deadline=None)
def test_drop_tokens_equals_python(seed, alphabet, n_drop):
    from bpe_stream.bpe.native import drop_tokens_compiled

    rng = random.Random(seed)
    tokens = random_vocabulary(seed, alphabet, merges=20)
    parts = vocabulary_mod.Core(tokens).parts()
    drop = sorted(rng.sample(range(len(tokens)), min(n_drop, len(tokens))))
    got = drop_tokens_compiled()(*parts, drop)
    assert got == vocabulary_mod._drop_tokens_py(*parts, drop)
    kept = [t for r, t in enumerate(tokens) if r not in drop]
    assert got[0] == b"".join(kept)
    if not drop:
        assert got == parts
    with pytest.raises(ValueError):
        drop_tokens_compiled()(*parts, [len(tokens)])
    with pytest.raises(ValueError):
        drop_tokens_compiled()(*parts, [1, 1])
    with pytest.raises(ValueError):
        drop_tokens_compiled()(parts[0][:-1], *parts[1:], [])


def _real(name):
    try:
        return rv.built(name)
    except rv.Unavailable as e:
        pytest.skip(str(e))


@pytest.mark.parametrize("name", ["llama3/tokenizer.json", "qwen2/tokenizer.json", "gpt2/tokenizer.json",
                                  "deepseek_v3_layout/tokenizer.json",
                                  "llama3/llama3-vocab.gguf"])
def test_real_vocabularies_read_and_built_as_in_python(name, monkeypatch):
    full_tier_only()
    from bpe_stream.encoding.formats import read_vocabulary

    path = _real(name)
    spec = read_vocabulary(path)
    monkeypatch.setenv("BPE_STREAM_PURE_PYTHON", "1")
    pure = read_vocabulary(path)
    monkeypatch.delenv("BPE_STREAM_PURE_PYTHON")
    assert spec.mergeable_ranks == pure.mergeable_ranks and spec.merges == pure.merges
    assert spec.special_tokens == pure.special_tokens
    _compare_merges(spec.mergeable_ranks, spec.merges)
    tokens, ids, _ = merges_mod.order_by_merges(spec.mergeable_ranks, spec.merges)
    _assert_same_vocabulary(BytePairEncoding.from_ordered(tokens, ids), _built_twice(tokens, ids))


# ------------------------------------------------ tokenizer.json sections read in C
def _dump(value, rng, ascii_only, pad) -> str:
    """JSON text of ``value``, where an object is a list of (key, value) pairs (so that a
    key may repeat) and a tuple is an array; spacing, escapes of '/' and of non-ASCII
    characters (surrogate pairs above U+FFFF) chosen by ``rng``."""
    gap = (lambda: rng.choice(["", " ", "\n  ", "\t", "\r\n"])) if pad else (lambda: "")
    if isinstance(value, list):
        items = [f"{gap()}{_dump(k, rng, ascii_only, pad)}{gap()}:{gap()}{_dump(v, rng, ascii_only, pad)}{gap()}"
                 for k, v in value]
        return "{" + ",".join(items) + "}" if items else "{" + gap() + "}"
    if isinstance(value, tuple):
        items = [f"{gap()}{_dump(v, rng, ascii_only, pad)}{gap()}" for v in value]
        return "[" + ",".join(items) + "]" if items else "[" + gap() + "]"
    text = json.dumps(value, ensure_ascii=ascii_only)
    if isinstance(value, str) and rng.random() < 0.3:
        text = text.replace("/", "\\/")
    return text


def _tokenizer_json(rng, tokens, odd) -> str:
    strings = [_to_byte_level(t) for t in tokens]
    vocab = [(s, i) for i, s in enumerate(strings)]
    merges = [f"{a} {b}" if rng.random() < 0.5 else (a, b)
              for a in strings[:4] for b in strings[:4] if a + b in strings]
    if "stray" in odd:  # a token outside the byte-level table (read by json.loads alone)
        vocab.append((rng.choice(["\u4e00", "\U0001f600", "a b", "\n"]), len(vocab)))
    if "float" in odd:
        vocab.append((strings[0] * 5, 1.0 * len(vocab)))
    if "repeat" in odd:  # a key twice: its first place, its last id
        vocab.insert(1, (strings[0], len(vocab) + 5))
    if "bad_merge" in odd:
        merges.append(rng.choice([strings[0], f"{strings[0]}  {strings[0]}", ("a",)]))
    model = [("type", "BPE"), ("dropout", None), ("vocab", vocab), ("merges", tuple(merges)),
             ("ignore_merges", rng.random() < 0.5)]
    rng.shuffle(model)
    if "vocab_twice" in odd:
        model.append(("vocab", vocab[:3]))
    added = tuple([("id", len(vocab) + 10), ("content", "<|x/\U0001f600|>"), ("special", True)] for _ in range(1))
    if "added_in_vocab" in odd:
        added += ([("id", 0), ("content", strings[0])],)
    top = [("version", "1.0"), ("added_tokens", added), ("normalizer", None),
           ("pre_tokenizer", [("type", "ByteLevel"), ("add_prefix_space", False), ("use_regex", True)]),
           ("decoder", [("type", "ByteLevel"), ("odd \"}]{[\\", "x")]), ("model", model)]
    rng.shuffle(top)
    if "model_twice" in odd:
        top.insert(0, ("model", [("type", "BPE"), ("vocab", []), ("merges", ())]))
    return _dump(top, rng, rng.random() < 0.5, rng.random() < 0.5)


@given(seed=st.integers(0, 100_000), odd=st.sets(st.sampled_from(
    ["stray", "float", "repeat", "bad_merge", "vocab_twice", "added_in_vocab", "model_twice", "garbage"])))
@settings(max_examples=examples(200, fast=40), deadline=None)
def test_tokenizer_json_sections_equal_json_loads(seed, odd, tmp_path_factory):
    """read_sections (``_native/json_sections.c`` + json.loads of the rest) against
    json.loads of the whole file: the same values where it reads the file, and the same
    encoding spec or error from read_vocabulary either way."""
    from bpe_stream.encoding.formats import read_vocabulary
    from bpe_stream.encoding.formats.hf_json import read_sections

    rng = random.Random(seed)
    tokens = [bytes([b]) for b in rng.sample(range(256), 6)]
    tokens += [tokens[0] + tokens[1], tokens[1] + tokens[2], tokens[0] + tokens[1] + tokens[2]]
    text = _tokenizer_json(rng, tokens, odd)
    if "garbage" in odd:
        cut = rng.randrange(len(text))
        text = text[:cut] + rng.choice(["", "}", "\"", "]", ",", "\\"]) + text[cut + 1:]
    raw = text.encode("utf-8")
    found = read_sections(raw)
    try:
        reference = json.loads(raw)
    except ValueError:
        assert found is None
        reference = None
    if found is not None:
        data, (got_tokens, got_ids, got_merges) = found
        model = reference["model"]
        assert list(model["vocab"]) == list(dict.fromkeys(_to_byte_level(t) for t in got_tokens))
        assert got_ids == list(model["vocab"].values()) or "repeat" in odd
        assert dict(zip(got_tokens, got_ids)) == dict(zip(decode_byte_level(list(model["vocab"])),
                                                         model["vocab"].values()))
        assert got_merges == decode_byte_level(model["merges"], pairs=True, tuples=True)
        data["model"] = {**data["model"], "vocab": model["vocab"], "merges": model["merges"]}
        assert data == reference
    elif not (odd & {"stray", "float", "bad_merge", "vocab_twice", "model_twice", "garbage"}):
        raise AssertionError("a plain file was not read by the compiled scan")
    path = tmp_path_factory.mktemp("sections") / "tokenizer.json"
    path.write_bytes(raw)

    def outcome():
        try:
            spec = read_vocabulary(path)
        except (ValueError, KeyError, TypeError, AttributeError) as e:  # garbage may break any field
            return type(e).__name__, str(e)
        return spec.mergeable_ranks, spec.merges, spec.special_tokens, spec.whole_pieces

    compiled = outcome()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BPE_STREAM_PURE_PYTHON", "1")
        assert outcome() == compiled


def test_tokenizer_json_sections_refusals():
    from bpe_stream.bpe.native import json_sections_compiled

    scan = json_sections_compiled()
    plain = '{"model": {"vocab": {"a": 0, "b": 1}, "merges": ["a b"]}}'
    vocab, merges = '{"a": 0, "b": 1}', '["a b"]'
    spans = (plain.index(vocab), plain.index(vocab) + len(vocab), plain.index(merges), plain.index(merges) + len(merges))
    assert scan(plain.encode()) == (*spans, [b"a", b"b"], [0, 1], [(b"a", b"b")])
    for text in ['{"model": {"vocab": {"a": 0}}}',  # no merges
                 '{"model": {"vocab": {"a": 0.5}, "merges": []}}',  # a float id
                 '{"model": {"vocab": {"a": 01}, "merges": []}}',  # not JSON
                 '{"model": {"vocab": {"\\n": 0}, "merges": []}}',  # not byte level
                 '{"model": {"vocab": {"\\ud83d\\ude00": 0}, "merges": []}}',  # surrogate pair
                 '{"mod\\u0065l": {"vocab": {}, "merges": []}}',  # an escaped key
                 '{"model": {"vocab": {}, "merges": ["a  b"]}}',  # two spaces
                 '{"model": {"vocab": {"a": 0}, "merges": []}', '[]', '', '{"model": []}']:
        assert scan(text.encode()) is None, text
    assert scan(b'{"model": {"vocab": {"\\u0120\\/\\"": 7}, "merges": [["\\u0120", "\\/"]]}}')[4:] == (
        [b' /"'], [7], [(b" ", b"/")])
