import pytest
from _streaming_helpers import ENCODINGS_WITH_CROSS, encoding_by_name, text_st
from conftest import ENCODING_NAMES, corpus_text, examples
from hypothesis import example, given, settings
from hypothesis import strategies as st

import bpe_stream
from bpe_stream.bpe.cuts import bytes_split_at
from bpe_stream.text.cuts import text_split_at, text_split_at_count


def _brute_prefix(count, text, m, start=0):
    return max(j for j in range(start, len(text) + 1) if count(text[start:j]) <= m)


@pytest.mark.parametrize("name", ENCODING_NAMES)
@settings(max_examples=examples(40), deadline=None)
@given(text=text_st, m=st.integers(0, 12), s=st.floats(0, 1))
def test_split_at_exact(name, text, m, s):
    enc = bpe_stream.get_encoding(name)
    start = int(s * len(text))
    assert text_split_at(enc, text, m, start=start) == _brute_prefix(enc.count, text, m, start)
    assert enc.split_at(text, m) == _brute_prefix(enc.count, text, m)
    suffix = enc.truncate_start(text, m)
    best = min(i for i in range(len(text) + 1) if enc.count(text[i:]) <= m)
    assert suffix == text[best:]
    data = text.encode()
    assert bytes_split_at(enc.bpe, data, m, start=min(start, len(data))) == _brute_prefix(
        enc.bpe.count, data, m, min(start, len(data))
    )
    bsuf = enc.bpe.truncate_start(data, m)
    assert bsuf == data[min(i for i in range(len(data) + 1) if enc.bpe.count(data[i:]) <= m) :]


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_corpus_truncate(name):
    enc = bpe_stream.get_encoding(name)
    text = corpus_text("tinyshakespeare.txt")[:60000]
    for m in (1, 100, 1000):
        j = enc.split_at(text, m)
        assert enc.count(text[:j]) <= m < enc.count(text[: j + 1])
        suf = enc.truncate_start(text, m)
        assert enc.count(suf) <= m < enc.count(text[len(text) - len(suf) - 1 :])


def test_errors():
    enc = bpe_stream.get_encoding("cl100k_base")
    with pytest.raises(ValueError):
        enc.split_at("abc", -1)
    with pytest.raises(ValueError):
        text_split_at(enc, "abc", 1, start=5)
    with pytest.raises(TypeError):
        enc.split_at(b"abc", 1)


ADVERSARIAL_PARTS = [" " * 40, "\n \n " * 40, "!\n\n" + " " * 70, "!" + "\n" * 70, "a" + " " * 130 + "\n", "\n" * 30, " \n" * 25, "\n \n  " * 8, "x" * 90, "ab" * 40, "1" * 50, "12345",
                     "'ll", "'s", "it's", " '", "''", "!" * 40, "!\n", "a", " the", "\t", "中" * 30, "B", "\u3000"]


@pytest.mark.parametrize("name", ENCODINGS_WITH_CROSS)
@settings(max_examples=examples(40), deadline=None)
@given(parts=st.lists(st.sampled_from(ADVERSARIAL_PARTS), min_size=1, max_size=10), m=st.integers(0, 40))
def test_cuts_on_adversarial_parts(name, parts, m):
    # long whitespace runs mixing spaces and newlines, long letter runs, digits, apostrophes:
    # the early stops must be exact (brute force over every cut); also with a vocabulary
    # whose tokens cross piece boundaries (the shortcuts must follow from the pattern)
    enc = encoding_by_name(name)
    text = "".join(parts)
    assert enc.split_at(text, m) == _brute_prefix(enc.count, text, m)
    best = min(i for i in range(len(text) + 1) if enc.count(text[i:]) <= m)
    assert enc.truncate_start(text, m) == text[best:]


def test_hard_boundaries_are_boundaries():
    # the early-stop argument: at a hard boundary p every split of text[i:] (i < p) has a boundary
    from bpe_stream.pretokenize.fast_split import fast_split_for
    from bpe_stream.pretokenize.patterns import compile_pattern
    from bpe_stream.pretokenize.stability import _hard_boundary_test

    alphabet = "aB1 \n\t!/'s\u0301中ʰ"
    for name in ENCODING_NAMES:
        enc = bpe_stream.get_encoding(name)
        hard = _hard_boundary_test(fast_split_for(enc.pat_str))
        pattern = compile_pattern(enc.pat_str)
        checked = 0
        for a in alphabet:
            for b in alphabet:
                if not hard(a, b):
                    continue
                for pre in alphabet:
                    for pre2 in ["", "x", " ", "'", "1", "\n", "B"]:
                        for post in ["", "a", "s", "'s", " x", "\n", "1", "B", "/"]:
                            t = pre2 + pre + a + b + post
                            p = len(pre2) + 2
                            for i in range(p):
                                ends = {m.end() for m in pattern.finditer(t, i)}
                                assert p in ends, (name, t, i)
                                checked += 1
        assert checked > 1000


@pytest.mark.parametrize("name", ENCODING_NAMES)
@settings(max_examples=examples(300), deadline=None)
@given(text=text_st)
def test_count_splits_at_hard_boundaries(name, text):
    # what truncate_start's walk over hard boundaries rests on:
    # count(T[i:]) == count(T[i:b]) + count(T[b:]) for a hard boundary b and every i < b
    from bpe_stream.pretokenize.fast_split import fast_split_for
    from bpe_stream.pretokenize.stability import _hard_boundary_test, _o200k_word_end

    enc = bpe_stream.get_encoding(name)
    fast = fast_split_for(enc.pat_str)
    hard = _hard_boundary_test(fast)
    for b in range(1, len(text)):
        if hard(text[b - 1], text[b]) or (text[b] == "'" and _o200k_word_end(fast, text[b - 1], text[b + 1 : b + 2])):
            tail = enc.count(text[b:])
            for i in range(b):
                assert enc.count(text[i:]) == enc.count(text[i:b]) + tail, (text, i, b)


@pytest.mark.parametrize("name", ENCODINGS_WITH_CROSS)
@pytest.mark.parametrize("window", [0, 1, 8])
@settings(max_examples=examples(40), deadline=None)
@given(parts=st.lists(st.sampled_from(ADVERSARIAL_PARTS + ["To be, or not", " to be:\n", "that's it", "x = f(1, 2)\n"]),
                      min_size=1, max_size=12), m=st.integers(0, 40))
def test_cuts_walk_and_fallback(name, window, parts, m):
    # truncate_start and split_at walk the pieces of a window over hard boundaries;
    # window 0: the walk never reaches the kept part's end and the general scan answers;
    # 1: it often does not; 8 (the default): it usually does
    from bpe_stream.text import cuts

    enc = encoding_by_name(name)
    text = "".join(parts)
    best = min(i for i in range(len(text) + 1) if enc.count(text[i:]) <= m)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cuts, "_WINDOW_PER_TOKEN", window)
        assert enc.truncate_start(text, m) == text[best:]
        assert enc.split_at(text, m) == _brute_prefix(enc.count, text, m)
        start = len(text) // 3
        j, c = cuts.text_split_at_count(enc, text, m, start)
        assert j == _brute_prefix(enc.count, text, m, start) and c == enc.count(text[start:j])


def test_o200k_apostrophe_after_letter_is_a_boundary_unless_a_contraction_may_follow():
    from bpe_stream.pretokenize.fast_split import fast_split_for
    from bpe_stream.pretokenize.patterns import compile_pattern
    from bpe_stream.pretokenize.stability import _o200k_word_end

    enc = bpe_stream.get_encoding("o200k_base")
    fast = fast_split_for(enc.pat_str)
    pattern = compile_pattern(enc.pat_str)
    checked = 0
    for pre in ["", "x", " ", "A", "a\u0301", "!", "1"]:
        for a in "aB中ʰ":
            for post in ["", "x", "s", "S", "\u017f", "ll", "re", "1", " ", "'", "!"]:
                if not _o200k_word_end(fast, a, post[:1]):
                    continue
                t = pre + a + "'" + post
                p = len(pre) + 1
                for i in range(p):
                    assert p in {m.end() for m in pattern.finditer(t, i)}, (t, i)
                    checked += 1
    assert checked > 100


# Huge single pieces and runs (issue: split_at/truncate/truncate_start read the whole piece).
# 200K characters: an O(piece)-per-call or quadratic path would take seconds to minutes; the
# bounded scan (at most max_tokens * max_token_len bytes past the kept part) takes milliseconds.
def _huge_inputs():
    import random

    rng = random.Random(7)
    n = 200_000
    return {
        "spaces": " " * n, "letters": "x" * n, "punct": "!" * n, "digits": "7" * n,
        "random letters": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n)),
        "random digits": "".join(rng.choice("0123456789") for _ in range(n)),
        "space-newline": " \n" * (n // 2), "crlf": "\r\n" * (n // 2), "e-acute": "é" * n,
        "zwj emoji": "👨\u200d👩\u200d👧" * (n // 5), "nl-sp-nl": "\n \n " * (n // 4),
    }


@pytest.mark.slow
@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_cuts_inside_huge_piece(name):
    enc = bpe_stream.get_encoding(name)
    m = 4
    # no prefix (suffix) of more than m * max_token_len bytes fits: brute force below that
    span = m * enc.bpe.max_token_len + 1
    for label, text in _huge_inputs().items():
        j = enc.split_at(text, m)
        assert j == _brute_prefix(enc.count, text[:span], m), label
        assert enc.truncate(text, m) == text[:j]
        tail = text[-span:]
        best = min(i for i in range(len(tail) + 1) if enc.count(tail[i:]) <= m)
        assert enc.truncate_start(text, m) == tail[best:], label
        # with a start offset inside the piece
        assert text_split_at(enc, text, m, start=100_001) == 100_001 + _brute_prefix(enc.count, text[100_001 : 100_001 + span], m)


@pytest.mark.slow
@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_cuts_huge_piece_large_budget(name):
    # budget 300 on 200K characters: the answer is checked against exact counts around it
    enc = bpe_stream.get_encoding(name)
    for label in ("spaces", "random letters", "space-newline", "punct"):
        text = _huge_inputs()[label]
        j = enc.split_at(text, 300)
        assert enc.count(text[:j]) <= 300, label
        assert all(enc.count(text[:k]) > 300 for k in range(j + 1, min(len(text), j + 40) + 1)), label
        assert len(text[:j].encode()) <= 300 * enc.bpe.max_token_len
        suf = enc.truncate_start(text, 300)
        assert enc.count(suf) <= 300
        assert all(enc.count(text[-k:]) > 300 for k in range(len(suf) + 1, len(suf) + 40)), label


@pytest.mark.parametrize("name", ENCODINGS_WITH_CROSS)
@settings(max_examples=examples(20), deadline=None)
@given(
    head=st.sampled_from(["", "x", "word", "!", "!\n\n", "42", " !", "a!", "a\n", "1", "a", "Ab"]),
    body=st.text(alphabet=" \t\n\r", min_size=300, max_size=600)
    | st.text(alphabet="!?.,'\"/()-", min_size=300, max_size=600)
    | st.text(alphabet=" \n\u3000\x0b\t", min_size=300, max_size=600)
    | st.text(alphabet="!'/.\u0301\u2014\U0001f600", min_size=300, max_size=600)
    | st.text(alphabet="/\n\r", min_size=300, max_size=600)
    | st.text(alphabet="A\u4e2d\u02b0\u0301", min_size=300, max_size=600)
    | st.text(alphabet="a\u0301\u4e2d", min_size=300, max_size=600)
    | st.text(alphabet="xy\u00e9\u4e2d", min_size=300, max_size=600)
    | st.sampled_from([" " * 500, "\n" * 450, "\n " * 260, "!" * 500, "'" * 400, "/\n" * 200]),
    tail=st.sampled_from(["", "x", " y!"]),
    m=st.integers(1, 60),
)
def test_split_at_in_long_whitespace(name, head, body, tail, m):
    # the scan stops inside a long whitespace stretch, punctuation stretch (marks, non-ASCII
    # included), o200k slash tail or word stretch on a raw prefix-count bound
    # (cuts._StretchTailBound): the answer must still be the largest fitting prefix
    enc = encoding_by_name(name)
    text = head + body + tail
    j, c = text_split_at_count(enc, text, m)
    assert j == _brute_prefix(enc.count, text, m)
    assert c == enc.count(text[:j])


@pytest.mark.parametrize("name", ENCODINGS_WITH_CROSS)
@settings(max_examples=examples(40), deadline=None)
@given(
    head=st.sampled_from(["", "x", "word ", "\n", "a'", " "]),
    body=st.text(alphabet="!'/.,\u0301\u2014-\U0001f600", min_size=20, max_size=160)
    # counts that fall as the suffix grows (e.g. "=-" runs): the window minimum matters
    | st.text(alphabet="-=", min_size=150, max_size=300)
    | st.text(alphabet="\u2026\u2014\u2013", min_size=150, max_size=300),
    tail=st.sampled_from(["", "x", " y", "\n\n", "'s", "1"]),
    m=st.integers(1, 80),
)
@example(head="", body="!!" * 10 + "\U0001f600", tail="", m=3)  # a last character of L bytes
@example(  # found by brute force: stopping on the count at i instead of the window minimum fails
    head="word ",
    body="-=-=-=------=-----=---==-==----==-=-=--=---=--===-=-=-==----==-=-=-=---====-=---=--===-==-=-==-"
    "--===-=-=-=--==-=-=--=-======-------==-==-===-=-----=-=--=-====---==-===-=-==-=-=--=-=-======--="
    "=-------=-===---=--=--==-===------=----===-====--=--==----=--=-=-=--==-===-=-=-=---======---=-=--=--=",
    tail="\n\n",
    m=73,
)
def test_truncate_start_in_long_punctuation_piece(name, head, body, tail, m):
    # cuts._PunctHeadBound stops the backward scan inside a long punctuation piece from the
    # raw suffix counts' window minimum (the cross vocabulary's 4-byte tokens make short
    # pieces long enough for it); the answer must stay the smallest fitting start
    enc = encoding_by_name(name)
    text = head + body + tail
    best = min(i for i in range(len(text) + 1) if enc.count(text[i:]) <= m)
    assert enc.truncate_start(text, m) == text[best:]


@pytest.mark.parametrize("name", ENCODINGS_WITH_CROSS)
@settings(max_examples=examples(30), deadline=None)
@given(
    head=st.sampled_from(["", "x", "word ", "\n", "Hello. "]),
    body=st.text(alphabet="abcdefgxyz", min_size=300, max_size=700)
    | st.text(alphabet="x\u00e9", min_size=300, max_size=700)
    | st.text(alphabet="\U0001f468\u200d\U0001f469", min_size=300, max_size=500)
    | st.sampled_from(["x" * 600, "\u00e9" * 500, "ab" * 300, "\u4e2d" * 400, "  " * 300]),
    tail=st.sampled_from(["", " end.", "\n", "7"]),
    m=st.integers(1, 60),
)
def test_cuts_with_region_token_bound(name, head, body, tail, m):
    # cuts._RegionTokenBound stops the scans from the longest token occurring in the scanned
    # region; tried here from the first bytes (in use it starts at 8 * budget) so that it
    # decides most examples; the answers must stay exact
    import bpe_stream.text.cuts as cuts

    enc = encoding_by_name(name)
    text = head + body + tail
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cuts, "_region_first_check", lambda budget, mtl: 8)
        j = enc.split_at(text, m)
        suffix = enc.truncate_start(text, m)
    assert j == _brute_prefix(enc.count, text, m)
    best = min(i for i in range(len(text) + 1) if enc.count(text[i:]) <= m)
    assert suffix == text[best:]


surrogate_text = st.lists(
    st.sampled_from(["a", "b ", " ", "\n", "1", "!", "\ud83d\ude00", "\ud83d", "\ude00", "\u4e2d", "x\ud800"]),
    max_size=16,
).map("".join)


def _inside_pair(text: str, i: int) -> bool:
    return 0 < i < len(text) and "\ud800" <= text[i - 1] <= "\udbff" and "\udc00" <= text[i] <= "\udfff"


@pytest.mark.parametrize("name", ENCODING_NAMES)
@settings(max_examples=examples(150), deadline=None)
@given(text=surrogate_text, m=st.integers(0, 12))
def test_cuts_index_the_callers_string(name, text, m):
    # surrogate pairs are joined for counting, as tiktoken does, but every index and every
    # returned text is the caller's, never between the halves of a pair
    enc = bpe_stream.get_encoding(name)
    cuts_ok = [i for i in range(len(text) + 1) if not _inside_pair(text, i)]
    best = max(j for j in cuts_ok if enc.count(text[:j]) <= m)
    assert enc.split_at(text, m) == best
    assert enc.truncate(text, m) == text[:best]
    first = min(i for i in cuts_ok if enc.count(text[i:]) <= m)
    assert enc.truncate_start(text, m) == text[first:]
