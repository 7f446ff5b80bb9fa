"""Exact token-budget chunking of text, whole or streamed.

Invariants (on every input, for every chunk ``c`` of ``text``):

* ``c.token_count == count(c.text) <= max_tokens`` (``Encoding.count`` for str,
  ``BytePairEncoding.count`` for bytes), and ``text[c.start:c.end] == c.text``;
* with ``overlap=0`` the chunks are contiguous, non-empty and join back to the
  input; with ``overlap=k`` each chunk after the first starts inside the previous
  one, repeats at most ``k`` tokens of it, and ends strictly later than it;
* no chunk splits a character: str chunks are cut between code points, never
  inside a surrogate pair; bytes chunks are cut at UTF-8 character starts;
* ``chunks(text) == list(chunk_stream(pieces))`` for every split of ``text``
  into pieces.

How a chunk is chosen (start ``s``, all offsets local to the text held):

1. ``e_max = split_at(text, max_tokens, start=s)``, the largest end whose
   count fits (exact; :mod:`bpe_stream.chunk.counts` for pre-split text,
   ``bpe_stream.text.cuts`` for bytes).  ``e_max == s`` means the character at ``s``
   alone costs more than the budget: ``ValueError`` naming it.
2. ``boundaries="exact"``: the chunk is ``[s, e_max)``.
3. ``boundaries="semantic"`` (or a list of levels): for each level, strongest
   first, walk its cut positions in ``(x, e_max]`` from the last one backwards;
   a position ``c`` is taken when ``floor <= count(text[s:c]) <= max_tokens``
   (positions over the budget are skipped: counts are not monotonic, so being
   left of ``e_max`` proves nothing), and the walk of that level stops at the
   first position under the floor.  If no level gives a cut, the chunk ends at
   the last grapheme-cluster boundary that fits, else at ``e_max``.
   Levels are run on ``text[x : e_max + LOOKAHEAD]``.  For pre-split text ``x``
   is the last piece boundary (of the split of ``text[s:e_max]``, see
   ``ChunkView.scan_start``) whose prefix has at most ``floor - 8`` tokens
   (by definition: positions up to ``x`` are not candidates; their prefixes
   hold about ``floor - 8`` tokens or fewer, so they would end the walk
   anyway), and levels scan about a fifth of the chunk instead of all of it.
   Otherwise ``x = s``.  Either way ``x`` depends only on ``text[s:e_max]``.
   **Fill** is ``token_count / max_tokens`` (measured against the budget, not
   against the exact cut), and ``floor = ceil(fill_floor * max_tokens)``.
4. Overlap ``k``: the next chunk starts at the earliest cut position ``o`` of
   the strongest level (semantic) or at the earliest character (exact) inside
   the previous chunk ``[s, e)`` with ``count(text[o:e]) <= k``; a level is taken
   when its overlap has at least ``fill_floor * k`` tokens (levels see
   ``text[max(s, i0 - 32):e]``, ``i0`` the earliest character start).  If the chunk from
   ``o`` could not reach past ``e`` (a costly character right at ``e``), the
   next chunk starts at ``e`` instead, so the chunker never stalls or repeats.

Counting.  Pre-split text (an ``Encoding`` with a pattern): the held text is
split once (:class:`~bpe_stream.chunk.counts.TextCounts`, prefix sums of cached
piece counts); per chunk a :class:`~bpe_stream.chunk.counts.ChunkView` finds
``e_max`` by bisecting those sums and re-checks only a few short strings around
the start and the cut, and counts semantic candidates the same way (the proof
is in that module).  With the compiled core, ``boundaries="exact"`` and a pattern of
the family (any member, with the hard-boundary rule its choices give:
:mod:`bpe_stream.pretokenize.hard_boundaries`), the chunks whose cut and overlap start
those sums decide by rule 5 (hard boundaries), with at most a short letter run recounted,
come from one native call for many chunks (``_native/chunk_cuts.c``); for every member
most others do too, by exact recounts of short slices with the member's compiled split
(``_native/chunk_counted_cuts.c``: rules 1-3 and 5 of that module, with the stability
margin every member has), and for the cl100k and o200k members the chunks inside
long one-piece runs of letters or punctuation (CJK without spaces, one endless word) one
compiled call per run (``_native/chunk_runs.c``, ChunkView's run mode chunk after chunk);
the steps above run for the rest and are the reference (the tests compare both).  Semantic
steps from a piece boundary take ``e_max`` from the same call limited to one chunk, and walk
each level's positions from the last one down (:mod:`bpe_stream.chunk.level_walk`: the
positions of the level's scan of the slice, without the scan; overlap starts walk them
upwards from the exact earliest start); ``_level_walk = False`` turns these off (the reference the tests compare with).  Bytes / no-pattern encodings: ``cuts.bytes_split_at`` /
``text_split_at`` for the cut and an ``IntervalCounter`` over the text held for
candidate chunks.  Nothing is re-encoded from scratch per candidate.  In periodic text
(str) the steps repeat: :mod:`bpe_stream.chunk.periodic` records them and replays the
chunks of a repeating cycle in one call (the same chunks; the tests compare both).

Streaming finality rule.  The chunk from ``s`` depends only on
``text[s : e_max + LOOKAHEAD]`` (levels are run on that slice) and on ``e_max``.
With the text seen so far ending at ``B``, ``e_max`` cannot change once no
longer end can fit, which holds when either

* the text from ``s`` to ``B`` has more than ``max_tokens * max_token_len``
  UTF-8 bytes (no token holds more than ``max_token_len`` bytes; a whole-piece
  token, which only a whole pre-split piece becomes, may be longer: then its
  length counts as ``max_token_len``), or
* (pre-split text) a piece boundary of ``text[s:B]`` whose prefix count is
  over the budget is stable for every longer text (``ChunkView.cut``, rule 3
  of :mod:`bpe_stream.chunk.counts`), or
* (patterns of the family) there is a *hard boundary* ``h`` with
  ``e_max < h < B`` (the member's rule, e.g. a letter followed by a character that
  is neither a letter, a combining mark nor ``'``).  The member always ends a piece
  there and never looks past it, so ``count(text[s:j]) = count(text[s:h]) + count(text[h:j])`` for
  every ``j >= h``, and ``count(text[s:h]) > max_tokens`` because ``h`` is held
  and past ``e_max``.

So a chunk is final when one of these holds and ``e_max + LOOKAHEAD <= B``, or
when the input has ended.  Memory is the text from the current chunk's start
to the certificate: about two chunks on prose, at most
``max_tokens * max_token_len`` bytes plus ``LOOKAHEAD`` on text without hard
boundaries (a 1 MB run of letters arriving in small pieces is cut into
budget-sized chunks as it arrives).  Text is re-examined only when the held
text has doubled since the last attempt, so streaming costs O(n) overall.

Complexity: O(n) for ``chunks``: one split of the held text, then per chunk
O(log n) for the cut plus a few exact recounts of short strings (a long piece
straddling the cut costs one prefix table over it), and one regex scan of the
chunk's last fifth (plus look-ahead) per boundary level tried.

>>> import bpe_stream
>>> from bpe_stream.chunk.chunker import Chunker
>>> enc = bpe_stream.get_encoding("cl100k_base")
>>> text = "First paragraph, short.\\n\\nSecond paragraph is a little longer than the first one."
>>> for c in Chunker(enc, 12, fill_floor=0.3).chunks(text):
...     print(c.start, c.end, c.token_count, repr(c.text))
0 25 5 'First paragraph, short.\\n\\n'
25 80 11 'Second paragraph is a little longer than the first one.'
>>> [c.text for c in Chunker(enc, 4, boundaries="exact").chunks("one two three four five six")]
['one two three four', ' five six']
"""

from __future__ import annotations

import functools
import math
from bisect import bisect_left, bisect_right
from collections import deque
from itertools import accumulate
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from typing import Any, Generic, Literal, TypeAlias, TypeVar, overload

import regex

from ..bpe.cuts import bytes_split_at, bytes_split_at_start
from ..bpe.native import exact_cuts as _exact_cuts
from ..bpe.native import make_chunks as _make_chunks
from ..bpe.native import run_cuts as _run_cuts
from ..bpe.native import run_overlap_start as _run_overlap_start
from ..bpe.native import whole_set as _whole_set
from ..bpe.native import ws_cuts as _ws_cuts  # (chunk_ws.c: chunks inside whitespace stretches)
from ..text.whitespace_pieces import line_break_split_holds

_WS_MIN = 64  # whitespace characters from a chunk start before ws_cuts is tried
from ..bpe.vocabulary import BytePairEncoding
from ..encoding.encoding import Encoding
from ..pretokenize.normalize import last_boundary, normalize
from ..pretokenize.family import MEMBERS
from ..encoding.resolve import EncodingLike, resolve_encoding_or_bpe
from ..pretokenize.hard_boundaries import hard_rule
from ..pretokenize.stability import stable_margin
from ..pretokenize.unicode import compile_regex
from ..stream.interval import IntervalCounter
from ..text.cuts import text_split_at, text_split_at_start
from ..text.input import fix_surrogates
from ..text.piece_encoder import whole_longer_than
from .batch import chunk_batch
from .boundaries import LOOKAHEAD, BoundaryLevel, resolve_levels
from .counts import NEED_MORE, ChunkView, SuffixView, TextCounts
# ---- digit runs: chunks by rule (chunk/digit_runs.py, _native/digit_runs.c)
from ..bpe.native import digit_cuts as _digit_cuts
from ..bpe.native import digit_overlap_start as _digit_overlap_start
from .digit_runs import digits_one_token
from .digit_runs import digit_groups_member
from .digit_runs import digit_overlap_start as _py_digit_overlap_start
# ----
from .headings import HeadingTracker, format_context
from .level_walk import ascending as _ascending
from .level_walk import descending as _descending
from .member_runs import member_runs_mode
from .periodic import PeriodicReplay, RepeatedCuts, periodic_probe
from .periodic_counts import WAIT as PERIODIC_WAIT
from .periodic_counts import periodic_cut, periodic_overlap_start
from .periodic_reach import unit_horizon
from .periodic_step import step_end

__all__ = ["Boundaries", "CharacterOverBudget", "Chunk", "Chunker", "ContextArg"]

T = TypeVar("T", str, bytes)

#: The ``boundaries=`` argument: a mode, or boundary levels strongest first.
Boundaries: TypeAlias = "Literal['semantic', 'exact'] | Sequence[BoundaryLevel | str | tuple[str, str]]"
#: The ``context=`` argument: a title (the prefix is the title and the heading path,
#: see :func:`~bpe_stream.chunk.headings.format_context`) or a function of the heading
#: path that returns the prefix itself.
ContextArg: TypeAlias = "str | Callable[[tuple[str, ...]], str]"

# The character classes run_cuts (chunk_runs.c) takes for one-piece runs: cl100k's (1) or
# o200k's (2), for every member that splits letter, punctuation and digit runs as one of
# them does.  How whitespace at the text's end splits (end_whitespace_whole) is the one
# choice that may differ: no run holds whitespace.  (Llama 3 splits as cl100k.)
_RUN_MODE_MEMBERS = {1: MEMBERS["cl100k_base"], 2: MEMBERS["o200k_base"]}


@functools.cache
def _run_mode_of(member) -> int | None:
    """run_cuts' mode for the pre-tokenizer ``member``, or None where it has none (once per
    member: the comparison builds a dataclass, several times the rest of a Chunker's set-up)."""
    if member is None or member.pre_splits or member.main is not None:
        return None
    for mode, model in _RUN_MODE_MEMBERS.items():
        if replace(member, name=model.name, pattern=model.pattern, dialect=model.dialect, spellings=model.spellings,
                   used_by=model.used_by, known=model.known, end_whitespace_whole=model.end_whitespace_whole) == model:
            return mode
    return None
# ---- members' counted cuts: chunk_counted_cuts.c is rules 1-3 and 5 of chunk/counts.py
# with MARGIN 4 and the member's own compiled split (its spec) and hard-boundary rule (its
# HB_* flags); the only choice-dependent constant is the stability margin, and every
# member of the family has margin 4 (pretokenize/stability.py, proven per choice and
# checked by enumeration in tests/test_family.py).  So every member with a hard rule takes
# the recounts, not only cl100k/o200k/Llama 3 (docs/design/chunker.md, "Members").
_COUNTED_MARGIN = 4


def _counted_member(member) -> bool:
    return member is not None and member.known and stable_margin(member) == _COUNTED_MARGIN


# ws_cuts (chunk_ws.c) for the members with the cl100k family's whitespace choice
# (``\s*[\r\n]+|\s+(?!\S)|\s+``, whitespace="newlines"): a whitespace-only string splits
# into w[:N], w[N:] as under o200k (or one piece, end_whitespace_whole, as under cl100k),
# because every other alternative of such a member needs a character that is no whitespace
# (a letter, mark, digit, punctuation or apostrophe) after at most a one-character lead;
# the chain members' pre-splits (digits, CJK) match no whitespace.  GPT-2's choice
# (``\s+(?!\S)|\s+`` only) is left out: before more text its first piece of a stretch
# may end before the stretch's last line break, which the stop rule needs it not to.
def _ws_member(member) -> bool:
    return member is not None and member.known and member.whitespace == "newlines"
# ----
_GRAPHEME = compile_regex(r"\X")
_SURROGATE = regex.compile(r"[\ud800-\udfff]")
_GRAPHEME_LOOKBACK = 64  # characters before e_max searched for a grapheme boundary

_SCAN_SLACK = 8  # tokens under the floor where semantic levels start scanning
_C_SIZES = 1 << 48  # byte horizons below this take e_max from exact_cuts (no C overflow)
_BLOCK_CHARS = 1 << 16  # long texts are chunked through the streaming path in blocks this long
_OVERLAP_CONTEXT = 32  # characters before the earliest overlap start that levels see
_NEED_MORE = object()  # planner: the held text cannot decide this chunk yet


@dataclass(frozen=True, slots=True)
class Chunk(Generic[T]):
    """A piece of the input: ``text == input[start:end]`` and ``token_count == count(text)``.

    Offsets are character offsets for str input (``Chunk[str]``) and byte offsets for
    bytes input (``Chunk[bytes]``).  ``headings``: the Markdown heading path above the
    chunk (``Chunker(..., markdown=True)``; see :mod:`bpe_stream.chunk.headings`).
    ``context``: the prefix that ``Chunker(..., context=...)`` puts before the chunk
    (``""`` without one); ``text_with_context`` is ``context + text`` and
    ``token_count_with_context == count(text_with_context) <= max_tokens``.

    >>> c = Chunk("body", 10, 14, 1, ("Guide",), "Guide\\n\\n", 4)
    >>> c.text_with_context, len(c)
    ('Guide\\n\\nbody', 4)
    """

    text: T
    start: int
    end: int
    token_count: int
    headings: tuple[str, ...] = ()
    context: str = ""
    token_count_with_context: int = -1

    def __post_init__(self) -> None:
        if self.token_count_with_context < 0:
            if self.context:
                raise ValueError("a Chunk with a context needs its token_count_with_context")
            object.__setattr__(self, "token_count_with_context", self.token_count)

    @property
    def text_with_context(self) -> T:
        """``context + text``: what to embed or send so that the budget holds."""
        if not self.context:
            return self.text
        return self.context + self.text  # type: ignore[return-value]  # context is only set on str chunks

    def __len__(self) -> int:
        return self.end - self.start


def _chunk_setstate(self: Chunk, state: Sequence[Any]) -> None:
    # pickles of bpe-stream 0.1.0 hold the first four fields only
    values = list(state) + [(), "", -1][len(state) - 4 :] if len(state) < 7 else list(state)
    for name, value in zip(("text", "start", "end", "token_count", "headings", "context",
                            "token_count_with_context"), values):
        object.__setattr__(self, name, value)
    if self.token_count_with_context < 0:
        object.__setattr__(self, "token_count_with_context", self.token_count)


# Set after the class is made: before Python 3.11.4, dataclass(frozen=True, slots=True)
# replaces a __setstate__ written in the class body with its own, which would leave the
# fields a 0.1.0 pickle lacks unset.
Chunk.__setstate__ = _chunk_setstate  # type: ignore[method-assign]


# The chunker's own chunks (no headings, no context) skip the dataclass __init__: its
# frozen writes (one object.__setattr__ call a field) and __post_init__ cost about 1 us a
# chunk, as much as the rest of a small chunk's work.  The slots' descriptors write the
# same fields to a bare instance: the same type, equality, repr, hash and pickling, and
# the instance stays frozen (Chunk.__setattr__ still refuses).
_bare_chunk = object.__new__
_set_text = Chunk.text.__set__  # type: ignore[attr-defined]  # slot descriptors
_set_start = Chunk.start.__set__  # type: ignore[attr-defined]
_set_end = Chunk.end.__set__  # type: ignore[attr-defined]
_set_token_count = Chunk.token_count.__set__  # type: ignore[attr-defined]
_set_headings = Chunk.headings.__set__  # type: ignore[attr-defined]
_set_context = Chunk.context.__set__  # type: ignore[attr-defined]
_set_with_context = Chunk.token_count_with_context.__set__  # type: ignore[attr-defined]


def _whole_tokens(enc):
    """The whole-piece tokens of ``enc`` as ``exact_cuts`` takes them (``whole_set``), or None:
    its letter-run counts give such a token 1, as tiktoken does."""
    whole = getattr(enc, "_whole", None)
    if not whole:
        return None
    native = enc._native_split()
    if native is not None and native[1] is not None:
        return native[1]
    return _whole_set(list(whole))


def _split_spec(enc) -> int:
    """The compiled split of ``enc`` (``_native_split``'s spec), with which ``exact_cuts``
    recounts short slices for the chunks its prefix-sum cases leave open; -1: none."""
    native = enc._native_split()
    return native[0] if native is not None else -1


def _plain_chunk(text: T, start: int, end: int, token_count: int) -> Chunk[T]:
    """``Chunk(text, start, end, token_count)``, without the dataclass __init__."""
    chunk = _bare_chunk(Chunk)
    _set_text(chunk, text)
    _set_start(chunk, start)
    _set_end(chunk, end)
    _set_token_count(chunk, token_count)
    _set_headings(chunk, ())
    _set_context(chunk, "")
    _set_with_context(chunk, token_count)
    return chunk


# Chunk's slot descriptors in field order, for the compiled make_chunks (the same writes).
_CHUNK_FIELDS = (Chunk.text, Chunk.start, Chunk.end, Chunk.token_count,  # type: ignore[attr-defined]
                 Chunk.headings, Chunk.context, Chunk.token_count_with_context)  # type: ignore[attr-defined]


def _positions_descending(level: BoundaryLevel, text, lo: int, hi: int, stop: int):
    """The level's positions in ``(lo, stop]`` from its scan of ``text[lo:hi]``, last first:
    the reference for ``level_walk.descending`` (``Chunker._level_walk = False``)."""
    return reversed(level.positions(text, lo, hi, stop))


def _grapheme_before_scan(text: str, lo: int, hi: int, e_max: int) -> int:
    """The last grapheme cluster end of ``text[lo:hi]`` before ``e_max`` when ``e_max`` is
    none (a cluster crosses it), else -1.  The slice is segmented from ``lo``."""
    ends = []
    for m in _GRAPHEME.finditer(text[lo:hi]):
        ends.append(lo + m.end())
        if ends[-1] >= e_max:
            break  # later clusters cannot change the ends up to here
    i = bisect_right(ends, e_max)
    if i and ends[i - 1] < e_max:
        return ends[i - 1]
    return -1


def _grapheme_before(text: str, lo: int, hi: int, e_max: int) -> int:
    """``_grapheme_before_scan`` (``lo < e_max < hi``), without the scan when
    ``text[lo : e_max + 1]`` is ASCII: there every character is a cluster of its own except
    ``\r\n`` (rule GB3; extenders, prepends, joiners and regional indicators are not
    ASCII, and ``text[e_max]`` is read, the one character after ``e_max`` that could join
    the cluster before it), so ``e_max`` is an end unless ``\r`` precedes it and ``\n``
    follows, and then the end before it is ``e_max - 1`` (a break before ``\r``, GB5) when
    that is past ``lo``.  Otherwise the clusters of ``text[lo : e_max + 1]`` in one
    ``findall``: a cluster boundary at ``p`` is decided by the characters before ``p``
    and the one at ``p`` (the rules of UAX #29 look back, never further ahead), so the
    ends up to ``e_max`` are those of the longer slice, whose scan stops there."""
    part = text[lo : e_max + 1]
    if part.isascii():
        if text[e_max] == "\n" and text[e_max - 1] == "\r" and e_max - 1 > lo:
            return e_max - 1
        return -1
    top = e_max - lo
    last = -1
    for end in accumulate(map(len, _GRAPHEME.findall(part))):
        if end >= top:
            return last + lo if end > top and last > 0 else -1
        last = end
    return -1


class CharacterOverBudget(ValueError):
    """A character (or a UTF-8 sequence of bytes input) alone needs more tokens than the budget.

    Attributes: ``character`` (str, or bytes when it is not valid UTF-8), ``position``
    (the offset in the input), ``tokens`` (what it needs), ``budget``.
    """

    def __init__(self, message: str, character: str | bytes, position: int, tokens: int, budget: int):
        super().__init__(message)
        self.character = character
        self.position = position
        self.tokens = tokens
        self.budget = budget


class _Window:
    """Text held in memory: ``text`` starts at global offset ``base``; ``final`` if input ended."""

    __slots__ = ("text", "base", "final", "_counter", "_owner", "_text_counts", "semantic_cut")

    def __init__(self, owner, text, base: int, final: bool):
        self._owner = owner
        self.text = text
        self.base = base
        self.final = final
        self._counter = None
        self._text_counts = None
        # (core, rule flags, whole, spec) when the semantic steps take e_max from exact_cuts
        self.semantic_cut = None

    def text_counts(self) -> TextCounts:
        """The pre-split of the held text with prefix counts, built once per window."""
        tc = self._text_counts
        if tc is None:
            tc = self._text_counts = TextCounts(self._owner, self.text)
        return tc

    def count(self, start: int, end: int) -> int:
        counter = self._counter
        if counter is None:
            counter = self._counter = IntervalCounter(self._owner, self.text)
        return counter.count(start, end)


class _State:
    __slots__ = ("start", "min_end", "done", "replay")

    def __init__(self):
        self.start = 0  # global start of the next chunk
        self.min_end = 0  # the next chunk must end after this (the previous chunk's end)
        self.replay: PeriodicReplay | None = None  # steps recorded in periodic text
        self.done = False


class Chunker(Generic[T]):
    """Cut text into chunks of at most ``max_tokens`` tokens, exactly.

    ``encoding``: an :class:`~bpe_stream.Encoding`, an encoding name
    (``"cl100k_base"``), a model name (``"gpt-4o"``) or a saved vocabulary's path
    (chunks str: a ``Chunker[str]``), or a :class:`~bpe_stream.BytePairEncoding`
    (chunks bytes, no pre-splitting: a ``Chunker[bytes]``).
    ``max_tokens`` (or its alias ``chunk_size=``): the budget of every chunk.
    ``overlap`` (or ``chunk_overlap=``): tokens of the previous chunk repeated at the
    start of the next.
    ``boundaries``: ``"semantic"`` (default), ``"exact"``, or a sequence of
    :class:`~bpe_stream.chunk.boundaries.BoundaryLevel` / level names /
    ``(name, regex)`` pairs, strongest first.  ``fill_floor``: a weaker level is
    used only when the stronger one would leave the chunk under
    ``fill_floor * max_tokens`` tokens.
    ``markdown=True`` (str only): every chunk carries its heading path in
    ``Chunk.headings``.  ``context`` (str only): a title, or a function of the heading
    path returning a prefix; every chunk then carries its prefix in ``Chunk.context``
    and ``count(chunk.context + chunk.text) <= max_tokens`` (the text gets what the
    prefix leaves of the budget, re-checked exactly).

    A chunker is callable: ``chunker(text)`` is ``chunker.chunks(text)`` and
    ``chunker([text, ...])`` is a list of those lists.

    >>> chunker = Chunker("o200k_base", chunk_size=8, overlap=3)
    >>> chunks = chunker("Streams arrive in pieces. Chunks must not wait for the end.")
    >>> [(c.text, c.token_count) for c in chunks]
    [('Streams arrive in pieces. Chunks must', 8), (' Chunks must not wait for the', 7), (' wait for the end.', 5)]
    >>> list(chunker.chunk_stream(["Streams arr", "ive in pieces. Chunks must not", " wait for the end."])) == chunks
    True
    >>> doc = "# Guide\\n\\nIntro text.\\n\\n## Install\\n\\nRun pip install and wait for it to finish.\\n"
    >>> for c in Chunker("gpt-4o", 16, markdown=True, context="Manual", fill_floor=0.3)(doc):
    ...     print(c.headings, c.token_count_with_context, repr(c.text_with_context))
    () 8 'Manual\\n\\n# Guide\\n\\nIntro text.\\n\\n'
    ('Guide',) 15 'Manual\\nGuide\\n\\n## Install\\n\\nRun pip install and wait for it to'
    ('Guide', 'Install') 8 'Manual\\nGuide > Install\\n\\n finish.\\n'
    """

    _normal_form = None  # (chunkers pickled before normalizing pre-tokenizers lack it)
    # Defaults for chunkers unpickled from bpe-stream 0.1.0, which had none of these.
    _markdown = False
    _context: ContextArg | None = None
    _subs: dict[int, Chunker[str]] | None = None
    _budget_name = "max_tokens"
    _bulk_exact = False
    _hard_rule = None
    _counted_cuts = False
    _ws_member = False
    _run_mode: int | None = None
    _runs_mode: int | None = None
    # semantic levels walked lazily (level_walk.py); False: each level's scan, the reference
    _level_walk = True

    encoding: Encoding | BytePairEncoding
    max_tokens: int
    overlap: int

    @overload
    def __init__(
        self: Chunker[bytes],
        encoding: BytePairEncoding,
        max_tokens: int | None = None,
        *,
        chunk_size: int | None = None,
        overlap: int = 0,
        chunk_overlap: int | None = None,
        boundaries: Boundaries = "semantic",
        fill_floor: float = 0.8,
    ) -> None: ...

    @overload
    def __init__(
        self: Chunker[str],
        encoding: EncodingLike,
        max_tokens: int | None = None,
        *,
        chunk_size: int | None = None,
        overlap: int = 0,
        chunk_overlap: int | None = None,
        boundaries: Boundaries = "semantic",
        fill_floor: float = 0.8,
        markdown: bool = False,
        context: ContextArg | None = None,
    ) -> None: ...

    def __init__(
        self,
        encoding: EncodingLike | BytePairEncoding,
        max_tokens: int | None = None,
        *,
        chunk_size: int | None = None,
        overlap: int = 0,
        chunk_overlap: int | None = None,
        boundaries: Boundaries = "semantic",
        fill_floor: float = 0.8,
        markdown: bool = False,
        context: ContextArg | None = None,
    ) -> None:
        enc_or_bpe = resolve_encoding_or_bpe(encoding)
        if isinstance(enc_or_bpe, Encoding):
            enc_or_bpe._require_rank_order("Chunker")
            self._is_text = True
            self._bpe = enc_or_bpe.bpe
            # rule 5 of chunk/counts.py for the member's choices (None: a pattern outside the family)
            self._hard_rule = hard_rule(enc_or_bpe.pretokenizer)
            self._hard_boundaries = self._hard_rule is not None
            # ---- members' counted cuts and whitespace stretches (see _counted_member, _ws_member):
            # exact recounts of short slices in C (chunk_counted_cuts.c) rest on the member's
            # stability margin, the same for every known member
            self._counted_cuts = _counted_member(enc_or_bpe.pretokenizer)
            self._ws_member = self._hard_boundaries and _ws_member(enc_or_bpe.pretokenizer)
            # ----
            self._run_mode = _run_mode_of(enc_or_bpe.pretokenizer)
            # ---- members' one-piece runs: run_cuts' class mode for the runs of every member
            # whose letter and punctuation runs split as cl100k's (chunk/member_runs.py); the
            # digit and whitespace rules keep _run_mode (they rest on cl100k/o200k's split)
            self._runs_mode = self._run_mode if self._run_mode is not None else member_runs_mode(
                enc_or_bpe.pretokenizer)
            # ----
        else:
            self._is_text = False
            self._bpe = enc_or_bpe
            self._hard_rule = None
            self._hard_boundaries = False
        budget_name = "max_tokens"
        if chunk_size is not None:
            if max_tokens is not None:
                raise TypeError("give max_tokens or chunk_size (its alias), not both")
            max_tokens, budget_name = chunk_size, "chunk_size"
        if max_tokens is None:
            raise TypeError("Chunker needs a token budget: max_tokens (or chunk_size=)")
        overlap_name = "overlap"
        if chunk_overlap is not None:
            if overlap:
                raise TypeError("give overlap or chunk_overlap (its alias), not both")
            overlap, overlap_name = chunk_overlap, "chunk_overlap"
        for name, value in ((budget_name, max_tokens), (overlap_name, overlap)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        if max_tokens < 1:
            raise ValueError(f"{budget_name} must be >= 1, got {max_tokens}")
        if overlap < 0 or overlap >= max_tokens:
            raise ValueError(
                f"{overlap_name} must be >= 0 and < {budget_name} ({max_tokens}), got {overlap}"
            )
        if isinstance(fill_floor, bool) or not isinstance(fill_floor, (int, float)) or not 0 <= fill_floor <= 1:
            raise ValueError(f"fill_floor must be a number in [0, 1], got {fill_floor!r}")
        if not isinstance(markdown, bool):
            raise TypeError(f"markdown must be True or False, got {markdown!r}")
        if context is not None and not (isinstance(context, str) or callable(context)):
            raise TypeError(
                f"context must be a str (a title) or a function of the heading path, got {type(context).__name__}"
            )
        if not self._is_text and (markdown or context is not None):
            raise ValueError("markdown= and context= need an Encoding (str chunks), not raw BPE")
        self.encoding = enc_or_bpe
        self.max_tokens = max_tokens
        self.overlap = overlap
        self.fill_floor = float(fill_floor)
        self._budget_name = budget_name
        self._markdown = markdown
        self._context = context
        self._subs = None
        if boundaries == "exact":
            self.levels: tuple[BoundaryLevel, ...] = ()
            self.boundaries = "exact"
        else:
            self.levels = resolve_levels(boundaries)
            self.boundaries = "semantic" if boundaries == "semantic" else "custom"
        self._semantic = self.boundaries != "exact"
        self._floor_tokens = max(1, math.ceil(self.fill_floor * max_tokens))
        # Semantic levels scan from the last piece boundary this far under the floor.
        self._scan_floor = self._floor_tokens - _SCAN_SLACK
        self._overlap_floor = max(1, math.ceil(self.fill_floor * overlap)) if overlap else 0
        # Past this many UTF-8 bytes from a chunk's start, no longer end can fit (a token
        # holds at most max_token_len bytes, or a whole-piece token's length, which can be more).
        self._byte_horizon = max_tokens * max(1, self._bpe.max_token_len,
                                              whole_longer_than(enc_or_bpe, 0) if self._is_text else 0)
        self._use_scan = self._is_text and enc_or_bpe.pat_str is not None
        # exact cuts in bulk (chunk_cuts.c) need rule 5 of chunk/counts.py: every member of the
        # family, with the rule its choices give (its HB_* flags)
        # (budgets whose byte horizon passes a C size take the Python steps: a budget that
        # large cuts the same chunks, and the compiled routines keep their sums in ssize_t)
        self._bulk_exact = (not self._semantic and self._use_scan and self._hard_boundaries
                            and self._bpe._core is not None and self._byte_horizon < _C_SIZES)
        # a pre-tokenizer that normalizes (Qwen's NFC): the chunks are of the text the model
        # sees, normalize(text), and their offsets are into it (the same as the input's
        # wherever the input is already normalized, as most text is)
        pretokenizer = enc_or_bpe.pretokenizer if self._is_text else None
        self._normal_form = pretokenizer.normalizer if pretokenizer is not None else None

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if "_hard_rule" not in state and state.get("_is_text"):
            # pickled before the rule was derived from the member's choices
            self._hard_rule = hard_rule(self.encoding.pretokenizer)  # type: ignore[union-attr]
            self._hard_boundaries = self._hard_rule is not None
            self._bulk_exact = self._bulk_exact and self._hard_boundaries

    @property
    def chunk_size(self) -> int:
        """The token budget (the same as ``max_tokens``)."""
        return self.max_tokens

    @property
    def markdown(self) -> bool:
        """Whether chunks carry their Markdown heading path."""
        return self._markdown

    @property
    def context(self) -> ContextArg | None:
        """The ``context=`` argument (None: chunks have no prefix)."""
        return self._context

    def _split_at(self, text, start: int) -> int:
        """Largest end from ``start`` whose exact count fits (a method, not a closure, so
        that a Chunker pickles)."""
        if self._is_text:
            return text_split_at(self.encoding, text, self.max_tokens, start)

        return bytes_split_at(self.encoding, text, self.max_tokens, start)

    def __repr__(self) -> str:
        return (
            f"Chunker({self.encoding!r}, {self.max_tokens}, overlap={self.overlap}, "
            f"boundaries={self.boundaries!r}, fill_floor={self.fill_floor})"
        )

    # ---------------------------------------------------------------- public API
    @overload
    def __call__(self, text: T) -> list[Chunk[T]]: ...

    @overload
    def __call__(self, text: list[T] | tuple[T, ...]) -> list[list[Chunk[T]]]: ...

    def __call__(self, text: T | list[T] | tuple[T, ...]) -> list[Chunk[T]] | list[list[Chunk[T]]]:
        """``chunks(text)`` for one text; a list of those for a list (or tuple) of texts."""
        if isinstance(text, (list, tuple)):
            return [self.chunks(t) for t in text]
        return self.chunks(text)

    def chunks(self, text: T) -> list[Chunk[T]]:
        """All chunks of ``text`` (str for an Encoding, bytes for a BytePairEncoding)."""
        if self._context is not None or self._markdown:
            return list(self.iter_chunks(text))
        out: list[Chunk[T]] = []
        for batch in self._plain_batches(self._check_input(text)):
            out.extend(batch)
        return out

    def iter_chunks(self, text: T) -> Iterator[Chunk[T]]:
        """Like :meth:`chunks`, lazily.

        A long text is fed to the streaming path in blocks of ``_BLOCK_CHARS``
        (same chunks, by the streaming guarantee), so the per-window counting
        state stays a few blocks long whatever the length of the text.
        """
        text = self._check_input(text)
        if self._context is not None:
            blocks = (text[i : i + _BLOCK_CHARS] for i in range(0, len(text), _BLOCK_CHARS))
            return self._context_run(blocks)
        chunks = chain.from_iterable(self._plain_batches(text))
        return _with_headings(chunks) if self._markdown else chunks

    def chunk_batch(self, texts: Iterable[T], *, workers: int | None = None,
                    progress: Callable[[int, int], object] | None = None) -> list[list[Chunk[T]]]:
        """``[self.chunks(t) for t in texts]``, in input order, spread over ``workers``
        (default: the CPU count): worker processes on a standard interpreter, threads on a
        free-threaded one (see :mod:`bpe_stream.chunk.batch`).  ``progress(done, total)``
        is called after each text.

        >>> chunker = Chunker("cl100k_base", 8)
        >>> chunker.chunk_batch(["one text", "and another one"], workers=1) == [
        ...     chunker.chunks("one text"), chunker.chunks("and another one")]
        True
        """
        return chunk_batch(self, texts, workers=workers, progress=progress)

    def chunk_stream(self, pieces: Iterable[T]) -> Iterator[Chunk[T]]:
        """The chunks of ``"".join(pieces)``, each yielded as soon as it is final.

        Offsets are global (into the joined text).  Memory stays bounded by a
        few chunks plus the look-ahead, whatever the total length.
        """
        if isinstance(pieces, (str, bytes, bytearray, memoryview)):
            raise TypeError("chunk_stream expects an iterable of pieces; use chunks() for one text")
        checked = (self._check_input(p) for p in pieces)
        if self._context is not None:
            return self._context_run(checked)
        chunks = chain.from_iterable(self._stream_batches(checked))
        return _with_headings(chunks) if self._markdown else chunks

    # The layers below hand over lists of chunks (batches), not single chunks: a compiled
    # call makes many chunks at once, and one generator step per batch per layer, instead of
    # one per chunk, keeps the Python cost per chunk to building it.  A batch is handed over
    # as soon as all its chunks are final, so iter_chunks and chunk_stream stay as lazy as
    # the calls that decide the chunks; chunks() just extends one list.
    def _plain_batches(self, text) -> Iterator[list[Chunk]]:
        if self._normal_form is not None:
            text = normalize(self._normal_form, fix_surrogates(text))
        elif self._is_text and _SURROGATE.search(text) is not None:
            yield from self._stream_batches([text])
            return
        if len(text) > 2 * _BLOCK_CHARS:
            blocks = (text[i : i + _BLOCK_CHARS] for i in range(0, len(text), _BLOCK_CHARS))
            yield from self._stream_clean(blocks, text[:0])
            return
        state = _State()
        yield from self._run(_Window(self.encoding, text, 0, True), state)

    # ---------------------------------------------------------- context prefixes
    def _context_for(self, headings: tuple[str, ...]) -> str:
        context = self._context
        if callable(context):
            prefix = context(headings)
            if not isinstance(prefix, str):
                raise TypeError(f"the context function must return a str, got {type(prefix).__name__}")
            return prefix
        return format_context(context or "", headings)

    def _sub_chunker(self, budget: int) -> Chunker[str]:
        """A chunker like this one (no prefix) with ``budget`` tokens, kept for reuse."""
        subs = self._subs
        if subs is None:
            subs = self._subs = {}
        sub = subs.get(budget)
        if sub is None:
            sub = Chunker(
                self.encoding,  # type: ignore[arg-type]  # context chunkers are str chunkers
                budget,
                overlap=min(self.overlap, budget - 1),
                boundaries=list(self.levels) if self._semantic else "exact",
                fill_floor=self.fill_floor,
            )
            subs[budget] = sub
        return sub

    def _context_run(self, pieces: Iterable[str]) -> Iterator[Chunk[Any]]:
        """Chunks whose prefix is counted inside the budget.

        The chunk from ``s`` is the first chunk, from ``s``, of a chunker like this one
        with budget ``b``: first ``b = max_tokens - count(prefix)``, then, while
        ``count(prefix + text)`` is over ``max_tokens``, ``b`` lowered by the excess
        (a chunk depends only on the text from its start, so this is the same whether
        the text is whole or streamed).  The next chunk starts where that chunker's
        second chunk starts (its overlap rule), or at the end.
        """
        enc = self.encoding
        assert isinstance(enc, Encoding)
        max_tokens = self.max_tokens
        tracker = HeadingTracker() if self._markdown else None
        held = _Held(pieces, tracker)
        s = 0
        prev_end = 0
        while True:
            while s >= held.end():
                if not held.pull():
                    return
            headings: tuple[str, ...] = ()
            if tracker is not None:
                path = tracker.path_at(s)
                while path is None:
                    held.pull()
                    path = tracker.path_at(s)
                headings = path
            prefix = self._context_for(headings)
            prefix_count = enc.count(prefix)
            budget = max_tokens - prefix_count
            while True:
                if budget < 1:
                    raise ValueError(
                        f"the context {prefix!r} needs {prefix_count} tokens, which leaves no room "
                        f"for text within {self._budget_name}={max_tokens}"
                    )
                stream = self._sub_chunker(budget).chunk_stream(held.blocks(s, max(1024, 8 * budget)))
                try:
                    first = next(stream)
                except CharacterOverBudget as e:
                    raise CharacterOverBudget(
                        f"{e.character!r} at position {s + e.position} needs {e.tokens} tokens, "
                        f"more than the {budget} that the context {prefix!r} leaves of "
                        f"{self._budget_name}={max_tokens}; it cannot fit in any chunk",
                        e.character, s + e.position, e.tokens, budget,
                    ) from None
                total = enc.count(prefix + first.text) if prefix else first.token_count
                if total <= max_tokens:
                    break
                budget -= total - max_tokens
            end = s + first.end
            if end <= prev_end:  # from the overlap start no chunk reaches past the previous one
                s = prev_end
                continue
            next_start = end
            at_end = held.exhausted and end >= held.end()
            if self.overlap and not at_end:
                try:
                    second = next(stream, None)
                except ValueError:
                    second = None
                if second is not None:
                    next_start = s + second.start
            yield Chunk(first.text, s, end, first.token_count, headings, prefix, total)
            if at_end:
                return
            prev_end = end
            s = next_start
            held.drop_before(s)

    # -------------------------------------------------------------- internals
    def _check_input(self, text):
        if self._is_text:
            if isinstance(text, str):
                return text
            if isinstance(text, (bytes, bytearray, memoryview)):
                raise TypeError("this Chunker uses an Encoding and chunks str; decode the bytes first")
            raise TypeError(f"expected str, got {type(text).__name__}")
        if isinstance(text, bytes):
            return text
        if isinstance(text, (bytearray, memoryview)):
            return bytes(text)
        if isinstance(text, str):
            raise TypeError("this Chunker uses a BytePairEncoding and chunks bytes; encode the str first")
        raise TypeError(f"expected bytes, got {type(text).__name__}")

    def _stream_batches(self, pieces: Iterable) -> Iterator[list[Chunk]]:
        if self._normal_form is not None:
            yield from self._stream_clean(_normalized_pieces(pieces, self._normal_form), "")
            return
        if self._is_text:
            yield from _SurrogateMapper(self).run(pieces)
            return
        yield from self._stream_clean(pieces, b"")

    def _stream_clean(self, pieces: Iterable, empty) -> Iterator[list[Chunk]]:
        """Chunk clean pieces (no surrogates in str); global offsets into their concatenation.
        Yields batches of chunks (lists, in order)."""
        state = _State()
        held = empty  # text from global offset `base`
        base = 0
        pending: list = []
        pending_len = 0
        need = 0  # attempt again once held + pending reaches this length
        for piece in pieces:
            if not piece:
                continue
            pending.append(piece)
            pending_len += len(piece)
            if len(held) + pending_len < need:
                continue
            held = held[state.start - base :] + empty.join(pending)
            base = state.start
            pending.clear()
            pending_len = 0
            window = _Window(self.encoding, held, base, False)
            yield from self._run(window, state)
            # Not enough text to decide the next chunk: wait until the held text doubles.
            held_len = len(held) - (state.start - base)
            need = (state.start - base) + max(2 * held_len, held_len + 256)
            # ---- periodic text: the replay met the held text's end (steps recorded on trust):
            # hold several of its reaches before the next attempt, so that the replay, not the
            # steps, makes most of each window's chunks (chunk/periodic_step.py)
            replay = state.replay
            if replay is not None and replay.trust_end is not None:
                need = max(need, (state.start - base) + min(8 * replay.horizon, 2 * replay.default_horizon))
            # ---- end of periodic text
        held = held[state.start - base :] + empty.join(pending)
        base = state.start
        if held or not state.done:
            yield from self._run(_Window(self.encoding, held, base, True), state)

    # ---- periodic text: the replay's horizon per unit (chunk/periodic_reach.py argues it)
    def _periodic_reach(self):
        """``unit -> horizon`` for the replay in text of that period, or None (the byte horizon)."""
        enc = self.encoding
        if getattr(enc, "_normalize", None) is not None or not hasattr(enc, "bpe"):
            return None  # offsets into normalized text: the bound is argued for the text as given
        max_tokens, token_bytes = self.max_tokens, self._byte_horizon // self.max_tokens
        return lambda unit: unit_horizon(enc, unit, max_tokens, token_bytes, LOOKAHEAD)
    # ---- end of periodic text

    def _run(self, window: _Window, state: _State) -> Iterator[list[Chunk]]:
        """Emit every chunk the window decides, in batches (lists, in order); stop when it
        needs more text or the input ends."""
        text = window.text
        base = window.base
        n = len(text)
        bulk = _exact_cuts if self._bulk_exact else None
        whole = _whole_tokens(self.encoding) if bulk is not None else None
        spec = _split_spec(self.encoding) if bulk is not None and self._counted_cuts else -1
        # chunks inside long one-piece runs (letters, punctuation) from chunk_runs.c
        run_mode = self._run_mode if bulk is not None and _run_cuts is not None else None
        # (run_overlap_start goes with run_cuts: the tests turn both off through _run_cuts)
        # ---- members' one-piece runs (see __init__)
        runs_mode = self._runs_mode if bulk is not None and _run_cuts is not None else None
        # ----
        whole_max = whole_longer_than(self.encoding, 0) if runs_mode is not None else 0
        # ---- members' whitespace stretches (see _ws_member)
        ws_mode = run_mode is not None or (bulk is not None and self._ws_member)
        if ws_mode and runs_mode is None:
            whole_max = whole_longer_than(self.encoding, 0)
        # ----
        digit_mode = self._digit_runs(bulk is not None)
        if (self._semantic and self._use_scan and self._hard_boundaries and _exact_cuts is not None
                and self._bpe._core is not None and self._byte_horizon < _C_SIZES):
            # semantic steps: e_max from exact_cuts (see _plan), with exact mode's arguments
            # (budgets whose sums stay far inside a C size; larger ones take ChunkView.cut)
            window.semantic_cut = (self._bpe._core, self._hard_rule.flags, _whole_tokens(self.encoding),
                                   _split_spec(self.encoding) if self._counted_cuts else -1)
        # periodic text (a run of one character or of a short unit): steps repeat, replayed
        replay = state.replay
        if replay is not None:
            replay.rebase(base)
        elif self._is_text:
            replay = state.replay = PeriodicReplay(self._byte_horizon + LOOKAHEAD + 2, base, self._periodic_reach())
        while not state.done:
            s = state.start - base
            if s >= n and window.final:
                state.done = True
                return
            if replay is not None:
                if replay.p < 0 and replay.wait:
                    replay.wait -= 1  # (the back-off of at, without the call)
                    repeated = None
                else:
                    repeated = replay.at(text, n, s, state.min_end - base)
                if repeated is not None:
                    cuts, next_start, min_end = repeated
                    yield self._cut_chunks(text, base, cuts)
                    state.start = base + next_start
                    state.min_end = base + min_end
                    if replay.reaches_end(n, next_start) and not window.final:
                        return  # decided with the next block held, the replay goes on there
                    continue
            # ---- digit runs: the chunks inside a run of ASCII digits by rule (digit_runs.c; its
            # twin chunk/digit_runs.py argues it), before any prefix sums of the window.
            if digit_mode and s < n and "0" <= text[s] <= "9":
                cuts, next_start, min_end, need_more = _digit_cuts(text, s, state.min_end - base, self.max_tokens,
                                                                   self.overlap, window.final, LOOKAHEAD)
                if need_more and not cuts:
                    return  # the run reaches the held text's end: more digits may follow
                if cuts:
                    yield self._cut_chunks(text, base, cuts)
                    if self._past_cuts(window, state, replay, cuts, next_start, min_end):
                        return
                    continue
            # ----
            if runs_mode is not None and not periodic_probe(text, s):
                # The chunks inside a one-piece run from s (the same chunks as the steps below
                # take in ChunkView's run mode; chunk_runs.c says where it stops), first: a
                # window inside a run then needs no prefix sums (a full count of the window).
                # Periodic text ('!' * n, NUL) is left to the steps, whose chunks the replay
                # above repeats at a fraction of a table pass per chunk.
                cuts, next_start, min_end, need_more = _run_cuts(self._bpe._core, text, s, state.min_end - base,
                                                                 self.max_tokens, self.overlap, window.final, LOOKAHEAD,
                                                                 runs_mode, whole_max, whole)
                if need_more and not cuts:
                    return  # as _plan would: the chunk from s needs more text
                if cuts:
                    yield self._cut_chunks(text, base, cuts)
                    if self._past_cuts(window, state, replay, cuts, next_start, min_end):
                        return
                    if need_more:
                        return  # the chunk from the new start waits for more text (run_cuts said so)
                    continue
            # ---- whitespace stretches (chunk_ws.c): the chunks inside a stretch of whitespace
            # from s, counted by the two-part rule of text/whitespace_pieces.py (for vocabularies
            # where it holds) without prefix sums; periodic stretches are left to the replay
            # above, as for run_mode.
            # (no whole-piece tokens: cl100k's one piece w may be one while w[N:] is not a piece;
            # stretches of 64 characters or more: shorter ones, as in code, cost a call each)
            if (ws_mode and _ws_cuts is not None and not whole_max
                    and text[s : s + _WS_MIN].isspace() and s + _WS_MIN <= n
                    and not periodic_probe(text, s) and line_break_split_holds(self.encoding)):
                cuts, next_start, min_end, need_more = _ws_cuts(self._bpe._core, text, s, state.min_end - base,
                                                                self.max_tokens, self.overlap, window.final,
                                                                LOOKAHEAD, self._byte_horizon, whole_max, whole)
                if need_more and not cuts:
                    return  # as _plan would: the chunk from s needs more text
                if cuts:
                    yield self._cut_chunks(text, base, cuts)
                    if self._past_cuts(window, state, replay, cuts, next_start, min_end):
                        return
                    continue
            # ---- end of whitespace stretches
            # ---- periodic text: a step inside a stretch the replay holds reads only its unit's
            # reach (chunk/periodic_step.py), so it is taken on that much text, not the window
            reach_end = step_end(replay, n, s)
            step_window = window if reach_end < 0 else _Window(self.encoding, text[s:reach_end], base + s, True)
            # ---- end of periodic text
            if bulk is not None and step_window is window:
                # The chunks that the prefix sums decide, from the compiled core in one call
                # (the same chunks as the steps below; chunk_cuts.c says which ones).
                tc = window.text_counts()
                cuts, next_start, min_end, need_more = bulk(self._bpe._core, text, tc.bounds, tc.cum, s, state.min_end - base,
                                                 self.max_tokens, self.overlap, self._byte_horizon, window.final,
                                                 LOOKAHEAD, self._hard_rule.flags, whole, spec)
                if cuts:
                    yield self._cut_chunks(text, base, cuts)
                    if self._past_cuts(window, state, replay, cuts, next_start, min_end):
                        return
                    continue
                if need_more:
                    return  # as _plan would: the chunk from s needs more text
            if step_window is window:
                planned = self._plan(window, s, state.min_end - base)
            else:  # (periodic text: the step on its reach, offsets back into the window)
                planned = self._plan(step_window, 0, state.min_end - base - s)
                if planned is not None:
                    planned = (s + planned[0], planned[1])
            if planned is _NEED_MORE:
                return
            if planned is None:
                if state.start < state.min_end:
                    # The overlap start cannot reach past the previous chunk: drop the overlap.
                    state.start = state.min_end
                    continue
                raise self._character_too_long(window, s)
            end, token_count = planned
            if replay is not None and replay.p >= 0:
                replay.made([s, end, token_count])
            yield [_plain_chunk(text[s:end], base + s, base + end, token_count)]
            if end >= n and window.final:
                state.done = True
                return
            if not self.overlap:
                next_start = end
            elif step_window is window:
                next_start = self._overlap_start(window, s, end)
            else:
                next_start = s + self._overlap_start(step_window, 0, end - s)
            state.start = base + next_start
            state.min_end = base + end

    def _past_cuts(self, window: _Window, state: _State, replay, cuts: list[int], next_start: int,
                   min_end: int) -> bool:
        """Moves ``state`` past the chunks of the flat ``cuts`` a compiled routine made (local
        offsets; the next chunk starts at ``next_start``, or, at -1, at the overlap start
        after the last one) and tells the replay of them; True when they end the input."""
        if replay is not None and replay.p >= 0:
            replay.made(cuts)
        cs, ce = cuts[-3], cuts[-2]
        if ce >= len(window.text) and window.final:
            state.done = True
            return True
        base = window.base
        state.min_end = base + min_end
        state.start = base + (next_start if next_start >= 0 else self._overlap_start(window, cs, ce))
        return False

    @staticmethod
    def _cut_chunks(text, base: int, cuts):
        """The chunks of flat ``[s, e, count, ...]`` cuts of ``text`` (offsets local to it), or
        of a replay's ``RepeatedCuts``."""
        if type(cuts) is RepeatedCuts:
            if _make_chunks is not None:
                return _make_chunks(Chunk, _CHUNK_FIELDS, text, base, cuts.cuts, cuts.shift, cuts.total)
            cuts = cuts.flat()
        if _make_chunks is not None:
            return _make_chunks(Chunk, _CHUNK_FIELDS, text, base, cuts)
        return [_plain_chunk(text[cuts[i] : cuts[i + 1]], base + cuts[i], base + cuts[i + 1], cuts[i + 2])
                for i in range(0, len(cuts), 3)]

    def _plan(self, window: _Window, s: int, min_end: int):
        """The chunk starting at ``s`` that ends after ``min_end``: ``(end, count)``.

        ``None`` if no end past ``min_end`` fits; ``_NEED_MORE`` if the held text
        cannot decide yet.
        """
        text = window.text
        n = len(text)
        # ---- periodic text: in exact mode, a text periodic from s to its end (a step on its
        # unit's reach, the text's last chunks, a held window) is cut from its unit's period
        # when it splits into a short head and one long piece (chunk/periodic_counts.py); a
        # held window shorter than the unit's reach waits for more text
        cut = None
        if self._use_scan and not self._semantic and periodic_probe(text, s):
            reach = None if window.final else self._periodic_reach()
            if window.final or reach is not None:
                cut = periodic_cut(self.encoding, text, s, self.max_tokens, reach)
                if cut is PERIODIC_WAIT:
                    return _NEED_MORE
        if cut is not None:
            e_max, e_count = cut
            count_from_s = scan_from = None
        # ---- end of periodic text
        elif self._use_scan:
            tc = window.text_counts()
            view = None
            semantic_cut = window.semantic_cut
            if semantic_cut is not None and self._level_walk:
                # From a piece boundary, e_max is the exact chunker's cut (exact_cuts for one
                # chunk: the cut ChunkView.cut finds, compiled; when it leaves the chunk open,
                # as for an end not past min_end or text not held yet, the view decides).
                bounds = tc.bounds
                gi = bisect_left(bounds, s)
                if gi < len(bounds) and bounds[gi] == s:
                    core, flags, whole, spec = semantic_cut
                    cuts = _exact_cuts(core, text, bounds, tc.cum, s, min_end, self.max_tokens, 0,
                                       self._byte_horizon, window.final, LOOKAHEAD, flags, whole, spec, 1)[0]
                    if cuts:
                        view = ChunkView.synced(tc, gi, self.max_tokens, self._scan_floor)
                        cut = cuts[1], cuts[2]
            if view is None:
                view = ChunkView(tc, s, self.max_tokens, self._scan_floor)
                cut = view.cut(window.final, self._byte_horizon)
            if cut is NEED_MORE:
                return _NEED_MORE
            e_max, e_count = cut
            count_from_s = view.count
            scan_from = view.scan_start if self._semantic else None
        else:
            scan_from = None
            raw_max = self._split_at(text, s)
            if not window.final and not self._certified(text, s, raw_max):
                return _NEED_MORE
            e_max, e_count = self._fit_back(window, s, raw_max)

            def count_from_s(c: int) -> int:
                return window.count(s, c)

        if not window.final and e_max + LOOKAHEAD > n:
            return _NEED_MORE
        if e_max <= min_end:
            return None
        if e_max == n or not self._semantic:
            return e_max, (e_count if e_count is not None else count_from_s(e_max))
        hi = min(n, e_max + LOOKAHEAD)
        floor = self._floor_tokens
        max_tokens = self.max_tokens
        lo = scan_from(e_max) if scan_from is not None else s
        # each level's positions in (lo, e_max], last first (level_walk.py: the same
        # positions as the level's scan of text[lo:hi], read lazily)
        walk = _descending if self._level_walk else _positions_descending
        for level in self.levels:
            for c in walk(level, text, lo, hi, e_max):
                if c <= min_end:
                    break
                if not self._is_cut(text, c):
                    continue
                k = count_from_s(c)
                if k > max_tokens:
                    continue
                if k < floor:
                    break
                return c, k
        # Character level: the last grapheme boundary that fits, else the exact cut.
        if self._is_text:
            lo = max(s, e_max - _GRAPHEME_LOOKBACK)
            c = (_grapheme_before if self._level_walk else _grapheme_before_scan)(text, lo, hi, e_max)
            if c > min_end and c > s:
                k = count_from_s(c)
                if k <= max_tokens:
                    return c, k
        return e_max, (e_count if e_count is not None else count_from_s(e_max))

    def _fit_back(self, window: _Window, s: int, e: int):
        """Move ``e`` back to a cut position whose chunk fits; ``(e, count or None)``."""
        text = window.text
        if self._is_cut(text, e):
            return e, None
        while e > s:
            e -= 1
            if self._is_cut(text, e):
                k = window.count(s, e) if e > s else 0
                if k <= self.max_tokens:
                    return e, k
        return s, 0

    def _is_cut(self, text, c: int) -> bool:
        if self._is_text or c >= len(text):
            return True  # str input is surrogate-free here, so every index is a code point boundary
        return (text[c] & 0xC0) != 0x80

    def _certified(self, text, s: int, raw_max: int) -> bool:
        """Whether no end beyond the held text can fit (see the module docstring)."""
        n = len(text)
        if self._hard_boundaries and self._hard_rule.hard_at.search(text, max(s, raw_max)) is not None:
            return True
        horizon = self._byte_horizon
        if n - s > horizon:  # at least one byte per character
            return True
        if self._is_text:
            if 4 * (n - s) <= horizon:  # at most four bytes per character
                return False
            return len(text[s:].encode("utf-8")) > horizon
        return False

    # ---- digit runs
    def _digit_runs(self, bulk_exact: bool) -> bool:
        """Whether chunks inside ASCII digit runs come by rule (exact mode, compiled core,
        cl100k/o200k split, every 1-3 digit string one token: chunk/digit_runs.py)."""
        return (bulk_exact and _digit_cuts is not None and _digit_overlap_start is not None and self._is_text
                and self._run_mode is not None and digits_one_token(self.encoding))
    # ----

    def _overlap_start(self, window: _Window, s: int, e: int) -> int:
        """Where the chunk after ``[s, e)`` starts: inside it, repeating at most ``overlap`` tokens.

        The earliest start ``i0`` whose suffix fits is exact: for pre-split text
        ``SuffixView.earliest_start`` (prefix sums and hard boundaries, see
        :mod:`bpe_stream.chunk.counts`), else ``split_at_start``.  Semantic mode
        then moves to a level's cut position at or after ``i0``, verifying its
        count (a short suffix of at most ``overlap`` tokens); levels see
        ``text[x:e]`` with ``x = max(s, i0 - 32)`` (only positions from ``i0`` on are used).
        """
        k = self.overlap
        text = window.text
        i0 = None
        # ---- digit runs: a chunk ending in ASCII digits, the start by rule (digit_runs.c)
        if self._is_text and "0" <= text[e - 1] <= "9" and self._digit_runs(self._bulk_exact):
            i0 = _digit_overlap_start(text, s, e, k)
            if i0 >= 0:
                return i0
            i0 = None
        # ----
        # ---- members' digit groups: the same start by rule for every member whose digits
        # are \p{N}{1,3} groups that nothing else takes (chunk/digit_runs.py,
        # digit_groups_member), in every mode: exact mode takes it, semantic mode moves on
        # from it to a level's cut (instead of re-splitting the suffix of every candidate)
        digit_i0 = None
        if (self._is_text and k > 0 and "0" <= text[e - 1] <= "9"
                and digit_groups_member(self.encoding.pretokenizer) and digits_one_token(self.encoding)):
            p = (_digit_overlap_start or _py_digit_overlap_start)(text, s, e, k)
            if p >= 0:
                if not self._semantic:
                    return p
                digit_i0 = p
        # ----
        if (self._bulk_exact and _exact_cuts is not None and _run_cuts is not None
                and self._runs_mode is not None):
            # a chunk ending in a one-piece run: the exact start from chunk_runs.c (as the
            # steps below find it, without the Python suffix encoder)
            enc = self.encoding
            i0 = _run_overlap_start(self._bpe._core, text, s, e, k, self._runs_mode, whole_longer_than(enc, 0),
                                    _whole_tokens(enc))
            if i0 >= 0:
                return i0
            i0 = None
        # ---- periodic text: a chunk that splits into a short head and one long piece per phase
        # of its unit, the start from the unit's period (chunk/periodic_counts.py), before the
        # suffix view (whose set-up reads the window; semantic mode needs its counts below)
        if self._use_scan and not self._semantic and digit_i0 is None:
            i0 = periodic_overlap_start(self.encoding, text, s, e, k)
            if i0 is not None and i0 > s:
                return i0
        # ----
        if self._use_scan:
            suffix = SuffixView(window.text_counts(), e)
            count_to_e = suffix.count
            i0 = digit_i0 if digit_i0 is not None else suffix.earliest_start(s, k)
        else:
            enc = self.encoding

            def count_to_e(p: int) -> int:
                return enc.count(text[p:e])

        if i0 is None:
            i0 = digit_i0
        # ---- periodic text (semantic mode; see above)
        if i0 is None and self._use_scan and self._semantic:
            i0 = periodic_overlap_start(self.encoding, text, s, e, k)
        # ----
        if i0 is None:
            part = text[s:e]
            if self._is_text:
                i0 = s + text_split_at_start(self.encoding, part, k)
            else:
                i0 = s + bytes_split_at_start(self.encoding, part, k)
                while i0 < e and not self._is_cut(text, i0):
                    i0 += 1
        i0 = max(i0, s + 1)
        if self._semantic:
            best = None
            lo = max(s, i0 - _OVERLAP_CONTEXT)
            for level in self.levels:
                # the level's positions in [i0, e), first first: from the walk (level_walk.py:
                # those of the scan of text[lo:e], read only as far as the search goes), or
                # the scan itself (the reference)
                ups = _ascending(level, text, lo, e, i0) if self._level_walk else level.positions(text, lo, e)
                for p in ups:
                    if p < i0 or not self._is_cut(text, p):
                        continue
                    if p >= e:
                        break
                    c = count_to_e(p)
                    if c > k:
                        continue
                    if c >= self._overlap_floor:
                        return p
                    if best is None or p < best:
                        best = p
                    break
            if best is not None:
                return best
        while i0 < e and (not self._is_cut(text, i0) or count_to_e(i0) > k):
            i0 += 1
        return i0

    @staticmethod
    def _earliest_fitting(positions: Sequence[int], e: int, k: int, count) -> int | None:
        """The earliest ``p`` in ``positions`` (ascending) with ``count(p, e) <= k``.

        Binary search as if counts fell monotonically with ``p``, then a walk to
        the right until a position verifies exactly: the result always fits.
        """
        lo, hi = 0, len(positions)
        if hi == 0:
            return None
        while lo < hi:
            mid = (lo + hi) // 2
            if count(positions[mid], e) <= k:
                hi = mid
            else:
                lo = mid + 1
        for i in range(lo, len(positions)):
            if count(positions[i], e) <= k:
                return positions[i]
        return None

    def _character_too_long(self, window: _Window, s: int) -> CharacterOverBudget:
        text = window.text
        if self._is_text:
            ch = text[s]
            n = window.count(s, s + 1)
            what = f"character {ch!r} (U+{ord(ch):04X})"
            where = f"position {window.base + s}"
        else:
            end = s + 1
            while end < len(text) and (text[end] & 0xC0) == 0x80 and end - s < 4:
                end += 1
            ch = text[s:end]
            n = window.count(s, end)
            try:
                what = f"character {ch.decode('utf-8')!r} (bytes {ch!r})"
            except UnicodeDecodeError:
                what = f"byte sequence {ch!r}"
            where = f"byte offset {window.base + s}"
        return CharacterOverBudget(
            f"{what} at {where} needs {n} tokens, more than {self._budget_name}={self.max_tokens}; "
            "it cannot fit in any chunk",
            ch, window.base + s, n, self.max_tokens,
        )


class _SurrogateMapper:
    """Chunk str pieces that may hold surrogate code units.

    ``Encoding`` counts text after joining surrogate pairs and replacing lone
    surrogates with U+FFFD (as tiktoken does).  The chunker works on that clean
    text, in which each character stands for one or two units of the input, and
    maps offsets back; cuts therefore never fall inside a surrogate pair, and
    each chunk's text is the input's own slice.  For surrogate-free input the
    mapping is the identity and the pieces pass through untouched.
    """

    def __init__(self, chunker: Chunker):
        self.chunker = chunker
        self.pairs: list[int] = []  # clean offsets of characters that were surrogate pairs
        self.dirty = False  # some piece held a surrogate: chunk texts come from `held`
        self.held: deque[str] = deque()  # raw pieces from input offset `held_base`
        self.held_base = 0

    def _clean(self, pieces: Iterable[str]) -> Iterator[str]:
        carry = ""
        clean_pos = 0
        for piece in pieces:
            if carry:
                piece, carry = carry + piece, ""
            if piece and "\ud800" <= piece[-1] <= "\udbff":
                carry, piece = piece[-1], piece[:-1]  # may pair with the next piece's first unit
            if not piece:
                continue
            self.held.append(piece)
            if _SURROGATE.search(piece) is None:
                clean_pos += len(piece)
                yield piece
                continue
            self.dirty = True
            clean = fix_surrogates(piece)
            j = 0
            for i, ch in enumerate(clean):
                if ord(ch) > 0xFFFF and piece[j] != ch:  # joined from two units
                    self.pairs.append(clean_pos + i)
                    j += 2
                else:
                    j += 1
            clean_pos += len(clean)
            yield clean
        if carry:
            self.held.append(carry)
            self.dirty = True
            yield fix_surrogates(carry)

    def _to_input(self, clean_offset: int) -> int:
        return clean_offset + bisect_right(self.pairs, clean_offset - 1)

    def _release_before(self, start: int) -> None:
        held = self.held
        while held and self.held_base + len(held[0]) <= start:
            self.held_base += len(held.popleft())

    def run(self, pieces: Iterable[str]) -> Iterator[list[Chunk]]:
        """The batches of chunks of ``"".join(pieces)``, offsets and texts the input's own."""
        batches = self.chunker._stream_clean(self._clean(pieces), "")
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                return
            except CharacterOverBudget as e:
                # the refusal names the caller's offset, not the one after joining pairs
                pos = self._to_input(e.position)
                message = str(e).replace(f"position {e.position} ", f"position {pos} ", 1)
                raise CharacterOverBudget(message, e.character, pos, e.tokens, e.budget) from None
            # (dirty changes only while the pieces are read, inside next(batches): one
            # answer for the whole batch; releases are monotone, so the last start does)
            if not self.dirty:
                self._release_before(batch[-1].start)
                yield batch
                continue
            mapped = []
            for chunk in batch:
                start = self._to_input(chunk.start)
                end = self._to_input(chunk.end)
                self._release_before(start)
                if len(self.held) > 1:
                    joined = "".join(self.held)
                    self.held.clear()
                    self.held.append(joined)
                text = self.held[0][start - self.held_base : end - self.held_base]
                mapped.append(_plain_chunk(text, start, end, chunk.token_count))
            yield mapped


def _normalized_pieces(pieces: Iterable[str], form: str) -> Iterator[str]:
    """``normalize(form, fix_surrogates("".join(pieces)))``, piece by piece: each piece is
    cut at its last normalization boundary (the rest waits for the next piece) and a
    lone high surrogate at its end waits to pair with the next piece's first unit."""
    held = ""
    for piece in pieces:
        held += piece
        if held and "\ud800" <= held[-1] <= "\udbff":
            text, tail_unit = held[:-1], held[-1]
        else:
            text, tail_unit = held, ""
        text = fix_surrogates(text)
        p = last_boundary(text, 0, len(text), form)
        if p > 0:
            yield normalize(form, text[:p])
        held = text[p:] + tail_unit
    if held:
        yield normalize(form, fix_surrogates(held))


class _Held:
    """Text of a stream from global offset ``base``, pulled in as needed (context mode)."""

    __slots__ = ("_it", "text", "base", "exhausted", "_tracker")

    def __init__(self, pieces: Iterable[str], tracker: HeadingTracker | None):
        self._it = iter(pieces)
        self.text = ""
        self.base = 0
        self.exhausted = False
        self._tracker = tracker

    def end(self) -> int:
        return self.base + len(self.text)

    def pull(self, want: int = 4096) -> bool:
        """Read about ``want`` more characters; False once the stream has ended."""
        if self.exhausted:
            return False
        parts = []
        got = 0
        for piece in self._it:
            if piece:
                parts.append(piece)
                got += len(piece)
                if got >= want:
                    break
        else:
            self.exhausted = True
        if parts:
            joined = "".join(parts)
            self.text += joined
            if self._tracker is not None:
                self._tracker.feed(joined)
        if self.exhausted and self._tracker is not None:
            self._tracker.finish()
        return bool(parts) or not self.exhausted

    def blocks(self, s: int, step: int) -> Iterator[str]:
        """The text from global offset ``s`` on, in slices of at most ``step`` characters."""
        i = s
        while True:
            while i >= self.end():
                if not self.pull():
                    return
            j = min(self.end(), i + step)
            yield self.text[i - self.base : j - self.base]
            i = j

    def drop_before(self, s: int) -> None:
        if s > self.base:
            self.text = self.text[s - self.base :]
            self.base = s


def _with_headings(chunks: Iterator[Chunk[str]]) -> Iterator[Chunk[str]]:
    """``chunks`` with their Markdown heading paths (read from the chunks' own text)."""
    tracker = HeadingTracker()
    fed = 0
    pending: deque[Chunk[str]] = deque()
    for c in chunks:
        if c.end > fed:
            tracker.feed(c.text[fed - c.start :])
            fed = c.end
        pending.append(c)
        while pending:
            path = tracker.path_at(pending[0].start)
            if path is None:
                break
            yield replace(pending.popleft(), headings=path)
    tracker.finish()
    for c in pending:
        yield replace(c, headings=tracker.path_at(c.start) or ())
