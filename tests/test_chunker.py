"""Chunker guarantees as property tests, corpus runs and examples of semantic cuts.

Every chunk is re-counted with ``enc.count`` and with tiktoken (the oracle); the
streamed chunks of random splits must equal the whole-text chunks.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import regex
from conftest import CORPUS_FILES, IMPLEMENTATIONS, encoding_with, examples, tiktoken_oracle  # noqa: E402
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import bpe_stream  # noqa: E402
from bpe_stream.chunk.boundaries import SEMANTIC_LEVELS, BoundaryLevel  # noqa: E402
from bpe_stream.chunk.chunker import CharacterOverBudget, Chunk, Chunker  # noqa: E402

ENCODINGS = {name: bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
CL100K = ENCODINGS["cl100k_base"]
O200K = ENCODINGS["o200k_base"]


# ----------------------------------------------------------------- helpers
def check_chunks(enc, text, chunks, max_tokens, overlap=0, oracle=True):
    """Assert every guarantee of the issue on one chunking of ``text``."""
    tk = tiktoken_oracle(enc.name) if oracle and isinstance(enc, bpe_stream.Encoding) else None
    if not text:
        assert chunks == []
        return
    assert chunks, "non-empty text gave no chunks"
    assert chunks[0].start == 0
    assert chunks[-1].end == len(text)
    for c in chunks:
        assert isinstance(c, Chunk)
        assert c.end > c.start, f"empty chunk {c}"
        assert text[c.start : c.end] == c.text
        assert c.token_count == enc.count(c.text), c
        assert c.token_count <= max_tokens, c
        if tk is not None:
            assert c.token_count == len(tk.encode_ordinary(c.text)), c
        if isinstance(text, str) and "\ufffd" in c.text:
            assert "\ufffd" in text
    for prev, nxt in zip(chunks, chunks[1:]):
        if overlap == 0:
            assert nxt.start == prev.end
        else:
            assert prev.start < nxt.start <= prev.end, (prev, nxt)
            assert nxt.end > prev.end, (prev, nxt)
            assert enc.count(text[nxt.start : prev.end]) <= overlap
    if overlap == 0:
        joined = (b"" if isinstance(text, bytes) else "").join(c.text for c in chunks)
        assert joined == text


def random_split(text, rng: random.Random, max_piece: int):
    pieces = []
    i = 0
    while i < len(text):
        j = i + rng.randint(0, max_piece)
        pieces.append(text[i:j])
        i = j
    return pieces


def chunk_or_too_long(chunker, text):
    """The chunks, or None when some character alone needs more than the budget (checked)."""
    try:
        return chunker.chunks(text)
    except ValueError as e:
        msg = str(e)
        assert "position" in msg and "max_tokens" in msg, msg
        pos = int(msg.split(" at position ")[1].split()[0])
        enc = chunker.encoding
        assert enc.count(text[pos]) > chunker.max_tokens, msg
        assert repr(text[pos]) in msg
        return None


# ------------------------------------------------------------- strategies
ALPHABET = list("ab yz \n\n\t.!?,#`'-0123") + ["é", "中", "文", "。", "😀", "\u200d", "👨", "\u0301", "ก", "\r\n", "<|endoftext|>", "   "]
texts = st.one_of(
    st.lists(st.sampled_from(ALPHABET), max_size=80).map("".join),
    st.text(max_size=120),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=60),
)
budgets = st.one_of(st.integers(1, 12), st.integers(1, 1024))
modes = st.sampled_from(["exact", "semantic"])


@st.composite
def budget_and_overlap(draw):
    max_tokens = draw(budgets)
    overlap = draw(st.one_of(st.just(0), st.integers(0, max_tokens - 1)))
    return max_tokens, overlap


# ------------------------------------------------------------ validation
def test_invalid_arguments():
    for bad in (0, -1):
        with pytest.raises(ValueError):
            Chunker(CL100K, bad)
    with pytest.raises(ValueError):
        Chunker(CL100K, 10, overlap=-1)
    with pytest.raises(ValueError):
        Chunker(CL100K, 10, overlap=10)
    with pytest.raises(ValueError):
        Chunker(CL100K, 1, overlap=1)
    with pytest.raises(ValueError):
        Chunker(CL100K, 10, boundaries="sentences please")
    with pytest.raises(ValueError):
        Chunker(CL100K, 10, fill_floor=1.5)
    with pytest.raises(TypeError):
        Chunker(CL100K, 10.0)
    with pytest.raises(TypeError):
        Chunker(12345, 10)
    with pytest.raises(ValueError, match="unknown encoding"):
        Chunker("cl100k-base", 10)
    with pytest.raises(TypeError):
        Chunker(CL100K, 10).chunks(b"bytes")
    with pytest.raises(TypeError):
        Chunker(CL100K.bpe, 10).chunks("str")
    with pytest.raises(TypeError):
        list(Chunker(CL100K, 10).chunk_stream("a string is not a stream of pieces"))


def test_character_over_budget_names_character_and_position():
    rare = "\u9f98"  # a CJK character that cl100k spells with several byte tokens
    assert CL100K.count(rare) > 1
    text = "ab " + rare + " cd"
    for mode in ("exact", "semantic"):
        with pytest.raises(ValueError, match=r"U\+9F98.* at position 3 .*max_tokens=1"):
            Chunker(CL100K, 1, boundaries=mode).chunks(text)
        with pytest.raises(ValueError, match="position 3 "):
            list(Chunker(CL100K, 1, boundaries=mode).chunk_stream(["a", "b ", rare, " cd"]))
    # with a budget it fits in, it is simply a chunk of its own
    chunks = Chunker(CL100K, CL100K.count(rare)).chunks(text)
    assert rare in [c.text for c in chunks] or any(rare in c.text for c in chunks)


def test_bytes_character_over_budget():
    data = "x\u9f98".encode()
    with pytest.raises(ValueError, match="byte offset 1"):
        Chunker(CL100K.bpe, 1).chunks(data)


def test_empty_input():
    assert Chunker(CL100K, 5).chunks("") == []
    assert list(Chunker(CL100K, 5).chunk_stream([])) == []
    assert list(Chunker(CL100K, 5).chunk_stream(["", ""])) == []


def test_special_token_text_is_ordinary():
    text = "<|endoftext|>" * 20 + " and <|fim_prefix|> <|endofprompt|>"
    for enc in ENCODINGS.values():
        for mode in ("exact", "semantic"):
            chunks = Chunker(enc, 7, boundaries=mode).chunks(text)
            check_chunks(enc, text, chunks, 7)


# ---------------------------------------------------------- properties
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, bo=budget_and_overlap(), mode=modes, enc_name=st.sampled_from(sorted(ENCODINGS)), seed=st.integers(0, 2**32))
def test_guarantees_and_stream_equivalence(text, bo, mode, enc_name, seed):
    max_tokens, overlap = bo
    enc = ENCODINGS[enc_name]
    chunker = Chunker(enc, max_tokens, overlap=overlap, boundaries=mode)
    chunks = chunk_or_too_long(chunker, text)
    if chunks is None:
        return
    check_chunks(enc, text, chunks, max_tokens, overlap)
    rng = random.Random(seed)
    pieces = random_split(text, rng, rng.choice([1, 3, 17, 200]))
    assert list(chunker.chunk_stream(iter(pieces))) == chunks


@settings(max_examples=examples(60), deadline=None)
@given(text=texts, max_tokens=st.integers(1, 40))
def test_exact_mode_chunks_are_longest_fitting_prefixes(text, max_tokens):
    chunker = Chunker(CL100K, max_tokens, boundaries="exact")
    chunks = chunk_or_too_long(chunker, text)
    assume(chunks is not None)
    for c in chunks[:-1]:
        # the next character does not fit (necessary for "longest prefix that fits")
        assert CL100K.count(text[c.start : c.end + 1]) > max_tokens


@settings(max_examples=examples(60), deadline=None)
@given(
    data=st.lists(st.sampled_from(ALPHABET[:-3]), max_size=60).map("".join).map(str.encode),
    bo=budget_and_overlap(),
    mode=modes,
    seed=st.integers(0, 2**32),
)
def test_bytes_input_with_raw_bpe(data, bo, mode, seed):
    max_tokens, overlap = bo
    bpe = CL100K.bpe
    chunker = Chunker(bpe, max_tokens, overlap=overlap, boundaries=mode)
    try:
        chunks = chunker.chunks(data)
    except ValueError as e:
        assert "byte offset" in str(e)
        return
    check_chunks(bpe, data, chunks, max_tokens, overlap, oracle=False)
    for c in chunks:
        c.text.decode("utf-8")  # never splits a character
    rng = random.Random(seed)
    assert list(chunker.chunk_stream(random_split(data, rng, 5))) == chunks


@settings(max_examples=examples(40), deadline=None)
@given(
    units=st.lists(
        st.sampled_from(["a", " ", "\ud83d\ude00", "\ud83d", "\ude00", "中", "."]), max_size=40
    ),
    max_tokens=st.integers(1, 8),
    seed=st.integers(0, 2**32),
)
def test_surrogates_are_never_split(units, max_tokens, seed):
    text = "".join(units)
    chunker = Chunker(CL100K, max_tokens)
    try:
        chunks = chunker.chunks(text)
    except ValueError:
        return
    from bpe_stream.text.input import fix_surrogates

    assert "".join(c.text for c in chunks) == text
    for c in chunks:
        assert text[c.start : c.end] == c.text
        assert c.token_count == CL100K.count(c.text) <= max_tokens
        # a chunk never starts with the low half of a pair that the input joined
        if c.start > 0:
            assert not ("\ud800" <= text[c.start - 1] <= "\udbff" and "\udc00" <= text[c.start] <= "\udfff")
    assert fix_surrogates("".join(c.text for c in chunks)) == fix_surrogates(text)
    rng = random.Random(seed)
    assert list(chunker.chunk_stream(random_split(text, rng, 4))) == chunks


# ------------------------------------------------------------- corpora
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_corpus_slices(path):
    text = path.read_text(encoding="utf-8")
    rng = random.Random(path.name)
    for i in range(6):
        enc = ENCODINGS[["cl100k_base", "o200k_base"][i % 2]]
        max_tokens = rng.choice([1, 2, 7, 32, 128, 512, 1024])
        overlap = rng.choice([0, 0, max_tokens // 4, max_tokens - 1])
        mode = ["exact", "semantic"][i // 2 % 2]
        size = min(len(text), 20 * max_tokens + 200, 6000)
        a = rng.randrange(0, max(1, len(text) - size))
        piece = text[a : a + size]
        chunker = Chunker(enc, max_tokens, overlap=overlap, boundaries=mode)
        chunks = chunk_or_too_long(chunker, piece)
        if chunks is None:
            continue
        check_chunks(enc, piece, chunks, max_tokens, overlap)
        assert list(chunker.chunk_stream(random_split(piece, rng, rng.choice([1, 50, 4000])))) == chunks


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_corpus_whole_file(path):
    text = path.read_text(encoding="utf-8")
    enc = CL100K
    max_tokens = 256
    for mode in ("exact", "semantic"):
        chunker = Chunker(enc, max_tokens, boundaries=mode)
        chunks = chunker.chunks(text)
        check_chunks(enc, text, chunks, max_tokens, oracle=False)
        if mode == "semantic":
            rng = random.Random(0)
            streamed = list(chunker.chunk_stream(random_split(text, rng, 3000)))
            assert streamed == chunks


# ---------------------------------------------------------- streaming
def test_stream_emits_chunks_before_input_ends():
    paragraph = "The quick brown fox jumps over the lazy dog. " * 4 + "\n\n"
    consumed = []

    def pieces():
        for i in range(400):
            consumed.append(i)
            yield paragraph

    stream = Chunker(CL100K, 64).chunk_stream(pieces())
    first = next(stream)
    assert first.start == 0
    assert len(consumed) < 20, "first chunk waited for too much input"
    # memory: the chunker never holds the whole document
    for _ in range(50):
        next(stream)
    assert len(consumed) < 100


def test_stream_of_long_run_without_whitespace_is_bounded():
    run = "x" * 20_000
    consumed = []

    def pieces():
        for i in range(0, len(run), 100):
            consumed.append(i)
            yield run[i : i + 100]

    chunker = Chunker(CL100K, 16)
    stream = chunker.chunk_stream(pieces())
    first = next(stream)
    # certified once the held text exceeds max_tokens * max_token_len bytes (16 * 128)
    assert consumed[-1] < 8_000
    rest = list(stream)
    chunks = [first] + rest
    assert "".join(c.text for c in chunks) == run
    assert all(c.token_count <= 16 for c in chunks)


def test_stream_of_small_pieces_matches_whole_text():
    text = Path(CORPUS_FILES[0]).read_text(encoding="utf-8")[:8000] if CORPUS_FILES else "a b. " * 2000
    for mode in ("exact", "semantic"):
        chunker = Chunker(O200K, 50, overlap=10, boundaries=mode)
        whole = chunker.chunks(text)
        assert list(chunker.chunk_stream(iter(text))) == whole  # one character at a time


# ------------------------------------------------------ semantic cuts
def test_semantic_cut_prefers_paragraph_within_fill_floor():
    para1 = "Alpha beta gamma delta. " * 5 + "\n\n"
    para2 = "Epsilon zeta eta theta iota. " * 5
    text = para1 + para2
    n1 = CL100K.count(para1)
    budget = n1 + 8  # the paragraph fits with room to spare, well above a 0.7 floor
    chunks = Chunker(CL100K, budget, fill_floor=0.7).chunks(text)
    assert chunks[0].text == para1
    check_chunks(CL100K, text, chunks, budget)
    # exact mode would run past the paragraph instead
    exact = Chunker(CL100K, budget, boundaries="exact").chunks(text)
    assert exact[0].end > len(para1)


def test_semantic_falls_back_to_weaker_level_under_fill_floor():
    para1 = "Short.\n\n"
    body = "One sentence here. Another sentence there. " * 10
    text = para1 + body
    chunks = Chunker(CL100K, 40).chunks(text)
    # the paragraph would give a tiny chunk: a sentence end is used instead
    assert chunks[0].end > len(para1)
    assert chunks[0].text.endswith(".")
    assert chunks[0].token_count >= 0.8 * 40


def test_semantic_cut_at_markdown_heading_and_line_and_word():
    doc = "intro line one\nintro line two\n# Heading\nbody text follows here and goes on and on"
    chunks = Chunker(CL100K, 12, fill_floor=0.5).chunks(doc)
    assert chunks[0].text == "intro line one\nintro line two\n"
    words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor"
    chunks = Chunker(CL100K, 8).chunks(words)
    for c in chunks[:-1]:
        assert words[c.end] == " "  # cut before a space: the next chunk starts with " word"
    check_chunks(CL100K, words, chunks, 8)


def test_semantic_cjk_sentence_end():
    text = "我们今天去公园玩。天气很好，大家都很开心。" * 6
    chunks = Chunker(CL100K, 40).chunks(text)
    check_chunks(CL100K, text, chunks, 40)
    assert all(c.text.endswith("。") for c in chunks[:-1])


def test_semantic_does_not_split_grapheme_when_avoidable():
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467"  # one grapheme, five code points
    text = family * 6
    budget = CL100K.count(family) + 2
    chunks = Chunker(CL100K, budget).chunks(text)
    check_chunks(CL100K, text, chunks, budget)
    assert all(len(c.text) % len(family) == 0 for c in chunks)


def test_custom_levels():
    text = "a, b, c, d, e, f, g, h, i, j, k, l, m, n"
    comma = BoundaryLevel("comma", r",")
    chunks = Chunker(CL100K, 6, boundaries=[comma], fill_floor=0.5).chunks(text)
    check_chunks(CL100K, text, chunks, 6)
    assert all(c.text.endswith(",") for c in chunks[:-1])
    named = Chunker(CL100K, 6, boundaries=["sentence", ("comma", ",")]).levels
    assert [lvl.name for lvl in named] == ["sentence", "comma"]


def test_overlap_repeats_tail_at_boundary():
    text = " ".join(f"word{i}" for i in range(200))
    k = 10
    chunks = Chunker(CL100K, 50, overlap=k).chunks(text)
    check_chunks(CL100K, text, chunks, 50, overlap=k)
    for prev, nxt in zip(chunks, chunks[1:]):
        assert nxt.start < prev.end  # there is an overlap
        assert text[nxt.start] == " "  # at a word boundary


def test_overlap_progress_when_next_character_is_costly():
    rare = "\u9f98"
    n = CL100K.count(rare)
    text = ("ab" * 3 + rare) * 5
    chunks = Chunker(CL100K, n + 1, overlap=n).chunks(text)
    check_chunks(CL100K, text, chunks, n + 1, overlap=n)


def test_levels_are_data():
    assert [lvl.name for lvl in SEMANTIC_LEVELS] == ["paragraph", "markdown", "line", "sentence", "word"]
    assert SEMANTIC_LEVELS[0].positions("a\n\nb", 0, 4) == [3]


# ------------------------------------------------- exact counts (chunk_counts)
from bpe_stream.chunk.counts import (  # noqa: E402
    _LETTER_RUN,
    _ONE_PIECE_RUN,
    NEED_MORE,
    ChunkView,
    TextCounts,
)

ADVERSARIAL = [
    " ", "  ", "\n", "\n\n", " \n ", "\t", "\r\n", "   \n  \n", " " * 9, "\n" * 5,
    "0", "12", "345", "6789", "'", "'s", "'ll", "'T", "n't",
    "a", "b", "word", "Hello", "HELLO", "xyzzyplughfoobarbazquux", "é", "e\u0301", "Ω",
    "中", "文字列", "こんにちは", "ภาษาไทย", "😀", "👨\u200d👩", "。", "，", ".", ",", "!?", "--", "/", "#",
]
adversarial_texts = st.lists(st.sampled_from(ADVERSARIAL), min_size=1, max_size=40).map("".join)


def brute_cut(enc, text, s, max_tokens):
    best = s
    for j in range(s + 1, len(text) + 1):
        if enc.count(text[s:j]) <= max_tokens:
            best = j
    return best


@settings(max_examples=examples(120), deadline=None)
@given(text=adversarial_texts, enc_name=st.sampled_from(sorted(ENCODINGS)), data=st.data())
def test_chunk_view_counts_and_cut_are_exact(text, enc_name, data):
    enc = ENCODINGS[enc_name]
    tc = TextCounts(enc, text)
    s = data.draw(st.integers(0, len(text) - 1))
    max_tokens = data.draw(st.one_of(st.integers(1, 6), st.integers(1, 60)))
    view = ChunkView(tc, s, max_tokens)
    for j in range(s, len(text) + 1):
        assert view.count(j) == enc.count(text[s:j]), (s, j)
    cut = view.cut(True, max_tokens * enc.bpe.max_token_len)
    j = brute_cut(enc, text, s, max_tokens)
    assert cut == (j, enc.count(text[s:j]))
    # held text that stops early: either the same cut, or a request for more text
    for n in sorted({len(text) - 1, (s + len(text)) // 2, s + 5}):
        if s < n < len(text):
            part = ChunkView(TextCounts(enc, text[:n]), s, max_tokens).cut(False, max_tokens * enc.bpe.max_token_len)
            assert part is NEED_MORE or part == cut, (n, part, cut)


@settings(max_examples=examples(150), deadline=None)
@given(text=adversarial_texts, enc_name=st.sampled_from(sorted(ENCODINGS)))
def test_letter_run_prefixes_are_single_pieces(text, enc_name):
    # point 4 of chunk_counts: every non-empty prefix of such a piece is one piece
    enc = ENCODINGS[enc_name]
    run = _LETTER_RUN[enc.pat_str]
    for piece in enc.split(text):
        if run.fullmatch(piece):
            for i in range(1, len(piece) + 1):
                assert enc.split(piece[:i]) == [piece[:i]], (piece, i)


RUN_ALPHABET = ["a", "B", "\u01c5", "\u02b0", "中", "\u0301", "\u0903", " ", "\t", "\n", "\r", "!", "/", "'",
                "1", "\u00a0", "\u3000", "😀", "\u200d", "\ufe0f", ".", "s", "\x00", "\x1c"]
run_texts = st.lists(st.sampled_from(RUN_ALPHABET), min_size=1, max_size=9).map("".join)


@settings(max_examples=examples(400), deadline=None)
@given(head=run_texts, tail=run_texts, enc_name=st.sampled_from(sorted(ENCODINGS)))
def test_one_piece_runs(head, tail, enc_name):
    # _ONE_PIECE_RUN: every non-empty prefix of a match is one piece, and (second property)
    # the first piece of any longer text starting with a match of 2+ characters reaches
    # the match's last character (cl100k whitespace with newlines excepted: checked in full)
    enc = ENCODINGS[enc_name]
    run = _ONE_PIECE_RUN[enc.pat_str]
    split = regex.compile(enc.pat_str).findall  # the pattern itself, not the library's splitter
    for i in range(1, len(head) + 1):
        if run.fullmatch(head[:i]) is None:
            break
        assert split(head[:i]) == [head[:i]], (head, i)
        if i >= 2 and not (enc_name == "cl100k_base" and head[0].isspace()):
            first = split(head[:i] + tail)[0]
            assert len(first) >= i - 1, (head[:i], tail, first)


def test_run_classes_as_written_agree_on_ascii():
    # TextCounts.in_run / in_letters use the patterns compiled without the class rewrite on
    # ASCII slices: both compilations must agree on every pair of ASCII characters
    from bpe_stream.chunk.counts import _LETTERS

    chars = [chr(i) for i in range(128)]
    for table in (_ONE_PIECE_RUN, _LETTERS):
        for lazy in table.values():
            plain = lazy.as_written()
            for a in chars:
                for b in chars:
                    assert (plain.fullmatch(a + b) is None) == (lazy.fullmatch(a + b) is None), (a, b)


def _text_counts_patterns():
    """Every pattern TextCounts matches an ASCII text with as written: each member's rule and
    runs, the one-piece runs and letters of cl100k/o200k, and the module's own searches."""
    from bpe_stream.chunk import counts
    from bpe_stream.chunk.member_runs import member_runs
    from bpe_stream.pretokenize.family import MEMBERS
    from bpe_stream.pretokenize.hard_boundaries import hard_rule

    out = [counts._LAST_NON_WS, counts._FIRST_NON_WS, counts._LAST_NON_LETTER,
           *counts._ONE_PIECE_RUN.values(), *counts._LETTERS.values()]
    for member in MEMBERS.values():
        rule = hard_rule(member)
        if rule is not None:
            out += [rule.hard_at, rule.letter_run]
        out += [p for p in member_runs(member) if p is not None]
    return list({id(p): p for p in out}.values())


_ASCII_ATOMS = [" ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x1c", "\x1f", "/", "/\n", "!", "'s", "'",
                "a", "Ab", "ABC", "word", "1", "123", "x" * 70, " " * 70, "!" * 20, "\x00", "~"]
ascii_texts = st.one_of(st.lists(st.sampled_from(_ASCII_ATOMS), min_size=1, max_size=30).map("".join),
                        st.text(alphabet=st.characters(max_codepoint=127), min_size=1, max_size=60))


@settings(max_examples=examples(150), deadline=None)
@given(text=ascii_texts, data=st.data())
def test_text_counts_patterns_as_written_agree_on_ascii_texts(text, data):
    # TextCounts of an ASCII text holds these patterns compiled as written (no class
    # rewrite): every match, search and reverse search must be the rewritten pattern's
    _check_as_written_agree(text, data)


# Non-ASCII text on which the installed regex classes every character as the reference
# (pretokenize.unicode.agrees_on), and characters on which some class differs for the
# installed regex (none if it agrees everywhere).
_AGREEING_ATOMS = ["a\u0301", "\u00e9t\u00e9", "\u4e2d\u6587", "\u3000", "\u3000 ", "\u00a0", "\u2028", "\u017f",
                   "\U0001f44d", "\U0001f468\u200d\U0001f469", "\u0663\u0664", "\u00b2", "\u2019s", "\U00020000",
                   "\ufffd", "!\u0301/", "\u0e01\u0e34", "\u0391\u03b2"]
_DIFFERING_ATOMS = ["\u0295", "\u1acf", "\ua7ce", "\U00010940", "\U000187f8", "\U0001fac8", "\U000323b0",
                    "\U0003d000"]
agreeing_texts = st.lists(st.sampled_from(_ASCII_ATOMS + _AGREEING_ATOMS), min_size=1, max_size=30).map("".join)
mixed_texts = st.lists(st.sampled_from(_ASCII_ATOMS + _AGREEING_ATOMS + _DIFFERING_ATOMS), min_size=1,
                       max_size=30).map("".join)


def _check_as_written_agree(text, data):
    n = len(text)
    pos = data.draw(st.integers(0, n))
    end = data.draw(st.integers(pos, n))
    for lazy in _text_counts_patterns():
        plain = lazy.as_written()
        want = [m.span() for m in lazy.finditer(text, pos, end, overlapped=True)]
        assert [m.span() for m in plain.finditer(text, pos, end, overlapped=True)] == want, (lazy, text)
        for i in range(pos, end + 1):
            a, b = plain.match(text, i, end), lazy.match(text, i, end)
            assert (a and a.span()) == (b and b.span()), (lazy, text, i)
            a, b = plain.fullmatch(text, pos, i), lazy.fullmatch(text, pos, i)
            assert (a is None) == (b is None), (lazy, text, pos, i)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=ascii_texts, enc_name=st.sampled_from(sorted(ENCODINGS)), budget=st.sampled_from([1, 2, 3, 5, 16]),
       boundaries=st.sampled_from(["exact", "semantic"]), repeat=st.sampled_from([1, 8]))
def test_ascii_text_chunks_equal_those_with_rewritten_patterns(implementation, text, enc_name, budget, boundaries,
                                                               repeat):
    # A/B: the chunks of an ASCII text (TextCounts on the patterns as written) equal those
    # computed with every pattern rewritten (as_written answering the rewrite itself)
    from unittest import mock

    from bpe_stream.pretokenize.unicode import LazyPattern

    enc = encoding_with(enc_name, implementation)
    text = text * repeat
    chunker = Chunker(enc, budget, overlap=budget // 2, boundaries=boundaries)
    got = [(c.start, c.end, c.token_count) for c in chunker.chunks(text)]
    with mock.patch.object(LazyPattern, "as_written", LazyPattern.compiled):
        want = [(c.start, c.end, c.token_count) for c in chunker.chunks(text)]
    assert got == want


@settings(max_examples=examples(150), deadline=None)
@given(text=st.one_of(agreeing_texts, mixed_texts), data=st.data())
def test_text_counts_patterns_as_written_agree_on_texts_without_differing_characters(text, data):
    # TextCounts takes the patterns as written on any text agrees_on accepts: there too
    # they must match as the rewrites do (texts with differing characters: the rewrites)
    from bpe_stream.pretokenize.unicode import agrees_on

    if not any(c in text for c in _DIFFERING_ATOMS):
        assert agrees_on(text)
    if agrees_on(text):
        _check_as_written_agree(text, data)


@pytest.mark.parametrize("atom", _DIFFERING_ATOMS)
def test_text_counts_patterns_as_written_only_where_agrees_on_says(atom):
    # each differing character next to a letter, a digit, a space or punctuation: where
    # agrees_on accepts the text, the patterns as written match as the rewrites (a regex
    # that differs on these characters makes some of them differ: agrees_on must refuse)
    from bpe_stream.pretokenize.unicode import agrees_on

    for text in (x + atom + y for x in ("a", "A", "1", " ", "!", "") for y in ("a", "1", " ", "")):
        if agrees_on(text):
            for lazy in _text_counts_patterns():
                want = [m.span() for m in lazy.finditer(text, overlapped=True)]
                assert [m.span() for m in lazy.as_written().finditer(text, overlapped=True)] == want, (lazy, text)


def test_differing_atoms_are_differing():
    # the texts below hold characters on which the installed regex differs, if it differs
    from bpe_stream.pretokenize.unicode import agrees_on, corrections

    differs = any(v != (0, 0) for v in corrections().values())
    assert [agrees_on("a" + c) for c in _DIFFERING_ATOMS] == [not differs] * len(_DIFFERING_ATOMS)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=mixed_texts, enc_name=st.sampled_from(sorted(ENCODINGS)), budget=st.sampled_from([1, 2, 3, 5, 16]),
       boundaries=st.sampled_from(["exact", "semantic"]), repeat=st.sampled_from([1, 8]))
def test_non_ascii_text_chunks_equal_those_with_rewritten_patterns(implementation, text, enc_name, budget,
                                                                   boundaries, repeat):
    # A/B, as for ASCII texts: with and without characters on which the classes differ
    # (TextCounts takes the patterns as written only without), the chunks equal those
    # computed with every pattern rewritten
    from unittest import mock

    from bpe_stream.pretokenize.unicode import LazyPattern

    enc = encoding_with(enc_name, implementation)
    text = text * repeat
    chunker = Chunker(enc, budget, overlap=budget // 2, boundaries=boundaries)

    def spans():  # a character over the budget: the same refusal both ways
        try:
            return [(c.start, c.end, c.token_count) for c in chunker.chunks(text)]
        except CharacterOverBudget as e:
            return str(e)

    got = spans()
    with mock.patch.object(LazyPattern, "as_written", LazyPattern.compiled):
        want = spans()
    assert got == want


@settings(max_examples=examples(150), deadline=None)
@given(text=adversarial_texts, enc_name=st.sampled_from(sorted(ENCODINGS)), data=st.data())
def test_hard_boundaries_are_additive(text, enc_name, data):
    # rule 5 of chunk_counts: counts add up across the hard boundaries of the encoding's member
    from bpe_stream.pretokenize.hard_boundaries import hard_rule

    enc = ENCODINGS[enc_name]
    hard = [m.start() + 1 for m in hard_rule(enc.pretokenizer).hard_at.finditer(text, overlapped=True)]
    if not hard:
        return
    h = data.draw(st.sampled_from(hard))
    s = data.draw(st.integers(0, h - 1))
    for j in range(h, len(text) + 1):
        assert enc.count(text[s:j]) == enc.count(text[s:h]) + enc.count(text[h:j])


@pytest.mark.slow
def test_long_straddling_pieces():
    # a letter run far longer than the budget, long whitespace runs, a long digit run
    rng = random.Random(7)
    ws_mix = "".join(rng.choice(" \t\n") for _ in range(1500))
    cases = ["x" * 3000, "ab " + "中文" * 400 + " cd", "a" + " " * 2000 + "b", "1" * 2000, "a" + " \n" * 700 + "b",
             # long whitespace mixes: head pieces counted up to the budget, whitespace scan bound
             ws_mix, "w." + ws_mix + "z", "!" + "\n" * 700 + " " * 700, "\n \n " * 400]
    for enc in ENCODINGS.values():
        for text in cases:
            for max_tokens in (1, 5, 64):
                for mode in ("exact", "semantic"):
                    chunks = Chunker(enc, max_tokens, boundaries=mode).chunks(text)
                    check_chunks(enc, text, chunks, max_tokens, oracle=False)
                    if mode == "exact":
                        for c in chunks[:-1]:
                            assert enc.count(text[c.start : c.end + 1]) > max_tokens


@settings(max_examples=examples(120), deadline=None)
@given(text=adversarial_texts, enc_name=st.sampled_from(sorted(ENCODINGS)), data=st.data())
def test_suffix_view_counts_and_earliest_start_are_exact(text, enc_name, data):
    from bpe_stream.chunk.counts import SuffixView

    enc = ENCODINGS[enc_name]
    tc = TextCounts(enc, text)
    e = data.draw(st.integers(1, len(text)))
    s = data.draw(st.integers(0, e - 1))
    k = data.draw(st.integers(0, 12))
    view = SuffixView(tc, e)
    for i in range(s, e + 1):
        assert view.count(i) == enc.count(text[i:e]), (i, e)
    i0 = view.earliest_start(s, k)
    if i0 is not None:
        assert i0 == min(i for i in range(s, e + 1) if enc.count(text[i:e]) <= k)


def test_overlap_inside_long_letter_runs_is_exact():
    from bpe_stream.chunk.counts import SuffixView

    for enc in ENCODINGS.values():
        for text in ("ab " + "中文字列" * 60 + "。 cd", "x " + "abcdefghij" * 30 + ", y", "word " * 40):
            chunks = Chunker(enc, 40, overlap=15, boundaries="exact").chunks(text)
            check_chunks(enc, text, chunks, 40, overlap=15, oracle=False)
            tc = TextCounts(enc, text)
            for c in chunks[:-1]:
                i0 = SuffixView(tc, c.end).earliest_start(c.start, 15)
                brute = min(i for i in range(c.start, c.end + 1) if enc.count(text[i : c.end]) <= 15)
                assert i0 is None or i0 == brute


def test_chunkers_pickle_after_use():
    import pickle

    for enc in ENCODINGS.values():
        for chunker, text in ((Chunker(enc, 16, overlap=2), "Some text. " * 50), (Chunker(enc.bpe, 16), b"abc " * 40)):
            chunks = chunker.chunks(text)
            copy = pickle.loads(pickle.dumps(chunker))
            assert copy.chunks(text) == chunks
            assert pickle.loads(pickle.dumps(chunks)) == chunks


@pytest.mark.parametrize("pattern", ["cl100k_base", "o200k_base"])
@settings(max_examples=examples(30), deadline=None)
@given(text=adversarial_texts, max_tokens=st.integers(4, 40), mode=st.sampled_from(["exact", "semantic"]))
def test_chunks_with_vocabulary_crossing_piece_boundaries(pattern, text, max_tokens, mode):
    # (budgets >= 4: every character fits, this vocabulary has few multi-byte tokens)
    # the chunker's shortcuts must follow from the pattern, not from the bundled
    # vocabularies lacking tokens across piece boundaries
    from _streaming_helpers import cross_class_encoding

    enc = cross_class_encoding(pattern)
    chunks = Chunker(enc, max_tokens, boundaries=mode).chunks(text)
    check_chunks(enc, text, chunks, max_tokens, oracle=False)
    if mode == "exact":
        for c in chunks[:-1]:
            assert enc.count(text[c.start : c.end + 1]) > max_tokens


# The plain formulations of the sentence and word levels (quadratic on long runs without
# whitespace); the library's linear ones must give the same cut positions.
_PLAIN_SENTENCE = BoundaryLevel(
    "plain-sentence",
    r"[.!?\u2026]+[\"'\u201d\u2019)\]]*(?=\s)|[\u3002\uff01\uff1f]+[\u300d\u300f\u201d\u2019\uff09]*",
    "[.!?]+[\"')\\]]*(?=[ \t\r\n\f\v])|(?:\u2026|\u3002|\uff01|\uff1f)+(?:\u300d|\u300f|\u201d|\u2019|\uff09)*".encode(),
)
_PLAIN_WORD = BoundaryLevel("plain-word", r"\S+(?=\s)", rb"[^ \t\r\n\f\v]+(?=[ \t\r\n\f\v])")
_CUT_ALPHABET = ["a", ".", "!", "?", "\u2026", '"', "'", "\u201d", "\u2019", ")", "]", " ", "\n", "\t", "\u3002", "\uff01",
                 "\u300d", "x", ".\n", "\u3000"]


@settings(max_examples=examples(300), deadline=None)
@given(chars=st.lists(st.sampled_from(_CUT_ALPHABET), max_size=40), data=st.data())
def test_sentence_and_word_levels_equal_their_plain_patterns(chars, data):
    from bpe_stream.chunk.boundaries import get_level

    text = "".join(chars)
    lo = data.draw(st.integers(0, len(text)))
    hi = data.draw(st.integers(lo, len(text)))
    stop = data.draw(st.none() | st.integers(lo, hi))
    for name, plain in (("sentence", _PLAIN_SENTENCE), ("word", _PLAIN_WORD)):
        level = get_level(name)
        assert level.positions(text, lo, hi, stop) == plain.positions(text, lo, hi, stop)
        raw = text.encode()
        blo, bhi = len(text[:lo].encode()), len(text[:hi].encode())
        assert level.positions(raw, blo, bhi) == plain.positions(raw, blo, bhi)


def test_sentence_and_word_levels_on_crafted_ends():
    from bpe_stream.chunk.boundaries import get_level

    texts = ["a!\u2019 b", 'Yes." No', "(so?) then", "end.] x", "wait\u2026 ok", "\u3002\u300dx", "a!!!!", "!" * 50,
             "x" * 50 + " y", "it's... fine\n", "\u201cq?\u201d z", "a.\u3000b"]
    for text in texts:
        for name, plain in (("sentence", _PLAIN_SENTENCE), ("word", _PLAIN_WORD)):
            assert get_level(name).positions(text, 0, len(text)) == plain.positions(text, 0, len(text)), (name, text)


@pytest.mark.slow
def test_overlap_on_one_huge_piece_counts_linear_text():
    # A text that is one long piece ("😀" * n is one punctuation piece): the overlap search
    # must not count from the piece's start for every chunk (quadratic).  Work, not time:
    # the characters handed to TextCounts.count_str grow linearly with n.
    from bpe_stream.chunk import counts as chunk_counts

    enc = bpe_stream.get_encoding("cl100k_base")
    counted = {}
    original = chunk_counts.TextCounts.count_str

    def counting(self, t):
        counted["chars"] = counted.get("chars", 0) + len(t)
        return original(self, t)

    work = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(chunk_counts.TextCounts, "count_str", counting)
        for n in (2000, 8000):
            counted.clear()
            text = "\U0001F600" * n
            chunks = bpe_stream.Chunker(enc, 64, overlap=8, boundaries="exact").chunks(text)
            assert all(c.token_count == enc.count(c.text) <= 64 for c in chunks)
            work.append(counted.get("chars", 0))
    assert work[1] <= 6 * max(work[0], 1), work


# ------------------------------------------- conveniences, positions, headings, context
def test_encoding_names_models_paths_and_aliases(tmp_path):
    text = "Names, models and paths all name an encoding. " * 20
    reference = Chunker(O200K, 32, overlap=4).chunks(text)
    path = tmp_path / "o200k.bpe"
    O200K.save(path)
    for spec in ("o200k_base", "gpt-4o", path, str(path)):
        assert Chunker(spec, 32, overlap=4).chunks(text) == reference, spec
    assert Chunker("gpt-4o", chunk_size=32, chunk_overlap=4).chunks(text) == reference
    chunker = Chunker("gpt-4o", chunk_size=32, overlap=4)
    assert chunker.chunk_size == chunker.max_tokens == 32
    assert chunker(text) == reference
    assert chunker([text, "short", ""]) == [reference, chunker.chunks("short"), []]
    assert chunker((text,)) == [reference]
    with pytest.raises(TypeError, match="not both"):
        Chunker(O200K, 32, chunk_size=32)
    with pytest.raises(TypeError, match="budget"):
        Chunker(O200K)
    with pytest.raises(ValueError, match="chunk_size must be >= 1"):
        Chunker(O200K, chunk_size=0)
    with pytest.raises(ValueError, match="chunk_overlap must be >= 0 and < chunk_size"):
        Chunker(O200K, chunk_size=8, chunk_overlap=8)
    with pytest.raises(ValueError, match="is a directory"):
        Chunker(tmp_path, 8)
    with pytest.raises(ValueError, match="need an Encoding"):
        Chunker(O200K.bpe, 8, markdown=True)


def test_chunk_fields():
    c = Chunker("cl100k_base", 4, boundaries="exact").chunks("one two three four five six")[1]
    assert (c.text, c.start, c.end, c.token_count, len(c)) == (" five six", 18, 27, 2, 9)
    assert c.headings == () and c.context == "" and c.text_with_context == c.text
    assert c.token_count_with_context == c.token_count
    with pytest.raises(ValueError):
        Chunk("x", 0, 1, 1, (), "ctx")


def test_character_over_budget_is_a_value_error_with_its_facts():
    from bpe_stream.chunk.chunker import CharacterOverBudget

    rare = "\u9f98"
    with pytest.raises(CharacterOverBudget) as info:
        Chunker(CL100K, chunk_size=1).chunks("ab " + rare)
    e = info.value
    assert (e.character, e.position, e.tokens, e.budget) == (rare, 3, CL100K.count(rare), 1)
    assert "chunk_size=1" in str(e)


INDENTED = "".join(
    f"{'  ' * (i % 4)}- item {i}: {'value ' * (i % 7)}\n" + ("\n" if i % 5 == 4 else "") for i in range(400)
)


@pytest.mark.parametrize("max_tokens", [16, 64, 512])
def test_cuts_at_line_breaks_leave_indentation_with_its_line(max_tokens):
    # indented YAML-like text: blank lines between blocks, every line indented
    for enc in ENCODINGS.values():
        chunks = Chunker(enc, max_tokens).chunks(INDENTED)
        check_chunks(enc, INDENTED, chunks, max_tokens)
        ends_in_indent = [c for c in chunks[:-1] if c.text.rstrip(" \t").endswith("\n") and c.text[-1] in " \t"]
        assert not ends_in_indent, ends_in_indent[:2]


@settings(max_examples=examples(200), deadline=None)
@given(text=st.lists(st.sampled_from(["\n", "\n\n", " ", "  ", "\t", "x", "# ", "## h", "\r\n"]), max_size=30).map("".join))
def test_paragraph_positions_are_line_starts_after_a_blank_line(text):
    from bpe_stream.chunk.boundaries import PARAGRAPH

    lines_start = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    for p in PARAGRAPH.positions(text, 0, len(text)):
        assert p in lines_start and p >= 2
        # a blank line ends right here, and the line before the blank lines is no heading
        assert text[p - 1] == "\n"
        before = text[:p].rstrip(" \t\r\n\f\v")
        last_line = before.rsplit("\n", 1)[-1]
        assert not regex_heading(last_line), (text, p)
    # every blank line after a non-heading line gives a position at the next line start
    for m in __import__("re").finditer(r"\n([^\S\n]*\n)+", text):
        last_line = text[: m.start()].rsplit("\n", 1)[-1]
        if not regex_heading(last_line):
            assert m.end() in PARAGRAPH.positions(text, 0, len(text))


def regex_heading(line: str) -> bool:
    import re

    return re.match(r" {0,3}#{1,6}([ \t]|$)", line) is not None


def reference_heading_path(text: str, p: int) -> tuple[str, ...]:
    """The heading path at ``p``, written plainly: walk the lines that start before ``p``."""
    import re

    stack: list[tuple[int, str]] = []
    fence = None
    pos = 0
    for line in text.split("\n"):
        if pos >= p:
            break
        pos += len(line) + 1
        body = line[:264]
        f = re.match(r" {0,3}(`{3,}|~{3,})(.*)", body)
        if fence is not None:
            if f and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence) and not f.group(2).strip():
                fence = None
            continue
        if f and not (f.group(1)[0] == "`" and "`" in f.group(2)):
            fence = f.group(1)
            continue
        h = re.match(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*\r?$", body, re.S)
        if h:
            level = len(h.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, (h.group(2) or "").strip()[:256]))
    return tuple(t for _, t in stack)


MD_PARTS = ["# Title\n", "## Sub ##\n", "### Deep\n", "#nope\n", "   ## Indented\n", "text ", "more words. ",
            "\n", "\n\n", "```\n", "~~~~\n", "```py\n", "# in fence?\n", "para\n\n", "中文。", "#\n", "x" * 30]
md_texts = st.lists(st.sampled_from(MD_PARTS), max_size=40).map("".join)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=md_texts, bo=budget_and_overlap(), mode=modes, seed=st.integers(0, 2**32))
def test_markdown_heading_paths(text, bo, mode, seed):
    max_tokens, overlap = bo
    chunker = Chunker(CL100K, max_tokens, overlap=overlap, boundaries=mode, markdown=True)
    chunks = chunk_or_too_long(chunker, text)
    if chunks is None:
        return
    check_chunks(CL100K, text, chunks, max_tokens, overlap, oracle=False)
    for c in chunks:
        assert c.headings == reference_heading_path(text, c.start), c
    plain = Chunker(CL100K, max_tokens, overlap=overlap, boundaries=mode).chunks(text)
    assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in plain]
    rng = random.Random(seed)
    assert list(chunker.chunk_stream(random_split(text, rng, rng.choice([1, 7, 300])))) == chunks


def test_long_heading_titles_are_capped_and_streamed_alike():
    text = "# " + "word " * 200 + "\n" + "body text. " * 100
    chunker = Chunker(CL100K, 20, markdown=True)
    chunks = chunker.chunks(text)
    assert all(c.headings == reference_heading_path(text, c.start) for c in chunks)
    assert len(chunks[-1].headings[0]) == 256
    assert list(chunker.chunk_stream(random_split(text, random.Random(1), 3))) == chunks


contexts = st.one_of(st.none(), st.sampled_from(["", "Title", "A much longer document title, with words"]),
                     st.just(lambda h: "/".join(h) + ": "))


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(md_texts, texts), budget=st.integers(1, 64), overlap_share=st.floats(0, 1),
       mode=modes, markdown=st.booleans(), title=st.sampled_from(["", "Title", "A long title with many words in it"]),
       enc_name=st.sampled_from(sorted(ENCODINGS)), seed=st.integers(0, 2**32))
def test_context_is_counted_inside_the_budget(text, budget, overlap_share, mode, markdown, title, enc_name, seed):
    from bpe_stream.chunk.headings import format_context

    enc = ENCODINGS[enc_name]
    overlap = int(overlap_share * (budget - 1))
    chunker = Chunker(enc, budget, overlap=overlap, boundaries=mode, markdown=markdown, context=title)
    try:
        chunks = chunker.chunks(text)
    except ValueError as e:
        # only when the prefix leaves no room, or a character does not fit in what it leaves
        assert "context" in str(e)
        return
    check_chunks(enc, text, chunks, budget, overlap, oracle=False)
    tk = tiktoken_oracle(enc.name)
    for c in chunks:
        expected_headings = reference_heading_path(text, c.start) if markdown else ()
        assert c.headings == expected_headings
        assert c.context == format_context(title, expected_headings)
        assert c.text_with_context == c.context + c.text
        assert c.token_count_with_context == enc.count(c.text_with_context) <= budget
        assert c.token_count_with_context == len(tk.encode_ordinary(c.text_with_context))
    rng = random.Random(seed)
    assert list(chunker.chunk_stream(random_split(text, rng, rng.choice([1, 5, 400])))) == chunks


def test_context_function_and_errors():
    text = "# A\n\nalpha beta gamma.\n\n## B\n\ndelta epsilon.\n"
    chunker = Chunker(CL100K, 12, markdown=True, context=lambda h: "[" + " / ".join(h) + "]\n")
    chunks = chunker.chunks(text)
    check_chunks(CL100K, text, chunks, 12)
    assert chunks[-1].context == "[A / B]\n"
    assert all(c.token_count_with_context <= 12 for c in chunks)
    with pytest.raises(ValueError, match="leaves no room"):
        Chunker(CL100K, 3, context="a title far longer than three tokens").chunks("text")
    with pytest.raises(TypeError, match="must return a str"):
        Chunker(CL100K, 8, context=lambda h: 5).chunks("text")  # type: ignore[arg-type, return-value]
    with pytest.raises(TypeError):
        Chunker(CL100K, 8, context=5)  # type: ignore[call-overload]


def test_context_chunks_of_a_long_text_keep_every_guarantee():
    text = (Path(CORPUS_FILES[0]).read_text(encoding="utf-8") if CORPUS_FILES else INDENTED * 20)[:200_000]
    chunker = Chunker(CL100K, 128, overlap=16, markdown=True, context="Corpus")
    chunks = chunker.chunks(text)
    check_chunks(CL100K, text, chunks, 128, 16)
    assert all(c.token_count_with_context == CL100K.count(c.context + c.text) <= 128 for c in chunks)


def test_one_chunker_serves_many_threads_alike():
    # public objects are safe to read from several threads: one chunker (with its cache
    # of prefix budgets), many texts at once, the same chunks as one at a time
    from concurrent.futures import ThreadPoolExecutor

    texts = [("# T%d\n\n" % i) + INDENTED[i * 50 :] for i in range(8)]
    chunker = Chunker(CL100K, 48, overlap=6, markdown=True, context="Doc")
    expected = [Chunker(CL100K, 48, overlap=6, markdown=True, context="Doc").chunks(t) for t in texts]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(chunker.chunks, texts * 2))
    assert got == expected * 2


# ------------------------------------------------------------------ batches


def _batch_texts():
    texts = ["", "one", "Hello, world! " * 40, "e\u0301t\u00e9 \u4e2d\u6587 " * 30, "x\n\n" * 50]
    for p in CORPUS_FILES[:3]:
        texts.append(p.read_text(encoding="utf-8")[:6000])
    return texts


@pytest.mark.parametrize("workers", [1, 2])
def test_chunk_batch_equals_one_by_one_in_order(workers):
    chunker = Chunker("cl100k_base", 24, overlap=4)
    texts = _batch_texts()
    seen = []
    got = chunker.chunk_batch(texts, workers=workers, progress=lambda done, total: seen.append((done, total)))
    assert got == [chunker.chunks(t) for t in texts]
    assert seen == [(i, len(texts)) for i in range(1, len(texts) + 1)]


def test_chunk_batch_on_threads_where_python_runs_in_parallel(monkeypatch):
    from bpe_stream.chunk import batch

    monkeypatch.setattr(batch, "gil_enabled", lambda: False)  # as on a free-threaded build
    chunker = Chunker(bpe_stream.get_encoding("o200k_base"), 16)
    texts = _batch_texts()
    assert chunker.chunk_batch(texts, workers=3) == [chunker.chunks(t) for t in texts]


def test_chunk_batch_refuses_bad_arguments():
    chunker = Chunker("cl100k_base", 16)
    with pytest.raises(TypeError, match="text 1: expected str"):
        chunker.chunk_batch(["ok", 5])
    with pytest.raises(TypeError, match="not a single text"):
        chunker.chunk_batch("one text")
    with pytest.raises(ValueError, match="workers must be at least 1"):
        chunker.chunk_batch(["a"], workers=0)
    with pytest.raises(TypeError, match="progress must be callable"):
        chunker.chunk_batch(["a"], progress=3)
    assert chunker.chunk_batch([], workers=4) == []


def test_plain_chunks_are_chunks():
    # the chunker's chunks are built without the dataclass __init__ (chunker._plain_chunk)
    import copy
    import dataclasses
    import pickle

    from bpe_stream.chunk.chunker import _plain_chunk

    made, plain = _plain_chunk("ab", 1, 3, 2), Chunk("ab", 1, 3, 2)
    assert type(made) is Chunk and made == plain and hash(made) == hash(plain) and repr(made) == repr(plain)
    assert dataclasses.astuple(made) == dataclasses.astuple(plain)
    assert pickle.loads(pickle.dumps(made)) == plain and copy.deepcopy(made) == plain
    assert dataclasses.replace(made, end=4) == Chunk("ab", 1, 4, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.start = 0  # type: ignore[misc]
    enc = bpe_stream.get_encoding("cl100k_base")
    for chunk in Chunker(enc, 4).chunks("one two three four five six seven"):
        assert chunk == Chunk(chunk.text, chunk.start, chunk.end, chunk.token_count)
