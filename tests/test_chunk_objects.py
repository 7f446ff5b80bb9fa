"""The compiled Chunk objects (``_native/chunk_objects.c`` ``make_chunks``) against the
chunks the Python path builds (``chunker._plain_chunk``, the dataclass ``Chunk(...)``):
the same type, fields, equality, repr, hash and pickling, frozen; the replay's repeated
cuts (``chunk/periodic.py`` ``RepeatedCuts``) against their flat list; the objects a call
shares (a position's int, the count, ``()`` and ``""``) keep sane reference counts, the
calls leak nothing and leave the cyclic collector as they found it."""

from __future__ import annotations

import gc
import pickle
import sys
import tracemalloc

import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_stream
import bpe_stream.chunk.chunker as chunker_module
from bpe_stream.bpe.native import make_chunks
from bpe_stream.chunk.chunker import _CHUNK_FIELDS, Chunk, Chunker, _plain_chunk
from bpe_stream.chunk.periodic import RepeatedCuts

pytestmark = pytest.mark.skipif(make_chunks is None, reason="compiled core not built")

ENCODINGS = {name: bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")}


def _plain(text, base, flat):
    return [_plain_chunk(text[s:e], base + s, base + e, c) for s, e, c in zip(flat[::3], flat[1::3], flat[2::3])]


def _same_objects(made, want):
    """made and want are the same chunks in every observable way."""
    assert all(type(c) is Chunk for c in made)
    assert made == want
    assert [repr(c) for c in made] == [repr(c) for c in want]
    assert list(map(hash, made)) == list(map(hash, want))
    # (the pickles' bytes may differ: make_chunks shares equal short texts, which pickle's memo
    # then writes once)
    back = pickle.loads(pickle.dumps(made))
    assert back == want and [repr(c) for c in back] == [repr(c) for c in want]
    for c in made[:3]:
        with pytest.raises(Exception):
            c.start = 1  # frozen
        assert c.token_count_with_context == c.token_count and c.headings == () and c.context == ""


def _naive_repeat(cuts, shift, total, first=0):
    m = len(cuts) // 3
    out = []
    for i in range(first, total):
        j, d = 3 * (i % m), (i // m) * shift
        out += [cuts[j] + d, cuts[j + 1] + d, cuts[j + 2]]
    return out


@st.composite
def _repeated(draw):
    """(text, cuts, shift, total): a cycle of cuts and a repetition that stays in the text."""
    m = draw(st.integers(1, 4))
    shift = draw(st.integers(1, 6))
    cuts = []
    for _ in range(m):
        s = draw(st.integers(0, 12))
        e = s + draw(st.integers(0, 6))
        cuts += [s, e, draw(st.integers(0, 3))]
    total = draw(st.integers(0, 12))
    reps = -(-total // m)
    n = max(cuts[1::3]) + max(reps - 1, 0) * shift + draw(st.integers(0, 3))
    text = "".join(draw(st.lists(st.sampled_from("ab é中😀\n\x00"), min_size=n, max_size=n)))
    return text, cuts, shift, total


@settings(max_examples=examples(300, fast=60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_repeated(), base=st.sampled_from([0, 5, 1 << 40]), first=st.integers(0, 14))
def test_repeated_cuts(case, base, first):
    text, cuts, shift, total = case
    flat = RepeatedCuts(cuts, shift, total).flat()
    assert flat == _naive_repeat(cuts, shift, total) and len(RepeatedCuts(cuts, shift, total)) == len(flat)
    assert RepeatedCuts(cuts, shift, total).flat(first) == _naive_repeat(cuts, shift, total, first)
    made = make_chunks(Chunk, _CHUNK_FIELDS, text, base, cuts, shift, total)
    _same_objects(made, _plain(text, base, flat))
    assert made == make_chunks(Chunk, _CHUNK_FIELDS, text, base, flat)


@settings(max_examples=examples(300, fast=60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=40), data=st.data(), base=st.sampled_from([0, 3, 1 << 40]))
def test_make_chunks_against_the_dataclass(text, data, base):
    # adjacent chunks (one's end the next one's start, as without overlap) and overlapping ones
    ends = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    flat = []
    for s, e in zip([0] + ends, ends):
        if data.draw(st.booleans()):
            s = data.draw(st.integers(0, e))
        flat += [s, e, data.draw(st.integers(0, 10**20))]
    made = make_chunks(Chunk, _CHUNK_FIELDS, text, base, flat)
    _same_objects(made, _plain(text, base, flat))
    assert made == [Chunk(text[s:e], base + s, base + e, c) for s, e, c in zip(flat[::3], flat[1::3], flat[2::3])]


def test_shared_positions():
    text = "abcdefgh"
    for base in (0, 9):
        cuts = [0, 2, 1, 2, 5, 1, 5, 8, 1]
        made = make_chunks(Chunk, _CHUNK_FIELDS, text, base, cuts)
        assert made[0].end is made[1].start and made[1].end is made[2].start
        assert made[0].token_count is made[0].token_count_with_context is cuts[2]
        if base == 0:
            assert made[1].start is cuts[3] or made[1].start is cuts[1]
        repeated = make_chunks(Chunk, _CHUNK_FIELDS, text, base, [0, 1, 1], 1, 8)
        assert all(a.end is b.start for a, b in zip(repeated, repeated[1:]))
        _same_objects(repeated, _plain(text, base, _naive_repeat([0, 1, 1], 1, 8)))


class _Through:
    """A data descriptor that writes through a slot's own: make_chunks then writes every field
    with __set__ (its path for descriptors that are not plain object slots)."""

    def __init__(self, member):
        self.member = member

    def __get__(self, obj, owner=None):
        return self.member.__get__(obj, owner)

    def __set__(self, obj, value):
        self.member.__set__(obj, value)


def test_fields_written_through_their_set():
    text = "one two three"
    cuts = [0, 3, 1, 3, 7, 1, 7, 13, 2]
    fields = _CHUNK_FIELDS[:6] + (_Through(_CHUNK_FIELDS[6]),)
    for base in (0, 4):
        _same_objects(make_chunks(Chunk, fields, text, base, cuts), _plain(text, base, cuts))
        _same_objects(make_chunks(Chunk, fields, text, base, cuts[:3], 3, 4),
                      _plain(text, base, _naive_repeat(cuts[:3], 3, 4)))
    with pytest.raises(TypeError):
        make_chunks(Chunk, _CHUNK_FIELDS[:6] + (1,), text, 0, cuts)


def test_bad_arguments():
    text = "abc"
    for bad in ([0, 4, 1], [2, 1, 1], [-1, 2, 1], [0, "x", 1]):
        with pytest.raises((ValueError, TypeError)):
            make_chunks(Chunk, _CHUNK_FIELDS, text, 0, bad)
    with pytest.raises(ValueError):
        make_chunks(Chunk, _CHUNK_FIELDS, text, 0, [0, 1, 1], 2, 3)  # the third repetition leaves the text
    with pytest.raises(ValueError):
        make_chunks(Chunk, _CHUNK_FIELDS, text, 0, [], 1, 2)
    with pytest.raises(ValueError):
        make_chunks(Chunk, _CHUNK_FIELDS[:6], text, 0, [0, 1, 1])


@pytest.mark.parametrize("enabled", [True, False])
def test_collector_left_as_found(enabled):
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        make_chunks(Chunk, _CHUNK_FIELDS, "x" * 5000, 0, [0, 1, 1], 1, 5000)
        assert gc.isenabled() is enabled
        with pytest.raises(ValueError):
            make_chunks(Chunk, _CHUNK_FIELDS, "x" * 10, 0, [0, 1, 1], 1, 5000)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_reference_counts_and_no_leak():
    text = "word " * 2000
    count = int("12345678901234567890")  # an int of its own, not a cached one
    cuts = []
    for i in range(500, len(text), 5):  # (positions past the cached small ints)
        cuts += [i, i + 5, count]
    before_count, before_item = sys.getrefcount(count), sys.getrefcount(cuts[4])
    for _ in range(3):
        made = make_chunks(Chunk, _CHUNK_FIELDS, text, 0, cuts)
        # the count twice a chunk; base 0: the list's position objects themselves
        assert sys.getrefcount(count) == before_count + 2 * len(made)
        assert made[0].end is cuts[1] and made[1].start is cuts[1]
        del made
        assert (sys.getrefcount(count), sys.getrefcount(cuts[4])) == (before_count, before_item)
    for args in ((text, 7, cuts), (text, 0, cuts[:3], 5, len(cuts) // 3)):
        make_chunks(Chunk, _CHUNK_FIELDS, *args)
        tracemalloc.start()
        try:
            make_chunks(Chunk, _CHUNK_FIELDS, *args)
            first, _ = tracemalloc.get_traced_memory()
            for _ in range(20):
                make_chunks(Chunk, _CHUNK_FIELDS, *args)
            after, _ = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert after - first < 4096, (after, first)
    del args  # (the slice it holds refers to the count)
    assert sys.getrefcount(count) == before_count


def _chunker_chunks(enc, text, budget, overlap, compiled_objects: bool, repeated=None):
    """The chunker's chunks, made by make_chunks or (compiled_objects False) by _plain_chunk;
    repeated: a list that gets one item per make_chunks call on a replay's RepeatedCuts."""
    saved = chunker_module._make_chunks

    def counting(*args):
        if len(args) > 5 and repeated is not None:
            repeated.append(args[-1])
        return saved(*args)

    chunker_module._make_chunks = counting if compiled_objects else None
    try:
        return Chunker(enc, budget, overlap=overlap, boundaries="exact").chunks(text)
    finally:
        chunker_module._make_chunks = saved


@pytest.mark.parametrize("name", sorted(ENCODINGS))
@pytest.mark.parametrize("unit", ["\x00", "!", "a\u0301", "/\n", "\u3000 ", " ", "the cat. "])
@pytest.mark.parametrize("budget,overlap", [(1, 0), (2, 0), (3, 1), (16, 4)])
def test_chunker_objects_against_the_python_objects(name, unit, budget, overlap):
    # periodic text long enough for the replay (its RepeatedCuts), with other text around it
    enc = ENCODINGS[name]
    text = "Lead, " + unit * (4 * (budget * 128 + 300) // len(unit)) + " tail 12345 end."
    repeated: list[int] = []
    made = _chunker_chunks(enc, text, budget, overlap, True, repeated)
    _same_objects(made, _chunker_chunks(enc, text, budget, overlap, False))
    assert "".join(c.text for c in made) == text or overlap
    if budget == 1 and unit == "\x00":
        assert sum(repeated) > len(made) // 2  # most chunks came from the replay's cycles


@pytest.mark.parametrize("alphabet", ["abc", "aé", "a中", "a😀", "\x00\u0301"])
def test_short_texts_shared(alphabet):
    # many distinct short texts (more than the table's slots: collisions replace entries) and
    # repeated ones, in texts of each width; equal short texts come out as one object
    import itertools
    import random

    rng = random.Random(len(alphabet))
    words = ["".join(w) for n in range(1, 9) for w in itertools.product(alphabet, repeat=n)][:3000]
    parts = [rng.choice(words) for _ in range(6000)] + ["x" * 17, "x" * 17, "", alphabet[0] * 16]
    text = "".join(parts)
    flat, at = [], 0
    for part in parts:
        flat += [at, at + len(part), 1]
        at += len(part)
    for base in (0, 11):
        made = make_chunks(Chunk, _CHUNK_FIELDS, text, base, flat)
        _same_objects(made, _plain(text, base, flat))
        by_text = {}
        for c in made:
            if 2 <= len(c.text) <= 16:
                assert by_text.setdefault(c.text, c.text) == c.text
        assert sum(c.text is by_text.get(c.text) for c in made) > len(made) // 3
