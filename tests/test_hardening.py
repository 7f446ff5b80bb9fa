"""Inputs a hostile caller would try: huge budgets and ids, tokens of 64 KiB and more,
surrogates where offsets are reported, wrong types where a name is expected.  Each test
names what used to go wrong."""

from __future__ import annotations

import gzip

import pytest

import bpe_stream
from bpe_stream import Chunker, Encoding, IntervalCounter, get_encoding
from bpe_stream.chunk.chunker import CharacterOverBudget

BYTES = {bytes([i]): i for i in range(256)}


@pytest.mark.parametrize("text", ["hello", "h\u00e9llo", "\u4e2d\u6587" * 3, ""])
@pytest.mark.parametrize("budget", [2**31, 2**63, 10**30])
def test_any_int_budget_works(text, budget):
    # count_till_limit overflowed a C size on ASCII text only
    for name in ("cl100k_base", "o200k_base"):
        enc = get_encoding(name)
        assert enc.count_till_limit(text, budget) == enc.count(text)
        assert enc.truncate(text, budget) == text and enc.truncate_start(text, budget) == text
        assert enc.bpe.count_till_limit(text.encode(), budget) == enc.bpe.count(text.encode())
    for mode in ("semantic", "exact"):
        for overlap in (0, 3):
            # the exact mode's compiled cuts took the budget as a C size (OverflowError)
            chunks = Chunker("cl100k_base", budget, overlap=overlap, boundaries=mode).chunks(text)
            assert [c.text for c in chunks] == ([text] if text else [])


def test_refusal_offsets_are_the_callers():
    # the position was counted after joining surrogate pairs: 2 instead of 4
    text = "\ud83d\ude00\ud83d\ude00\ud800\udc00"
    for run in (lambda c: c.chunks(text), lambda c: list(c.chunk_stream([text[:3], text[3:]]))):
        with pytest.raises(CharacterOverBudget, match="at position 4 ") as info:
            run(Chunker(get_encoding("o200k_base"), 1))
        assert info.value.position == 4 and text[4:6] == "\ud800\udc00"


def test_tokens_of_64_kib_and_more():
    # tokens_digest wrote lengths in 2 bytes: OverflowError even with the cache disabled
    big = b"y" * 2**16
    enc = Encoding("big", pat_str=None, mergeable_ranks={**BYTES, b"yy": 256, big: 257})
    assert enc.encode_ordinary("y" * 2**16) == [257]
    assert enc.encode_ordinary("y" * (2**16 + 2)) == [256] * (2**15 + 1)  # BPE never builds it


def test_a_huge_line_in_a_vocabulary_file_is_a_clear_error(tmp_path):
    path = tmp_path / "huge.tiktoken"
    path.write_bytes(b"QUFB" * (2**20) + b" x\n")
    with pytest.raises(ValueError):
        bpe_stream.load(path, pattern="gpt2")


def test_ids_beyond_32_bits_are_refused():
    with pytest.raises(ValueError, match="invalid id 1000000000000000000000000000000"):
        Encoding("x", pat_str=None, mergeable_ranks=BYTES, special_tokens={"<s>": 10**30})
    with pytest.raises(ValueError, match="0..2\\*\\*32-1"):
        Encoding("x", pat_str=None, mergeable_ranks={**BYTES, b"ab": 2**40})
    with pytest.raises(ValueError, match="invalid id True"):
        Encoding("x", pat_str=None, mergeable_ranks=BYTES, special_tokens={"<s>": True})


def test_training_maps_lone_surrogates_to_replacement_characters():
    # train raised a raw UnicodeEncodeError; the rest of the API reads U+FFFD
    enc = bpe_stream.train(["\ud800abc" * 20, "x\udfff"], 260, pattern="cl100k_base")
    same = bpe_stream.train(["\ufffdabc" * 20, "x\ufffd"], 260, pattern="cl100k_base")
    assert enc.bpe.tokens == same.bpe.tokens
    assert enc.encode("\ud800abc") == same.encode("\ufffdabc")


def test_model_names_must_be_strings():
    for bad in (None, 3, b"gpt-4o"):
        with pytest.raises(TypeError, match="model name must be a str"):
            bpe_stream.encoding_for_model(bad)
        with pytest.raises(TypeError):
            bpe_stream.encoding_name_for_model(bad)


def test_empty_and_bomb_files(tmp_path):
    empty = tmp_path / "empty.tiktoken"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        bpe_stream.load(empty, pattern="gpt2")
    nested = tmp_path / "nested.json"
    nested.write_bytes(b'{"model": ' + b"[" * 200_000 + b"]" * 200_000 + b"}")
    with pytest.raises(ValueError):
        bpe_stream.load(nested)
    gz = tmp_path / "only-zeros.tiktoken.gz"
    gz.write_bytes(gzip.compress(b"\0" * 1000))
    with pytest.raises(ValueError):
        bpe_stream.load(gz, pattern="gpt2")


def test_interval_offsets_beyond_the_text_are_refused():
    ic = IntervalCounter(get_encoding("cl100k_base"), "hello")
    with pytest.raises(ValueError, match="need 0 <= start <= end <= 5"):
        ic.count(0, 2**63)
    with pytest.raises(TypeError):
        ic.count(0, 2.0)
