"""Whole-piece tokens longer than the streaming objects' long-piece limit (64 characters).

tiktoken (and HF with ``ignore_merges``) emits a token for a pre-split piece equal to it
even where BPE merges cannot build it.  The streaming objects count pieces longer than 64
characters with plain BPE records (appendable records, interval indexes, prepend states);
each must still give 1 for such a piece, and the cuts must see the count drop to 1 at
the piece's end.  Vocabularies: the 256 bytes, ``ab`` and
unreachable runs ``x * L``, ``" " * L``, ``"ab" * (L // 2)`` (and a few more), compared with
tiktoken built from the same ranks, for L around the limit.
"""

from __future__ import annotations

import functools

import pytest
from conftest import full_tier_only

tiktoken = pytest.importorskip("tiktoken")

from bpe_stream import (  # noqa: E402
    AppendableEncoder,
    Chunker,
    Encoding,
    IntervalCounter,
    PrependableEncoder,
)
from bpe_stream.pretokenize.family import MEMBERS  # noqa: E402
from bpe_stream.pretokenize.patterns import PATTERNS  # noqa: E402
from bpe_stream.text.cuts import text_split_at_count, text_split_at_start  # noqa: E402

LENGTHS = [63, 64, 65, 70, 130]
PATTERN_NAMES = ["cl100k_base", "o200k_base", "llama3"]


def _ranks(L: int) -> dict[bytes, int]:
    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"ab"] = 256
    for extra in (b"x" * L, b" " * L, b"ab" * (L // 2), b"\n" * L, b"!" * L, b" " + b"x" * (L - 1)):
        ranks.setdefault(extra, len(ranks))  # each unreachable: no merge builds it
    return ranks


@functools.lru_cache(maxsize=None)
def _pair(L: int, name: str):
    """(bpe_stream Encoding, tiktoken Encoding) over the same ranks and pattern."""
    ranks = _ranks(L)
    if name == "llama3":
        member = MEMBERS["llama3"]
        base = Encoding("t", pat_str=PATTERNS["cl100k_base"], mergeable_ranks=ranks, special_tokens={})
        enc = Encoding("t+llama3", pretokenizer=member, bpe=base.bpe)
        pat = member.pattern
    else:
        enc = Encoding("t", pat_str=PATTERNS[name], mergeable_ranks=ranks, special_tokens={})
        pat = PATTERNS[name]
    ref = tiktoken.Encoding("t-" + name, pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    return enc, ref


def _tier(L: int) -> None:
    """The fast tier takes L = 65 (the first length past the limit), the full tier all."""
    if L != 65:
        full_tier_only()


def _texts(L: int) -> list[str]:
    h = L // 2
    return [
        "x" * L, "q " + "x" * L, "x" * L + " q", "ab" * h, " " * L + "z", "\n" + " " * L,
        "x" * (2 * L), "\n" + " " * L + "z", "!" * L + "x", " " + "x" * (L - 1) + "!",
        "ab" * h + "!" + "x" * L + " " * L + "q" + "\n" * L,
    ]


def _check_one_end(enc, ref, L: int, text: str, make, at_end: bool) -> None:
    """A stream made by ``make(enc)`` that grows ``text`` at its end (``append``) or at its
    start (``prepend``): a character at a time, then in blocks of 3 and of L, each
    truncated around the long piece and grown back, every count checked against ``ref``."""

    def held(n):  # the text a stream holds once n characters are in
        return text[:n] if at_end else text[len(text) - n :]

    def rest(n):  # what the stream that holds n characters is missing
        return text[n:] if at_end else text[: len(text) - n]

    def grow(stream, part):
        (stream.append if at_end else stream.prepend)(part)

    one = make(enc)
    for i in range(1, len(text) + 1):
        grow(one, text[i - 1] if at_end else text[len(text) - i])
        assert one.token_count == len(ref.encode_ordinary(held(i))), (held(i),)
    assert one.tokens() == ref.encode_ordinary(text)
    streams = [one]
    for step in (3, L):
        blocks = make(enc)
        # blocks counted from the end the stream grows at
        parts = ([text[i : i + step] for i in range(0, len(text), step)] if at_end
                 else [text[max(0, i - step) : i] for i in range(len(text), 0, -step)])
        for part in parts:
            grow(blocks, part)
        assert blocks.token_count == len(ref.encode_ordinary(text))
        streams.append(blocks)
    for stream in streams:
        for n in (len(text) - 1, L, L - 1, 2):
            if 0 <= n <= len(text):
                cut = stream.copy()
                cut.truncate(n)
                assert cut.token_count == len(ref.encode_ordinary(held(n))), (text, n)
                grow(cut, rest(n))
                assert cut.token_count == len(ref.encode_ordinary(text)), (text, n)


@pytest.mark.parametrize("name", PATTERN_NAMES)
@pytest.mark.parametrize("L", LENGTHS)
@pytest.mark.parametrize("make, at_end", [(AppendableEncoder, True), (PrependableEncoder, False)],
                         ids=["appendable", "prependable"])
def test_one_end_streams(make, at_end, L, name):
    _tier(L)
    enc, ref = _pair(L, name)
    for text in _texts(L):
        _check_one_end(enc, ref, L, text, make, at_end)


@pytest.mark.parametrize("name", PATTERN_NAMES)
@pytest.mark.parametrize("L", LENGTHS)
def test_interval_counter(L, name):
    _tier(L)
    enc, ref = _pair(L, name)
    for text in _texts(L):
        ic = IntervalCounter(enc, text)
        n = len(text)
        # ranges ending inside or at the long pieces, from starts around them
        starts = sorted({0, 1, 2, n // 2, max(0, n - L), max(0, n - L - 1)})
        for i in starts:
            for j in range(i, n + 1):
                assert ic.count(i, j) == len(ref.encode_ordinary(text[i:j])), (text, i, j)
    if L == 65:  # every sub-range of a short text
        text = "q " + "x" * L + " q"
        ic = IntervalCounter(enc, text)
        for i in range(len(text) + 1):
            for j in range(i, len(text) + 1):
                assert ic.count(i, j) == len(ref.encode_ordinary(text[i:j])), (text, i, j)


@pytest.mark.parametrize("name", PATTERN_NAMES)
@pytest.mark.parametrize("L", [64, 65, 130])
def test_chunk_counts(L, name):
    """Each chunk's count is tiktoken's and within the budget; streamed chunks are the same."""
    _tier(L if name == "cl100k_base" else 0)
    enc, ref = _pair(L, name)
    for text in _texts(L):
        for max_tokens in (1, 2, 5):
            chunker = Chunker(enc, max_tokens=max_tokens)
            chunks = chunker(text)
            assert "".join(c.text for c in chunks) == text
            for c in chunks:
                assert c.token_count == len(ref.encode_ordinary(c.text)) <= max_tokens
            streamed = chunker.chunk_stream(text[i : i + 7] for i in range(0, len(text), 7))
            assert [(c.start, c.end, c.token_count) for c in streamed] == [
                (c.start, c.end, c.token_count) for c in chunks]


@pytest.mark.parametrize("name", PATTERN_NAMES)
@pytest.mark.parametrize("L", [10, 64, 65, 130])
def test_cuts(L, name):
    """The largest prefix and the smallest suffix within a budget, over every prefix and suffix
    count (a whole-piece token makes them non-monotonic: "x" * (L - 1) is L - 1 tokens, "x" * L one)."""
    _tier(L if name == "cl100k_base" else 0)
    enc, ref = _pair(L, name)
    for text in _texts(L):
        n = len(text)
        prefix = [len(ref.encode_ordinary(text[:j])) for j in range(n + 1)]
        suffix = [len(ref.encode_ordinary(text[i:])) for i in range(n + 1)]
        for budget in (0, 1, 2, 3, 5, 40):
            j = max(j for j in range(n + 1) if prefix[j] <= budget)
            assert text_split_at_count(enc, text, budget) == (j, prefix[j]), (text, budget)
            i = min(i for i in range(n + 1) if suffix[i] <= budget)
            assert text_split_at_start(enc, text, budget) == i, (text, budget)


def test_no_split_whole_text():
    """Without a pre-split the whole text is the one piece, long or short."""
    ranks = _ranks(70)
    ranks[b"xyz"] = len(ranks)
    enc = Encoding("t", pat_str=None, mergeable_ranks=ranks, special_tokens={})
    for text in ("x" * 70, "xyz"):
        ae = AppendableEncoder(enc)
        for ch in text:
            ae.append(ch)
        pe = PrependableEncoder(enc)
        for ch in reversed(text):
            pe.prepend(ch)
        assert (ae.token_count, pe.token_count, IntervalCounter(enc, "a" + text).count(1, len(text) + 1)) == (1, 1, 1)
        assert len(ae.tokens()) == 1
        assert text_split_at_count(enc, text, 1) == (len(text), 1)
        assert text_split_at_start(enc, text, 1) == 0



@functools.lru_cache(maxsize=None)
def _ab_pair(L: int, name: str, compiled: bool = True):
    """The 256 bytes, ``ab`` and the unreachable ``"ab" * (L // 2)``: every prefix of a run
    of ``ab`` is one letter piece, counted by the chunker's letter-run shortcuts (in pure
    Python unless ``compiled``)."""
    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"ab"] = 256
    ranks[b"ab" * (L // 2)] = 257
    base = Encoding("t", pat_str=PATTERNS["cl100k_base" if name == "llama3" else name], mergeable_ranks=ranks,
                    special_tokens={})
    bpe = base.bpe if compiled or not base.bpe.native else base.bpe._python_twin()
    if name == "llama3":
        enc = Encoding("t-llama3", pretokenizer=MEMBERS["llama3"], bpe=bpe)
    else:
        enc = Encoding("t-" + name, pat_str=PATTERNS[name], bpe=bpe, special_tokens={})
    pat = enc.pat_str
    return enc, tiktoken.Encoding("ab-" + name, pat_str=pat, mergeable_ranks=ranks, special_tokens={})


@pytest.mark.parametrize("name", PATTERN_NAMES)
@pytest.mark.parametrize("L", [4, 10, 65])
def test_chunker_whole_letter_run(L, name):
    """Chunks over runs of ``ab`` equal to (or around) the whole-piece token, from the
    compiled cuts (chunk_cuts.c), the Python path and the pure-Python core: each count is
    tiktoken's, streamed chunks are the same, the chunks join back (overlap 0) or each
    starts at the earliest position whose text up to the previous chunk's end fits the
    overlap, and each chunk is the longest prefix of the rest that fits (overlap 0; up to
    the byte horizon: no token holds more than ``max(2, L)`` bytes here) and one more
    character does not fit."""
    import bpe_stream.chunk.chunker as chunker_module

    w = "ab" * (L // 2)
    texts = [w, w + "a", " " + w + "b", w + " " + w, "x " + w + "! " + w + "a", w[:-1] + "," + w + "\n" + w,
             "ab " + w + w + " " + w[2:] + "." + " " + w, w + "  " + w[:-2] + "'" + w]
    ref = _ab_pair(L, name)[1]
    compiled_cuts = chunker_module._exact_cuts
    variants = [(True, compiled_cuts), (True, None), (False, None)]
    memo = {}  # tiktoken's counts, shared by the variants

    def count(text, i, j):
        key = (text, i, j)
        if key not in memo:
            memo[key] = len(ref.encode_ordinary(text[i:j]))
        return memo[key]

    for compiled, cuts in variants:
        enc = _ab_pair(L, name, compiled)[0]
        chunker_module._exact_cuts = cuts
        try:
            for text in texts:
                n = len(text)
                for max_tokens in (1, 2, 3, 5, 16, 40):
                    horizon = max_tokens * max(2, L)
                    # (40 with an overlap: suffixes of letter runs longer than 64 characters)
                    for overlap in (0, 1) if 1 < max_tokens < 40 else (0,) if max_tokens == 1 else (1, 20):
                        chunker = Chunker(enc, max_tokens, overlap=overlap, boundaries="exact")
                        chunks = chunker(text)
                        assert chunks[0].start == 0 and chunks[-1].end == n
                        if cuts is not None:  # streamed (once: the fast tier's budget)
                            streamed = chunker.chunk_stream(text[i : i + 7] for i in range(0, n, 7))
                            assert [(c.start, c.end, c.token_count) for c in streamed] == [
                                (c.start, c.end, c.token_count) for c in chunks]
                        for c in chunks:
                            assert c.text == text[c.start : c.end]
                            assert c.token_count == count(text, c.start, c.end) <= max_tokens, (text, c)
                        if overlap == 0:
                            assert "".join(c.text for c in chunks) == text
                        for prev, nxt in zip(chunks, chunks[1:]):
                            # the overlap: the earliest start after the previous one that fits
                            assert prev.start < nxt.start <= prev.end < nxt.end, (text, prev, nxt)
                            assert count(text, nxt.start, prev.end) <= overlap, (text, prev, nxt)
                            for i in range(prev.start + 1, nxt.start):
                                assert count(text, i, prev.end) > overlap, (text, prev, nxt, i)
                        for c in chunks[:-1]:
                            assert count(text, c.start, c.end + 1) > max_tokens, (text, c)
                            if overlap == 0:  # no longer prefix of the rest fits
                                for j in range(c.end + 1, min(n, c.start + horizon) + 1):
                                    assert count(text, c.start, j) > max_tokens, (text, c, j)
        finally:
            chunker_module._exact_cuts = compiled_cuts


@pytest.mark.parametrize("name", PATTERN_NAMES)
@pytest.mark.parametrize("L", [10, 65, 300])
def test_chunker_whole_runs_with_overlap(L, name):
    """Exact chunks over the runs of ``_texts`` (one repeated character, space + letters),
    with overlaps: counts are tiktoken's, each chunk is the longest prefix that fits (up to
    the byte horizon), and each overlap start is the earliest start whose text up to the
    previous end fits, unless no chunk from there ends past that end (then the overlap is
    dropped).  L = 300: head pieces longer than 256 characters equal to a whole token."""
    if L != 65:
        full_tier_only()
    enc, ref = _pair(L, name)
    memo = {}

    def count(text, i, j):
        key = (text, i, j)
        if key not in memo:
            memo[key] = len(ref.encode_ordinary(text[i:j]))
        return memo[key]

    for text in _texts(L) + ["q" + "x" * (L + 30), "x" * (L + 40) + " q"]:
        n = len(text)
        for max_tokens in (1, 2, 3, 5, 16, 40):
            for overlap in sorted({0, 1, max_tokens // 2} - {max_tokens}):
                chunks = Chunker(enc, max_tokens, overlap=overlap, boundaries="exact")(text)
                assert chunks[0].start == 0 and chunks[-1].end == n
                for c in chunks:
                    assert c.token_count == count(text, c.start, c.end) <= max_tokens, (text, c)
                for prev, nxt in zip(chunks, chunks[1:]):
                    if overlap == 0:
                        assert nxt.start == prev.end
                        for j in range(prev.end + 1, min(n, prev.start + max_tokens * L) + 1):
                            assert count(text, prev.start, j) > max_tokens, (text, prev, j)
                    else:
                        i0 = next(i for i in range(prev.start + 1, prev.end + 1) if count(text, i, prev.end) <= overlap)
                        if nxt.start != i0:
                            assert nxt.start == prev.end, (text, prev, nxt, i0)
                            for j in range(prev.end + 1, n + 1):
                                assert count(text, i0, j) > max_tokens, (text, prev, nxt, i0, j)
