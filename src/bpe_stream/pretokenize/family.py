"""The pre-tokenizers of byte-level BPE models as one family of a few orthogonal choices.

Every byte-level BPE tokenizer in use splits text with a regex before BPE, and the
regexes are variations of one design: a contraction alternative, a letter run with an
optional lead character, a digit group, a punctuation run with an optional tail, and
whitespace rules.  A :class:`PreTokenizer` names those choices; the members below are
the pre-tokenizers of real models, each with the exact pattern string(s) of the model's
own tokenizer (its *reference*) and the choices that describe it.

Invariant: ``member.regex_from_choices()`` matches exactly what ``member.pattern``
matches, in the member's dialect (checked by exhaustive enumeration over short strings
of one character per class the member tells apart, and by hypothesis text, in
``tests/test_family.py``).  A pattern string is recognized as a member only when it is
one of the member's known spellings *in that dialect*: the same string means different
things to tiktoken's Rust regex and to the Oniguruma of HF ``tokenizers`` (Oniguruma
reads ``\\p{N}{1,3}+`` as ``(?:\\p{N}{1,3})+`` and ``$`` as end of line).

Chained pre-tokenizers (DeepSeek-V3 isolates digit groups, then CJK runs, then applies
its main regex) are members with ``pre_splits``: each split refines every piece of the
previous one, and text a regex does not match stays a piece of its own (HF's
``Split(behavior="isolated")`` in a ``Sequence``, and llama.cpp's ``unicode_regex_split``);
tiktoken drops text its pattern does not match, which no member's pattern leaves.

Costs: recognizing a pattern is a dict lookup; compiling is once per member.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import regex

from .normalize import normalize
from .patterns import CL100K_PATTERN, O200K_PATTERN, _rust_dollar_to_python, compile_pattern
from .unicode import compile_regex

__all__ = [
    "GPT2_BYTE_LEVEL",
    "PreTokenizer",
    "MEMBERS",
    "get_pretokenizer",
    "recognize",
    "custom",
    "SplitPattern",
    "DIALECTS",
    "native_spec",
]

#: Regex dialects: whose engine reads a pattern string.
DIALECTS = ("tiktoken", "hf")

_CONTRACTIONS = ("none", "case-sensitive", "case-insensitive", "suffix")
_LETTERS = ("letters", "letters-marks", "cased")
_LEADS = ("space", "non-letter")
_DIGITS = ("run", "one-to-three", "one")
_TAILS = ("none", "newlines", "newlines-slash")
_WHITESPACE = ("gpt2", "newlines")
_NORMALIZERS = (None, "NFC", "NFKC")


@dataclass(frozen=True)
class PreTokenizer:
    """One pre-tokenizer of the family: its choices, and the pattern they stand for.

    >>> qwen = get_pretokenizer("qwen2")
    >>> qwen.digits, qwen.normalizer
    ('one', 'NFC')
    >>> qwen.split("Qwen has 2025 tokens!")
    ['Qwen', ' has', ' ', '2', '0', '2', '5', ' tokens', '!']
    """

    name: str
    #: ``'s 't 're 've 'm 'll 'd``: none, a piece of their own (case-sensitive or not), or
    #: an optional suffix of the letter run (o200k).
    contractions: str = "case-insensitive"
    #: the letter run: ``\p{L}+``, ``[\p{L}\p{M}]+``, or o200k's upper/lower split.
    letters: str = "letters"
    #: what may lead a letter run: an optional space (GPT-2) or one character that is not
    #: a letter, a digit or a newline.
    letter_lead: str = "non-letter"
    #: ``\p{N}+``, ``\p{N}{1,3}`` or ``\p{N}``; ``digit_lead``: an optional space before them.
    digits: str = "one-to-three"
    digit_lead: bool = False
    #: what the punctuation run ``[^\s\p{L}\p{N}]+`` may end with: nothing, ``[\r\n]*`` or
    #: ``[\r\n/]*``; ``punct_marks``: whether marks count as punctuation.
    punct_tail: str = "newlines"
    punct_marks: bool = True
    #: GPT-2's ``\s+(?!\S)|\s+`` or the cl100k family's ``\s*[\r\n]+|\s+(?!\S)|\s+``;
    #: ``end_whitespace_whole``: tiktoken's ``\s++$`` (whitespace ending the text is one piece).
    whitespace: str = "newlines"
    end_whitespace_whole: bool = False
    #: regexes applied before the main one, each refining the pieces of the one before.
    pre_splits: tuple[str, ...] = ()
    #: the main regex when it is not one of the family's shapes (DeepSeek's), else None.
    main: str | None = None
    #: Unicode normalization applied to the text before splitting (Qwen: NFC).
    normalizer: str | None = None
    #: the reference pattern (the model tokenizer's own spelling) and its dialect.
    pattern: str = ""
    dialect: str = "hf"
    #: other spellings recognized as this member, as (pattern, dialect) pairs.
    spellings: tuple[tuple[str, str], ...] = ()
    #: False for a pattern outside the family (compiled as given, see :func:`custom`).
    known: bool = True
    #: models that use it, for messages and the docs.
    used_by: str = ""
    _compiled: dict = field(default_factory=dict, compare=False, repr=False, hash=False)

    def __post_init__(self):
        for value, allowed, what in (
            (self.contractions, _CONTRACTIONS, "contractions"),
            (self.letters, _LETTERS, "letters"),
            (self.letter_lead, _LEADS, "letter_lead"),
            (self.digits, _DIGITS, "digits"),
            (self.punct_tail, _TAILS, "punct_tail"),
            (self.whitespace, _WHITESPACE, "whitespace"),
            (self.normalizer, _NORMALIZERS, "normalizer"),
            (self.dialect, DIALECTS, "dialect"),
        ):
            if value not in allowed:
                raise ValueError(f"pre-tokenizer {self.name!r}: {what} must be one of {allowed}, got {value!r}")
        if not self.pattern:
            object.__setattr__(self, "pattern", self.main or self.regex_from_choices())

    def __reduce__(self):
        if self.known and MEMBERS.get(self.name) == self:
            return (get_pretokenizer, (self.name,))
        return (_rebuild, (self._fields(),))

    def _fields(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "_compiled"}

    def __repr__(self) -> str:
        return f"<PreTokenizer {self.name!r}>"

    # ------------------------------------------------------------- the pattern
    def regex_from_choices(self) -> str:
        """The main regex these choices stand for (in the common syntax of both dialects:
        no ``$``, no ``{n,m}+``)."""
        if self.main is not None:
            return self.main
        words = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]
        contraction = "|".join(words)
        lead = " ?" if self.letter_lead == "space" else r"[^\r\n\p{L}\p{N}]?"
        suffix = f"(?i:{contraction})?" if self.contractions == "suffix" else ""
        alts = []
        if self.contractions == "case-sensitive":
            alts.append(contraction)
        elif self.contractions == "case-insensitive":
            alts.append(f"(?i:{contraction})")
        if self.letters == "cased":
            upper, lower = r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"
            alts.append(f"{lead}{upper}*{lower}+{suffix}")
            alts.append(f"{lead}{upper}+{lower}*{suffix}")
        else:
            letter = r"\p{L}" if self.letters == "letters" else r"[\p{L}\p{M}]"
            alts.append(f"{lead}{letter}+{suffix}")
        digit = {"run": r"\p{N}+", "one-to-three": r"\p{N}{1,3}", "one": r"\p{N}"}[self.digits]
        alts.append((" ?" if self.digit_lead else "") + digit)
        punct = r"[^\s\p{L}\p{M}\p{N}]+" if not self.punct_marks else r"[^\s\p{L}\p{N}]+"
        tail = {"none": "", "newlines": r"[\r\n]*", "newlines-slash": r"[\r\n/]*"}[self.punct_tail]
        alts.append(f" ?{punct}{tail}")
        if self.end_whitespace_whole:
            alts.append(r"\s+(?=\Z)")
        if self.whitespace == "newlines":
            alts.append(r"\s*[\r\n]+")
        alts += [r"\s+(?!\S)", r"\s+"]
        return "|".join(alts)

    @property
    def chained(self) -> bool:
        return bool(self.pre_splits)

    def compiled(self) -> "regex.Pattern[str] | SplitPattern":
        """What splits a text: the compiled reference regex (single-regex members), or a
        :class:`SplitPattern` (chains; text a regex leaves unmatched kept as pieces)."""
        c = self._compiled.get("split")
        if c is None:
            main = compile_dialect(self.pattern, self.dialect, lazy=self.known)
            if self.pre_splits or (self.dialect == "hf" and not self.known):
                c = SplitPattern([compile_dialect(p, self.dialect, lazy=self.known) for p in self.pre_splits] + [main])
            else:
                c = main
            self._compiled["split"] = c
        return c

    def normalize(self, text: str) -> str:
        """``text`` as the member's tokenizer sees it (its Unicode normalization, if any)."""
        if self.normalizer is None or text.isascii():
            return text
        return normalize(self.normalizer, text)

    def split(self, text: str) -> list[str]:
        """The pieces of ``text`` (after normalization)."""
        return self.compiled().findall(self.normalize(text))


def _rebuild(fields: dict) -> PreTokenizer:
    return PreTokenizer(**fields)


# ------------------------------------------------------------------ dialects
def compile_dialect(pattern: str, dialect: str, lazy: bool = False):
    """Compile ``pattern`` as the ``dialect``'s engine reads it, with the reference
    engines' Unicode classes (:mod:`bpe_stream.pretokenize.unicode`).  ``lazy`` (for the
    family's members, known to compile): compiled on first use, so that loading an
    encoding compiles nothing a count does not need."""
    if dialect == "tiktoken":
        if lazy:
            return compile_regex(_rust_dollar_to_python(pattern))  # $ is the end of the text
        return compile_pattern(pattern)
    if dialect == "hf":
        compiled = compile_regex(_onig_to_python(pattern))
        return compiled if lazy else compiled.compiled()
    raise ValueError(f"unknown regex dialect {dialect!r}; expected one of {', '.join(DIALECTS)}")


def _onig_to_python(pattern: str) -> str:
    """Oniguruma's (Ruby syntax) reading of ``pattern``, in the ``regex`` module's syntax.

    Two constructs differ: ``X{n,m}+`` is a repetition of ``X{n,m}`` (not possessive), and
    ``$`` matches at the end of a line (before ``\\n``) as well as at the end."""
    out = []
    i = 0
    n = len(pattern)
    in_set = 0
    while i < n:
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_set:
            if c == "[":
                in_set += 1
            elif c == "]":
                in_set -= 1
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_set = 1
            out.append(c)
            # a "]" right after "[" or "[^" is literal
            j = i + 1 + (pattern[i + 1 : i + 2] == "^")
            out.append(pattern[i + 1 : j])
            if pattern[j : j + 1] == "]":
                out.append("]")
                j += 1
            i = j
            continue
        if c == "$":
            out.append(r"(?=\n|\Z)")
            i += 1
            continue
        if c == "{":
            close = pattern.find("}", i)
            body = pattern[i + 1 : close] if close > 0 else ""
            if close > 0 and body and all(ch.isdigit() or ch == "," for ch in body):
                if pattern[close + 1 : close + 2] == "+":
                    # the atom before "{" is the last item of out: wrap it with its interval
                    atom = _pop_atom(out)
                    out.append(f"(?:{atom}{{{body}}})+")
                    i = close + 2
                    continue
        out.append(c)
        i += 1
    return "".join(out)


def _pop_atom(out: list[str]) -> str:
    """Remove and return the last atom of the pattern built so far in ``out`` (a group,
    a set, an escape or one character)."""
    text = "".join(out)
    out.clear()
    end = len(text)
    if text.endswith(")"):
        depth = 0
        k = end - 1
        while k >= 0:
            ch = text[k]
            if ch == ")" and not _escaped(text, k):
                depth += 1
            elif ch == "(" and not _escaped(text, k):
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        start = k
    elif text.endswith("]") and not _escaped(text, end - 1):
        k = end - 1
        while k > 0 and not (text[k] == "[" and not _escaped(text, k)):
            k -= 1
        start = k
    elif end >= 2 and text[end - 2] == "\\" and not _escaped(text, end - 2):
        start = end - 2
    elif text.endswith("}"):  # \p{..}
        start = text.rfind("\\", 0, end)
    else:
        start = end - 1
    out.append(text[:start])
    return text[start:]


def _escaped(text: str, k: int) -> bool:
    backslashes = 0
    while k > 0 and text[k - 1] == "\\":
        backslashes += 1
        k -= 1
    return backslashes % 2 == 1


# ------------------------------------------------------------------ chains
class _Piece:
    __slots__ = ("_s", "_e", "string")

    def __init__(self, string: str, s: int, e: int):
        self.string, self._s, self._e = string, s, e

    def span(self):
        return (self._s, self._e)

    def start(self):
        return self._s

    def end(self):
        return self._e

    def group(self, k: int = 0):
        return self.string[self._s : self._e]


class SplitPattern:
    """A chain of regexes as one splitter, with the match interface the engines use.

    Each regex splits every piece the one before left (the first one the whole text):
    its matches and the text between them (when not empty) are the new pieces, in order;
    each piece is split as a whole text of its own (``$`` and look-arounds see its ends).
    ``finditer(text, pos, endpos)`` splits ``text[pos:endpos]`` as a whole text.
    Cost: one regex pass per chain step over the text."""

    __slots__ = ("regexes",)

    def __init__(self, regexes):
        self.regexes = tuple(regexes)

    def __reduce__(self):
        return (SplitPattern, (self.regexes,))

    def spans(self, text: str, pos: int = 0, endpos: int | None = None) -> list[tuple[int, int]]:
        end = len(text) if endpos is None else endpos
        spans = [(pos, end)] if end > pos else []
        for rx in self.regexes:
            out = []
            for a, b in spans:
                at = a
                for m in rx.finditer(text[a:b]):
                    s, e = m.start() + a, m.end() + a
                    if s == e:
                        continue
                    if s > at:
                        out.append((at, s))
                    out.append((s, e))
                    at = e
                if at < b:
                    out.append((at, b))
            spans = out
        return spans

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None):
        # Lazily, depth first (each piece refined by the rest of the chain as soon as the
        # regex before yields it): the same pieces in the same order as spans(), and a
        # caller that stops early (the chunker's re-split of a window) reads only as far.
        end = len(text) if endpos is None else endpos
        if end > pos:
            for s, e in self._refine(text, pos, end, 0):
                yield _Piece(text, s, e)

    def _refine(self, text: str, a: int, b: int, level: int):
        if level == len(self.regexes):
            yield a, b
            return
        at = a
        deeper = level + 1
        for m in self.regexes[level].finditer(text[a:b]):
            s, e = m.start() + a, m.end() + a
            if s == e:
                continue
            if s > at:
                yield from self._refine(text, at, s, deeper)
            yield from self._refine(text, s, e, deeper)
            at = e
        if at < b:
            yield from self._refine(text, at, b, deeper)

    def findall(self, text: str, pos: int = 0, endpos: int | None = None) -> list[str]:
        return [text[s:e] for s, e in self.spans(text, pos, endpos)]


# ------------------------------------------------------------------ members
_CONTRACTIONS_I = "(?i:'s|'t|'re|'ve|'m|'ll|'d)"
_LLAMACPP_CONTRACTIONS = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
_GPT2_HF = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
#: the regex of HF's ``ByteLevel`` pre-tokenizer (``use_regex``), GPT-2's
GPT2_BYTE_LEVEL = _GPT2_HF
_LLAMA3 = _CONTRACTIONS_I + r"""|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
_QWEN2 = _CONTRACTIONS_I + r"""|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
_QWEN35 = (_CONTRACTIONS_I + r"""|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
           r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")
_TEKKEN = (r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
           r"""|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
           r"""|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
_DEEPSEEK_V3_MAIN = (r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"""
                     r"""| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
_DEEPSEEK_CJK = "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"
_GPT2_LLAMACPP = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"""


def _llamacpp(spelling: str) -> str:
    return spelling.replace(_CONTRACTIONS_I, _LLAMACPP_CONTRACTIONS, 1)


_MEMBERS = [
    PreTokenizer(
        "gpt2", contractions="case-sensitive", letter_lead="space", digits="run", digit_lead=True,
        punct_tail="none", whitespace="gpt2", pattern=_GPT2_HF, dialect="hf",
        spellings=(
            (r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s""", "tiktoken"),
            (_GPT2_HF, "tiktoken"),
            (r"""'s|'t|'re|'ve|'m|'ll|'d| ?[\p{L}]+| ?[\p{N}]+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""", "hf"),
            (r"""'s|'t|'re|'ve|'m|'ll|'d| ?[\p{L}]+| ?[\p{N}]+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""", "tiktoken"),
            (_GPT2_LLAMACPP, "hf"),
        ),
        used_by="GPT-2, r50k_base, p50k_base, RoBERTa, GPT-J, MPT, OLMo",
    ),
    PreTokenizer(
        "cl100k_base", end_whitespace_whole=True, pattern=CL100K_PATTERN, dialect="tiktoken",
        used_by="GPT-4, GPT-3.5, text-embedding-3",
    ),
    PreTokenizer(
        "llama3", pattern=_LLAMA3, dialect="hf",
        spellings=((_LLAMA3, "tiktoken"), (_llamacpp(_LLAMA3), "hf")),
        used_by="Llama 3 / 3.1 / 3.2 / 3.3, cl100k_base before tiktoken 0.8",
    ),
    PreTokenizer(
        "qwen2", digits="one", normalizer="NFC", pattern=_QWEN2, dialect="hf",
        spellings=((_QWEN2, "tiktoken"), (_llamacpp(_QWEN2), "hf")),
        used_by="Qwen, Qwen2, Qwen2.5, Qwen3, Qwen3-Embedding",
    ),
    PreTokenizer(
        "qwen3.5", letters="letters-marks", digits="one", punct_marks=False, normalizer="NFC",
        pattern=_QWEN35, dialect="hf", spellings=((_QWEN35, "tiktoken"), (_llamacpp(_QWEN35), "hf")),
        used_by="Qwen3.5 and later",
    ),
    PreTokenizer(
        "o200k_base", contractions="suffix", letters="cased", punct_tail="newlines-slash",
        pattern=O200K_PATTERN, dialect="tiktoken", spellings=((O200K_PATTERN, "hf"),),
        used_by="GPT-4o, GPT-4.1, o-series, gpt-oss (o200k_harmony)",
    ),
    PreTokenizer(
        "tekken", contractions="none", letters="cased", digits="one", punct_tail="newlines-slash",
        pattern=_TEKKEN, dialect="tiktoken", spellings=((_TEKKEN, "hf"),),
        used_by="Mistral Nemo, Mistral Small 3, Pixtral (Tekken)",
    ),
    PreTokenizer(
        "deepseek_v3", contractions="none", letters="letters-marks", pre_splits=(r"\p{N}{1,3}", _DEEPSEEK_CJK),
        main=_DEEPSEEK_V3_MAIN, dialect="hf", spellings=((_DEEPSEEK_V3_MAIN.replace('!"', '!\\"', 1), "hf"),),
        used_by="DeepSeek-V3, DeepSeek-R1",
    ),
    PreTokenizer(
        "starcoder", contractions="case-sensitive", letter_lead="space", digits="run", digit_lead=True,
        punct_tail="none", whitespace="gpt2", pre_splits=(r"\p{N}",), dialect="hf",
        spellings=((_GPT2_LLAMACPP, "hf"),),
        used_by="StarCoder, Refact, Command-R, SmolLM (digits split one by one before GPT-2's regex)",
    ),
]

MEMBERS: dict[str, PreTokenizer] = {m.name: m for m in _MEMBERS}
# aliases people write
_ALIASES = {"gpt-2": "gpt2", "r50k_base": "gpt2", "p50k_base": "gpt2", "llama-3": "llama3", "llama-bpe": "llama3",
            "qwen": "qwen2", "qwen3": "qwen2", "qwen35": "qwen3.5", "o200k_harmony": "o200k_base",
            "deepseek-v3": "deepseek_v3"}

_SPELLINGS: dict[tuple[str, str], PreTokenizer] = {}
for _m in _MEMBERS:
    if not _m.chained:
        _SPELLINGS.setdefault((_m.pattern, _m.dialect), _m)
        for _s in _m.spellings:
            _SPELLINGS.setdefault(_s, _m)


def get_pretokenizer(name: str) -> PreTokenizer:
    """A member by name (or a common alias: ``"r50k_base"`` is ``"gpt2"``)."""
    if isinstance(name, PreTokenizer):
        return name
    if not isinstance(name, str):
        raise TypeError(f"pre-tokenizer name must be a str, got {type(name).__name__}")
    member = MEMBERS.get(name) or MEMBERS.get(_ALIASES.get(name, ""))
    if member is None:
        raise ValueError(f"unknown pre-tokenizer {name!r}; the members are: {', '.join(MEMBERS)}")
    return member


def recognize(pattern: str, dialect: str = "tiktoken") -> PreTokenizer | None:
    """The member whose known spelling in ``dialect`` is ``pattern``, or None."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown regex dialect {dialect!r}; expected one of {', '.join(DIALECTS)}")
    return _SPELLINGS.get((pattern, dialect))


@functools.lru_cache(maxsize=64)
def custom(pattern: str, dialect: str = "tiktoken") -> PreTokenizer:
    """A pre-tokenizer for a pattern outside the family: compiled as ``dialect`` reads it
    (a bad pattern raises ``ValueError`` naming it)."""
    member = recognize(pattern, dialect)
    if member is not None:
        return member
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, got {type(pattern).__name__}")
    m = PreTokenizer("custom", pattern=pattern, dialect=dialect, known=False)
    try:
        m.compiled()
    except regex.error as e:
        raise ValueError(f"invalid pre-split pattern {pattern!r}: {e}") from e
    return m


def chain(name: str, regexes: list[str] | tuple[str, ...], dialect: str = "hf", normalizer: str | None = None,
          known: bool = False, used_by: str = "") -> PreTokenizer:
    """A pre-tokenizer that applies ``regexes`` in turn (each refining the pieces of the one
    before; unmatched text kept as pieces): HF's ``Sequence`` of ``Split(isolated)``, or
    llama.cpp's list of regexes for a ``tokenizer.ggml.pre``."""
    regexes = tuple(regexes)
    if len(regexes) == 1:
        member = recognize(regexes[0], dialect)
        if member is not None:
            return member if member.normalizer == normalizer else replace(member, normalizer=normalizer)
    for m in _MEMBERS:
        mains = {m.pattern} | {s for s, d in m.spellings if d == dialect}
        if m.chained and m.pre_splits == regexes[:-1] and regexes[-1] in mains and m.dialect == dialect:
            return m if m.normalizer == normalizer else replace(m, normalizer=normalizer)
    return PreTokenizer(name, pre_splits=regexes[:-1], main=regexes[-1], pattern=regexes[-1], dialect=dialect,
                        normalizer=normalizer, known=known, used_by=used_by)


# ------------------------------------------------------------------ the compiled scanner
_NATIVE_CHAINS = {(): 0, (r"\p{N}",): 1, (r"\p{N}{1,3}", _DEEPSEEK_CJK): 2}


def _pack_spec(m: PreTokenizer) -> int:
    """The choices of ``m`` as the small ints of ``_native/presplit.c`` (``Spec``)."""
    return (
        _CONTRACTIONS.index(m.contractions)
        | _LETTERS.index(m.letters) << 2
        | (m.letter_lead == "non-letter") << 4
        | _DIGITS.index(m.digits) << 5
        | m.digit_lead << 7
        | m.punct_marks << 8
        | _TAILS.index(m.punct_tail) << 9
        | (m.whitespace == "newlines") << 11
        | m.end_whitespace_whole << 12
        | _NATIVE_CHAINS[m.pre_splits] << 13
        | (m.main == _DEEPSEEK_V3_MAIN) << 15
    )


# (pattern, dialect, pre-splits, main) of every member -> its spec
_NATIVE_SPECS = {(m.pattern, m.dialect, m.pre_splits, m.main): _pack_spec(m) for m in _MEMBERS}


def native_spec(member: PreTokenizer | None) -> int | None:
    """The spec under which the compiled scanner (``_native/presplit.c``) splits exactly as
    ``member`` does, or None when it does not know the member (a pattern outside the
    family: the regex splits it).  Decided by the member's exact pattern strings, dialect
    and chain, not by its name: a member built with other patterns is not recognized."""
    if member is None or not member.known:
        return None
    return _NATIVE_SPECS.get((member.pattern, member.dialect, member.pre_splits, member.main))
