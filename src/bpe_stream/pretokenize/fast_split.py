"""Regex-free updates of the pre-split when one character is appended (bundled patterns
and the family members with their shapes: :func:`fast_split_for_member`).

Invariant: for the cl100k and o200k patterns (and the members below), a text ``T`` whose *last piece* ``P =
T[a:L]`` has kind ``k`` (below) and a character ``c`` of class ``x`` with
``TRANSITIONS[k][x] = (action, k2)``, the split of ``T + c`` is

* ``EXTEND``: the split of ``T`` with ``P`` replaced by ``P + c``;
* ``NEW``: the split of ``T`` followed by the piece ``c``;
* ``MERGE``: the split of ``T`` with its last two pieces ``Q, P`` replaced by ``Q + P + c``;

and the new last piece has kind ``k2``.  A missing entry means "re-split with the
regex".  Cost: O(1) per character (one dict lookup for the class, one for the
transition); kinds are recomputed in O(1) by :func:`classify` after a re-split.

Why it is exact.  (1) Earlier pieces do not change.  The patterns have no
look-behind, so ``findall`` on ``T + c`` repeats ``T``'s matches as long as each of
them is decided without reading position ``L`` (or testing ``$`` there).  A
non-whitespace piece ``[s, e)`` reads at most position ``e`` (letter, digit and
punctuation runs stop at the first character outside their class; cl100k's
contraction alternative reads at most ``s + 2`` and a piece starting with an
apostrophe is never shorter than what it read; o200k's optional contraction after a
word reads past ``e`` only when ``T[e]`` is an apostrophe) -- so they read at most
``a < L`` provided ``P`` does not start with an apostrophe (every kind requires
this).  A whitespace-only piece reads to the end of its whitespace run (``\\s++$``,
``\\s*[\\r\\n]``, ``\\s+(?!\\S)`` backtrack inside the run); kinds whose ``P`` ends
with whitespace require that the piece before ``P`` is *not* whitespace-only, or
(``WSTAIL``, ``MERGE``) they state the split of the whole trailing run.
o200k exception: a mark is both a possible one-character prefix and a member of
both letter sets, so a piece made of a mark may have been decided by reading the
letters after it (the prefixed alternative failed there: ``"\\u0301" + "A"`` is two
pieces, ``"\\u0301Ab"`` one); kinds are never given to a piece that follows a mark
and starts with a letter or a mark.  A piece that follows a mark and starts with
anything else is independent of it: a prefix is one character, which the letter
sets must follow, so every alternative at the mark's piece fails or ends at that
first character.  Marks appended (``MARK_TABLE``, cased members): a word absorbs a
mark as it absorbs ``Lm|Lo`` (both letter sets); a one-character punctuation or
non-newline whitespace piece is a prefix the mark follows (a word, ``[\\p{Lu}\\p{Lt}\\p{Lm}
\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+`` with the mark as its letter: ``K_WORD_O``); a
punctuation run of two or more characters without a newline is no word's start (its
second character is no letter), so the run ``[^\\s\\p{L}\\p{N}]+`` takes the mark.  A mark
after anything else (a digit, a newline, a mark piece) goes to the regex.
(2) The split from ``a`` of ``P + c``: written out per kind below.  It only uses
facts the kind guarantees: e.g. ``WORD`` (cl100k) is an optional non-letter
non-digit non-newline prefix plus letters; a letter extends the possessive
``\\p{L}++``; anything else but an apostrophe stops it and starts a one-character
piece (any single character is a piece at the end of the text).  For o200k, words
are ``prefix? [Lu Lt Lm Lo M]* [Ll Lm Lo M]+`` or ``prefix? [Lu Lt Lm Lo M]+ [Ll Lm
Lo M]*``: a word ending in ``Lu|Lt`` consists of ``Lu|Lt`` only (``WORD_U``; any
``Lm|Lo|M|Ll`` would let the first alternative stop earlier), it absorbs every
letter; any other word (``WORD_L``) absorbs ``Ll|Lm|Lo|M`` but not ``Lu|Lt``.
Whitespace at the end of the text: cl100k's ``\\s++$`` makes a whitespace run
that follows a non-whitespace piece a single piece; o200k splits it after its last
newline (``\\s*[\\r\\n]+``) and keeps the rest whole (``\\s+(?!\\S)`` at the end).

Members (:func:`fast_split_for_member`).  The argument uses the pattern's shape only,
so it carries over to the members that vary it in a few choices, each changing the
table in one place: Llama 3 and Qwen (no ``\\s++$``) split whitespace at the end of
the text as o200k does (``ws_newlines``: ``K_WSRUN_NL``, ``K_WSTAIL``); Qwen's and
Tekken's digits are ``\\p{N}`` (``max_digits`` 1: a digit after a digit is a new
piece); Qwen3.5's letter run ``[\\p{L}\\p{M}]+`` and punctuation
``[^\\s\\p{L}\\p{M}\\p{N}]`` make a mark a letter of class ``LO`` (its lead
``[^\\r\\n\\p{L}\\p{N}]`` may be a mark too, which changes no span: a mark lead
before letters is a letter of the same run); Tekken is o200k without contractions (an
apostrophe is punctuation).  GPT-2 (and StarCoder's chain) and DeepSeek-V3's chain have
tables of their own, argued in :func:`_table_space_lead` and :func:`_table_deepseek`.

The tests check every transition by brute force: all strings up to length 5 over
an alphabet with one character per class (and the contraction letters), appended
one character at a time, against ``enc.count`` of every prefix.
"""

from __future__ import annotations

from functools import partial

from .family import MEMBERS
from .patterns import PATTERNS
from .unicode import compile_regex

__all__ = ["FastSplit", "fast_split_for", "fast_split_for_member", "MARK_TABLE", "EXTEND", "NEW", "MERGE", "K_NONE"]

EXTEND, NEW, MERGE = 1, 2, 3

# character classes
LO, UP, OL, D, SP, NL, WS, AP, P, SL = range(10)
_WS_CLASSES = frozenset({SP, NL, WS})

# kinds of the last piece
(K_NONE, K_EMPTY, K_WORD, K_WORD_U, K_DIG1, K_DIG2, K_DIG3, K_P1, K_PN, K_PNL,
 K_SP, K_WS1, K_NL1, K_WSRUN, K_WSRUN_NL, K_WSTAIL, K_WORD_O) = range(17)

# DeepSeek-V3's classes (its own main regex, see _table_deepseek): ASCII letters, ASCII
# punctuation and symbols, the CJK runs its chain splits off
AL, AQ, CJ = 10, 11, 12
K_AWORD, K_AP1, K_CJK = 17, 18, 19

_S = compile_regex(r"\s")
_L = compile_regex(r"\p{L}")
_N = compile_regex(r"\p{N}")
_LU = compile_regex(r"[\p{Lu}\p{Lt}]")
_LL = compile_regex(r"\p{Ll}")
_LOTHER = compile_regex(r"[\p{Lm}\p{Lo}]")
MARK = compile_regex(r"\p{M}")
# o200k's word classes (one place for the modules that reason about them): the first
# repetition [Lu Lt Lm Lo M]*, the second [Ll Lm Lo M]+, and the characters in both
# (the last of which the first repetition gives back to).
O200K_FIRST = r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]"
O200K_SECOND = r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"
O200K_FIRST_RUN = compile_regex(O200K_FIRST + "*")
# the trailing stretch of upper-word characters, which a word match may read to its end and
# then give back (text/appendable.py's stability rule)
O200K_FIRST_TAIL = compile_regex(r"(?r)" + O200K_FIRST + r"*\Z")
LAST_LM_LO_MARK = compile_regex(r"(?r)[\p{Lm}\p{Lo}\p{M}]")


def _class_gpt4(ch: str, o200k: bool):
    """The class of ``ch`` for cl100k's pattern, or for o200k's (``"/"`` its own class,
    letters told apart by case)."""
    if "\ud800" <= ch <= "\udfff":
        return None
    if ch == "'":
        return AP
    if o200k and ch == "/":
        return SL
    if ch == " ":
        return SP
    if ch in "\r\n":
        return NL
    if _S.match(ch):
        return WS
    if not o200k:
        if _L.match(ch):
            return LO  # cl100k does not distinguish letters
        if _N.match(ch):
            return D
        return P  # [^\s\p{L}\p{N}] (marks included)
    if _LU.match(ch):
        return UP
    if _LL.match(ch):
        return LO
    if MARK.match(ch):
        return None  # marks are in o200k's letter sets *and* its punctuation class: always re-split
    if _LOTHER.match(ch):
        return OL  # in both of o200k's letter sets
    if _N.match(ch):
        return D
    return P


_class_cl100k = partial(_class_gpt4, o200k=False)
_class_o200k = partial(_class_gpt4, o200k=True)


_PS = compile_regex(r"[\p{P}\p{S}]")
_CJK_RUN = compile_regex("[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]")


def _class_deepseek(ch: str):
    if "\ud800" <= ch <= "\udfff":
        return None
    if _N.match(ch):
        return D  # digit groups are split off first
    if _CJK_RUN.match(ch):
        return CJ  # then the CJK runs
    if ch == " ":
        return SP
    if ch in "\r\n":
        return NL
    if _S.match(ch):
        return WS
    if "a" <= ch <= "z" or "A" <= ch <= "Z":
        return AL
    if _L.match(ch) or MARK.match(ch):
        return LO  # [\p{L}\p{M}]+
    if _PS.match(ch):
        return AQ if ch < "\x80" else P
    return None  # no alternative takes it alone (a lead, or text between matches): the regex


def _new_piece_kind(x: int, o200k: bool, after_ws_only: bool) -> int | None:
    """Kind of a one-character last piece ``c`` (class ``x``)."""
    if x == LO:
        return K_WORD
    if x == OL:
        return K_WORD_O
    if x == UP:
        return K_WORD_U if o200k else K_WORD
    if x == D:
        return K_DIG1
    if x in (P, SL):
        return K_P1
    if after_ws_only:
        return None
    return {SP: K_SP, WS: K_WS1, NL: K_NL1}[x]


def _table(o200k: bool, slash: bool | None = None, ws_newlines: bool | None = None, max_digits: int = 3,
           space_lead: bool = False, digits_apart: bool = False) -> dict:
    """The transitions of a member with (``o200k``) cased letters or not, a punctuation tail
    that takes ``/`` (``slash``), whitespace split after its last newline at the end of the text
    (``ws_newlines``: no ``\\s++$``) and digit groups of at most ``max_digits`` (0: runs).
    ``space_lead``: GPT-2's shape (only a space leads a word, a digit run or a punctuation
    run; no punctuation tail; no newline rule); ``digits_apart``: its chain with every digit
    split off first (StarCoder)."""
    if space_lead:
        return _table_space_lead(digits_apart)
    slash = o200k if slash is None else slash
    ws_newlines = o200k if ws_newlines is None else ws_newlines
    E, N_, M = EXTEND, NEW, MERGE
    letters = (LO, UP, OL) if o200k else (LO,)
    present = {LO, D, SP, NL, WS, P} | ({UP, OL} if o200k else set()) | ({SL} if slash else set())
    punct = (P, SL)
    t: dict[int, dict[int, tuple[int, int]]] = {}

    def new(x, after_ws_only=False):
        k = _new_piece_kind(x, o200k, after_ws_only)
        return None if k is None else (N_, k)

    def fill(kind, overrides, after_ws_only=False):
        row = {}
        for x in (LO, UP, OL, D, SP, NL, WS, P, SL):
            if x not in present:
                continue
            v = overrides.get(x, "new")
            if v == "new":
                v = new(x, after_ws_only)
            if v is not None:
                row[x] = v
        t[kind] = row

    fill(K_EMPTY, {})
    if o200k:
        # K_WORD ends in Ll, K_WORD_O in Lm|Lo, K_WORD_U is Lu|Lt only.  After a word ending in
        # Lm|Lo, an upper-case letter goes to the regex: the greedy [Lu Lt Lm Lo M]* of that word
        # reads on through the upper-case letters that follow, so it is not final yet.
        fill(K_WORD, {LO: (E, K_WORD), OL: (E, K_WORD_O), UP: (N_, K_WORD_U)})
        fill(K_WORD_O, {LO: (E, K_WORD), OL: (E, K_WORD_O), UP: None})
        fill(K_WORD_U, {LO: (E, K_WORD), OL: (E, K_WORD_O), UP: (E, K_WORD_U)})
    else:
        fill(K_WORD, {LO: (E, K_WORD)})
    # a digit group of max_digits ends; a new digit starts the next one
    fill(K_DIG1, {D: (E, K_DIG2)} if max_digits >= 2 else {})
    if max_digits >= 2:
        fill(K_DIG2, {D: (E, K_DIG3)} if max_digits >= 3 else {})
    if max_digits >= 3:
        fill(K_DIG3, {})
    p1 = {x: (E, K_WORD) for x in letters}
    if o200k:
        p1[UP] = (E, K_WORD_U)
        p1[OL] = (E, K_WORD_O)
    fill(K_P1, {**p1, NL: (E, K_PNL), **{x: (E, K_PN) for x in punct}})
    fill(K_PN, {NL: (E, K_PNL), **{x: (E, K_PN) for x in punct}})
    fill(K_PNL, {NL: (E, K_PNL), **({SL: (E, K_PNL)} if slash else {})})
    # a single whitespace character after a non-whitespace piece
    ws_next = (
        {SP: (E, K_WSRUN), WS: (E, K_WSRUN), NL: (E, K_WSRUN_NL)}
        if ws_newlines
        else {SP: (E, K_WSRUN), WS: (E, K_WSRUN), NL: (E, K_WSRUN)}
    )
    fill(K_SP, {**p1, **{x: (E, K_PN) for x in punct}, **ws_next})
    fill(K_WS1, {**p1, **ws_next})
    if ws_newlines:
        fill(K_NL1, {NL: (E, K_WSRUN_NL), SP: (N_, K_WSTAIL), WS: (N_, K_WSTAIL)})
    else:
        fill(K_NL1, dict(ws_next))
    # whitespace runs of two or more characters: only whitespace is handled
    t[K_WSRUN] = dict(ws_next)
    if ws_newlines:
        t[K_WSRUN_NL] = {NL: (E, K_WSRUN_NL), SP: (N_, K_WSTAIL), WS: (N_, K_WSTAIL)}
        t[K_WSTAIL] = {SP: (E, K_WSTAIL), WS: (E, K_WSTAIL), NL: (M, K_WSRUN_NL)}
    _apostrophe_in_punctuation(t)
    return t


def _apostrophe_in_punctuation(t: dict) -> None:
    """An apostrophe after punctuation (or one space) that no newline ended joins the
    punctuation run: the piece's match started before it, at a character no contraction
    starts with, and a lead before letters must be followed by a letter right away."""
    for kind in (K_P1, K_PN, K_SP):
        t[kind][AP] = (EXTEND, K_PN)


# Cased members (o200k, Tekken): transitions of an appended mark by kind of the last piece
# (see the module doc); the kind after it is the one its class-table twin gives.
MARK_TABLE = {K_WORD: (EXTEND, K_WORD_O), K_WORD_O: (EXTEND, K_WORD_O), K_WORD_U: (EXTEND, K_WORD_O),
              K_P1: (EXTEND, K_WORD_O), K_SP: (EXTEND, K_WORD_O), K_WS1: (EXTEND, K_WORD_O),
              K_PN: (EXTEND, K_PN), K_DIG1: (NEW, K_WORD_O), K_DIG2: (NEW, K_WORD_O), K_DIG3: (NEW, K_WORD_O)}


def _table_deepseek() -> dict:
    """DeepSeek-V3: ``\\p{N}{1,3}`` split off, then CJK runs, then on the text between them (each
    a whole text of its own) ``[ASCII punct][A-Za-z]+ | [^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+ |
    ?[\\p{P}\\p{S}]+[\\r\\n]* | \\s*[\\r\\n]+ | \\s+(?!\\S) | \\s+``.  A digit group or a CJK run
    extends with its class and ends the text before it (whitespace before it stays whole);
    one ASCII punctuation character followed by ASCII letters is a word (``K_AWORD``) that
    takes ASCII letters only; any other word takes letters and marks, led by one space or
    non-newline whitespace; punctuation runs take ``\\p{P}\\p{S}`` (never marks) and then
    newlines; whitespace as Llama 3's.  Characters outside these classes (controls, format
    characters: a lead or text between matches) go to the regex."""
    E, N_ = EXTEND, NEW
    classes = (AL, LO, AQ, P, D, CJ, SP, NL, WS)
    new_kind = {AL: K_WORD, LO: K_WORD, AQ: K_AP1, P: K_P1, D: K_DIG1, CJ: K_CJK, SP: K_SP, WS: K_WS1, NL: K_NL1}
    ws_next = {SP: (E, K_WSRUN), WS: (E, K_WSRUN), NL: (E, K_WSRUN_NL)}

    def row(overrides, after_ws_only=False):
        out = {}
        for x in classes:
            v = overrides.get(x, "new")
            if v == "new":
                v = None if after_ws_only and x in _WS_CLASSES else (N_, new_kind[x])
            if v is not None:
                out[x] = v
        return out

    punct_next = {AQ: (E, K_PN), P: (E, K_PN), NL: (E, K_PNL)}
    t = {K_EMPTY: row({})}
    t[K_WORD] = row({AL: (E, K_WORD), LO: (E, K_WORD)})
    t[K_AWORD] = row({AL: (E, K_AWORD)})
    t[K_AP1] = row({AL: (E, K_AWORD), **punct_next})
    t[K_P1] = row(punct_next)
    t[K_PN] = row(punct_next)
    t[K_PNL] = row({NL: (E, K_PNL)})
    t[K_DIG1] = row({D: (E, K_DIG2)})
    t[K_DIG2] = row({D: (E, K_DIG3)})
    t[K_DIG3] = row({})
    t[K_CJK] = row({CJ: (E, K_CJK)})
    t[K_SP] = row({AL: (E, K_WORD), LO: (E, K_WORD), AQ: (E, K_PN), P: (E, K_PN), **ws_next})
    t[K_WS1] = row({AL: (E, K_WORD), LO: (E, K_WORD), **ws_next})
    t[K_NL1] = row({NL: (E, K_WSRUN_NL), SP: (N_, K_WSTAIL), WS: (N_, K_WSTAIL)})
    t[K_WSRUN] = {**ws_next, D: (N_, K_DIG1), CJ: (N_, K_CJK)}
    t[K_WSRUN_NL] = {NL: (E, K_WSRUN_NL), SP: (N_, K_WSTAIL), WS: (N_, K_WSTAIL)}
    t[K_WSTAIL] = {SP: (E, K_WSTAIL), WS: (E, K_WSTAIL), NL: (MERGE, K_WSRUN_NL)}
    return t


def _table_space_lead(digits_apart: bool = False) -> dict:
    """GPT-2's ``'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+``: a
    letter, digit or punctuation run extends with its class and a new piece starts at any
    other character; one space after a non-whitespace piece leads the run that follows it
    (``" a"``, ``" 1"``, ``" !"``), any other whitespace character does not; whitespace
    after it, at the end of the text, is one piece with it (``\\s+(?!\\S)`` runs to the end).

    ``digits_apart`` (StarCoder: ``\\p{N}`` split off first, the regex applied to the text
    between digits as a whole text of its own): a digit is always a new piece, and it
    ends the text the whitespace before it belongs to, so that whitespace stays whole
    (``\\s+(?!\\S)`` sees the end of its text)."""
    E, N_ = EXTEND, NEW
    classes = (LO, D, SP, NL, WS, P)
    new_kind = {LO: K_WORD, D: K_DIG1, P: K_P1, SP: K_SP, WS: K_WS1, NL: K_NL1}
    ws_next = {SP: (E, K_WSRUN), WS: (E, K_WSRUN), NL: (E, K_WSRUN)}

    def row(overrides):
        return {x: overrides.get(x, (N_, new_kind[x])) for x in classes}

    t = {K_EMPTY: row({})}
    t[K_WORD] = row({LO: (E, K_WORD)})
    t[K_DIG1] = row({D: (E, K_DIG1)})  # a digit run
    t[K_P1] = t[K_PN] = row({P: (E, K_PN)})
    t[K_SP] = row({LO: (E, K_WORD), D: (E, K_DIG1), P: (E, K_PN), **ws_next})
    t[K_WS1] = t[K_NL1] = row(ws_next)
    t[K_WSRUN] = dict(ws_next)
    if digits_apart:
        for kind in (K_DIG1, K_SP, K_WSRUN):
            t[kind][D] = (N_, K_DIG1)
    _apostrophe_in_punctuation(t)
    return t


class FastSplit:
    """Char classes and transitions for one pattern of the family (see :func:`fast_split_for_member`).

    ``o200k``: cased letters (o200k's two letter sets, marks in both and in punctuation);
    ``slash``: the punctuation tail takes ``/``; ``ws_newlines``: no ``\\s++$`` (whitespace at the
    end of the text is split after its last newline); ``max_digits``: the longest digit group;
    ``marks_letters``: marks are letters (in the letter run, not in punctuation: Qwen3.5).
    """

    __slots__ = ("o200k", "slash", "ws_newlines", "max_digits", "marks_letters", "space_lead", "deepseek", "classes",
                 "table", "_class_of")

    def __init__(self, o200k: bool, slash: bool | None = None, ws_newlines: bool | None = None,
                 max_digits: int = 3, marks_letters: bool = False, space_lead: bool = False,
                 digits_apart: bool = False, deepseek: bool = False):
        self.o200k = o200k
        self.slash = o200k if slash is None else slash
        self.ws_newlines = o200k if ws_newlines is None else ws_newlines
        self.max_digits = max_digits  # 0: digit runs of any length
        self.marks_letters = marks_letters
        self.space_lead = space_lead
        self._class_of = _class_o200k if o200k else _class_cl100k
        self.classes: dict[str, int | None] = {}
        self.deepseek = deepseek
        if deepseek:
            self._class_of = _class_deepseek
        t = _table_deepseek() if deepseek else _table(o200k, self.slash, self.ws_newlines, max_digits, space_lead,
                                                      digits_apart)
        # flat table: key kind * 16 + class
        self.table = {k * 16 + x: v for k, row in t.items() for x, v in row.items()}

    def _member_class(self, ch: str):
        x = self._class_of(ch)
        if self.deepseek:
            return x
        if x == SL and not self.slash:
            return P  # "/" is punctuation like any other where no tail takes it
        if self.marks_letters and x == P and MARK.match(ch):
            return LO  # [\p{L}\p{M}]+: a mark is one more letter (marks leave the punctuation set)
        return x

    def char_class(self, ch: str):
        x = self.classes.get(ch, -1)
        if x == -1:
            x = (self._class_of(ch) if not (self.marks_letters or self.slash != self.o200k or self.deepseek)
                 else self._member_class(ch))
            if len(self.classes) < 65536:
                self.classes[ch] = x
        return x

    def is_ws(self, ch: str) -> bool:
        return self.char_class(ch) in _WS_CLASSES

    def classify(self, text, spans, holds_newline) -> int:
        """Kind of the last piece; ``spans(k)`` gives the span of the k-th piece from the end (1 = last) or None.

        O(1) plus, for o200k punctuation ending in ``/``, one call of ``holds_newline(a, b)``:
        whether the piece ``text[a:b]`` holds a newline (text/appendable.py remembers what it has
        read of its last piece, so that this is not a scan of the piece every time).
        """
        last = spans(1)
        if last is None:
            return K_EMPTY
        a, b = last
        cc = self.char_class
        first = text[a]
        if first == "'":
            return K_NONE
        if self.o200k and a > 0 and cc(text[a - 1]) is None and cc(first) in (LO, UP, OL, None):
            # a letter or a mark after a mark: o200k's optional prefix may be re-decided (a
            # mark is both a prefix character and a letter-set character): re-split
            return K_NONE
        x = cc(text[b - 1])
        if x is None or x == AP:
            return K_NONE
        if self.space_lead:
            return self._classify_space_lead(text, spans, a, b, x)
        if self.deepseek and x not in _WS_CLASSES:
            first_x = cc(first)
            if x == CJ:
                return K_CJK if first_x == CJ else K_NONE
            if x == D:
                return (K_DIG1, K_DIG2, K_DIG3)[b - a - 1] if b - a <= 3 else K_NONE
            if first_x == AQ and b - a > 1:
                # an ASCII punctuation character and ASCII letters, or a punctuation run
                return K_AWORD if x == AL else K_PN if x in (AQ, P) else K_NONE
            if x in (AL, LO):
                return K_WORD
            if x in (AQ, P):
                return (K_AP1 if x == AQ else K_P1) if b - a == 1 else K_PN
            return K_NONE
        o200k = self.o200k
        if x in (LO, UP, OL):
            if o200k:
                if "'" in text[max(a, b - 3) : b]:
                    return K_NONE  # a contraction suffix
                if a > 0 and cc(text[a]) in (UP, OL) and cc(text[a - 1]) in (UP, OL):
                    return K_NONE  # the word before may read on into this one (see K_WORD_O)
                return {LO: K_WORD, UP: K_WORD_U, OL: K_WORD_O}[x]
            return K_WORD
        if x == D:
            return (K_DIG1, K_DIG2, K_DIG3)[b - a - 1] if b - a <= self.max_digits else K_NONE
        if x in (P, SL):
            if x == SL:
                # the piece is ` ?[^\s\p{L}\p{N}]+[\r\n/]*`: it holds a newline iff its
                # trailing [\r\n/] run does
                if holds_newline(a, b):
                    return K_PNL
            return K_P1 if b - a == 1 else K_PN
        # ends with whitespace
        if not self._all_ws(text, a, b):
            return K_PNL if x == NL else K_NONE
        prev = spans(2)
        if prev is not None and self._all_ws(text, *prev):
            if not self.ws_newlines or x == NL or cc(text[prev[1] - 1]) != NL:
                return K_NONE
            pp = spans(3)
            if pp is not None and self._all_ws(text, *pp):
                return K_NONE
            return K_WSTAIL
        if b - a == 1:
            return {SP: K_SP, WS: K_WS1, NL: K_NL1}[x]
        if self.ws_newlines and x == NL:
            return K_WSRUN_NL
        return K_WSRUN

    def _classify_space_lead(self, text, spans, a: int, b: int, x: int) -> int:
        """GPT-2's shape (see :func:`_table_space_lead`).  An apostrophe right before a
        one-character piece may start a contraction that reads it and the next character
        (``"'" + "l"`` is two pieces, ``"'ll"`` one): no kind then."""
        if b - a == 1 and a > 0 and text[a - 1] == "'":
            return K_NONE
        if x == LO:
            return K_WORD
        if x == D:
            return K_DIG1
        if x == P:
            return K_PN
        # ends with whitespace: a piece that does is whitespace only
        prev = spans(2)
        if prev is not None and self._all_ws(text, *prev):
            return K_NONE
        if b - a == 1:
            return {SP: K_SP, WS: K_WS1, NL: K_NL1}[x]
        return K_WSRUN

    def _all_ws(self, text, a: int, b: int) -> bool:
        # a piece whose first, second and last characters are whitespace is whitespace only
        # (the only other pieces starting and ending with whitespace are " " + punctuation + newlines)
        is_ws = self.is_ws
        return is_ws(text[a]) and is_ws(text[b - 1]) and (b - a == 1 or is_ws(text[a + 1]))


_CACHE: dict[str, FastSplit] = {}


def fast_split_for(pat_str):
    """The :class:`FastSplit` of a bundled pattern, or None."""
    if pat_str == PATTERNS["cl100k_base"]:
        key = "cl100k"
    elif pat_str == PATTERNS["o200k_base"]:
        key = "o200k"
    else:
        return None
    fs = _CACHE.get(key)
    if fs is None:
        fs = _CACHE[key] = FastSplit(key == "o200k")
    return fs


_MEMBER_CACHE: dict = {}
# The members whose choices the transitions are proven for (by enumeration against each one's
# own regex, tests/test_members_streaming.py); a pre-tokenizer with the choices of one of them
# gets the same transitions.
_PROVEN_MEMBERS = ("gpt2", "starcoder", "cl100k_base", "llama3", "qwen2", "qwen3.5", "o200k_base", "tekken")


def _choices(m) -> tuple:
    return (m.contractions, m.letters, m.letter_lead, m.digits, m.digit_lead, m.punct_tail, m.punct_marks,
            m.whitespace, m.end_whitespace_whole, m.pre_splits)


def fast_split_for_member(pretokenizer):
    """The :class:`FastSplit` of a member of the pre-tokenizer family
    (:mod:`bpe_stream.pretokenize.family`), derived from its choices, or None.

    The transitions follow from the choices: cased letters (o200k's two letter sets, Tekken)
    or not; marks in the letter run and out of punctuation (Qwen3.5), where a mark is one
    more letter; digit groups of at most three or one (a digit after a full group starts a
    new piece); a punctuation tail that takes ``/`` or not; whitespace at the end of the text
    one piece (``\\s++$``, cl100k) or split after its last newline (Llama 3, Qwen, o200k,
    Tekken: ``\\s*[\\r\\n]+`` then ``\\s+(?!\\S)``).  Given only for the choices of the
    members in ``_PROVEN_MEMBERS`` (the argument of the module doc holds for each; every
    transition is checked by enumeration against each one's own regex), and only when the
    pattern is the member's own (one of its known spellings) or the one the choices stand
    for.  Normalization is the caller's: what streams is the split of the normalized text.
    GPT-2's shape (a space lead, digit runs, no newline rule) has its own table
    (:func:`_table_space_lead`), with StarCoder's chain (digits split off first), and so
    has DeepSeek-V3's chain with its own main regex (:func:`_table_deepseek`, for its
    exact patterns only).  Other chains and mains: None (the regex re-splits)."""
    m = pretokenizer
    if m is None or isinstance(m, str):
        return None
    deepseek = MEMBERS["deepseek_v3"]
    known_mains = {deepseek.main, *(p for p, _ in deepseek.spellings)}
    if m.main is not None and m.pre_splits == deepseek.pre_splits and m.dialect == deepseek.dialect and (
            m.main in known_mains and m.pattern in known_mains):
        fs = _MEMBER_CACHE.get("deepseek")
        if fs is None:
            fs = _MEMBER_CACHE["deepseek"] = FastSplit(False, False, True, 3, deepseek=True)
        return fs
    if m.pre_splits not in ((), (r"\p{N}",)) or m.main is not None:
        return None
    member = MEMBERS.get(m.name)
    spelled = member is not None and m.known and (m.pattern, m.dialect) in {(member.pattern, member.dialect),
                                                                             *member.spellings}
    if not spelled and m.pattern != m.regex_from_choices():
        return None
    choices = _choices(m)
    if choices not in _MEMBER_CACHE:
        fs = None
        if any(choices == _choices(MEMBERS[name]) for name in _PROVEN_MEMBERS):
            cased = m.letters == "cased"
            fs = FastSplit(cased, m.punct_tail == "newlines-slash", not m.end_whitespace_whole,
                           {"one-to-three": 3, "one": 1, "run": 0}[m.digits], m.letters == "letters-marks",
                           m.letter_lead == "space", m.pre_splits == (r"\p{N}",))
        _MEMBER_CACHE[choices] = fs
    return _MEMBER_CACHE[choices]


WS_CLASSES = _WS_CLASSES
