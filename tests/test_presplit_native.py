"""The compiled pre-split scanner (``_native/presplit.c``) against each member's reference
regex, and the counts and encodings made with it against tiktoken and HF tokenizers.

The reference is the member's own split (:meth:`PreTokenizer.split`: the ``regex`` module
with the reference engines' Unicode classes).  The scanner must give exactly its pieces on
every corpus file, on hypothesis text drawn from every class a member tells apart, and on
every code point in short contexts; ``Encoding.count`` / ``encode_ordinary`` (which use the
scanner for every member) must equal tiktoken with the same ranks and pattern, the regex
path, and HF tokenizers on the real vocabularies.
"""

from __future__ import annotations

import functools
import random
import sys
import unicodedata

import pytest
from conftest import CORPUS_FILES, FULL, examples, tiktoken_oracle
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_stream
from bpe_stream.bpe.native import presplit
from bpe_stream.pretokenize.family import (
    MEMBERS,
    PreTokenizer,
    chain,
    custom,
    native_spec,
)
from bpe_stream.pretokenize.splitter import PreSplitter
from bpe_stream.text.input import fix_surrogates

pytestmark = pytest.mark.skipif(presplit is None, reason="the compiled core is not built (or is turned off)")

NAMES = list(MEMBERS)


def reference(member: PreTokenizer, text: str) -> list[str]:
    return member.compiled().findall(text)


def compiled(member: PreTokenizer, text: str) -> list[str]:
    return presplit(text, native_spec(member))


def first_difference(a: list[str], b: list[str]) -> str:
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"piece {k}: reference {a[max(0, k - 2):k + 3]!r} compiled {b[max(0, k - 2):k + 3]!r}"


def check(member: PreTokenizer, text: str) -> None:
    text = member.normalize(fix_surrogates(text))
    ref, got = reference(member, text), compiled(member, text)
    assert got == ref, (member.name, first_difference(ref, got))


# ------------------------------------------------------------------ which members


def test_every_member_has_a_spec_and_outsiders_none():
    specs = {name: native_spec(m) for name, m in MEMBERS.items()}
    assert None not in specs.values()
    assert len(set(specs.values())) == len(specs)  # each member its own choices
    assert native_spec(None) is None
    assert native_spec(custom(r"\S+|\s+", "tiktoken")) is None
    # the same choices under another pattern string are not the member
    qwen = MEMBERS["qwen2"]
    other = PreTokenizer("qwen2", digits="one", normalizer="NFC", pattern=qwen.pattern + "|x", dialect="hf",
                         known=False)
    assert native_spec(other) is None
    # a member under a chain of its own regexes, or with another normalizer, still is
    assert native_spec(chain("x", list(MEMBERS["deepseek_v3"].pre_splits) + [MEMBERS["deepseek_v3"].pattern])) \
        == specs["deepseek_v3"]
    assert native_spec(chain("x", [qwen.pattern], normalizer=None)) == specs["qwen2"]


def test_presplitter_uses_the_compiled_scanner_for_members_only():
    assert PreSplitter(MEMBERS["tekken"]).native == native_spec(MEMBERS["tekken"])
    assert PreSplitter(r" ?\S+|\s+").native is None
    assert PreSplitter(r" ?\S+|\s+").findall("a b") == ["a", " b"]


def test_presplit_count_counts_the_pieces():
    from bpe_stream._native._core import presplit_count

    text = "Hello, wörld! 12345 日本語 'll\n\n  x"
    for member in MEMBERS.values():
        assert presplit_count(text, native_spec(member)) == len(reference(member, text)) > 0


def test_lone_surrogates_take_the_regex():
    text = "a\ud800b c"
    with pytest.raises(ValueError):
        presplit(text, native_spec(MEMBERS["cl100k_base"]))
    splitter = PreSplitter(MEMBERS["cl100k_base"])
    assert splitter.findall(text) == MEMBERS["cl100k_base"].compiled().findall(text)


def test_the_class_tables_are_generated_from_the_reference_data():
    import subprocess
    from pathlib import Path

    tool = Path(__file__).resolve().parents[1] / "tools" / "gen_presplit_tables.py"
    done = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_bad_spec_is_refused():
    with pytest.raises(ValueError):
        presplit("abc", -1)
    with pytest.raises(ValueError):
        presplit("abc", 1 << 20)
    with pytest.raises(ValueError):
        presplit("abc", 3 << 2)  # letters 3: no such choice


# ------------------------------------------------------------------ the corpora


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_corpus_files_split_like_the_reference(name, path):
    check(MEMBERS[name], path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ hypothesis text

# One or more characters of every class a member tells apart.
LETTERS = list("aAzZsStTdDmMlLvVeErR") + [
    "é", "É", "ß", "ſ", "\u212a", "ǅ", "ǈ", "ʰ", "ª", "ᾼ", "Ǆ", "Ω", "ω", "Ж", "ж", "ق", "א", "क", "ก", "中", "文",
    "ひ", "カ", "ー", "한", "\u3040", "\u309f", "\u30a0", "\u30fb", "\u30ff", "\u3100", "\u9fa5", "\u9fa6", "\u4dff",
    "\U00020000", "\U0001d400", "ɐ", "ᵃ", "ⓐ",
]
MARKS = ["\u0301", "\u0308", "\u0903", "\u20dd", "\u0e31", "\u3099", "\U0001d165"]
DIGITS = list("0189") + ["٣", "²", "½", "Ⅻ", "①", "𝟘", "१", "〇", "\u2160"]
SPACES = [" ", "\t", "\x0b", "\x0c", "\x85", "\xa0", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f",
          "\u205f", "\u3000", "\r", "\n", "\r\n", "  ", "\n\n", " \n "]
PUNCT = list("'!\"#$%&()*+,-./:;<=>?@[\\]^_`{|}~") + [
    "¿", "«", "»", "。", "，", "「", "€", "©", "\x00", "\x1c", "\x1f", "\x7f", "\u200b", "\u200d", "\ufeff",
    "\u0378", "\ue000", "\uffff", "\U0010ffff", "\ud800", "\udc00", "\ud83d\ude00",
]
EMOJI = ["\U0001F600", "\U0001F44D\U0001F3FD", "\U0001F468\u200d\U0001F469\u200d\U0001F467", "\u2764\ufe0f",
         "\U0001F1FA\U0001F1F8", "1\ufe0f\u20e3"]
WORDS = ["'s", "'S", "'ſ", "'ſa", "a'ſ", "'Ll", "'ſx", "'ll", "'LL", "'Re", "'ve", "'d", "'m", "'t", "don't", "HELLO", "Hello", "hELLO",
         "e\u0301", " world", "12345", "१२३४", "việc", " hợp", "俱乐部", "日本語です", "ΑΒΓαβγ", "x" * 30]
ALPHABET = LETTERS + MARKS + DIGITS + SPACES + PUNCT + EMOJI + WORDS
text_of_every_class = st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join)
any_text = st.one_of(text_of_every_class, st.text(max_size=40),
                     st.lists(st.sampled_from(SPACES + LETTERS[:4] + PUNCT[:3]), max_size=20).map("".join))


@settings(max_examples=examples(1200), deadline=None)
@given(text=any_text)
def test_any_text_splits_like_the_reference(text):
    for member in MEMBERS.values():
        check(member, text)


# ------------------------------------------------------------------ every code point

CONTEXTS = ["a", "Z", "1", "٣", " ", "\n", "'", "\u0301", "\u4e2d", "!", "\u3000"]


def _code_points():
    return [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


def _contexts_text(before: list[str], after: list[str]) -> str:
    """Every code point once, each between a context from ``before`` and one from
    ``after`` (rotating through both lists)."""
    cps = _code_points()
    nb, na = len(before), len(after)
    return "".join(before[k % nb] + c + after[(k // nb) % na] for k, c in enumerate(cps))


@pytest.mark.parametrize("name", NAMES)
def test_every_code_point_in_rotating_contexts(name):
    member = MEMBERS[name]
    ref_text = _contexts_text(CONTEXTS, CONTEXTS)
    ref, got = member.compiled().findall(ref_text), presplit(ref_text, native_spec(member))
    assert got == ref, (name, first_difference(ref, got))
    # after an apostrophe, before a letter: contractions (case folding) and their suffix form
    text = "".join("a'" + c + "b" for c in _code_points())
    ref, got = member.compiled().findall(text), presplit(text, native_spec(member))
    assert got == ref, (name, first_difference(ref, got))
    # each code point alone, and at the start and the end of the text
    for c in ("\u017f", "\u212a", "\x85", "\u3000", "\u0301", "\U0010ffff"):
        for text in (c, "'" + c, c + " ", " " + c, c + "\n", "a" + c):
            check(member, text)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("context", CONTEXTS + ["\r\n", "  ", "A", "ǅ", "\U0001F600", "\xa0"], ids=ascii)
def test_every_code_point_in_every_context(name, context):
    member = MEMBERS[name]
    cps = _code_points()
    for text in (context.join(cps) + context,                     # between two
                 "".join(c + context + "\x00" for c in cps),     # before it
                 "".join("\x00" + context + c for c in cps)):    # after it
        ref, got = member.compiled().findall(text), presplit(text, native_spec(member))
        assert got == ref, (name, ascii(context), first_difference(ref, got))


# ------------------------------------------------------------------ counts and encodings

# Members tiktoken can run (a pattern in its dialect; no chain), with that spelling.
def _tiktoken_spelling(member: PreTokenizer) -> str | None:
    if member.chained:
        return None
    if member.dialect == "tiktoken":
        return member.pattern
    return next((s for s, d in member.spellings if d == "tiktoken"), None)


TIKTOKEN_MEMBERS = [n for n, m in MEMBERS.items() if _tiktoken_spelling(m) is not None]


@functools.cache
def _pair(vocab: str, name: str):
    """(ours, tiktoken's, ours through the regex) with vocab's ranks and member name's split."""
    tiktoken = pytest.importorskip("tiktoken")
    member = MEMBERS[name]
    base = bpe_stream.get_encoding(vocab)
    ours = bpe_stream.Encoding(f"{vocab}-{name}", pretokenizer=member, bpe=base.bpe, special_tokens={})
    spelling = _tiktoken_spelling(member)
    theirs = None if spelling is None else tiktoken.Encoding(
        f"{vocab}-{name}", pat_str=spelling, mergeable_ranks=tiktoken_oracle(vocab)._mergeable_ranks,
        special_tokens={})
    # the regex split, pieces encoded by the same compiled core
    regex_path = bpe_stream.Encoding(f"{vocab}-{name}", pretokenizer=member, bpe=base.bpe, special_tokens={})
    regex_path._native = None
    regex_path._splitter = PreSplitter(member)
    regex_path._splitter.native = None
    regex_path._split = regex_path._splitter.findall
    assert regex_path.split("x 1") == ours.split("x 1")
    return ours, theirs, regex_path


def _texts():
    size = 400_000 if FULL else 40_000
    return [p.read_text(encoding="utf-8")[:size] for p in CORPUS_FILES]


@pytest.mark.parametrize("vocab", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("name", TIKTOKEN_MEMBERS)
def test_counts_and_encodings_equal_tiktoken(vocab, name):
    ours, theirs, _ = _pair(vocab, name)
    assert ours._native_split() is not None  # the compiled scanner is what is tested
    for text in _texts():
        if MEMBERS[name].normalizer:
            text = unicodedata.normalize(MEMBERS[name].normalizer, text)
        expected = theirs.encode_ordinary(text)
        assert ours.encode_ordinary(text) == expected
        assert ours.count(text) == len(expected)


@pytest.mark.parametrize("vocab", ["cl100k_base", "o200k_base"])
@settings(max_examples=examples(200), deadline=None)
@given(text=any_text)
def test_any_text_counts_like_tiktoken_and_the_regex_path(vocab, text):
    for name in NAMES:
        ours, theirs, regex_path = _pair(vocab, name)
        fixed = MEMBERS[name].normalize(fix_surrogates(text))
        expected = regex_path.encode_ordinary(text)
        assert ours.encode_ordinary(text) == expected, name
        assert ours.count(text) == len(expected), name
        if name in TIKTOKEN_MEMBERS:
            assert theirs.encode_ordinary(fixed) == expected, name


@pytest.mark.parametrize("name", ["deepseek_v3", "starcoder"])
def test_chained_members_count_like_the_regex_path(name):
    ours, _, regex_path = _pair("cl100k_base", name)
    for text in _texts():
        assert ours.encode_ordinary(text) == regex_path.encode_ordinary(text)
        assert ours.count(text) == regex_path.count(text)


def test_the_regex_path_is_kept_when_turned_off():
    import subprocess

    code = ("import bpe_stream; e = bpe_stream.get_encoding('cl100k_base'); e.count('héllo'); "
            "print(e._native_split() is None, e._splitter.native is None)")
    env = {"BPE_STREAM_REGEX_SPLIT": "1", "PATH": ""}
    import os

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, **env}).stdout
    assert out.split() == ["True", "True"]


# ------------------------------------------------------------------ real vocabularies


def _real(path: str):
    try:
        return _load_real(path)
    except _Unavailable as e:
        import real_vocabularies as rv

        if rv.REQUIRE:
            pytest.fail(str(e))
        pytest.skip(str(e))


class _Unavailable(Exception):
    pass


@functools.cache
def _load_real(path: str):
    import real_vocabularies as rv

    tokenizers = pytest.importorskip("tokenizers")
    try:
        file = rv.built(path)
    except rv.Unavailable as e:
        raise _Unavailable(str(e)) from e
    tok = tokenizers.Tokenizer.from_file(str(file))
    return bpe_stream.load(file), lambda text: tok.encode(text, add_special_tokens=False).ids


REAL = ["llama3/tokenizer.json", "qwen2/tokenizer.json", "gpt2/tokenizer.json", "deepseek_v3_layout/tokenizer.json"]


@pytest.mark.parametrize("path", REAL)
def test_real_vocabularies_count_like_hf_tokenizers(path):
    enc, hf = _real(path)
    assert enc._native_split() is not None  # every one of them takes the compiled scanner
    for text in _texts():
        if any(s in text for s in enc.special_tokens):
            continue
        expected = hf(text)
        assert enc.encode_ordinary(text) == expected
        assert enc.count(text) == len(expected)


@pytest.mark.parametrize("path", REAL)
@settings(max_examples=examples(100), deadline=None)
@given(text=text_of_every_class)
def test_real_vocabularies_on_any_text(path, text):
    enc, hf = _real(path)
    text = fix_surrogates(text)
    expected = hf(text)
    assert enc.encode_ordinary(text) == expected
    assert enc.count(text) == len(expected)


def test_whole_piece_tokens_through_the_compiled_scanner():
    enc, hf = _real("llama3/tokenizer.json")
    assert enc._whole and enc._native_split()[1] is not None
    whole = [t.decode("utf-8") for t in list(enc._whole)[:50] if _decodes(t)]
    text = " ".join(whole) + "".join(whole)
    expected = hf(text)
    assert enc.encode_ordinary(text) == expected
    assert enc.count(text) == len(expected)


def _decodes(token: bytes) -> bool:
    try:
        token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# ------------------------------------------------------------------ batches


def _batch_texts() -> list[str]:
    """Texts of every script in the corpora, cut at odd places, with the cases a batch
    must hand back to the Python path or fix first: a lone surrogate, a pair, text NFC
    changes, ASCII and empty texts."""
    texts = [p.read_text(encoding="utf-8")[k * 1500 : k * 1500 + 1500 - 7 * k] for p in CORPUS_FILES for k in range(2)]
    return texts + ["", "plain ASCII, 12 words", "lone \ud800 surrogate", "pair \ud83d\ude00 joined",
                    "Cafe\u0301 e\u0301\u0301 \u212b", "\u4e2d\u6587 12345 \u0627\u0644\u0639"]


@pytest.mark.parametrize("name", NAMES)
def test_batches_equal_one_by_one_for_every_member(name):
    # Core.text_batch (every text through the member's compiled scanner, on threads)
    # against the same texts one by one through the regex split
    ours, _, regex_path = _pair("cl100k_base", name)
    texts = _batch_texts()
    expected = [regex_path.encode_ordinary(t) for t in texts]
    assert ours.encode_ordinary_batch(texts, num_threads=3) == expected
    assert ours.count_batch(texts, num_threads=2) == [len(e) for e in expected]
    assert ours.count_batch(texts, num_threads=1) == [len(e) for e in expected]


def test_text_batch_in_c_equals_count_text():
    enc = bpe_stream.get_encoding("o200k_base")
    core = enc._compiled()
    spec, whole, ids = enc._native_split()
    texts = [fix_surrogates(t) for t in _batch_texts()]
    counts = [core.count_text(t, spec, enc._piece_counts.__getitem__, whole) for t in texts]
    tokens = [core.encode_text(t, spec, enc._pieces.__getitem__, whole, ids) for t in texts]
    for kind in (0, 2):  # ASCII texts by the family scanner, and by the ASCII scanner
        for threads in (1, 2, 5):
            assert core.text_batch(texts, kind, spec, whole, ids, threads, False) == counts
            assert core.text_batch(texts, kind, spec, whole, ids, threads, True) == tokens
    # batches long enough for the threads' piece caches (piece_cache.h): repeated
    # pieces of every length around the cached limit, many tokens each, some at a
    # text's very end (the look-up must not read past it), colliding entries
    rng = random.Random(5)
    words = ["".join(rng.choice(letters) for _ in range(rng.randrange(1, 40)))
             for letters in ("qxzjkvw\u00e9\u4e2d", "qxzjkvw") for _ in range(800)]
    made = [" ".join(rng.choice(words[half * 800 : half * 800 + 800]) for _ in range(1500))
            for half in (0, 1, 0, 1, 1)]
    big = texts * 2 + made
    big_counts = counts * 2 + [core.count_text(t, spec, enc._piece_counts.__getitem__, whole) for t in made]
    big_tokens = tokens * 2 + [core.encode_text(t, spec, enc._pieces.__getitem__, whole, ids) for t in made]
    assert sum(map(len, big)) > 2 * 32768 and made[1].isascii()
    for kind in (0, 2):
        for threads in (1, 2):
            assert core.text_batch(big, kind, spec, whole, ids, threads, False) == big_counts
            assert core.text_batch(big, kind, spec, whole, ids, threads, True) == big_tokens
    # a lone surrogate is left to the Python path (which replaces it)
    assert core.text_batch(["ok", "a\ud800b"], 2, spec, None, None, 2, False) == [1, None]
    with pytest.raises(ValueError, match="not an ASCII str"):
        core.text_batch(["ok", "caf\u00e9"], 2, -1, None, None, 2, False)
    with pytest.raises(ValueError):
        core.text_batch(["ok"], 2, 1 << 20, None, None, 2, False)
    with pytest.raises(TypeError):
        core.text_batch(["ok", 3], 2, spec, None, None, 2, False)


@pytest.mark.parametrize("path", REAL)
def test_real_vocabularies_batches_equal_hf_tokenizers(path):
    # ids that are not ranks, whole-piece tokens (Llama 3: None from C, the Python path)
    enc, hf = _real(path)
    texts = _batch_texts()
    whole = [t.decode("utf-8") for t in list(enc._whole)[:20] if _decodes(t)]
    texts.append(" ".join(whole) + "".join(whole))
    texts = [t for t in texts if not any(s in t for s in enc.special_tokens)]
    expected = [hf(fix_surrogates(t)) for t in texts]
    assert enc.encode_ordinary_batch(texts, num_threads=2) == expected
    assert enc.count_batch(texts, num_threads=3) == [len(e) for e in expected]


def test_ids_of_a_table_with_holes_with_the_scanner_turned_off():
    """The compiled ASCII scanner (the path left when the scanner is turned off) emits
    ranks: a rank table with holes must still answer with its ids, one by one and in
    batches, as tiktoken does with the same table."""
    import os
    import subprocess

    code = """
import tiktoken, bpe_stream
from bpe_stream.pretokenize.patterns import CL100K_PATTERN as pat
ranks = {bytes([b]): b for b in range(256)}
for word in [b" t", b"he", b" the", b"in", b"ing", b" a", b"er", b"re", b" w", b"or"]:
    ranks[word] = len(ranks) + 5  # holes between the merged tokens' ranks
ref = tiktoken.Encoding("holes", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
enc = bpe_stream.Encoding("holes", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
texts = ["the other thing, in the world: 12345 words\\n", "where or were there ringing"] * 3
assert enc._native_split() is None
assert [enc.encode_ordinary(t) for t in texts] == [ref.encode_ordinary(t) for t in texts]
assert enc.encode_ordinary_batch(texts, num_threads=2) == ref.encode_ordinary_batch(texts)
assert enc.count_batch(texts, num_threads=2) == [len(ref.encode_ordinary(t)) for t in texts]
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "BPE_STREAM_REGEX_SPLIT": "1"})
    assert out.returncode == 0 and out.stdout.split() == ["ok"], out.stderr
