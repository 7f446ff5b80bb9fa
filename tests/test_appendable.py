import pickle

import pytest
from _streaming_helpers import (
    CLASS_ALPHABET,
    ENCODINGS_WITH_CROSS,
    LETTER_ALPHABET,
    MARK_ALPHABET,
    SMALL_ALPHABET,
    append_records_violations,
    characters_read,
    deep_edit_work,
    edit_sequence_lines,
    encoding_by_name,
    exhaustive_appends,
    long_text_st,
    python_lines,
    text_st,
)
from conftest import ENCODING_NAMES, corpus_text, examples, tiktoken_oracle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_stream
from bpe_stream.stream.appendable import AppendableEncoder

ops_st = st.lists(st.tuples(st.booleans(), text_st, st.floats(0, 1)), min_size=1, max_size=15)


@pytest.fixture
def small_compression(small_constants):
    # conftest.small_constants: default and tiny long-piece constants
    return small_constants


@pytest.mark.parametrize("name", ENCODINGS_WITH_CROSS)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=ops_st)
def test_append_truncate_matches_count(name, ops, small_compression):
    enc = encoding_by_name(name)
    ae = AppendableEncoder(enc)
    text = ""
    for is_trunc, piece, frac in ops:
        if is_trunc and text:
            n = int(frac * len(text))
            ae.truncate(n)
            text = text[:n]
        else:
            ae.append(piece)
            text += piece
        assert ae.token_count == enc.count(text)
        assert len(ae) == len(text)
        assert append_records_violations(ae._impl) == []
    assert ae.tokens() == enc.encode_ordinary(text)


@settings(max_examples=examples(60), deadline=None)
@given(data=st.binary(max_size=60) | text_st.map(lambda s: s.encode()), cuts=st.lists(st.integers(1, 7), max_size=20))
def test_raw_append_bytes_in_pieces(data, cuts):
    enc = bpe_stream.get_encoding("cl100k_base")
    ae = AppendableEncoder(enc.bpe)
    p = 0
    for c in cuts + [len(data)]:
        ae.append(data[p : p + c])  # splits inside multi-byte characters too
        p += c
        assert ae.token_count == enc.bpe.count(data[:p][: len(ae)])
    assert ae.tokens() == enc.bpe.encode(data)
    for n in (len(data) // 2, 0):
        ae.truncate(n)
        assert ae.token_count == enc.bpe.count(data[:n])


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_corpora_char_by_char_vs_tiktoken(name):
    enc = bpe_stream.get_encoding(name)
    tt = tiktoken_oracle(name)
    for corpus in ["tinyshakespeare.txt", "blns.txt", "multilingual_sentences.txt", "code_python_black.py.txt"]:
        text = corpus_text(corpus)[:1500]
        ae = AppendableEncoder(enc)
        for k, ch in enumerate(text, 1):
            ae.append(ch)
            if k % 97 == 0:
                assert ae.token_count == len(tt.encode_ordinary(text[:k]))
        assert ae.token_count == len(tt.encode_ordinary(text))


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_long_pieces_grow_and_shrink(name):
    enc = bpe_stream.get_encoding(name)
    tt = tiktoken_oracle(name)  # enc.count itself is the object under test elsewhere
    count = lambda t: len(tt.encode_ordinary(t))  # noqa: E731
    for base in ["x" * 3000, " " * 3000, "\n" + " " * 3000, "中" * 2000, "!" * 3000, "A" * 2000 + "bc"]:
        ae = AppendableEncoder(enc)
        text = ""
        for i in range(0, len(base), 7):
            ae.append(base[i : i + 7])
            text += base[i : i + 7]
        assert ae.token_count == count(text)
        for tail in ["x", " ", "\n", "'ll", "1", " y"]:
            c = ae.copy()
            c.append(tail)
            assert c.token_count == count(text + tail)
        ae.truncate(len(text) - 1)
        assert ae.token_count == count(text[:-1])


def test_errors_and_pickle():
    enc = bpe_stream.get_encoding("cl100k_base")
    ae = AppendableEncoder(enc)
    with pytest.raises(TypeError):
        ae.append(b"bytes")
    with pytest.raises(ValueError):
        ae.truncate(5)
    with pytest.raises(ValueError, match="unknown encoding 'cl100k'"):
        AppendableEncoder("cl100k")
    with pytest.raises(TypeError):
        AppendableEncoder(100)
    raw = AppendableEncoder(enc.bpe)
    with pytest.raises(TypeError):
        raw.append("str")
    ae.append("hello world")
    ae2 = pickle.loads(pickle.dumps(ae))
    assert ae2.token_count == ae.token_count == 2
    raw.append(b"hello")
    assert pickle.loads(pickle.dumps(raw)).token_count == raw.token_count


def _exhaustive(enc, alphabet, depth):
    """Every string over `alphabet` up to `depth` appended one character at a time against the
    pattern's split and enc.count (see exhaustive_appends); the regex-free appends taken."""
    from bpe_stream.pretokenize.patterns import compile_pattern

    return exhaustive_appends(enc, alphabet, depth, compile_pattern(enc.pat_str))


@pytest.mark.slow
@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_fast_path_exhaustive(name):
    # every transition of bpe_stream.pretokenize.fast_split, from every kind, against the regex
    enc = bpe_stream.get_encoding(name)
    assert _exhaustive(enc, SMALL_ALPHABET, 5) > 10_000
    assert _exhaustive(enc, CLASS_ALPHABET, 3) > 1_000
    assert _exhaustive(enc, LETTER_ALPHABET, 5) > 1_000
    assert _exhaustive(enc, MARK_ALPHABET, 4) > 1_000


@pytest.mark.parametrize("name", ENCODINGS_WITH_CROSS)
def test_fast_path_marks_small(name):
    # marks appended after each kind of last piece, and what follows them (fast tier)
    enc = encoding_by_name(name)
    assert _exhaustive(enc, MARK_ALPHABET, 3) > 100


@settings(max_examples=examples(40), deadline=None)
@given(units=st.lists(st.sampled_from(["\U0001F600", "\u2764\ufe0f", "\u200d", "1\ufe0f\u20e3", "x", "Q", "\u4e2d",
                                       "!", "\u0301", " ", "\n"]), min_size=1, max_size=60),
       cuts=st.lists(st.integers(0, 8), max_size=4), name=st.sampled_from(["cross-o200k_base", "cross-cl100k_base"]))
def test_short_pieces_missing_the_cache_counted_as_they_grow(units, cuts, name):
    # a short last piece that misses the piece cache twice is counted by a raw appendable
    # grown a character at a time (TextAppendable._short_count); truncations drop it
    enc = encoding_by_name(name)
    enc._pieces.clear()
    ae = AppendableEncoder(enc)
    text = ""
    for i, ch in enumerate("".join(units)):
        ae.append(ch)
        text += ch
        assert ae.token_count == enc.count(text), repr(text)
        if cuts and i % 17 == 16:
            n = max(0, len(text) - cuts.pop())
            ae.truncate(n)
            text = text[:n]
            assert ae.token_count == enc.count(text), repr(text)
    assert ae.tokens() == enc.encode_ordinary(text)


@pytest.mark.parametrize("name", ENCODING_NAMES)
@settings(max_examples=examples(40), deadline=None)
@given(text=long_text_st, cut=st.floats(0, 1))
def test_char_by_char_long_runs(name, text, cut):
    enc = bpe_stream.get_encoding(name)
    ae = AppendableEncoder(enc)
    for k, ch in enumerate(text, 1):
        ae.append(ch)
        if k % 5 == 0 or k == len(text):
            assert ae.token_count == enc.count(text[:k])
    assert ae.tokens() == enc.encode_ordinary(text)
    n = int(cut * len(text))
    ae.truncate(n)
    assert ae.token_count == enc.count(text[:n])
    for ch in text[n:]:  # grow again through the regex-free path
        ae.append(ch)
    assert ae.token_count == enc.count(text)
    assert ae.tokens() == enc.encode_ordinary(text)


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_tokens_incremental(name):
    enc = bpe_stream.get_encoding(name)
    text = corpus_text("tinyshakespeare.txt")[:4000]
    ae = AppendableEncoder(enc)
    for k, ch in enumerate(text, 1):
        ae.append(ch)
        if k % 501 == 0:
            assert ae.tokens() == enc.encode_ordinary(text[:k])
    impl = ae._impl
    assert impl.tok_pieces > 0 and len(impl.tok) == impl.stable_cum[impl.tok_pieces]
    ae.truncate(2000)
    assert ae.tokens() == enc.encode_ordinary(text[:2000])
    ae.append(text[2000:])
    assert ae.tokens() == enc.encode_ordinary(text)


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_surrogate_pair_split_across_appends(name):
    enc = bpe_stream.get_encoding(name)
    tt = tiktoken_oracle(name)
    cases = [["\ud83d", "\ude00"], ["a\ud83d", "\ude00b"], ["\ud83d"], ["\ude00"], ["\ud83d", "x"],
             ["x\ud83d", "\ud83d", "\ude00"], ["\ud83d\ude00", "\ude00"], ["a", "\ud83d", "", "\ude00", "!"]]
    for parts in cases:
        for raw in (False, True):
            ae = AppendableEncoder(enc)
            joined = ""
            for part in parts:
                if raw:  # char by char: the regex-free path must hand surrogates over
                    for ch in part:
                        ae.append(ch)
                else:
                    ae.append(part)
                joined += part
                # tiktoken joins pairs and replaces lone surrogates in the whole text
                assert ae.token_count == enc.count(joined) == len(tt.encode_ordinary(joined)), parts
            assert ae.text() == enc.decode(enc.encode_ordinary(joined))
            assert ae.tokens() == enc.encode_ordinary(joined)
    ae = AppendableEncoder(enc)
    ae.append("a\ud83d")
    ae2 = pickle.loads(pickle.dumps(ae))
    ae2.append("\ude00")
    assert ae2.token_count == enc.count("a\ud83d\ude00")


@pytest.mark.slow
@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_runs_append_and_table(name):
    # runs of one byte / short period: the periodic shortcut of the raw recurrence and of the
    # table pass must give BPE's counts exactly (checked at every prefix against a fresh encoder
    # near the start and at the end of 200 KB)
    from bpe_stream.bpe.table import PrefixTable

    enc = bpe_stream.get_encoding(name)
    bpe = enc.bpe
    for unit in (b" ", b"\n \n ", b"\xc3\xa9", b"   x"):
        data = (unit * (200_000 // len(unit) + 1))[:200_000]
        ae = AppendableEncoder(bpe)
        for k in range(0, 300):
            ae.append(data[k : k + 1])
            assert ae.token_count == bpe.count(data[: k + 1])
        ae.append(data[300:200_000])
        assert ae.token_count == bpe.count(data)
        table = PrefixTable(bpe, data)
        table.extend_to(len(data))
        assert table.counts[len(data)] == bpe.count(data)
        assert table.counts[123_457] == bpe.count(data[:123_457])
    ae = AppendableEncoder(enc)
    for _ in range(100_000):
        ae.append(" ")
    ae.append("x")
    assert ae.token_count == enc.count(" " * 100_000 + "x")


WS_MIX = st.text(alphabet=" \t\n\r\u3000\x0b", min_size=1, max_size=6)


@pytest.mark.parametrize("name", ENCODING_NAMES)
@settings(max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    head=st.sampled_from(["", "x", "word", "!", "!\n\n", " !", "42", "中"]),
    body=st.text(alphabet=" \t\n\r\u3000", min_size=20, max_size=300),
    ops=st.lists(st.tuples(st.booleans(), WS_MIX | st.sampled_from(["x", " y", "!", "\n"]), st.integers(0, 12)), max_size=12),
)
def test_long_whitespace_mix_truncate_and_append(name, head, body, ops, small_compression):
    # a long whitespace piece mixing spaces, tabs and newlines (no long one-class run):
    # multi-character appends and truncations re-split it on a proxy with its middle cut out
    _grow_then_edit(bpe_stream.get_encoding(name), head, body, 7, ops)


def _grow_then_edit(enc, head, body, step, ops):
    """Append ``head`` then ``body`` in steps of ``step`` characters, then apply ``ops``
    (truncate by k characters, or append a piece), checking the count against ``enc.count``."""
    ae = AppendableEncoder(enc)
    ae.append(head)
    for k in range(0, len(body), step):
        ae.append(body[k : k + step])
    text = head + body
    assert ae.token_count == enc.count(text)
    for is_trunc, piece, k in ops:
        if is_trunc:
            n = max(0, len(text) - k)
            ae.truncate(n)
            text = text[:n]
        else:
            ae.append(piece)
            text += piece
        assert ae.token_count == enc.count(text), (is_trunc, piece, k)
        assert append_records_violations(ae._impl) == []
    assert ae.tokens() == enc.encode_ordinary(text)


WORD_MIX = "a中ʰ\u0301bB'"


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    head=st.sampled_from(["", " ", "!", "X", "1"]),
    body=st.text(alphabet=WORD_MIX, min_size=10, max_size=200),
    ops=st.lists(st.tuples(st.booleans(), st.text(alphabet=WORD_MIX + " A!'s", min_size=1, max_size=4), st.integers(0, 12)),
                 max_size=12),
)
def test_long_o200k_word_mixing_letter_classes(head, body, ops, small_compression):
    # an o200k word mixing lower-case, Lm/Lo letters and marks has only short one-class
    # runs: re-splits cut the middle of its lower-word stretch (piece_stream._word_piece_cuts)
    _grow_then_edit(bpe_stream.get_encoding("o200k_base"), head, body, 5, ops)


UPPER_MIX = "AB中ʰ\u0301"


@pytest.mark.parametrize("name", ["o200k_base", "cross-o200k_base"])
@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    head=st.sampled_from(["", " ", "!", "a", "\u0301", "中a"]),
    body=st.text(alphabet=UPPER_MIX, min_size=10, max_size=200),
    ops=st.lists(st.tuples(st.booleans(), st.text(alphabet=UPPER_MIX + "a !'s", min_size=1, max_size=4),
                           st.integers(0, 12)), max_size=12),
)
def test_long_o200k_word_mixing_upper_case_and_lo(name, head, body, ops, small_compression):
    # upper-case letters mixed with Lm/Lo letters and marks ("A中" * n): re-splits cut the
    # middle of the upper-word stretch, keeping its first upper-case letter and its last
    # Lm/Lo/mark (piece_stream._upper_word_piece_cut)
    _grow_then_edit(encoding_by_name(name), head, body, 5, ops)


PUNCT_MIX = "!'/\u0301.\n"


@pytest.mark.parametrize("name", ENCODINGS_WITH_CROSS)
@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    head=st.sampled_from(["", " ", "a", "\n", "1"]),
    body=st.text(alphabet=PUNCT_MIX, min_size=10, max_size=200),
    ops=st.lists(st.tuples(st.booleans(), st.text(alphabet=PUNCT_MIX + "a 's", min_size=1, max_size=4),
                           st.integers(0, 12)), max_size=12),
)
def test_long_punctuation_piece_mixing_apostrophes_slashes_marks(name, head, body, ops, small_compression):
    # punctuation pieces mixing apostrophes, slashes, marks and (o200k) a [\r\n/] tail have only
    # short one-class runs: re-splits cut the middle of the punctuation stretch after three
    # non-mark characters, and of the slash tail after its first "/"
    # (long_pieces._punct_piece_cut, long_pieces._slash_tail_cut)
    _grow_then_edit(encoding_by_name(name), head, body, 5, ops)


@pytest.mark.parametrize("prefix", ["中" * 40, "中ʰ\u0301" * 15, "ʰ" * 40, ""])
@pytest.mark.parametrize("middle", ["a", "", "中a" * 20])
def test_o200k_lower_word_stretch_cuts_keep_first_lower_case_letter(prefix, middle, small_compression):
    # a stretch of Lm/Lo/marks before (or without) its first Ll, then upper-case letters: the
    # first part of the word pattern runs on into them exactly when the stretch has no Ll
    from _streaming_helpers import cross_class_encoding

    for enc in (bpe_stream.get_encoding("o200k_base"), cross_class_encoding("o200k_base")):
        _check_stretch_cuts(enc, prefix, middle)


def _check_stretch_cuts(enc, prefix, middle):
    for tail in ["AB", "ABc", " x", "'s", "A'll"]:
        ae = AppendableEncoder(enc)
        text = ""
        for chunk in (prefix, middle, "中ʰ" * 10, tail, "中a"):
            ae.append(chunk)
            text += chunk
            assert ae.token_count == enc.count(text), (chunk, text)
        for k in (1, 2, 5, 9):
            ae.truncate(len(text) - k)
            ae.append(text[len(text) - k :])
            assert ae.token_count == enc.count(text)


@pytest.mark.parametrize("name, runs, ops", [
    # An all-whitespace text is one piece (\s++$); appending a non-space splits it into the
    # newline piece and the run of spaces, and the truncation back joins them again: each
    # round re-appended the run of spaces to a new record in Python (records of pieces that
    # go are now kept, and a long change of a record keeps the other end: alts).
    ("cl100k_base", [(" \n", 304), (" ", 286)],
     [("t", 4), ("t", 1), ("p", "\U0001f600's"), ("p", " a\t!"), ("t", 5), ("t", 2), ("p", "''"),
      ("p", " \n\u02b0\u4e2d"), ("t", 1), ("t", 1), ("t", 2), ("p", "<aA"), ("p", "\n\n "), ("p", "Ab"), ("t", 4),
      ("p", "aB"), ("t", 1), ("p", "s"), ("t", 5), ("p", "\u4e2d\u0301.")]),
    # o200k (中 + mark)*: no one-class run long enough to cut, and every re-split walked all
    # of the piece's class runs to find that out (long runs are now kept apart: lruns)
    ("o200k_base", [("\u4e2d\u0301", 89)],
     [("t", 2), ("p", "\n\n\U0001f600 a"), ("t", 5), ("p", "s"), ("p", "\u02b0's\xa0"), ("p", "\u4e2d\u4e2d\u0301"),
      ("t", 5), ("t", 2), ("p", " \n-1"), ("p", " \n/12"), ("t", 2), ("t", 4), ("p", "  '"), ("t", 2),
      ("p", " a."), ("p", "' \xe9"), ("t", 2), ("p", "\r\n-\n"), ("p", " !a"), ("t", 5)]),
    # "\n" + tabs + " \n" is one piece, "\n" and the tabs two: the record of the first one
    # was dropped with it and built again from "\n" on every round (now taken back from alts
    # by its start and extended by the two characters)
    ("o200k_base", [("a\n", 120), ("\t", 229)],
     [("t", 1), ("t", 5), ("p", " \n"), ("p", "aB12\u02b0"), ("p", "/_"), ("t", 4), ("p", "\xe9"), ("t", 2),
      ("t", 1), ("p", "\u0301a"), ("p", "/\n"), ("p", " \n\u4e2d\u0301/\n"), ("t", 4), ("p", "!a\u0301"),
      ("p", "x\u0301/\n"), ("p", "aB"), ("p", " \n\nAb"), ("p", "\xa0\xe9 a"), ("t", 4), ("p", " \n1")]),
    # Kept records (alts) that reach past a truncation were dropped, though cut they are
    # records of what is left: an all-whitespace text is one piece again after the truncation
    # back, and its record was rebuilt from the newline piece's, re-adding the spaces in
    # Python.  And a kept record a few characters off the piece's end was not taken back.
    ("cl100k_base", [("\n\n \n", 360), (" ", 246)], [("p", "\t"), ("p", " '0")]),
    ("cl100k_base", [(" \n", 347), (" \t", 194)], [("p", "\t"), ("p", "'s")]),
    ("o200k_base", [("\r\n \n", 281), ("\t", 356)], [("p", " \n''\n\n")]),
])
def test_a_sequence_of_edits_at_the_end_does_not_re_encode_a_long_piece(name, runs, ops):
    # Found by bench_work_growth.py --sequences --side back: the Python lines of the third
    # pass over the sequence (each pass followed by a truncation back to the text built), with
    # the runs as given and 16x longer (before: 608,075 against 12,275,569; 5,196 against
    # 15,953; 69,534 against 1,134,400).
    make = lambda k: [unit * (count * k // 300) for unit, count in runs]  # noqa: E731
    lines = edit_sequence_lines(bpe_stream.get_encoding(name), False, make, ops)
    assert lines[1] <= lines[0] + 600, lines


def _end_toggle_lines(enc, unit: str, counts, edits, check=None) -> list[int]:
    """Python lines of one round of toggles (each edit appended, then truncated back) at the
    end of ``unit * count``, for each count, after a warm-up round; the count (and
    ``check(stream)``, when given) must hold after it."""
    lines = []
    for count in counts:
        ae = AppendableEncoder(enc)
        ae.append(unit * count)
        size = len(ae)

        def toggles():
            for edit in edits:
                ae.append(edit)
                ae.truncate(size)

        toggles()
        lines.append(python_lines(toggles))
        assert ae.token_count == enc.count(unit * count)
        assert check is None or check(ae)
    return lines


@pytest.mark.parametrize("name, unit", [("cl100k_base", "x" * 70 + " "), ("o200k_base", "!" * 70 + "a"),
                                        ("cl100k_base", " " * 70 + "\n" + "a")])
@pytest.mark.slow
def test_a_truncation_does_not_walk_the_records_of_every_long_piece(name, unit):
    # Every long piece keeps a record.  A truncation used to walk all of them to find those
    # reaching past its cut, a Python step per long piece of the text (3 toggles at the end of
    # 4,800 pieces of "x" * 70 + " ": 15,653 lines, against 2,153 with 300).  Records now
    # follow the pieces exactly (append_records_violations), and the truncation reaches them
    # through the pieces it removes.
    lines = _end_toggle_lines(bpe_stream.get_encoding(name), unit, (300, 4800), ("y", "yy z", "\n\n"),
                              check=lambda ae: append_records_violations(ae._impl) == [])
    assert lines[1] <= lines[0] + 300, lines


@pytest.mark.parametrize("name, unit", [("o200k_base", "!!" + "\u0301" * 30), ("o200k_base", "A\u4e2d"),
                                        ("cl100k_base", "!'"), ("o200k_base", "\r\n \n"),
                                        ("cl100k_base", "\r\n \n")])
def test_putting_back_a_long_cut_of_a_long_piece_does_not_copy_its_record(name, unit):
    # Found by a probe of long truncations: a change of more than _LONG characters to a long
    # piece keeps a copy of its record in alts, for the way back; a truncation cuts the record
    # itself, so truncating 70 characters and adding them back copied it on every pass, though
    # the one kept had the same end (the copy is a Python step per class run of the piece:
    # 5,573 lines at 200 units of "!!" + 30 marks, 23,609 at 3,200).
    lines = deep_edit_work(bpe_stream.get_encoding(name), False, unit, (200, 3200), 70, ["x", " \u0301"])
    assert lines[1] <= lines[0] + 300, lines


@pytest.mark.parametrize("grow", ["\ud55c\u0301" * 136, "\u4e2d" * 100])
def test_a_long_piece_grown_about_as_much_as_the_edit_does_not_copy_its_record(grow):
    # Found by bench_work_growth.py --sequences --big: one o200k letter after "\u20dd\u0130" * k
    # + "D" * m joins the upper-case run to the word, a change much longer than the edit, for
    # which a copy of the record is kept; the next edit grows the word by as much as it adds,
    # and the record was copied again (O(runs of the piece) in Python), on every pass,
    # because the record kept lay farther from it than 64 characters (21,507 lines at k = 300,
    # 48,535 at 4,800).  A change about as long as its edit is not worth a copy.
    enc = bpe_stream.get_encoding("o200k_base")
    lines = []
    for k in (300, 4800):
        text = "\u20dd\u0130" * k + "D" * (2 * k // 3)
        ae = AppendableEncoder(enc)
        ae.append(text)
        size = len(text)

        def one_pass():
            ae.append("\U00020000")
            ae.append(grow)
            ae.truncate(size)

        one_pass()
        assert ae.token_count == enc.count(text)
        one_pass()
        lines.append(python_lines(one_pass))
        assert ae.token_count == enc.count(text)
    assert lines[1] <= lines[0] + 300, lines


@pytest.mark.parametrize("ops", [[("p", "\x85/"), ("p", "y"), ("t", 3), ("p", "x")],
                                 [("p", "\u4e2d\x85/\U00020000"), ("p", "L"), ("t", 5), ("p", "\ud55c")]])
def test_a_long_piece_ending_in_a_slash_is_read_once_beside_a_short_one(ops):
    # Found by bench_work_growth.py --sequences --cuts: whether o200k punctuation ending in "/"
    # holds a newline is read once per piece and remembered (piece_stream._holds_newline),
    # but only for one piece, so a short piece ending in "/" made last in between ("\x85/"
    # after "/-" * n + "/") made the next append read the long one whole, on every pass
    # (before: 1,127 / 13,737 / 54,093 characters per pass at 1x / 16x / 64x on the searched
    # trial, 666 / 9,666 here).  Characters read per pass at 1x and 16x.
    make = lambda k: ["/-" * k + "/"]  # noqa: E731
    reads = edit_sequence_lines(bpe_stream.get_encoding("o200k_base"), False, make, ops, measure=characters_read)
    assert reads[1] <= reads[0] + 2_000, reads


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("unit", ["\u00aa" * 30 + "m", "m" + "\u00aa" * 24 + "\u00e9" * 5, "\u4e2d" * 40 + "A"])
def test_edits_after_a_long_word_do_not_walk_its_long_runs(name, unit):
    # Found by bench_work_growth.py --sequences --nested (a run of "m" and "\u00aa" drawn at
    # random, up to two at a time, 10 to 1): a long word with a long one-class run every few
    # dozen characters.  long_piece_cuts walked all of those runs on every edit, though the
    # word's own cut covers them: one Python step per run of the piece (before, under o200k:
    # 9,564 lines at 100 units and 114,592 at 1,600 for the first unit, 7,971 and 91,999 for
    # the second, 11,508 and 131,572 for the third).
    lines = _end_toggle_lines(bpe_stream.get_encoding(name), unit, (100, 1600), ("x", "\u00e97", " a", "\u00aa'S"))
    assert lines[1] <= lines[0] + 300, lines


@pytest.mark.parametrize("name, runs, ops", [
    ("o200k_base", [("'", 178), ("\n\n", 168)], [("p", "x\n")]),
    ("cl100k_base", [("'", 178), ("\n", 336)], [("p", "x\n")]),
    ("o200k_base", [("!'", 150), ("\r\n", 168)], [("p", " x")]),
    ("cl100k_base", [("!'", 150), ("\n", 336)], [("t", 3), ("p", "\n ab")]),
    ("o200k_base", [("Ab", 150), ("!", 200), ("\n", 168)], [("p", "'s")]),
    ("cl100k_base", [("\n\n \n", 360), (" ", 246)], [("p", "\t"), ("p", " '0")]),
    ("o200k_base", [("\r\n \n", 281), ("\t", 356)], [("p", " \n''\n\n")]),
])
def test_a_long_run_beside_a_stretch_cut_is_cut_too(name, runs, ops):
    # Found by bench_work_growth.py --sequences counting the characters read: a punctuation
    # piece with a long newline tail ("'" * n + "\n" * m) got the cut of its punctuation
    # stretch only, and the tail was re-split verbatim on every pass (43,000 characters per
    # pass at 64x); so did a whitespace piece (\s++$) with the spaces after its last newline.
    # The long one-class runs that no stretch cut overlaps are cut too.  Characters read per
    # pass at 1x and 16x.
    make = lambda k: [unit * (count * k // 300) for unit, count in runs]  # noqa: E731
    reads = edit_sequence_lines(bpe_stream.get_encoding(name), False, make, ops, measure=characters_read)
    assert reads[1] <= reads[0] + 2_000, reads


@pytest.mark.parametrize("parts", [
    ["/" * 20 + "\n" * 69 + "/" * 49, "'LL" * 76],
    ["/" * 20 + "\n" * 69 + "/" * 49, "'LL" * 10, "'s"],
])
def test_a_cut_slash_tail_keeps_the_newline_that_ends_the_punctuation(parts):
    # o200k "/" * k + "\n" * m + "/" * j + "'": the punctuation repetition takes the slashes
    # and stops at the first newline, the [\r\n/]* tail takes the rest and stops at the
    # apostrophe.  The re-split's proxy cut the slash tail from just after the first "/",
    # deleting that newline, and the repetition ran on into the apostrophe: one token short.
    enc = bpe_stream.get_encoding("o200k_base")
    ae = AppendableEncoder(enc)
    for part in parts:
        ae.append(part)
    assert ae.token_count == enc.count("".join(parts))


@pytest.mark.parametrize("runs, ops", [
    ([("/", 281), ("/\n", 70)], [("p", "\u02b0 '"), ("t", 1), ("p", "_\xe1\u02b0")]),
    ([("/", 134), ("/\n", 223)], [("p", "a'")]),
    ([("!''", 254), ("\u0301", 110)], [("p", "0\u02b0\u4e2d")]),
    ([("\u4e2d\u0301", 340)], [("p", "\xe1'sA"), ("p", "\xe9'x")]),
    ([("\u4e2d\u0301\u4e2d", 277)], [("p", "'s."), ("p", " a-")]),
    ([("\u4e2d\u0301", 176)], [("p", "'s '"), ("t", 2), ("p", "\u0301 '")]),
    ([("\u4e2d\u0301", 77), ("A", 53)], [("p", "1\r\n"), ("t", 5), ("p", "\u0301"), ("p", "A"), ("p", " a")]),
])
def test_a_long_o200k_piece_gets_its_longest_stretch_cut(runs, ops):
    # Found by bench_work_growth.py --sequences counting the characters read (o200k, whole
    # piece re-split on every pass): of two overlapping stretch cuts the first found was
    # taken, though it could be the small one ("/" * n + "/\n" * m: the punctuation stretch
    # ends at the first newline, the slash tail runs to the end; marks after "!''" * n: the
    # marks' word cut against the punctuation stretch holding them); and a word ending in a
    # contraction ("'s") was given the cut of the contraction's one letter.  Characters read
    # per pass at 1x and 16x.
    make = lambda k: [unit * (count * k // 300) for unit, count in runs]  # noqa: E731
    reads = edit_sequence_lines(bpe_stream.get_encoding("o200k_base"), False, make, ops, measure=characters_read)
    assert reads[1] <= reads[0] + 2_000, reads


@pytest.mark.parametrize("runs, ops", [
    # a punctuation piece led by a space whose stretch has a mark between any two other
    # characters (" '" + "\u0301!" * n): no position where a punctuation match must run,
    # but the re-split starts at the piece, a space and a non-mark, which only the
    # punctuation alternative takes
    ([("\u0301 '", 126), ("\u0301!", 383)], [("p", "\u4e2d\u0301/")]),
    ([("\u0301 '", 126), ("\u0301!", 383)], [("p", "/\r\n-"), ("p", "\u4e2d\u0301/")]),  # ("!/": a q at its end)
    # a word whose last lower-word stretches are short ("A\u02b0's" after "\u0301\u4e2d" * n):
    # only the one before the last was looked at
    ([("\u0301\u4e2d", 387)], [("p", "A\u02b0's"), ("p", "''\xe9")]),
    # the same with the short stretches between upper-case letters, which the upper-word
    # cut takes: the long stretch before its first upper-case letter is cut too
    ([("\u4e2d\u0301", 189), ("A\u4e2d\u0301", 363)], [("p", "\u4e2d\u0301\xe1.")]),
    # a [\r\n/] tail starting with newlines right after the punctuation stretch ("<" * n +
    # "\n" * m + "/" * k): no newline after a "/", so the slash-tail cut did not apply
    ([("<", 70), ("\n", 66), ("/", 143)], [("p", "1'ss"), ("t", 5), ("p", "\u02b0!")]),
    # the classification of a last punctuation piece ending in "/" read the piece from its
    # start to its end to find its first newline, which comes right at the start
    ([("\r\n/\n", 188)], [("p", ". "), ("t", 3), ("p", "aA"), ("p", "\U0001F600"), ("t", 1), ("t", 2),
                           ("p", "a/\n\n"), ("t", 2), ("p", "0"), ("p", "\xe9aB"), ("t", 3), ("t", 3), ("p", "A")]),
    # a punctuation piece of one character, then newlines and slashes ("\U0001F600" + "\n" * k
    # + "/" * m): no position where two punctuation characters meet, so the [\r\n/] tail
    # was not known to be the punctuation match's, and its slashes were read on every pass
    # (found by a random search, seed 2)
    ([("a\u0301\U0001F600", 355), ("\n\n\n\n", 122), ("/", 343)], [("p", " a-?")]),
    # an upper-case word with marks ("A\u0301" * n) that took a contraction ("'LL"), cut back
    # into its marks: the truncation popped the contraction's upper stretch and did not find
    # the last mark of the stretch left, so the upper-word cut did not apply on any later
    # pass (found with --alphabet wide, seed 1)
    ([("A\u0301", 300)], [("p", "'LL"), ("t", 4), ("p", "'S")]),
])
def test_a_long_o200k_piece_mixing_classes_is_not_read_again(runs, ops):
    # Found by bench_work_growth.py --sequences counting the characters read (o200k): on
    # every pass the re-split's proxy held the whole piece, or the classification read it.
    # Characters read per pass at 1x and 16x; each case fails on d454e36.
    make = lambda k: [unit * (count * k // 300) for unit, count in runs]  # noqa: E731
    reads = edit_sequence_lines(bpe_stream.get_encoding("o200k_base"), False, make, ops, measure=characters_read)
    assert reads[1] <= reads[0] + 2_000, reads


@pytest.mark.parametrize("runs, ops", [
    ([("/", 300)], [("p", "0")]),
    ([("?/", 300)], [("p", "\t"), ("t", 1), ("p", "\xe90")]),
    ([("\n\n/", 274)], [("p", "\t")]),
    ([("-/", 300)], [("p", "'"), ("p", "-\u4e2d\u0301")]),
])
def test_an_o200k_punctuation_piece_ending_in_a_slash_is_not_read_again(runs, ops):
    # Found by bench_work_growth.py counting the characters read: after every truncation
    # the fast path classified the last piece again, and an o200k punctuation piece ending
    # in "/" holds a newline only if its [\r\n/] tail does, which it found by reading the
    # whole piece (45,000 characters per toggle on "/" * 48,000).  What has been read of
    # the last piece is now remembered.  Characters read per pass at 1x and 16x.
    make = lambda k: [unit * (count * k // 300) for unit, count in runs]  # noqa: E731
    reads = edit_sequence_lines(bpe_stream.get_encoding("o200k_base"), False, make, ops, measure=characters_read)
    assert reads[1] <= reads[0] + 2_000, reads
