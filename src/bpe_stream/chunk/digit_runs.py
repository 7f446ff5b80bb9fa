"""Exact chunks inside runs of ASCII digits, by rule (the reference of ``_native/digit_runs.c``).

Invariant.  For the cl100k and o200k members (``CL100K_PATTERN``, ``O200K_PATTERN``)
with a vocabulary in which every string of one to three ASCII digits is one token
(``digits_one_token``: both bundled encodings), a string ``d`` of ASCII digits
counts ``ceil(len(d) / 3)``: the members split a run of ``\\p{N}`` characters into
``\\p{N}{1,3}`` pieces from its first character, and no other alternative of their
patterns matches a ``\\p{N}`` character, so a chunk (or suffix) that starts inside a run
regroups its digits by threes from its own start.  Two consequences, argued in
docs/design/chunker.md ("Digit runs"):

* cut: if ``text[s : s + 3b]`` is all ASCII digits, the exact chunk from ``s`` with
  budget ``b`` ends at ``s + 3b`` with ``b`` tokens, whatever follows (a longer text
  either continues the ``\\p{N}`` run, one more group, or ends it, where a piece ends);
* overlap start: if ``s < e - 3k`` and ``text[e - 3k : e]`` is all ASCII digits, the
  earliest start inside ``[s, e)`` whose suffix to ``e`` holds at most ``k`` tokens is
  ``e - 3k`` (one character earlier makes ``k + 1`` groups, each at least one token).

``digit_cuts`` makes the chunks of the exact chunker (``boundaries="exact"``) from a
start inside a digit run for as long as the rule decides them, and says where the
Python steps take over; ``digit_overlap_start`` is the overlap start alone.  O(run)
per call: one scan to the run's end, then O(1) per chunk.

Members' digit groups.  The overlap start needs less than the cuts: only that every
``\\p{N}`` character lies in a ``\\p{N}{1,3}`` piece grouped from its run's first
character, and that no piece holds a digit and anything else.  ``digit_groups_member``
says which members split so (argued from their choices in docs/design/chunker.md,
"Digit runs"): the single-regex members with ``digits="one-to-three"`` and no digit lead
(cl100k, Llama 3, o200k: their letter leads, punctuation and whitespace classes all
exclude ``\\p{N}``), and DeepSeek-V3, whose chain isolates ``\\p{N}{1,3}`` first (its
later splits find no letter, punctuation or whitespace in a digit piece, so they keep it
whole).  For them a suffix ``text[i:e]`` with ``i < e - 3k`` and ``text[e - 3k : e]`` ASCII
digits holds more than ``k`` pieces: either ``i`` is inside the run (more than ``3k``
digits to ``e``, more than ``k`` groups), or before it (``k`` groups at least, plus a
piece before the run); so ``e - 3k`` (``k`` groups of three, ``k`` tokens) is the
earliest start, in every boundary mode.
"""

from __future__ import annotations

import re

from ..pretokenize.family import _DEEPSEEK_V3_MAIN

__all__ = ["digit_cuts", "digit_groups_member", "digit_overlap_start", "digits_one_token"]

_DIGIT_RUN = re.compile(r"[0-9]*")
_ALL_SHORT_DIGITS = [str(i).zfill(width) for width in (1, 2, 3) for i in range(10**width)]
_ONE_TOKEN: dict[int, tuple[object, bool]] = {}  # id(encoding) -> (encoding, answer)


def digit_groups_member(member) -> bool:
    r"""Whether ``member`` splits every ``\p{N}`` run into ``\p{N}{1,3}`` groups from its first
    character, each a piece of its own (see the module docstring; cached on the member)."""
    if member is None or not member.known:
        return False
    if member.pre_splits:
        return member.pre_splits[0] == r"\p{N}{1,3}" and member.main == _DEEPSEEK_V3_MAIN
    return member.main is None and member.digits == "one-to-three" and not member.digit_lead


def digits_one_token(enc) -> bool:
    """Whether every string of one to three ASCII digits is one token of ``enc`` (cached)."""
    held = _ONE_TOKEN.get(id(enc))
    if held is not None and held[0] is enc:
        return held[1]
    # The compiled core's tokens are those BPE produces from their own bytes (unreachable
    # ones are kept aside), so a string it ranks counts 1 as a piece: a look-up each, where
    # counting the 1,110 strings cold costs more than counting a megabyte of digits.
    core = getattr(getattr(enc, "bpe", None), "_core", None)
    if core is not None:
        answer = all(core.rank(d.encode("ascii")) is not None for d in _ALL_SHORT_DIGITS)
    else:
        answer = all(enc.count(d) == 1 for d in _ALL_SHORT_DIGITS)
    _ONE_TOKEN[id(enc)] = (enc, answer)
    return answer


def digit_cuts(text: str, start: int, min_end: int, max_tokens: int, overlap: int, final: bool,
               lookahead: int) -> tuple[list[int], int, int, bool]:
    """The exact chunks from ``start`` that the digit rule decides: ``(cuts, next_start, min_end, need_more)``.

    ``cuts`` is flat ``[s, e, count, ...]``; ``next_start`` the start of the chunk after
    the last one made (its overlap start, or its end without overlap); ``min_end`` the
    last chunk's end; ``need_more`` is true when the chunk from ``next_start`` lies in a
    digit run that reaches the end of the held text (not ``final``), which more text
    decides (the run may go on).  No chunk is made when its end would not pass
    ``min_end`` (the steps then drop the overlap) or when the run ends inside the chunk.
    """
    n = len(text)
    s = start
    cuts: list[int] = []
    run_end = _DIGIT_RUN.match(text, s).end() if s < n else s
    span = 3 * max_tokens
    while s < run_end:
        e = s + span
        if e > run_end:
            if run_end < n:
                break  # the run ends inside the chunk: the steps decide it
            if not final:
                return cuts, s, min_end, True
            if n <= min_end:
                break
            cuts += [s, n, (n - s + 2) // 3]  # the rest of the input fits
            return cuts, n, n, False
        if e <= min_end:
            break
        if not final and e + lookahead > n:
            return cuts, s, min_end, True
        cuts += [s, e, max_tokens]
        if e == n:
            return cuts, n, n, False  # (final) the input ends with this chunk
        min_end = e
        s = e - 3 * overlap
    return cuts, s, min_end, False


def digit_overlap_start(text: str, s: int, e: int, overlap: int) -> int:
    """The overlap start after the exact chunk ``[s, e)`` when ``text[e - 3k : e]`` is digits, else -1."""
    p = e - 3 * overlap
    if overlap <= 0 or p <= s or e > len(text):
        return -1
    return p if _DIGIT_RUN.match(text, p, e).end() == e else -1
