"""The harness the compiled chunking routines' tests share: the exact chunker's chunks with
some of the chunker module's compiled routines replaced (None turns one off, so the
Python steps, the reference, find those chunks), and the check that a routine's chunks
equal the reference's, join back and count exactly; for the members' tests, a real
vocabulary with its HF count, and the check that a rule's chunks (either mode) equal
those without it and count as HF does."""

from __future__ import annotations

import functools
from contextlib import contextmanager

import pytest
import real_vocabularies as rv

import bpe_stream
import bpe_stream.chunk.chunker as chunker_module
from bpe_stream.chunk.chunker import CharacterOverBudget, Chunker

# real vocabularies whose folder under the test vocabularies is not their name
_FOLDERS = {"deepseek_v3": "deepseek_v3_layout"}


@functools.lru_cache(maxsize=None)
def real_vocabulary(name: str):
    """(encoding, HF count) of the real vocabulary ``name`` (its tokenizer.json, built from
    the test vocabularies), or a skip (a failure where BPE_STREAM_REQUIRE_VOCABS is set)."""
    tokenizers = pytest.importorskip("tokenizers")
    try:
        path = rv.built(f"{_FOLDERS.get(name, name)}/tokenizer.json")
    except rv.Unavailable as e:
        if rv.REQUIRE:
            pytest.fail(f"BPE_STREAM_REQUIRE_VOCABS is set and {e}")
        pytest.skip(str(e))
    tok = tokenizers.Tokenizer.from_file(str(path))
    return bpe_stream.load(path), lambda text: len(tok.encode(text, add_special_tokens=False).ids)


@contextmanager
def _replacing(replaced: dict):
    """Sets each ``(module, name)`` of ``replaced`` to its value, restored on exit."""
    saved = {key: getattr(*key) for key in replaced}
    for (module, name), value in replaced.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for (module, name), value in saved.items():
            setattr(module, name, value)


def random_pieces(rng, text, longest: int) -> list:
    """``text`` cut into pieces of 0 to ``longest`` characters (``rng``: a random.Random),
    for the streams whose chunks must be the whole text's."""
    pieces, j = [], 0
    while j < len(text):
        k = j + rng.randint(0, longest)
        pieces.append(text[j:k])
        j = k
    return pieces


class CountingCalls:
    """A compiled cuts routine (flat ``[s, e, count, ...]`` first in its result), counting
    the chunks it makes."""

    def __init__(self, fn):
        self.fn = fn
        self.chunks = 0

    def __call__(self, *args):
        result = self.fn(*args)
        self.chunks += len(result[0]) // 3
        return result


def overlaps_for(budget: int) -> list[int]:
    """The overlaps tried with a budget: none, a quarter, a half and all but one token."""
    return sorted({0, budget // 4, budget // 2, budget - 1} - {budget})


def budget_cases(full: bool) -> list[tuple[int, int]]:
    """(budget, overlap) pairs for a family's text: budgets 1-64 with their overlaps in the
    full tier, three pairs in the fast one."""
    if full:
        return [(budget, overlap) for budget in (1, 2, 3, 5, 16, 64) for overlap in overlaps_for(budget)]
    return [(1, 0), (3, 1), (16, 4)]


def chunk_triples(enc, text, budget, overlap, replaced: dict, pieces=None):
    """``[(start, end, count), ...]`` of ``Chunker(enc, budget, overlap=overlap,
    boundaries="exact")`` over ``text`` (or the stream ``pieces``), or ``("refused",
    position, tokens)``, with the chunker module's attributes named in ``replaced`` set
    to its values for the call."""
    with _replacing({(chunker_module, name): value for name, value in replaced.items()}):
        try:
            chunker = Chunker(enc, budget, overlap=overlap, boundaries="exact")
            found = chunker.chunks(text) if pieces is None else list(chunker.chunk_stream(pieces))
            return [(c.start, c.end, c.token_count) for c in found]
        except CharacterOverBudget as e:
            return ("refused", e.position, e.tokens)


def same_as_steps(enc, text, budget, overlap, routine: str, pieces=None, also_off=()) -> int:
    """Asserts that the chunks with the compiled ``routine`` (a chunker module attribute)
    equal those without it (and without the ``also_off`` ones that go with it), that
    they start at 0, join back (each start inside the previous chunk, or at its end
    without overlap) and, sampled, count as ``enc.count``; the chunks ``routine`` made."""
    counting = CountingCalls(getattr(chunker_module, routine))
    compiled = chunk_triples(enc, text, budget, overlap, {routine: counting}, pieces)
    reference = chunk_triples(enc, text, budget, overlap, {routine: None, **{name: None for name in also_off}}, pieces)
    assert compiled == reference, (enc.name, budget, overlap, text[:40])
    if compiled and compiled[0] != "refused":
        assert compiled[0][0] == 0 and compiled[-1][1] == len(text)
        for (s0, e0, _), (s1, e1, _) in zip(compiled, compiled[1:]):
            assert s0 < s1 <= e0 < e1 and (overlap or s1 == e0)
        for s, e, k in compiled[:: max(1, len(compiled) // 40)]:
            assert k == enc.count(text[s:e])
    return counting.chunks


def assert_counts(chunks, seen: str, count, budget: int, what=()) -> None:
    """Asserts that ``chunks`` (``(start, end, tokens, ...)``, a text last where given)
    cover ``seen`` (the text as the encoding sees it) from 0 to its end and that each one
    fits ``budget`` and has ``count`` (the reference count: HF's, tiktoken's) tokens."""
    assert chunks[0][0] == 0 and chunks[-1][1] == len(seen), what
    for s, e, k, *t in chunks:
        assert t in ([], [seen[s:e]]) and k <= budget, (*what, s, e)
        assert k == count(seen[s:e]), (*what, s, e)


def mode_chunks(enc, text, budget, overlap, mode, replaced: dict):
    """``[(start, end, count, text), ...]`` of ``Chunker(enc, budget, overlap=overlap,
    boundaries=mode)`` over ``text``, or ``("refused", position, tokens)``, with each
    ``(module, name)`` of ``replaced`` set to its value for the call."""
    with _replacing(replaced):
        try:
            chunks = Chunker(enc, budget, overlap=overlap, boundaries=mode).chunks(text)
            return [(c.start, c.end, c.token_count, c.text) for c in chunks]
        except CharacterOverBudget as e:
            return ("refused", e.position, e.tokens)


def same_without_rule(enc, count, text, budget, overlap, mode, reference: dict) -> None:
    """Asserts that the chunks of ``text`` in ``mode`` equal those with the rule under test
    turned off (``reference``: ``(module, name)`` -> value, as :func:`mode_chunks`), and,
    unless refused, cover the text and count as ``count`` within the budget."""
    found = mode_chunks(enc, text, budget, overlap, mode, {})
    what = (enc.name, budget, overlap, mode)
    assert found == mode_chunks(enc, text, budget, overlap, mode, reference), (*what, text[:40])
    if found[0] != "refused":
        assert_counts(found, enc._text(text), count, budget, what)
