r"""The hard-boundary rule of a family member, derived from its choices (data).

A position ``h`` of a text ``T`` is *hard* for a pre-tokenizer when, for every
``i < h <= j``, the split of ``T[i:j]`` is the split of ``T[i:h]`` followed by the split
of ``T[h:j]``, so that ``count(T[i:j]) = count(T[i:h]) + count(T[h:j])``.  The chunker's
exact counts (rule 5 of :mod:`bpe_stream.chunk.counts`) and its bulk cuts
(``_native/chunk_cuts.c``) rest on it.  Invariant: :func:`hard_rule` returns a rule only
for a member the family knows exactly (its pattern strings, dialect and chain are the
family's: :func:`~bpe_stream.pretokenize.family.native_spec`), and every position its
test accepts is hard for that member; ``tests/test_hard_boundaries.py`` checks the claim
by brute force over short strings of one character per class, for every member.

Why the tests are right (``docs/design/cuts.md``, "Hard boundaries per choice").  No
member's regex looks behind, so the pieces from ``h`` on are those of ``T[h:j]`` as soon
as no piece starting before ``h`` reaches past it and none was decided by reading past
it; each test below names the characters at ``h - 1, h`` for which that holds:

* **letter** ``h - 1``, and ``T[h]`` no letter: a letter is only ever matched by a word
  alternative or a contraction, and both stop at ``T[h]`` unless it continues them --
  a combining mark for members whose words take marks (``letters-marks``, ``cased``),
  an apostrophe for o200k's contraction suffix (``contractions="suffix"``).  Standalone
  contractions start with the apostrophe and end with a letter, and their attempts that
  read ``T[h]`` need a letter there, so for them (and for ``none``) an apostrophe after a
  letter is hard; a mark after a letter is hard for plain ``\p{L}+`` words.
* **non-whitespace** ``h - 1``, whitespace other than ``\r``, ``\n`` at ``h`` (any
  whitespace where punctuation takes no newline tail: GPT-2, StarCoder): every
  alternative takes whitespace only as its first character (a lead) or as a ``[\r\n]``
  tail, and text a chained regex leaves unmatched ends where the whitespace's match starts.
* **newline** ``h - 1``, non-whitespace ``h`` (no ``/`` for members whose punctuation tail
  takes ``/``), for members with the ``\s*[\r\n]+`` alternative (``whitespace="newlines"``):
  the whitespace piece holding ``h - 1`` ends at its run's last newline whether the run is
  followed by ``T[h]`` or by the end of the text, and a punctuation tail takes only
  newlines (and ``/``).  GPT-2's whitespace (``\s+(?!\S)``) gives back the last character
  of a run before a non-space, so a run that ends the text splits otherwise; but a *lone*
  whitespace character other than a space, after no whitespace (or at the start) and before
  a non-whitespace character, is a piece of its own either way (only a space leads GPT-2's
  words, digits and punctuation).
* **digit** ``h - 1``, no digit at ``h``: digits are matched only by the digit alternative
  (or isolated by a chain's first regex) and stop there; for one-digit pieces
  (``digits="one"``, StarCoder's ``\p{N}`` split) every position after a digit is hard.
  A digit after no whitespace and no digit starts a piece: only the digit alternative
  takes a digit (its lead, GPT-2's, is a space; DeepSeek-V3's word lead may be a digit, but
  its chain isolates digits first).
* **punctuation** ``h - 1`` (no apostrophe), a letter at ``h``, for GPT-2's shape (only a
  space leads a word): the punctuation run stops at the letter and the word starts there;
  the apostrophe is excluded because a contraction starts with it.
* Chains: a first regex that isolates digits makes the start of a digit run hard too (the
  text it leaves unmatched ends there), and DeepSeek-V3's CJK split makes every change
  between its CJK ranges and other characters hard; text between such boundaries is split
  by the later regexes as a text of its own, so the tests above carry over.

The rule also names the *letter runs* of point 4 of :mod:`bpe_stream.chunk.counts`:
pieces whose every non-empty prefix, and every run of their letters, is one piece
(an optional lead that starts no other alternative, then letters of the member's word).

Cost: building a rule is once per member (cached); ``flags`` is the same rule for the
compiled routine (``HB_*``, mirrored in ``_native/chunk_cuts.c``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .family import _DEEPSEEK_CJK, _DEEPSEEK_V3_MAIN, PreTokenizer, native_spec
from .unicode import LazyPattern, compile_regex

__all__ = ["HardRule", "hard_rule", "HB_MARK_CONT", "HB_APOS_CONT", "HB_NEWLINE", "HB_SLASH", "HB_CASED",
           "HB_SPACE_LEAD", "HB_DEEPSEEK", "HB_DIGIT_ONE", "HB_DIGIT_SPLIT", "HB_CJK_SPLIT", "HB_LONE_WS",
           "HB_NO_TAIL"]

# One bit per choice that changes the rule (the same values in _native/chunk_cuts.c).
HB_MARK_CONT = 1  # a combining mark continues a word
HB_APOS_CONT = 2  # an apostrophe may continue a word (o200k's contraction suffix)
HB_NEWLINE = 4  # \s*[\r\n]+ ends a whitespace run at its last newline
HB_SLASH = 8  # punctuation runs take a "/" tail
HB_CASED = 16  # words are o200k's upper/lower split
HB_SPACE_LEAD = 32  # only a space leads a word (GPT-2)
HB_DEEPSEEK = 64  # DeepSeek-V3's main regex: no punctuation or symbol leads a word, CJK runs apart
HB_DIGIT_ONE = 128  # every digit is a piece of its own
HB_DIGIT_SPLIT = 256  # the chain's first regex isolates digits
HB_CJK_SPLIT = 512  # the chain isolates DeepSeek-V3's CJK ranges
HB_LONE_WS = 1024  # GPT-2's whitespace: a lone whitespace character but a space is a piece
HB_NO_TAIL = 2048  # punctuation takes no newline tail

_CJK_SET = _DEEPSEEK_CJK[1:-2]  # the ranges inside "[...]+"
_CASED_RUN = r"(?:[\p{Lu}\p{Lt}]*\p{Ll}+|[\p{Lu}\p{Lt}]+|[\p{Lm}\p{Lo}]+)"


@dataclass(frozen=True)
class HardRule:
    """A member's hard-boundary test and letter runs: ``hard_at.match(T, h - 1)`` succeeds
    only at hard ``h`` (``0 < h < len(T)``); ``letter_run.fullmatch`` accepts only
    letter runs (see the module docstring); ``flags`` encodes both for the compiled core."""

    flags: int
    hard_at: LazyPattern
    letter_run: LazyPattern


def rule_flags(member: PreTokenizer) -> int:
    """The ``HB_*`` bits of ``member``'s choices."""
    deepseek = member.main == _DEEPSEEK_V3_MAIN
    first_split = member.pre_splits[0] if member.pre_splits else None
    flags = 0
    if member.letters != "letters":
        flags |= HB_MARK_CONT
    if member.contractions == "suffix":
        flags |= HB_APOS_CONT
    if member.whitespace == "newlines":
        flags |= HB_NEWLINE
    if member.punct_tail == "newlines-slash":
        flags |= HB_SLASH
    if member.punct_tail == "none" and not deepseek:
        flags |= HB_NO_TAIL
    if member.letters == "cased":
        flags |= HB_CASED
    if member.letter_lead == "space":
        flags |= HB_SPACE_LEAD
        if member.whitespace == "gpt2" and member.digit_lead:
            flags |= HB_LONE_WS
    if deepseek:
        flags |= HB_DEEPSEEK
    if member.digits == "one" or first_split == r"\p{N}":
        flags |= HB_DIGIT_ONE
    if first_split in (r"\p{N}", r"\p{N}{1,3}"):
        flags |= HB_DIGIT_SPLIT
    if _DEEPSEEK_CJK in member.pre_splits:
        flags |= HB_CJK_SPLIT
    return flags


def _hard_at_source(flags: int) -> str:
    cont = r"\p{L}" + (r"\p{M}" if flags & HB_MARK_CONT else "") + ("'" if flags & HB_APOS_CONT else "")
    alts = [rf"\p{{L}}(?=[^{cont}])", r"\S(?=\s)" if flags & HB_NO_TAIL else r"\S(?=[^\S\r\n])"]
    if flags & HB_NEWLINE:
        alts.append(r"[\r\n](?=[^\s/])" if flags & HB_SLASH else r"[\r\n](?=\S)")
    alts.append(r"\p{N}(?=[\s\S])" if flags & HB_DIGIT_ONE else r"\p{N}(?=\P{N})")
    alts.append(r"[^\s\p{N}](?=\p{N})")
    if flags & HB_SPACE_LEAD:
        alts.append(r"[^\s\p{L}\p{N}'](?=\p{L})")
    if flags & HB_LONE_WS:
        alts.append(r"(?<!\s)[^\S ](?=\S)")
    if flags & HB_DIGIT_SPLIT:
        alts.append(r"\P{N}(?=\p{N})")
    if flags & HB_CJK_SPLIT:
        alts.append(rf"[{_CJK_SET}](?=[^{_CJK_SET}])|[^{_CJK_SET}](?=[{_CJK_SET}])")
    return "|".join(alts)


def _letter_run_source(flags: int) -> str:
    if flags & HB_CASED:
        # no marks, and Lm/Lo (in both of o200k's letter sets) never mixed with cased letters
        return r"[^\r\n\p{L}\p{N}'\p{M}]?" + _CASED_RUN
    if flags & HB_SPACE_LEAD:
        return r" ?\p{L}+"
    if flags & HB_DEEPSEEK:
        # a lead no punctuation or symbol (those start the ASCII-word alternative or a
        # punctuation run) and outside the CJK ranges, then letters outside them; or CJK letters
        return (rf"[^\r\n\p{{L}}\p{{N}}\p{{P}}\p{{S}}{_CJK_SET}]?(?:(?![{_CJK_SET}])\p{{L}})+"
                rf"|(?:(?=\p{{L}})[{_CJK_SET}])+")
    return r"[^\r\n\p{L}\p{N}']?\p{L}+"


@functools.lru_cache(maxsize=None)
def _rule_of_flags(flags: int) -> HardRule:
    return HardRule(flags, compile_regex(_hard_at_source(flags)), compile_regex(_letter_run_source(flags)))


def hard_rule(member: PreTokenizer | None) -> HardRule | None:
    """The hard-boundary rule of ``member``, or None for a pattern the family does not know
    exactly (its chunks then take the general path)."""
    if member is None or not member.known or native_spec(member) is None:
        return None
    return _rule_of_flags(rule_flags(member))
