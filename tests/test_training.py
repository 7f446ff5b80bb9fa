"""Tests of the trainer (bpe_stream.training), save/load (bpe_stream.encoding.persist) and `bpe-stream train`.

The fast trainer must learn the same merges, in the same order, as the naive
reference in tests/reference_training.py, which recounts every pair after every
merge; trained vocabularies must work with every encoder and round-trip text.
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reference_training  # noqa: E402
from conftest import examples  # noqa: E402
from reference_training import bpe_encode, reference_merges  # noqa: E402

import bpe_stream  # noqa: E402
from bpe_stream import BytePairEncoding  # noqa: E402
from bpe_stream.cli.train import read_documents, register_cli  # noqa: E402
from bpe_stream.encoding.load import load as load_encoding
from bpe_stream.encoding.persist import save_encoding  # noqa: E402
from bpe_stream.pretokenize.patterns import PATTERNS  # noqa: E402
from bpe_stream.training import trainer as training  # noqa: E402
from bpe_stream.training.trainer import (  # noqa: E402
    learn_merges,
    piece_counts,
    tokens_from_merges,
    train,
)

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
CORPUS_NAMES = [
    "taylorswift.txt",
    "tinyshakespeare.txt",
    "markdown_docs.md",
    "code_python_black.py.txt",
    "multilingual_sentences.txt",
    "utf8_demo.txt",
    "blns.txt",
    "emoji_test.txt",
]
CL100K = PATTERNS["cl100k_base"]
O200K = PATTERNS["o200k_base"]
SIMPLE_WORDS = r" ?\w+| ?[^\w\s]+|\s+"


@pytest.fixture(autouse=True)
def _no_table_cache(monkeypatch):
    """Do not fill the on-disk table cache with the many small vocabularies built here."""
    monkeypatch.setenv("BPE_STREAM_CACHE_DIR", "")


def corpus(name: str) -> str:
    path = CORPORA / name
    if not path.exists():
        pytest.skip(f"corpus {name} not available at {CORPORA}")
    return path.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- exact rule

def test_overlapping_runs_are_counted_as_positions_and_merged_left_to_right():
    # "aaaa": three (a, a) positions; merged left to right -> [aa, aa], then (aa, aa).
    assert learn_merges("aaaa", 300, min_frequency=1) == [(97, 97), (256, 256)]
    # "aaa" -> [aa, a]: the remaining pair is (aa, a), never (a, aa).
    assert learn_merges("aaa", 300, min_frequency=1) == [(97, 97), (256, 97)]
    # "aaaaa" -> [aa, aa, a]; (aa, aa) and (aa, a) tie, (256, 97) is smaller -> [aa, aaa]
    assert learn_merges("aaaaa", 300, min_frequency=1) == [(97, 97), (256, 97), (256, 257)]


def test_ties_go_to_the_smallest_pair_and_counts_are_weighted():
    # Every pair occurs once: (a, b) first; then (ab, c) and (c, d) tie and (99, 100) is smaller.
    assert learn_merges("abcd", 300, min_frequency=1) == [(97, 98), (99, 100), (256, 257)]
    # With a pattern, the piece "cd" occurs three times: weight 3 beats "ab" once, although
    # (a, b) would win the tie if distinct pieces were counted once.
    assert learn_merges("ab cd cd cd", 300, pattern=r"\w+| ") == [(99, 100)]
    assert learn_merges("ab cd cd cd", 300, pattern=r"\w+| ", min_frequency=1) == [
        (99, 100),
        (97, 98),
    ]


def test_min_frequency_stops_training():
    # "abab": (a, b) twice; then (ab, ab) only once, below the default 2.
    assert learn_merges("abab", 1000) == [(97, 98)]
    assert learn_merges("abab", 1000, min_frequency=1) == [(97, 98), (256, 256)]
    assert learn_merges("abab", 1000, min_frequency=3) == []


def test_documents_are_separate_sequences():
    # Merges never cross documents: "ab" + "ab" has no (b, a).
    assert learn_merges(["ab", "ab"], 1000, min_frequency=1) == [(97, 98)]
    assert learn_merges("abab", 1000, min_frequency=1) == [(97, 98), (256, 256)]


def test_merges_never_cross_pieces():
    tokens = tokens_from_merges(learn_merges("hi there " * 10, 1000, pattern=CL100K))
    assert all(not (t.endswith(b" ") and len(t.strip()) > 0) for t in tokens[256:])
    assert b"hi there" not in tokens


text_alphabets = st.sampled_from(["ab", "abc", "aab ", "a b\n", "xy1 é.", "aaaa", "ab \n\t"])


@st.composite
def small_corpora(draw):
    alphabet = draw(text_alphabets)
    doc = st.text(alphabet=alphabet, max_size=60)
    return draw(st.lists(doc, min_size=1, max_size=4))


@settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    docs=small_corpora(),
    extra=st.integers(0, 60),
    min_frequency=st.integers(1, 3),
    pattern=st.sampled_from([None, CL100K, O200K, SIMPLE_WORDS]),
)
def test_same_merges_as_reference_on_random_corpora(docs, extra, min_frequency, pattern):
    vocab_size = 256 + extra
    fast = learn_merges(docs, vocab_size, pattern=pattern, min_frequency=min_frequency)
    naive = reference_merges(docs, vocab_size, pattern=pattern, min_frequency=min_frequency)
    assert fast == naive


@pytest.mark.parametrize("name", CORPUS_NAMES)
@pytest.mark.parametrize("pattern", [None, CL100K])
def test_same_merges_as_reference_on_real_corpora(name, pattern):
    text = corpus(name)
    rng = random.Random(name)
    start = rng.randrange(max(1, len(text) - 3000))
    docs = [text[start : start + 1500], text[start + 1500 : start + 3000]]
    fast = learn_merges(docs, 400, pattern=pattern, min_frequency=2)
    naive = reference_merges(docs, 400, pattern=pattern, min_frequency=2)
    assert fast == naive
    assert len(fast) > 20


def test_pattern_names_resolve_to_the_pattern_strings():
    text = corpus("taylorswift.txt")[:4000]
    assert learn_merges(text, 400, pattern="o200k_base") == learn_merges(text, 400, pattern=O200K)
    assert learn_merges(text, 400, pattern="cl100k_base") == reference_merges(
        text, 400, pattern=CL100K
    )


@pytest.mark.parametrize("member", ["gpt2", "llama3", "qwen2", "qwen3.5", "tekken", "deepseek_v3", "starcoder"])
def test_every_family_member_trains_on_its_own_pieces(member):
    """Training with a member equals training on the pieces it splits the (normalized)
    text into, each a document: chains and Qwen's NFC included."""
    import unicodedata

    from bpe_stream.pretokenize.family import get_pretokenizer
    from bpe_stream.pretokenize.splitter import PreSplitter

    pre = get_pretokenizer(member)
    text = corpus("multilingual_sentences.txt")[:2500] + "e\u0301t\u00e9 1234567 " + corpus("utf8_demo.txt")[:1500]
    docs = [text[:2000], text[2000:]]
    split = PreSplitter(pre).findall
    norm = (lambda t: unicodedata.normalize(pre.normalizer, t)) if pre.normalizer else (lambda t: t)
    pieces = [p for d in docs for p in split(norm(d))]
    fast = learn_merges(docs, 400, pattern=member, min_frequency=2)
    assert fast == reference_merges(pieces, 400, pattern=None, min_frequency=2)
    assert len(fast) > 20
    enc = bpe_stream.train(docs, 400, pattern=member)
    assert enc.pretokenizer is pre and enc.decode(enc.encode(text)) == norm(text)


# --------------------------------------------------------------------------- corner rule

def test_eligibility_check_on_hand_made_vocabularies():
    ranks = {bytes([i]): i for i in range(256)}
    ranks[b"bc"] = 256
    ranks[b"ab"] = 257
    # BPE("abc") = [a, bc] (bc has the lower rank), so (ab, c) is not eligible.
    assert training._encodes_to_pair(b"a", b"bc", ranks)
    assert not training._encodes_to_pair(b"ab", b"c", ranks)
    # Bytes that are already a token are never merged again.
    ranks[b"abc"] = 258
    assert not training._encodes_to_pair(b"a", b"bc", ranks)
    assert not training._encodes_to_pair(b"ab", b"c", ranks)
    assert training._encodes_to_pair(b"abc", b"a", ranks)


@settings(max_examples=examples(60), deadline=None)
@given(docs=small_corpora(), seed=st.integers(0, 2**32 - 1))
def test_eligibility_check_agrees_with_original_bpe(docs, seed):
    tokens = tokens_from_merges(learn_merges(docs, 300, min_frequency=1))
    ranks = {t: i for i, t in enumerate(tokens)}
    rng = random.Random(seed)
    merged = range(256, len(tokens)) if len(tokens) > 256 else range(256)
    for _ in range(40):
        left = tokens[rng.choice([rng.randrange(len(tokens)), rng.choice(merged)])]
        right = tokens[rng.choice([rng.randrange(len(tokens)), ord("a"), ord("b")])]
        expected = bpe_encode(left + right, ranks) == [left, right]
        assert training._encodes_to_pair(left, right, ranks) == expected


@settings(max_examples=examples(80), deadline=None)
@given(docs=small_corpora(), seed=st.integers(0, 2**32 - 1), run=st.integers(0, 300))
def test_heap_eligibility_check_agrees_with_the_scan(docs, seed, run):
    # the heap check (long pairs) and the scan (short ones) are two loops of one rule
    tokens = tokens_from_merges(learn_merges(docs + ["y" * run], 330, min_frequency=1))
    ranks = {t: i for i, t in enumerate(tokens)}
    rng = random.Random(seed)
    for _ in range(40):
        left, right = tokens[rng.randrange(len(tokens))], tokens[rng.randrange(len(tokens))]
        data = left + right
        if data in ranks:
            continue
        expected = bpe_encode(data, ranks) == [left, right]
        assert training._encodes_to_pair_heap(data, len(left), ranks) == expected


def test_long_runs_train_like_the_reference_and_check_long_pairs_with_the_heap(monkeypatch):
    scanned: list[int] = []
    original = training._encodes_to_pair

    def spy(left, right, ranks):
        if len(left) + len(right) <= training._SHORT_PAIR:
            scanned.append(len(left) + len(right))
        return original(left, right, ranks)

    monkeypatch.setattr(training, "_encodes_to_pair", spy)
    docs = ["y" * 3000 + " yy " + "xy" * 700, "y" * 1025]
    for pattern in (None, CL100K):
        assert learn_merges(docs, 300, pattern=pattern) == reference_merges(docs, 300, pattern=pattern)
    assert scanned and max(scanned) <= training._SHORT_PAIR


@pytest.mark.slow
def test_a_run_of_200000_letters_trains_to_its_doubling_merges():
    # quadratic before (the eligibility scan on tokens of 2^16 bytes); the merges of a
    # run of 2^k * 3125 letters are the doublings, then what the odd counts leave
    merges = learn_merges("y" * 200_000, 300, pattern="cl100k_base")
    tokens = tokens_from_merges(merges)
    assert [tokens[256 + i] for i in range(7)] == [b"y" * 2 ** (i + 1) for i in range(7)]
    assert merges == learn_merges(["y" * 200_000], 300)


def test_memory_holds_flat_arrays_not_lists_of_ints(monkeypatch):
    # the linked array is typed arrays (4 or 8 bytes a position), the pair positions too
    seen = {}
    original = training._find_all

    def spy(layout, pair):
        import inspect

        frame = inspect.currentframe().f_back
        seen.update({k: type(frame.f_locals[k]) for k in ("token", "next_pos", "prev_pos", "pair_positions")})
        seen["positions"] = {type(v) for v in frame.f_locals["pair_positions"].values()}
        return original(layout, pair)

    monkeypatch.setattr(training, "_find_all", spy)
    learn_merges("the cat sat on the mat " * 50, 280)
    from array import array

    assert seen["token"] is seen["next_pos"] is seen["prev_pos"] is array
    assert seen["positions"] <= {array}


def test_progress_reports_every_phase():
    stream = io.StringIO()
    learn_merges(["one two three", "two three"] * 20, 270, pattern="cl100k_base",
                 progress=training.Progress(stream, live=False))
    lines = stream.getvalue().splitlines()
    phases = [line for line in lines if line.endswith("...")]
    assert [p[:-3].split(" ")[0] for p in phases] == ["reading", "laying", "counting", "merging"]
    assert any(line.startswith("merging [") and "/14 merges" in line for line in lines)
    stream = io.StringIO()
    learn_merges("abc" * 100, 260, progress=training.Progress(stream, live=False))
    assert [line[:-3].split(" ")[0] for line in stream.getvalue().splitlines() if line.endswith("...")] == [
        "reading", "counting", "merging"]


def test_an_ineligible_pair_is_skipped_forever_and_the_next_best_is_taken(monkeypatch):
    # Pretend (a, a) is ineligible in both trainers; they must still agree.
    def forbid_aa_fast(left, right, ranks, original=training._encodes_to_pair):
        return (left, right) != (b"a", b"a") and original(left, right, ranks)

    def forbid_aa_naive(data, ranks, original=reference_training.bpe_encode):
        return [] if data == b"aa" else original(data, ranks)

    docs = ["aaaa baaab aab", "aaaaaa ba"]
    assert learn_merges(docs, 300, min_frequency=1)[0] == (97, 97)  # before patching
    monkeypatch.setattr(training, "_encodes_to_pair", forbid_aa_fast)
    monkeypatch.setattr(reference_training, "bpe_encode", forbid_aa_naive)
    fast = learn_merges(docs, 300, min_frequency=1)
    assert fast == reference_merges(docs, 300, min_frequency=1)
    assert (97, 97) not in fast
    assert len(fast) > 5


@settings(max_examples=examples(40), deadline=None)
@given(docs=small_corpora(), pattern=st.sampled_from([None, CL100K]))
def test_trained_vocabulary_passes_the_construction_check(docs, pattern):
    tokens = tokens_from_merges(learn_merges(docs, 330, pattern=pattern, min_frequency=1))
    ranks = {t: i for i, t in enumerate(tokens)}
    assert len(ranks) == len(tokens)  # no duplicate bytes
    for rank, token in enumerate(tokens):  # every token encodes to itself
        assert bpe_encode(token, ranks) == [token]
    BytePairEncoding.from_tokens(tokens)


# --------------------------------------------------------------------------- Encoding

@pytest.fixture(scope="module")
def trained_encodings():
    text = corpus("taylorswift.txt")
    multilingual = corpus("multilingual_sentences.txt")[:60000]
    docs = [text, multilingual]
    return {
        "raw": train(docs, 2000, min_frequency=2),
        "cl100k": train(docs, 2000, pattern="cl100k_base", special_tokens=["<|endoftext|>"]),
        "o200k": train(docs, 1500, pattern="o200k_base"),
    }


@pytest.mark.parametrize("kind", ["raw", "cl100k", "o200k"])
def test_trained_encodings_work_with_every_encoder_and_round_trip(trained_encodings, kind):
    enc = trained_encodings[kind]
    bpe = enc.bpe
    ranks = {t: i for i, t in enumerate(bpe.tokens)}
    sample = corpus("taylorswift.txt")[5000:5400].encode("utf-8")
    expected = bpe_encode(sample, ranks)
    for method in bpe_stream.METHODS:
        ids = bpe.encode(sample, method=method)
        assert bpe.decode(ids) == sample, method
        if method not in ("greedy", "minimal"):
            assert [bpe.tokens[i] for i in ids] == expected, method
    for name in CORPUS_NAMES:
        text = corpus(name)[:20000]
        assert enc.decode(enc.encode_ordinary(text)) == text, name
        assert enc.count(text) == len(enc.encode_ordinary(text)), name


@pytest.mark.parametrize("kind", ["raw", "cl100k", "o200k"])
def test_trained_encodings_encode_like_tiktoken(trained_encodings, kind):
    tiktoken = pytest.importorskip("tiktoken")
    enc = trained_encodings[kind]
    oracle = tiktoken.Encoding(
        "oracle",
        pat_str=enc.pat_str if enc.pat_str is not None else r"[\s\S]+",
        mergeable_ranks=enc._mergeable_ranks,
        special_tokens=enc.special_tokens,
    )
    for name in ("taylorswift.txt", "code_python_black.py.txt", "multilingual_sentences.txt"):
        text = corpus(name)[-8000:]
        assert enc.encode_ordinary(text) == oracle.encode_ordinary(text), name


def test_special_tokens_get_the_ids_after_the_merges(trained_encodings):
    enc = trained_encodings["cl100k"]
    assert len(enc.bpe) == 2000
    assert enc.special_tokens == {"<|endoftext|>": 2000}
    assert enc.encode("hi<|endoftext|>", allowed_special="all")[-1] == 2000


def test_train_validates_its_arguments():
    with pytest.raises(ValueError, match="at least 256"):
        train("abc", 255)
    with pytest.raises(ValueError, match="unknown pattern name"):
        train("abc", 300, pattern="gpt9_base")
    with pytest.raises(ValueError, match="invalid"):
        train("abc", 300, pattern="(unclosed")
    with pytest.raises(ValueError, match="distinct"):
        train("abc", 300, special_tokens=["<s>", "<s>"])
    with pytest.raises(TypeError):
        train(b"abc", 300)
    with pytest.raises(TypeError):
        train(["abc", 7], 300)


def test_iterable_is_consumed_once_and_equals_the_list():
    text = corpus("tinyshakespeare.txt")[:30000]
    blocks = [text[i : i + 1000] for i in range(0, len(text), 1000)]
    consumed = []

    def generate():
        for block in blocks:
            consumed.append(block)
            yield block

    merges = learn_merges(generate(), 600, pattern=CL100K)
    assert consumed == blocks
    assert merges == learn_merges(blocks, 600, pattern=CL100K)
    # Raw mode: each item is its own sequence.
    assert learn_merges(iter(blocks[:5]), 400) == learn_merges(blocks[:5], 400)


def test_progress_bar_goes_to_the_given_stream():
    stream = io.StringIO()
    learn_merges("abcabc" * 50, 260, progress=stream)
    assert "4/4 merges" in stream.getvalue()
    stream = io.StringIO()
    learn_merges("abcabc" * 50, 260)
    assert stream.getvalue() == ""


# --------------------------------------------------------------------------- determinism

def test_same_input_gives_the_same_vocabulary_byte_for_byte(tmp_path):
    text = corpus("markdown_docs.md")[:50000]
    paths = []
    for i in range(2):
        enc = train(text, 800, pattern="cl100k_base", special_tokens=["<|a|>", "<|b|>"])
        paths.append(tmp_path / f"v{i}.bpe")
        save_encoding(enc, paths[-1])
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_same_vocabulary_under_different_hash_seeds(tmp_path):
    script = (
        "import sys, bpe_stream.training.trainer as t; "
        "text = open(sys.argv[1], encoding='utf-8').read()[:40000]; "
        "print(t.learn_merges(text.split('\\n'), 700, pattern='o200k_base'))"
    )
    path = CORPORA / "multilingual_sentences.txt"
    if not path.exists():
        pytest.skip("corpus missing")
    outputs = set()
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        src = str(Path(bpe_stream.__file__).resolve().parents[1])
        env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
        out = subprocess.run(
            [sys.executable, "-c", script, str(path)], env=env, capture_output=True, text=True,
            check=True,
        )
        outputs.add(out.stdout)
    assert len(outputs) == 1


# --------------------------------------------------------------------------- save / load

def test_save_load_round_trips_exactly(tmp_path, trained_encodings):
    for kind, enc in trained_encodings.items():
        path = tmp_path / f"{kind}.bpe"
        save_encoding(enc, path)
        back = load_encoding(path)
        assert back.name == enc.name
        assert back.pat_str == enc.pat_str
        assert back.special_tokens == enc.special_tokens
        assert back._mergeable_ranks == enc._mergeable_ranks
        save_encoding(back, tmp_path / "again.bpe")
        assert (tmp_path / "again.bpe").read_bytes() == path.read_bytes()
        if hasattr(enc, "save"):
            enc.save(tmp_path / "method.bpe")
            assert (tmp_path / "method.bpe").read_bytes() == path.read_bytes()


def test_saved_ranks_build_a_tiktoken_encoding_that_encodes_identically(tmp_path, trained_encodings):
    tiktoken_load = pytest.importorskip("tiktoken.load")
    import tiktoken

    enc = trained_encodings["cl100k"]
    path = tmp_path / "v.bpe"
    save_encoding(enc, path)
    lines = path.read_text(encoding="ascii").splitlines(keepends=True)
    plain = tmp_path / "v.tiktoken"
    plain.write_text("".join(line for line in lines if not line.startswith("#")))
    ranks = tiktoken_load.load_tiktoken_bpe(str(plain))
    oracle = tiktoken.Encoding("o", pat_str=enc.pat_str, mergeable_ranks=ranks,
                               special_tokens=enc.special_tokens)
    text = corpus("blns.txt")
    assert oracle.encode(text, disallowed_special=()) == enc.encode(text, disallowed_special=())


def test_special_characters_in_pattern_and_specials_round_trip(tmp_path):
    pattern = r" ?\p{L}+|[\r\n]+|\s|#|é+|\S"
    enc = train(["héé wörld\n#x"] * 3, 270, pattern=pattern,
                special_tokens=["<|é|>", '"quoted"\n', "#hash"], name="naïve name")
    path = tmp_path / "x.bpe"
    save_encoding(enc, path)
    path.read_bytes().decode("ascii")  # the file is pure ASCII
    back = load_encoding(path)
    assert (back.name, back.pat_str, back.special_tokens) == (enc.name, pattern, enc.special_tokens)


def test_load_reads_a_plain_tiktoken_file(tmp_path, trained_encodings):
    enc = trained_encodings["raw"]
    path = tmp_path / "plain.tiktoken"
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for r, t in enumerate(enc.bpe.tokens)))
    # a .tiktoken file holds ranks only: the pre-split is named (here: none, the whole text
    # is one piece), and without one the file is refused naming the members
    with pytest.raises(ValueError, match="give pattern= a pre-tokenizer member.*cl100k_base"):
        load_encoding(path)
    back = load_encoding(path, pattern="")
    assert back.pat_str is None and back.special_tokens == {}
    assert back._mergeable_ranks == enc._mergeable_ranks


@pytest.mark.parametrize(
    "header",
    [
        "#something-else 1\n",
        "#bpe-stream-encoding 99\n",
        '#bpe-stream-encoding 1\n#name "x"\n#special_tokens {}\n',
        '#bpe-stream-encoding 1\n#name "x"\n#pat_str null\n#special_tokens [1]\n',
        '#bpe-stream-encoding 1\n#name "x"\n#pat_str {bad json\n#special_tokens {}\n',
    ],
)
def test_load_rejects_malformed_headers(tmp_path, header):
    path = tmp_path / "bad.bpe"
    path.write_text(header + "".join(f"{base64.b64encode(bytes([i])).decode()} {i}\n" for i in range(256)))
    with pytest.raises(ValueError):
        load_encoding(path)


# --------------------------------------------------------------------------- CLI

def run_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="bpe-stream")
    register_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(list(argv))
    return args.func(args)


def test_cli_trains_like_the_api(tmp_path, capsys):
    text = corpus("taylorswift.txt")[:50000]
    src = tmp_path / "in.txt"
    src.write_bytes(text.encode("utf-8"))
    out = tmp_path / "out.bpe"
    code = run_cli("train", str(src), str(src), "--vocab-size", "700", "--pattern", "cl100k_base",
                   "--special-token", "<|end|>", "-o", str(out))
    assert code == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "[" not in captured.err  # no progress bar when not a TTY
    expected = train([text, text], 700, pattern="cl100k_base", special_tokens=["<|end|>"], name="out")
    save_encoding(expected, tmp_path / "expected.bpe")
    assert out.read_bytes() == (tmp_path / "expected.bpe").read_bytes()


def test_cli_reports_missing_and_undecodable_files_with_exit_code_2(tmp_path, capsys):
    out = tmp_path / "o.bpe"
    assert run_cli("train", str(tmp_path / "nope.txt"), "--vocab-size", "300", "-o", str(out)) == 2
    assert "nope.txt" in capsys.readouterr().err
    bad = tmp_path / "bad.txt"
    bad.write_bytes("héllo ".encode() * 1000 + b"\xff tail")
    for extra in ([], ["--pattern", "cl100k_base"]):
        assert run_cli("train", str(bad), "--vocab-size", "300", *extra, "-o", str(out)) == 2
        err = capsys.readouterr().err
        assert "bad.txt" in err and "UTF-8" in err and "byte offset 7000" in err
    assert not out.exists()


@settings(max_examples=examples(80), deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from(list("ab \n\r\t1.é!'") + ["\u00a0", "\u2028"]), max_size=80),
    block=st.integers(1, 12),
    name=st.sampled_from(["cl100k_base", "o200k_base"]),
)
def test_cli_blocks_pre_split_like_the_whole_file(tmp_path_factory, text, block, name):
    path = tmp_path_factory.mktemp("blocks") / "f.txt"
    path.write_bytes(text.encode("utf-8"))
    blocks = list(read_documents([str(path)], streamable=True, block_bytes=block))
    assert "".join(blocks) == text
    assert piece_counts(blocks, PATTERNS[name]) == piece_counts(text, PATTERNS[name])


def test_cli_blocks_on_real_corpora(tmp_path):
    for name in ("code_python_black.py.txt", "multilingual_sentences.txt", "blns.txt"):
        path = CORPORA / name
        if not path.exists():
            pytest.skip("corpus missing")
        blocks = list(read_documents([str(path)], streamable=True, block_bytes=4096))
        assert len(blocks) > 3
        text = path.read_text(encoding="utf-8")
        assert piece_counts(blocks, CL100K) == piece_counts(text, CL100K)


def test_cli_draws_the_progress_bar_only_on_a_terminal(tmp_path, monkeypatch):
    src = tmp_path / "in.txt"
    src.write_text("abcabd abce " * 50, encoding="utf-8")

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert run_cli("train", str(src), "--vocab-size", "260", "-o", str(tmp_path / "o.bpe")) == 0
    assert "4/4 merges" in terminal.getvalue()


@pytest.mark.parametrize("kind", ["raw", "cl100k", "o200k"])
def test_trained_encodings_work_with_the_streaming_tools(trained_encodings, kind):
    from bpe_stream.chunk.chunker import Chunker
    from bpe_stream.stream.appendable import AppendableEncoder
    from bpe_stream.stream.interval import IntervalCounter

    enc = trained_encodings[kind]
    text = corpus("multilingual_sentences.txt")[70000:71500] + corpus("blns.txt")[:1500]
    appender = AppendableEncoder(enc)
    for ch in text:
        appender.append(ch)
    assert appender.token_count == enc.count(text)
    intervals = IntervalCounter(enc, text)
    rng = random.Random(kind)
    for _ in range(30):
        start = rng.randrange(len(text))
        end = rng.randrange(start, len(text) + 1)
        assert intervals.count(start, end) == enc.count(text[start:end])
    chunks = Chunker(enc, 40).chunks(text)
    assert "".join(c.text for c in chunks) == text
    assert all(c.token_count == enc.count(c.text) <= 40 for c in chunks)
