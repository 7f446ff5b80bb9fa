"""The harness the compiled chunking routines' tests share: the exact chunker's chunks with
some of the chunker module's compiled routines replaced (None turns one off, so the
Python steps, the reference, find those chunks), and the check that a routine's chunks
equal the reference's, join back and count exactly."""

from __future__ import annotations

import bpe_stream.chunk.chunker as chunker_module
from bpe_stream.chunk.chunker import CharacterOverBudget, Chunker


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
    saved = {name: getattr(chunker_module, name) for name in replaced}
    for name, value in replaced.items():
        setattr(chunker_module, name, value)
    try:
        chunker = Chunker(enc, budget, overlap=overlap, boundaries="exact")
        found = chunker.chunks(text) if pieces is None else list(chunker.chunk_stream(pieces))
        return [(c.start, c.end, c.token_count) for c in found]
    except CharacterOverBudget as e:
        return ("refused", e.position, e.tokens)
    finally:
        for name, value in saved.items():
            setattr(chunker_module, name, value)


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
