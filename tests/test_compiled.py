"""The compiled core's piece encoder and ASCII pre-split scanner (_native/merge_loop.c).

Each answers a question the pure-Python code also answers, so each is checked against
an independent reference: the merge loop against the naive O(n^2) BPE of conftest, the
scanner against the pre-split regex itself (the ``regex`` module, Unicode classes).
The Encoding-level tests of test_encoding.py run over both implementations as well.
"""

from __future__ import annotations

import os
import pickle
import random

import pytest
from conftest import (
    CORPUS_FILES,
    ENCODING_NAMES,
    README_TOKENS,
    examples,
    naive_bpe,
    pure_python_twin,
    tiktoken_oracle,
)
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_vocabulary import random_vocabulary

from bpe_stream import Encoding, get_encoding
from bpe_stream.bpe.native import Core as MergeTable, compiled_available
from bpe_stream.pretokenize.patterns import PATTERNS, compile_pattern
from bpe_stream.pretokenize.splitter import PreSplitter


def test_compiled_loop_is_built_in_ci():
    # CI installs with a C compiler: a build that silently fell back to pure Python
    # would leave every test below skipped and the speed claims untested.
    if not os.environ.get("CI"):
        pytest.skip("only checked in CI")
    assert MergeTable is not None, "bpe_stream._native._core was not built"
    assert not os.environ.get("BPE_STREAM_PURE_PYTHON")


pytestmark = pytest.mark.skipif(not compiled_available(), reason="compiled merge loop not built")

KIND = {"cl100k_base": 1, "o200k_base": 2}

# Every ASCII character class the two patterns tell apart, with the letters that
# start contractions in both cases, and characters Python's re counts as
# whitespace but Unicode does not (\x1c-\x1f).
_CLASS_ALPHABET = "aBcZ'sStTlLdDmMrReEvV .,-!/_\t\r\n\x0b\x0c\x1c\x1f\x000123"
ascii_text = st.one_of(
    st.text(alphabet=st.characters(max_codepoint=127), max_size=200),
    st.text(alphabet=_CLASS_ALPHABET, max_size=200),
    st.lists(st.sampled_from(["'s", "'LL", "'ve", "'Re", " '", "  ", "\n \n", " \r\n", "A", "bC",
                              "Ab", "123", "4567", " !!", " /", "!/\n", "\t", "x", "'"]), max_size=40).map("".join),
)


def regex_ends(name: str, text: str) -> list[int]:
    ends, at = [], 0
    for piece in compile_pattern(PATTERNS[name]).findall(text):
        at += len(piece)
        ends.append(at)
    return ends


@pytest.mark.parametrize("name", ENCODING_NAMES)
@given(text=ascii_text)
@settings(max_examples=examples(600), deadline=None)
@example(text="  \n  x")
@example(text="a'sb'LLc'vex'q'")
@example(text=" \t\x0b\x0c")
@example(text="ABc'S DEF'll 1234 !!/\n\n/")
def test_split_ascii_equals_regex(name, text):
    table = get_encoding(name)._compiled()
    assert table.split_ascii(text, 0, len(text), KIND[name]) == regex_ends(name, text)


@pytest.mark.parametrize("name", ENCODING_NAMES)
@given(text=ascii_text, before=st.sampled_from(["", "x", "\u4e2d", "\U0001F600", "\u00e9"]),
       after=st.sampled_from(["", "y", "\u4e2d\u00e9", "\U0001F600"]))
@settings(max_examples=examples(200), deadline=None)
def test_split_ascii_of_a_stretch_inside_wider_text(name, text, before, after):
    # The stretch is split as a whole text, whatever surrounds it and however the
    # surrounding string is stored (one, two or four bytes per character).
    table = get_encoding(name)._compiled()
    whole = before + text + after
    start = len(before)
    ends = table.split_ascii(whole, start, start + len(text), KIND[name])
    assert [e - start for e in ends] == regex_ends(name, text)


@pytest.mark.parametrize("name", ENCODING_NAMES)
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_split_ascii_on_corpus_stretches(name, path):
    text = path.read_text(encoding="utf-8")
    splitter = PreSplitter(PATTERNS[name])
    table = get_encoding(name)._compiled()
    checked = 0
    for is_ascii, start, end in splitter.stretches(text):
        if is_ascii:
            expected = [start + e for e in regex_ends(name, text[start:end])]
            assert table.split_ascii(text, start, end, KIND[name]) == expected
            checked += end - start
    if text.isascii():
        assert checked == len(text)


def test_split_ascii_rejects_bad_arguments():
    table = get_encoding("cl100k_base")._compiled()
    with pytest.raises(ValueError, match="non-ASCII"):
        table.split_ascii("ab\u00e9", 0, 3, 1)
    with pytest.raises(ValueError, match="non-ASCII"):
        table.split_ascii("ab\u4e2d", 0, 3, 2)
    with pytest.raises(IndexError):
        table.split_ascii("abc", 2, 1, 1)
    with pytest.raises(IndexError):
        table.split_ascii("abc", 0, 4, 1)
    with pytest.raises(ValueError, match="kind"):
        table.split_ascii("abc", 0, 3, 7)
    with pytest.raises(TypeError):
        table.split_ascii(b"abc", 0, 3, 1)
    with pytest.raises(TypeError, match="fallback"):
        table.count_ascii("abc", 0, 3, 1)
    with pytest.raises(TypeError, match="fallback"):
        table.encode_ascii("abc", 0, 3, 1, None)


@given(seed=st.integers(0, 10_000), data=st.binary(max_size=80))
@settings(max_examples=examples(400), deadline=None)
def test_merge_table_equals_naive_bpe_on_small_vocabularies(seed, data):
    tokens = random_vocabulary(seed)
    ranks = {t: i for i, t in enumerate(tokens)}
    table = MergeTable(tokens)
    data = bytes(b"abc"[x % 3] for x in data)
    assert table.encode(data) == tuple(naive_bpe(ranks, data))


@given(text=st.text(alphabet="abc", max_size=300))
@settings(max_examples=examples(300), deadline=None)
def test_merge_table_on_readme_vocabulary_and_piece_limit(text):
    table = MergeTable(README_TOKENS)
    ranks = {t: i for i, t in enumerate(README_TOKENS)}
    data = text.encode()
    got = table.encode(data)
    # short pieces by the merge loop, long ones by the backtracking encoder
    assert got == tuple(naive_bpe(ranks, data))
    assert table.encode(text) == got  # str and bytes alike
    assert table.count(text) == len(got)


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_merge_table_on_corpus_pieces(name):
    enc = get_encoding(name)
    table = enc._compiled()
    ranks = enc.bpe.ranks
    rng = random.Random(7)
    pieces = set()
    for path in CORPUS_FILES:
        text = path.read_text(encoding="utf-8")
        pieces.update(enc.split(text[rng.randrange(max(1, len(text) - 20_000)):][:20_000]))
    if not pieces:
        pytest.skip("no corpora")
    for piece in sorted(pieces):
        data = piece.encode()
        got = table.encode(piece)
        if len(data) <= 24:
            assert got == tuple(naive_bpe(ranks, data)), piece
        else:
            assert list(got) == enc.bpe.encode(data, method="heap"), piece


def test_merge_table_reports_bytes_outside_the_vocabulary():
    table = MergeTable(README_TOKENS)
    assert table.encode(b"abz") is None  # the Python path raises the clear error
    enc = Encoding("readme", pat_str=PATTERNS["cl100k_base"], mergeable_ranks={t: i for i, t in enumerate(README_TOKENS)})
    for text in ["ab cz", "abc " * 100 + "z", "c" * 300 + "z"]:
        with pytest.raises(ValueError, match=r"byte 0x.. .* not in the vocabulary"):
            enc.count(text)
        with pytest.raises(ValueError, match=r"byte 0x.. .* not in the vocabulary"):
            enc.encode_ordinary(text)


def test_merge_table_rejects_bad_tokens():
    with pytest.raises(TypeError, match="token 1 is str"):
        MergeTable([b"a", "b"])
    with pytest.raises(ValueError, match="token 1 is empty"):
        MergeTable([b"a", b""])
    with pytest.raises(TypeError):
        MergeTable(5)
    with pytest.raises(TypeError):
        MergeTable([b"a"]).encode(5)


@pytest.mark.parametrize("name", ENCODING_NAMES)
@pytest.mark.parametrize("text", [" " * 1000, "x" * 700, "ab" * 400 + "\n", "1" * 900, "!" * 300 + " a",
                                  "  " * 200 + "\n" * 300, "Hello " * 100 + "\t" * 400])
def test_long_pieces_are_exact(name, text):
    # pieces over the merge loop's length go through the backtracking encoder
    enc = get_encoding(name)
    expected = tiktoken_oracle(name).encode_ordinary(text)
    assert enc.count(text) == len(expected)
    assert enc.encode_ordinary(text) == expected


@pytest.mark.parametrize("name", ENCODING_NAMES)
@given(blocks=st.lists(st.one_of(ascii_text, st.sampled_from(["\u00e9", "\u4e2d\u6587", "\U0001F600", "\u00a0",
                                                              "\u0301", "\u3000", "caf\u00e9 ", "\n\u2028"])),
                       max_size=12))
@settings(max_examples=examples(300), deadline=None)
def test_mixed_text_equals_tiktoken(name, blocks):
    # ASCII stretches are counted in C, the rest by the regex; stretches are forced
    # short (no text is treated as dense) so that the cuts between them are exercised.
    from bpe_stream.pretokenize import splitter as pretokenize

    text = "".join(blocks)
    enc = get_encoding(name)
    expected = tiktoken_oracle(name).encode_ordinary(text)
    assert enc.encode_ordinary(text) == expected
    assert enc.count(text) == len(expected)
    saved = pretokenize._DENSE_TEXT, pretokenize._DENSE_BLOCK
    try:
        pretokenize._DENSE_TEXT, pretokenize._DENSE_BLOCK = 0, 16
        assert enc.encode_ordinary(text) == expected
        assert enc.count(text) == len(expected)
    finally:
        pretokenize._DENSE_TEXT, pretokenize._DENSE_BLOCK = saved


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_pure_python_twin_answers_the_same(name):
    enc = get_encoding(name)
    twin = pure_python_twin(enc)
    assert twin._compiled() is None
    text = "Hello, wörld! 12345 don't  \n\n\tcafé 中文 😀 " * 20
    assert twin.count(text) == enc.count(text) == len(tiktoken_oracle(name).encode_ordinary(text))
    assert twin.encode_ordinary(text) == enc.encode_ordinary(text)


def test_environment_variable_turns_it_off(monkeypatch):
    # read when a vocabulary is built
    monkeypatch.setenv("BPE_STREAM_PURE_PYTHON", "1")
    from bpe_stream import BytePairEncoding

    bpe = BytePairEncoding.from_tokens(README_TOKENS)
    assert not bpe.native and bpe._core is None
    fresh = Encoding("fresh", pat_str=None, bpe=bpe)
    assert fresh._compiled() is None
    assert fresh.count("abacb") == 3


def test_encoding_pickles_without_the_table():
    enc = get_encoding("o200k_base")
    fresh = Encoding("unregistered", pat_str=enc.pat_str, bpe=get_encoding("cl100k_base").bpe)
    fresh.count("warm the table up")
    clone = pickle.loads(pickle.dumps(fresh))
    assert clone.count("warm the table up") == fresh.count("warm the table up")


# ------------------------------------------------ a build without a compiler says so
def test_a_skipped_build_warns_once_at_import_unless_pure_python_is_chosen(tmp_path, monkeypatch):
    import importlib.resources
    import warnings

    from bpe_stream.bpe import native

    (tmp_path / "NOT_COMPILED").write_text("CompileError: no compiler\n")
    monkeypatch.setattr(importlib.resources, "files", lambda package: tmp_path)
    monkeypatch.delenv("BPE_STREAM_PURE_PYTHON", raising=False)
    with pytest.warns(RuntimeWarning, match="without its compiled core .*CompileError: no compiler"):
        native._warn_not_compiled()
    monkeypatch.setenv("BPE_STREAM_PURE_PYTHON", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        native._warn_not_compiled()  # chosen on purpose: quiet
        monkeypatch.delenv("BPE_STREAM_PURE_PYTHON")
        (tmp_path / "NOT_COMPILED").unlink()
        native._warn_not_compiled()  # built (or never tried): quiet


def test_setup_py_marks_a_skipped_optional_extension(tmp_path, monkeypatch):
    # the custom build_ext turns the silent skip of an optional extension into a marker
    # file and a warning block on stderr
    import runpy
    import sys as _sys
    from pathlib import Path

    import setuptools

    root = Path(__file__).resolve().parents[1]
    captured = {}
    monkeypatch.setattr(setuptools, "setup", lambda **kw: captured.update(kw))
    runpy.run_path(str(root / "setup.py"))
    build_ext_loudly = captured["cmdclass"]["build_ext"]
    from setuptools import Distribution

    dist = Distribution({"ext_modules": captured["ext_modules"]})
    cmd = build_ext_loudly(dist)
    cmd.initialize_options()
    cmd.build_lib = str(tmp_path / "lib")
    cmd.build_temp = str(tmp_path / "temp")
    cmd.finalize_options()
    cmd.build_lib = str(tmp_path / "lib")

    def fail(self, ext):
        raise RuntimeError("no compiler here")

    monkeypatch.setattr(setuptools.command.build_ext.build_ext, "build_extension", fail)
    err = []
    monkeypatch.setattr(_sys, "stderr", type("S", (), {"write": lambda self, s: err.append(s)})())
    cmd.build_extension(captured["ext_modules"][0])
    monkeypatch.setattr(setuptools.command.build_ext.build_ext, "run", lambda self: None)
    cmd.run()
    marker = tmp_path / "lib" / "bpe_stream" / "_native" / "NOT_COMPILED"
    assert marker.read_text().startswith("RuntimeError: no compiler here")
    assert "WARNING: bpe-stream's compiled core" in "".join(err)
