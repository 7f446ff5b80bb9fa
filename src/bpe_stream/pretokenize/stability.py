"""Where the split of a prefix (or suffix) of a text agrees with the whole text's.

Two rules the streaming engines and the exact cuts build on (the arguments are in
:mod:`bpe_stream.text.appendable` and :func:`bpe_stream.text.cuts.text_split_at_start`):

* **Stability margin** (:func:`stable_margin`): for the bundled patterns a piece that
  ends at least 4 characters before the end of the text, before the trailing
  whitespace stretch and (o200k) before the trailing upper-word stretch, is a piece
  of every longer text.  Other patterns use a margin of ``_CUSTOM_MARGIN`` characters.
* **Hard boundaries** (:func:`_hard_boundary_test`): pairs of neighbouring characters
  at which every split of every text holding them has a piece boundary (a letter then
  no letter, a digit then a non-digit, a newline then non-whitespace, punctuation then
  non-newline whitespace, with the o200k exceptions for apostrophes, marks and ``/``).

Both are O(1) per question (a memo of character-class pairs).
"""

from __future__ import annotations

from .fast_split import (
    AP,
    LO,
    NL,
    O200K_FIRST_TAIL,
    OL,
    SL,
    SP,
    UP,
    WS,
    WS_CLASSES,
    D,
    P,
)
from .patterns import PATTERNS, SPACE_SET

__all__ = ["stable_margin", "stable_limit"]


def _is_hard_at(hard, fast, text: str, p: int) -> bool:
    """Whether ``0 < p < len(text)`` is a hard boundary (see :func:`text_split_at_start`)."""
    ch = text[p]
    return hard(text[p - 1], ch) or (ch == "'" and _o200k_word_end(fast, text[p - 1], text[p + 1 : p + 2]))


# Characters the o200k contractions' case-insensitive first letter matches (the regex
# module folds U+017F LONG S to "s"; computed over all code points).
_CONTRACTION_STARTS = frozenset("strvmldSTRVMLD\u017f")


def _o200k_word_end(fast, prev: str, nxt: str) -> bool:
    """o200k: an apostrophe after a letter ``prev`` is a hard boundary too (see
    :func:`text_split_at_start`) unless a contraction ('s 't 're 've 'm 'll 'd, any case)
    may start there, i.e. unless ``nxt`` (the character after it, "" at the end) is one
    of their first letters: the word holding ``prev`` then ends before the apostrophe."""
    return fast.o200k and nxt not in _CONTRACTION_STARTS and fast.char_class(prev) in (LO, UP, OL)


def _hard_boundary_test(fast):
    """``hard(prev_char, char)``: every split of any text ``T[i:]`` with ``i < p`` has a boundary at ``p``
    when ``T[p-1], T[p]`` are ``prev_char, char`` (see :func:`text_split_at_start`)."""
    cc = fast.char_class
    letters = (LO, UP, OL) if fast.o200k else (LO,)
    # cl100k: a word's letter run stops at an apostrophe (contractions start with it);
    # o200k: a word may end with a contraction, so an apostrophe after a letter is no cut
    no_letter_after = frozenset(letters) | {None} | ({AP} if fast.o200k else set())
    o200k = fast.o200k
    memo: dict[tuple[str, str], bool] = {}

    def hard(c1: str, c2: str) -> bool:
        key = (c1, c2)
        v = memo.get(key)
        if v is None:
            x1, x2 = cc(c1), cc(c2)
            if x1 is None or x2 is None:
                v = False
            elif x1 in letters:
                v = x2 not in no_letter_after
            elif x1 == D:
                v = x2 != D
            elif x1 == NL:
                v = x2 not in WS_CLASSES and not (o200k and x2 == SL)
            elif x1 in (P, SL, AP):
                v = x2 in (SP, WS)
            else:
                v = False
            if len(memo) < 1 << 16:
                memo[key] = v
        return v

    return hard


# Stability margin of a pattern outside the family: an assumption (its look-ahead is not
# analysed), the only one left; every member has the proven margin below.
_CUSTOM_MARGIN = 64
# Characters a member's match may read past its end, plus one: a contraction after a
# word reads three ("'ll"), every other run reads one; whitespace and o200k's upper-word
# stretch are handled apart (see text/appendable.py).
_MEMBER_MARGIN = 4


def stable_margin(pretokenizer) -> int:
    """How far before the end of a text a piece must end to be a piece of every longer
    text (with the whitespace and upper-word rules of :mod:`bpe_stream.text.appendable`):
    proven for every member of the family, checked by enumeration in tests/test_family.py."""
    if pretokenizer is None:
        return 0
    if isinstance(pretokenizer, str):  # a pattern string, as tiktoken reads it
        return _MEMBER_MARGIN if pretokenizer in PATTERNS.values() else _CUSTOM_MARGIN
    return _MEMBER_MARGIN if pretokenizer.known else _CUSTOM_MARGIN


def stable_limit(pretokenizer, text: str) -> int:
    """The stability rule of a member as a position: every piece of ``text`` that ends at
    or before it is a piece of every text that starts with ``text``.

    It is the smallest of ``len(text) - margin``, the start of the trailing whitespace
    stretch, and, for members with o200k's cased letters, the start of the trailing
    upper-word stretch (``[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*``, which a word's first part reads
    to its end and then gives back).  O(trailing stretches).  The engines keep these
    positions incrementally; this is the definition the tests check against the regex."""
    n = len(text)
    limit = n - stable_margin(pretokenizer)
    ws = n
    while ws > 0 and text[ws - 1] in SPACE_SET:
        ws -= 1
    limit = min(limit, ws)
    if pretokenizer is not None and not isinstance(pretokenizer, str) and pretokenizer.letters == "cased":
        m = O200K_FIRST_TAIL.search(text)
        limit = min(limit, m.start())
    return limit
