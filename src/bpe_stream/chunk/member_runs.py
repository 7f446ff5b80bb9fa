r"""One-piece runs of the family's members, derived from their choices (data).

Invariant: for a member ``m`` with ``run, letters = member_runs(m)`` (both None where the
member has no such rule), and any text ``T`` split as ``m`` splits it (normalized text as
held: no normalization again):

1. every string matching ``run`` is one piece of ``m``'s split, and so is every non-empty
   prefix of it (a prefix of a match matches again);
2. if ``T[a:v]`` matches ``run`` (``v - a >= 2``), the first piece of ``T[a:j]`` for any
   ``j > v`` reaches ``v - 1`` at least;
3. every string matching ``letters`` is one piece, and so is every suffix of it (and every
   substring: its alternatives are runs of one class).

These are the properties of ``_ONE_PIECE_RUN`` and ``_LETTERS`` in
:mod:`bpe_stream.chunk.counts` (point 4 there): with them a chunk inside a long run
(one random-letter word, CJK, a punctuation run, GPT-2's digit runs, whitespace) is cut
from one :class:`~bpe_stream.bpe.table.PrefixTable` pass over its bytes, with the
sliding-window stop, instead of a re-split and re-count of the run per candidate end.
cl100k and o200k keep their own entries there; this module gives every other member of
the family its rule.

Why each part holds (``docs/design/chunker.md``, "Members' one-piece runs"); no member's
regex looks behind, and every alternative below is greedy:

* *letters*: the member's letter run of its hard-boundary rule
  (:func:`~bpe_stream.pretokenize.hard_boundaries.hard_rule`, ``letter_run``: an optional
  lead that starts no other alternative, then letters of the member's word), whose every
  prefix is one piece (``tests/test_hard_boundaries.py``); a longer text's first piece
  takes the word on to its last letter, or (o200k's cased words) at least to the
  letter before a case change.
* *punctuation* ``[ ]?P+`` with ``P`` the member's punctuation class minus ``\r\n``
  (without marks where a mark may continue a one-character lead into a word:
  ``letters-marks``, ``cased``; for DeepSeek-V3 ``[\p{P}\p{S}]`` outside its CJK ranges,
  which its chain isolates), then the member's tail (``[\r\n]*``, ``[\r\n/]*`` or none):
  contractions need a letter after the apostrophe, a word lead a letter after it, so
  only the punctuation alternative matches, and it runs to the end of the class.
* *digits* ``[ ]?\p{N}+`` for ``digits="run"`` without a chain that isolates digits
  (GPT-2): the digit alternative is greedy and nothing else takes a digit.
* *whitespace*: GPT-2's ``\s+(?!\S)|\s+`` takes a whitespace-only text whole (``\s+``),
  and a longer text's first whitespace piece gives back at most one character;
  ``\s*[\r\n]+|\s+(?!\S)|\s+`` takes blanks then newlines whole, or newlines whole
  (o200k's run).  (cl100k's ``\s++$`` is cl100k's own entry.)

``letters`` is ``\p{L}+`` (any substring of a letter run is a word of the member), o200k's
form for ``cased`` words, or DeepSeek-V3's letters outside or inside its CJK ranges; or a
run of the punctuation class above without lead or tail; or (GPT-2) of digits.

Costs: once per member (cached).  ``tests/test_member_runs.py`` checks 1-3 by brute force
over short strings of one character per class, for every member.
"""

from __future__ import annotations

import functools

from ..pretokenize.family import _DEEPSEEK_CJK, _DEEPSEEK_V3_MAIN, PreTokenizer
from ..pretokenize.hard_boundaries import hard_rule
from ..pretokenize.unicode import LazyPattern, compile_regex

__all__ = ["member_runs", "member_run_sources", "member_runs_mode"]

_CJK_SET = _DEEPSEEK_CJK[1:-2]
_CASED_LETTERS = r"[\p{Lu}\p{Lt}]*\p{Ll}+|[\p{Lu}\p{Lt}]+|[\p{Lm}\p{Lo}]+"


def member_run_sources(member: PreTokenizer | None) -> tuple[str, str | None] | None:
    """The sources of ``(run, letters)`` for ``member`` (see the module docstring), or None."""
    rule = hard_rule(member)
    if rule is None:
        return None
    deepseek = member.main == _DEEPSEEK_V3_MAIN
    if member.main is not None and not deepseek:
        return None
    alts = [rule.letter_run._source[0]]
    tail = {"none": "", "newlines": r"[\r\n]*", "newlines-slash": r"[\r\n/]*"}[member.punct_tail]
    if deepseek:
        punct = rf"(?:(?![{_CJK_SET}])[\p{{P}}\p{{S}}])"
        tail = r"[\r\n]*"
    elif member.letters != "letters" or not member.punct_marks:
        punct = r"[^\s\p{L}\p{N}\p{M}]"
    else:
        punct = r"[^\s\p{L}\p{N}]"
    alts.append(rf"[ ]?{punct}+{tail}")
    if deepseek:
        # characters no alternative of the main regex takes (controls, format characters,
        # unassigned code points; its chain isolates the CJK ranges): a run of them is text
        # the regex leaves unmatched, one piece, up to where a match starts (a word may take
        # the run's last character as its lead)
        alts.append(rf"(?:(?![{_CJK_SET}])[^\s\p{{L}}\p{{M}}\p{{N}}\p{{P}}\p{{S}}])+")
    if member.digits == "run" and not member.pre_splits:
        alts.append(r"[ ]?\p{N}+" if member.digit_lead else r"\p{N}+")
    if member.whitespace == "gpt2":
        alts.append(r"\s+")
    elif not member.end_whitespace_whole:
        alts.append(r"[^\S\r\n]+[\r\n]*|[\r\n]+")
    else:
        return None  # cl100k's \s++$: its own entry in chunk/counts.py
    if member.letters == "cased":
        letters = _CASED_LETTERS
    elif deepseek:
        letters = rf"(?:(?![{_CJK_SET}])\p{{L}})+|(?:(?=\p{{L}})[{_CJK_SET}])+"
    else:
        letters = r"\p{L}+"
    # runs of the punctuation class (no lead, no tail), and of digits where they are one run:
    # every substring is one piece too (overlap starts inside such runs, SuffixView)
    letters += rf"|{punct}+"
    if member.digits == "run" and not member.pre_splits:
        letters += r"|\p{N}+"
    return "|".join(alts), letters


@functools.cache
def member_runs(member: PreTokenizer | None) -> tuple[LazyPattern | None, LazyPattern | None]:
    """``(run, letters)`` compiled for ``member``, or ``(None, None)``."""
    sources = member_run_sources(member)
    if sources is None:
        return None, None
    run, letters = sources
    return compile_regex(run), (compile_regex(letters) if letters is not None else None)


@functools.cache
def member_runs_mode(member: PreTokenizer | None) -> int | None:
    r"""The class mode of the compiled one-piece-run routine (``_native/chunk_runs.c``) for
    ``member``, for its runs only (not the digit or whitespace rules keyed on cl100k's split),
    or None.  Mode 1 takes runs of letters ``\p{L}`` or of punctuation ``[^\s\p{L}\p{N}]``:
    every string of one of these classes is one piece from any of its characters, and the
    first piece of a longer text reaches the run's end, for every single-regex member whose
    words are ``\p{L}+`` with either lead (a lead is no character of such a run), whose
    punctuation takes marks, and whose contractions are not o200k's suffix (they need a
    letter after the apostrophe): GPT-2, Llama 3, Qwen2 (checked in
    ``tests/test_member_runs.py``)."""
    if (member is None or hard_rule(member) is None or member.pre_splits or member.main is not None
            or member.letters != "letters" or not member.punct_marks or member.contractions == "suffix"):
        return None
    return 1
