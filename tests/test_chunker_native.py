"""The exact chunker's cuts from the compiled core (``_native/chunk_cuts.c``) against
the pure-Python path, the reference: identical chunks, whole texts and streams, for
both bundled encodings, small and large budgets, with and without overlap."""

from __future__ import annotations

import functools
import random

import pytest
import conftest
from chunk_compare import CountingCalls
from conftest import CORPUS_FILES, examples, full_tier_only
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_stream
import bpe_stream.chunk.chunker as chunker_module
from bpe_stream.chunk.chunker import CharacterOverBudget, Chunker

pytestmark = pytest.mark.skipif(chunker_module._exact_cuts is None, reason="compiled core not built")

ENCODINGS = {name: bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
BUDGETS = [1, 2, 3, 16, 256]


def _overlaps(budget: int) -> list[int]:
    return sorted({0, budget // 4, min(1, budget - 1), budget - 1})


def _chunks(enc, text, budget, overlap, compiled: bool, pieces=None):
    saved = chunker_module._exact_cuts
    if not compiled:
        chunker_module._exact_cuts = None
    try:
        chunker = Chunker(enc, budget, overlap=overlap, boundaries="exact")
        found = chunker.chunks(text) if pieces is None else list(chunker.chunk_stream(pieces))
        return [(c.start, c.end, c.token_count, c.text) for c in found]
    except CharacterOverBudget as e:
        return ("refused", e.position, e.tokens)
    finally:
        chunker_module._exact_cuts = saved


def _same(enc, text, budget, overlap, pieces=None):
    compiled = _chunks(enc, text, budget, overlap, True, pieces)
    assert compiled == _chunks(enc, text, budget, overlap, False, pieces), (enc.name, budget, overlap)


HAND_PICKED = [
    "one two three four five six, seven.\n\nEight nine ten!",
    "Streams arrive in pieces. Chunks must not wait for the end.\r\n  Indented\tline\n",
    "internationalization antidisestablishmentarianism supercalifragilistic " * 6,
    "a\u0301" * 40 + " x " + "e\u0301b" * 20,
    "\u3000 " * 50 + "word",
    "/\n" * 60 + "end",
    "1234567890" * 20 + " 3.14159 and 2,718",
    "def f(x):\n    return x ** 2  # comment\n\n\nclass A:\n\tpass\n" * 5,
    "Übergrößenträger, naïve café; 中文文本没有空格，日本語のテキスト。 Ελληνικά κείμενα.",
    "emoji 👨\u200d👩\u200d👧 and 😀😀😀 then text",
    "don't it's we'll they've I'd ABC'S x'y",
    "\x00" * 30 + "a" + "!" * 30 + " \t \n \r\n" * 10,
]


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@pytest.mark.parametrize("budget", BUDGETS)
def test_hand_picked_texts(name, budget):
    if budget not in (1, 16):
        full_tier_only()
    enc = ENCODINGS[name]
    overlaps = _overlaps(budget) if conftest.FULL else sorted({0, budget // 4})
    for text in HAND_PICKED:
        for overlap in overlaps:
            _same(enc, text, budget, overlap)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_corpus_slices_and_streams(name):
    if not CORPUS_FILES:
        pytest.skip("no corpora")
    enc = ENCODINGS[name]
    rng = random.Random(7)
    counting = CountingCalls(chunker_module._exact_cuts)
    saved = chunker_module._exact_cuts
    chunker_module._exact_cuts = counting
    files, size, budgets = (CORPUS_FILES[:4], 3000, (1, 16, 256)) if conftest.FULL else (CORPUS_FILES[:2], 1500, (16,))
    try:
        for path in files:
            text = path.read_text(encoding="utf-8", errors="replace")
            i = rng.randrange(max(1, len(text) - size))
            part = text[i : i + size]
            for budget in budgets:
                for overlap in (0, budget // 4):
                    _same(enc, part, budget, overlap)
            pieces = []
            j = 0
            while j < len(part):
                k = j + rng.randint(0, 40)
                pieces.append(part[j:k])
                j = k
            _same(enc, part, 16, 4, pieces)
    finally:
        chunker_module._exact_cuts = saved
    assert counting.chunks > 0  # the compiled routine decided some of these chunks


def test_long_text_through_blocks():
    full_tier_only()
    # texts over two blocks go through the streaming path (windows that are not final)
    enc = ENCODINGS["cl100k_base"]
    rng = random.Random(3)
    words = ["alpha", "beta", "gamma,", "delta.", "\n\n", "x", "internationalization", "  ", "42"]
    text = " ".join(rng.choice(words) for _ in range(30000))
    assert len(text) > 2 * chunker_module._BLOCK_CHARS
    _same(enc, text, 256, 0)
    _same(enc, text, 16, 4)


ALPHABET = list("ab yz \n\n\t.!?,#`'-0123/") + ["é", "中", "文", "。", "😀", "\u200d", "\u0301", "\u3000", "\r\n", "   ",
                                                  "word", " the", "ing"]
texts = st.one_of(
    st.lists(st.sampled_from(ALPHABET), max_size=120).map("".join),
    st.text(max_size=120),
)


@settings(max_examples=examples(200, fast=25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, budget=st.sampled_from(BUDGETS), share=st.sampled_from([0, 1, 4]),
       name=st.sampled_from(sorted(ENCODINGS)), seed=st.integers(0, 2**32))
def test_hypothesis_texts(text, budget, share, name, seed):
    enc = ENCODINGS[name]
    overlap = 0 if share == 0 or budget == 1 else max(1, budget // share) if share > 1 else budget - 1
    _same(enc, text, budget, overlap)
    _same(enc, text, budget, overlap, _random_pieces(random.Random(seed), text, 9))


def _pure_prefix_sums(enc, text):
    from itertools import accumulate
    pieces = enc._split(text)
    return list(accumulate(map(len, pieces), initial=0)), list(accumulate(enc._piece_count_list(pieces), initial=0))


def _same_prefix_sums(enc, text):
    """TextCounts from the compiled scanner (``prefix_sums``) equals the split and counts of the Python path."""
    from bpe_stream.chunk.counts import TextCounts
    text = enc._text(text)
    assert enc._native_split() is not None
    tc = TextCounts(enc, text)
    assert (list(tc.bounds), list(tc.cum)) == _pure_prefix_sums(enc, text), (enc.name, text[:80])


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_prefix_sums_against_the_split(name):
    enc = ENCODINGS[name]
    for text in HAND_PICKED + ["", "x", " ", "\n\n", "中", "😀 "]:
        _same_prefix_sums(enc, text)
    size = 20000 if conftest.FULL else 3000
    for path in CORPUS_FILES:
        _same_prefix_sums(enc, path.read_text(encoding="utf-8", errors="replace")[:size])


@settings(max_examples=examples(200, fast=25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, name=st.sampled_from(sorted(ENCODINGS)))
def test_hypothesis_prefix_sums(text, name):
    _same_prefix_sums(ENCODINGS[name], text)


def test_make_chunks_against_plain_chunks():
    # chunk_objects.c builds the chunks of exact_cuts' cuts as chunker._plain_chunk does
    import pickle

    from bpe_stream.bpe.native import make_chunks
    from bpe_stream.chunk.chunker import _CHUNK_FIELDS, Chunk, _plain_chunk

    if make_chunks is None:
        pytest.skip("compiled core not built")
    text = "héllo wörld 中文 😀 ok"
    cuts = [0, 5, 2, 5, 11, 3, 11, 11, 0, 11, len(text), 9]
    made = make_chunks(Chunk, _CHUNK_FIELDS, text, 7, cuts)
    plain = [_plain_chunk(text[s:e], 7 + s, 7 + e, c) for s, e, c in zip(cuts[::3], cuts[1::3], cuts[2::3])]
    assert made == plain == [Chunk(text[s:e], 7 + s, 7 + e, c) for s, e, c in zip(cuts[::3], cuts[1::3], cuts[2::3])]
    assert [repr(c) for c in made] == [repr(c) for c in plain] and list(map(hash, made)) == list(map(hash, plain))
    assert all(type(c) is Chunk for c in made) and pickle.loads(pickle.dumps(made)) == plain
    with pytest.raises(Exception):
        made[0].start = 1
    for bad in ([0, len(text) + 1, 1], [3, 2, 1], [-1, 2, 1]):
        with pytest.raises(ValueError):
            make_chunks(Chunk, _CHUNK_FIELDS, text, 0, bad)


# ------------------------------------------------------------------ every family member
# The bulk cuts run on every member with the hard-boundary rule its choices give
# (pretokenize/hard_boundaries.py).  Each member over cl100k_base's ranks (o200k_base's for
# the cased-letter members); the compiled chunks equal the Python path's, every chunk's
# count equals tiktoken's (built from the same ranks with the member's pattern, where
# tiktoken reads it: every member but the chains) and enc.count, every chunk is maximal
# (no longer end from its start fits) and every overlap start is the earliest that fits.
from bpe_stream.pretokenize.family import MEMBERS  # noqa: E402

MEMBER_TEXTS = [
    "Don't stop: it's 2025, we'll see 3.14159 and 1,000,000 tokens.\r\nNext line\r\n\r\n  indented\ttab\n",
    "हिंदी में किताबें पढ़ना, ภาษาไทยที่นี่ Übergrößenträger naïve café; 中文文本没有空格，日本語のテキスト・カタカナー。 Ελληνικά κείμενα 123中文456",
    "a\u0301b\u0301c e\u0301\u0301 x\u0301y B\u0301 HTTPServer iPhone ǅungla ʰa 'Hello' O'Neil I'M YOU'LL x'y",
    "def f(x):\n    return x ** 2  # 42\n\n\nclass A:\n\tpass\n/path/to/file\n/\n//x 12345678901234",
    "emoji 👨\u200d👩\u200d👧 😀😀 \x00\x01 text\u3000全角\u3000space ١٢٣ ²³ $5 €6 (ab) [cd] {ef}",
    "internationalization antidisestablishmentarianism " * 3 + "\n" * 3 + " " * 5 + "end",
]


@functools.lru_cache(maxsize=None)
def member_encoding(name: str):
    member = MEMBERS[name]
    base = "o200k_base" if member.letters == "cased" else "cl100k_base"
    if name == base:
        return ENCODINGS[name]
    return bpe_stream.Encoding(f"{base}+{name}", pretokenizer=member, bpe=ENCODINGS[base].bpe)


@functools.lru_cache(maxsize=None)
def member_tiktoken(name: str):
    """tiktoken with the member's pattern and the same ranks, or None (chains, no tiktoken)."""
    member = MEMBERS[name]
    if member.chained:
        return None
    try:
        import tiktoken
    except ImportError:
        return None
    spelling = member.pattern if member.dialect == "tiktoken" else next(
        (p for p, d in member.spellings if d == "tiktoken"), None)
    if spelling is None:
        return None
    enc = member_encoding(name)
    return tiktoken.Encoding(f"ref-{name}", pat_str=spelling, mergeable_ranks=enc._mergeable_ranks, special_tokens={})


def _check_member_chunks(name, text, budget, overlap, chunks, brute: bool):
    enc = member_encoding(name)
    seen = enc._text(text)
    tk = member_tiktoken(name)
    member = MEMBERS[name]
    n = len(seen)
    assert chunks[0][0] == 0 and chunks[-1][1] == n
    for s, e, count, part in chunks:
        assert part == seen[s:e] and e > s
        assert count == enc.count(part) <= budget, (name, s, e)
        if tk is not None:
            assert count == len(tk.encode_ordinary(member.normalize(part))), (name, part)
        if brute and e < n:
            # maximal: no longer end from s fits (counts are not monotonic: every end; the
            # fast tier looks 64 characters ahead)
            top = n if conftest.FULL else min(n, e + 64)
            assert all(enc.count(seen[s:j]) > budget for j in range(e + 1, top + 1)), (name, s, e)
    for (s0, e0, _, _), (s1, e1, _, _) in zip(chunks, chunks[1:]):
        assert e1 > e0
        if overlap == 0:
            assert s1 == e0
        else:
            assert s0 < s1 <= e0 and enc.count(seen[s1:e0]) <= overlap
            if brute and s1 < e0:
                # the earliest start that fits, unless no chunk from it could pass e0
                earlier = [p for p in range(s0 + 1, s1) if enc.count(seen[p:e0]) <= overlap]
                assert not earlier, (name, s0, e0, s1, earlier[:3])
    if overlap == 0:
        assert "".join(c[3] for c in chunks) == seen


def _member_case(name, text, budget, overlap, counting=None, brute=True, pieces=None):
    enc = member_encoding(name)
    saved = chunker_module._exact_cuts
    if counting is not None:
        chunker_module._exact_cuts = counting
    try:
        compiled = _chunks(enc, text, budget, overlap, True, pieces)
    finally:
        chunker_module._exact_cuts = saved
    assert compiled == _chunks(enc, text, budget, overlap, False, pieces), (name, budget, overlap)
    if compiled[0] != "refused":
        _check_member_chunks(name, text, budget, overlap, compiled, brute)


@pytest.mark.parametrize("name", sorted(MEMBERS))
def test_members_hand_picked(name):
    counting = CountingCalls(chunker_module._exact_cuts)
    budgets = (1, 2, 3, 7, 16, 64, 256, 300) if conftest.FULL else (3, 64)
    texts = MEMBER_TEXTS if conftest.FULL else MEMBER_TEXTS[:2]
    for text in texts:
        for budget in budgets:
            for overlap in sorted({0, budget // 4, budget - 1} if conftest.FULL else {0, budget - 1}):
                _member_case(name, text, budget, overlap, counting, brute=len(text) < 200 or budget <= 16)
    assert counting.chunks > 0  # the compiled routine decided some of these chunks


@pytest.mark.parametrize("name", sorted(MEMBERS))
def test_members_corpus_and_streams(name):
    if not CORPUS_FILES:
        pytest.skip("no corpora")
    full_tier_only()
    rng = random.Random(name)
    counting = CountingCalls(chunker_module._exact_cuts)
    for path in CORPUS_FILES[:5]:
        text = path.read_text(encoding="utf-8", errors="replace")
        i = rng.randrange(max(1, len(text) - 2000))
        part = text[i : i + 2000]
        for budget in (1, 16, 300):
            for overlap in (0, budget // 4):
                _member_case(name, part, budget, overlap, counting, brute=False)
        _member_case(name, part, 16, 4, counting, brute=False, pieces=_random_pieces(rng, part, 40))
    assert counting.chunks > 0


def _random_pieces(rng, text, longest):
    pieces = []
    j = 0
    while j < len(text):
        k = j + rng.randint(0, longest)
        pieces.append(text[j:k])
        j = k
    return pieces


MEMBER_ALPHABET = ALPHABET + ["\u30fc", "\u30fb", "\u3042", "B", "\u01c5", "\u02b0", "\u0663", "$", "(", "'s", "'LL",
                              "HTTP", "Server", "123", "\x00"]
member_texts = st.lists(st.sampled_from(MEMBER_ALPHABET), max_size=60).map("".join)


@settings(max_examples=examples(300, fast=20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=member_texts, budget=st.sampled_from([1, 2, 3, 5, 16, 300]), share=st.sampled_from([0, 1, 4]),
       name=st.sampled_from(sorted(MEMBERS)), seed=st.integers(0, 2**32))
def test_members_hypothesis(text, budget, share, name, seed):
    if not text:
        return
    overlap = 0 if share == 0 or budget == 1 else max(1, budget // share) if share > 1 else budget - 1
    _member_case(name, text, budget, overlap)
    _member_case(name, text, budget, overlap, brute=False, pieces=_random_pieces(random.Random(seed), text, 9))


# Chunks the prefix sums alone leave open, decided by exact recounts of short slices
# (_native/chunk_counted_cuts.c): cuts and overlap starts next to whitespace runs (code
# indentation, CRLF, tabs), at boundaries that are not hard (letters before marks,
# punctuation before newlines), chunk starts inside a whitespace or punctuation piece;
# and long letter runs (their prefixes counted by one table pass).
COUNTED_ATOMS = ["    ", "        ", "\t", "\t\t", "\n", "\r\n", "\n\n", "   \n", " \t ", " ", "  ", "def", " f", "(x)",
                 ":", "):\n", " return", " x", " **", " 2", "  # note", "\"\"\"", "Über", "中文文本没有空格", "नहीं",
                 " है।", "ภาษาไทย", "'s", " don't", "!!", "x\u0301", "ABC", "é", " 1234", "/", "😀", "\u3000",
                 "internationalization", "антидизестаблишментарианство", '    "+=",\n', '    "<<=",\n', " == ", " -> ",
                 "{}", "[]"]


def _counted_text(rng: random.Random, atoms: int) -> str:
    return "".join(rng.choice(COUNTED_ATOMS) for _ in range(atoms))


def _counted_case(rng: random.Random) -> tuple[str, int, int]:
    budget = rng.choice([1, 2, 3, 4, 5, 7, 8, 16, 17, 32, 64, 100, 256, 300])
    overlap = rng.choice([0, 0, rng.randint(0, budget - 1), budget // 4, budget - 1])
    return _counted_text(rng, rng.randint(1, 300)), budget, overlap


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_counted_cuts_against_python_and_tiktoken(name):
    enc = ENCODINGS[name]
    oracle = conftest.tiktoken_oracle(name)
    rng = random.Random(11)
    for _ in range(300 if conftest.FULL else 15):
        text, budget, overlap = _counted_case(rng)
        compiled = _chunks(enc, text, budget, overlap, True)
        assert compiled == _chunks(enc, text, budget, overlap, False), (name, budget, overlap, text)
        if compiled[0] == "refused":
            continue
        for start, end, count, part in compiled:
            assert count == len(oracle.encode_ordinary(part)) <= budget
        if overlap == 0:
            assert "".join(c[3] for c in compiled) == text


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_counted_cuts_decide_indented_code(name):
    # Without the recounts the compiled routine stops at every cut next to indentation
    # (about 60 % of the chunks of code): here it decides all of them, also in a stretch
    # without hard boundaries (a table of operators: the split re-synced from the start).
    enc = ENCODINGS[name]
    text = ("class Parser:\n    def feed(self, data):\r\n\t\tfor line in data.splitlines():\n"
            "            if not line.strip():\n                continue  # blank\n\n"
            "        return {'ok': True, \"n\": 42}\n") * 8 + "OPS = {\n" + '    "+=",\n    "<<=",\n' * 20 + "}\n"
    for budget, overlap in ((16, 4), (7, 3), (40, 10), (5, 0)):
        counting = CountingCalls(chunker_module._exact_cuts)
        saved = chunker_module._exact_cuts
        chunker_module._exact_cuts = counting
        try:
            found = Chunker(enc, budget, overlap=overlap, boundaries="exact").chunks(text)
        finally:
            chunker_module._exact_cuts = saved
        assert counting.chunks == len(found), (budget, overlap)
        _same(enc, text, budget, overlap)


@settings(max_examples=examples(300, fast=20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(atoms=st.lists(st.sampled_from(COUNTED_ATOMS), min_size=1, max_size=80), budget=st.integers(1, 300),
       share=st.floats(0, 1), name=st.sampled_from(sorted(ENCODINGS)), seed=st.integers(0, 2**32))
def test_hypothesis_counted_cuts(atoms, budget, share, name, seed):
    enc = ENCODINGS[name]
    text = "".join(atoms)
    overlap = min(budget - 1, int(share * budget))
    _same(enc, text, budget, overlap)
    _same(enc, text, budget, overlap, _random_pieces(random.Random(seed), text, 30))


# Slices the counted cuts skip by their two-piece bound (chunk_counted_cuts.c two_pieces):
# ends in spaces or tabs after text, two blanks before a word, digits, punctuation or a
# character the classes may take as whitespace (NBSP, U+3000, \x0b, \x1c), and the
# o200k tails ("!\n\n/") whose pieces hold whitespace between non-whitespace; small
# budgets put the cut and the overlap start in them.
BLANK_ATOMS = ["  ", "\t", " \t", "\t ", " ", "x", "ab", " word", "(", ")", ",", "!\n\n/", "/", "\n", "\r\n", "   \n",
               "12", " 345", "\xa0", "\u3000", "\x0b", "\x1c", "'s", "é", "中文", "x\u0301", "  #", "=", "\xa0x"]


@settings(max_examples=examples(300, fast=30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(atoms=st.lists(st.sampled_from(BLANK_ATOMS), min_size=1, max_size=60), budget=st.sampled_from([1, 2, 3, 4, 5, 8, 16]),
       share=st.sampled_from([0, 1, 2, 4]), name=st.sampled_from(sorted(ENCODINGS) + ["gpt2", "llama3", "tekken"]),
       seed=st.integers(0, 2**32))
def test_hypothesis_blank_runs(atoms, budget, share, name, seed):
    text = "".join(atoms)
    overlap = 0 if share == 0 or budget == 1 else max(1, budget // share) if share > 1 else budget - 1
    if name in ENCODINGS:
        _same(ENCODINGS[name], text, budget, overlap)
        _same(ENCODINGS[name], text, budget, overlap, _random_pieces(random.Random(seed), text, 20))
    else:
        _member_case(name, text, budget, overlap, brute=len(text) < 120)
