"""Boundary levels for semantic chunking, as data.

A :class:`BoundaryLevel` is a name plus a regular expression; the cut positions
of a level are the *ends* of the pattern's matches, so a chunk cut there ends
with the match (a paragraph's blank line, a sentence's full stop) and the next
chunk starts right after it.  A level may instead supply ``finder(text, lo, hi)``
returning cut positions in ``text[lo:hi]``.

Invariants:

* a level is a pure function of the text it is given: the chunker runs it on
  the slice ``text[start : cut + LOOKAHEAD]`` of one chunk, never on the whole
  document, which is what makes streamed and whole-text chunking agree;
* cut positions fall between characters (str) or at UTF-8 character starts
  (bytes); the chunker checks this, so a careless pattern cannot split a
  character.

The default order (``SEMANTIC_LEVELS``), strongest first:

=========  =====================================================================
paragraph  after one or more blank lines (not the next line's indentation), except
           after a Markdown heading line
markdown   before a Markdown heading line or an opening code fence with an
           info string (```` ```python ````), after a bare closing fence line
line       after a newline
sentence   after ``.``, ``!``, ``?``, ``…`` (and closing quotes/brackets) when
           whitespace follows, or after CJK ``。！？``
word       after a run of non-whitespace that whitespace follows (the space
           starts the next chunk, as it starts the next token)
=========  =====================================================================

Below ``word`` the chunker always has a final, implicit level: *character*, the
exact cut (grapheme cluster boundaries first, then any code point).

Complexity: each level costs one ``regex`` scan of the slice it is asked about.

>>> [lvl.name for lvl in SEMANTIC_LEVELS]
['paragraph', 'markdown', 'line', 'sentence', 'word']
>>> text = "One. Two\\n\\nThree"
>>> SEMANTIC_LEVELS[0].positions(text, 0, len(text))
[10]
>>> get_level("sentence").positions(text, 0, len(text))
[4]
>>> custom = BoundaryLevel("comma", r",\\s*")
>>> custom.positions("a, b, c", 0, 7)
[3, 6]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import regex

__all__ = ["BoundaryLevel", "SEMANTIC_LEVELS", "LEVELS_BY_NAME", "get_level", "resolve_levels"]

# How far past a candidate cut a level may look (characters or bytes).  The
# chunker hands every level the chunk's text plus this much context.
LOOKAHEAD = 256


@dataclass(frozen=True)
class BoundaryLevel:
    """A named kind of cut position.

    ``pattern``: a regex (str); the cut positions are the ends of its non-empty
    or zero-width matches.  ``bytes_pattern``: the same for bytes input
    (default: ``pattern`` encoded as UTF-8, which works for patterns without
    Unicode classes).  ``finder``: alternatively, ``finder(text, lo, hi)``
    returns the cut positions in ``(lo, hi]`` directly.
    """

    name: str
    pattern: str | None = None
    bytes_pattern: bytes | None = None
    finder: Callable[[str | bytes, int, int], Iterable[int]] | None = field(
        default=None, compare=False
    )
    #: Optional literal prefilter: every match contains one of these strings
    #: (str; their UTF-8 encodings for bytes), so a slice holding none has no
    #: positions and the regex is not run on it.
    required: tuple[str, ...] = ()

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError("a boundary level needs a non-empty name")
        if (self.pattern is None) == (self.finder is None):
            raise ValueError(f"boundary level {self.name!r}: give exactly one of pattern or finder")
        if self.required:
            object.__setattr__(self, "_required_bytes", tuple(r.encode("utf-8") for r in self.required))
        if self.pattern is not None:
            try:
                object.__setattr__(self, "_compiled", regex.compile(self.pattern))
            except regex.error as e:
                raise ValueError(f"boundary level {self.name!r}: invalid pattern: {e}") from e
            bp = self.bytes_pattern
            if bp is None:
                bp = self.pattern.encode("utf-8")
            try:
                object.__setattr__(self, "_compiled_bytes", regex.compile(bp))
            except regex.error:
                object.__setattr__(self, "_compiled_bytes", None)

    def positions(self, text: str | bytes, lo: int, hi: int, stop: int | None = None) -> list[int]:
        """Cut positions ``p`` with ``lo < p <= hi``, ascending, found in ``text[lo:hi]``.

        The pattern sees only ``text[lo:hi]`` (as if it were the whole string).
        With ``stop``, only the positions ``<= stop`` are returned (the scan ends
        at the first match past it; the result is the same prefix of the list).
        """
        if stop is None or stop > hi:
            stop = hi
        if self.finder is not None:
            return sorted({p for p in self.finder(text, lo, hi) if lo < p <= stop})
        required = self.required
        if required:
            if not isinstance(text, str):
                required = self._required_bytes
            if not any(text.find(r, lo, hi) >= 0 for r in required):
                return []
        if isinstance(text, str):
            pat = self._compiled
        else:
            pat = self._compiled_bytes
            if pat is None:
                raise ValueError(f"boundary level {self.name!r} has no pattern usable on bytes")
        out = []
        seen_last = lo
        # Search a slice so that anchors, look-behinds and look-aheads see only text[lo:hi].
        sub = text[lo:hi] if (lo or hi != len(text)) else text
        for m in pat.finditer(sub):
            p = lo + m.end()
            if p > stop:
                break
            if p > seen_last:
                out.append(p)
                seen_last = p
        return out


_U = "utf-8"

# The blank lines are taken, the next line's indentation is not (a chunk of indented
# code, YAML or verse starts with its first line whole); blank lines right after a
# Markdown heading line are no cut (a chunk does not end with its heading).  A finder,
# not one regex: a look-behind for the heading would re-scan a run of blank lines from
# each of its newlines, O(run^2).  This is one linear scan plus a look at the start of
# the line before each run.
_BLANK_RUN = regex.compile(r"\n(?:[^\S\n]*+\n)++")
_BLANK_RUN_BYTES = regex.compile(rb"\n(?:[ \t\r\f\v]*+\n)++")
_HEADING_START = regex.compile(r" {0,3}#{1,6}(?:[ \t]|\r?\n)")
_HEADING_START_BYTES = regex.compile(rb" {0,3}#{1,6}(?:[ \t]|\r?\n)")


def _paragraph_ends(text: str | bytes, lo: int, hi: int) -> list[int]:
    """Ends of the runs of blank lines in ``text[lo:hi]`` that do not follow a heading line."""
    if isinstance(text, str):
        run, heading, nl = _BLANK_RUN, _HEADING_START, "\n"
    else:
        run, heading, nl = _BLANK_RUN_BYTES, _HEADING_START_BYTES, b"\n"
    out = []
    for m in run.finditer(text, lo, hi):
        line_start = text.rfind(nl, lo, m.start()) + 1  # type: ignore[arg-type]
        if line_start == 0:
            line_start = lo
        if heading.match(text, line_start, m.start() + 1) is None:  # type: ignore[call-overload]
            out.append(m.end())
    return out


PARAGRAPH = BoundaryLevel("paragraph", finder=_paragraph_ends)
MARKDOWN = BoundaryLevel(
    "markdown",
    # before a heading line or an opening fence with an info string; after a bare fence line
    r"\n(?=#{1,6}[ \t]|(?:```|~~~)[^\s`~])|(?m:^(?:```|~~~)[ \t]*\n)",
    rb"\n(?=#{1,6}[ \t]|(?:```|~~~)[^\s`~])|(?m:^(?:```|~~~)[ \t]*\n)",
    required=("\n#", "```", "~~~"),
)
LINE = BoundaryLevel("line", r"\n", rb"\n")
# Sentence and word ends are found from the *start* of a run (look-behind) with possessive
# runs, or as the single character before whitespace: written as ``[.!?]+...(?=\s)`` or
# ``\S+(?=\s)``, a run with no whitespace after it is retried from every position inside
# it and given back character by character, O(run^2) per scan (a 2,500-character word cost
# 150 ms per chunk).  The match ends, which are the cut positions, are the same.
SENTENCE = BoundaryLevel(
    "sentence",
    r"(?<![.!?\u2026])[.!?\u2026]++[\"'\u201d\u2019)\]]*+(?=\s)|[\u3002\uff01\uff1f]+[\u300d\u300f\u201d\u2019\uff09]*",
    "(?<![.!?])[.!?]++[\"')\\]]*+(?=[ \t\r\n\f\v])|(?:\u2026|\u3002|\uff01|\uff1f)+(?:\u300d|\u300f|\u201d|\u2019|\uff09)*".encode(_U),
)
WORD = BoundaryLevel("word", r"\S(?=\s)", rb"[^ \t\r\n\f\v](?=[ \t\r\n\f\v])")

#: The default order for ``boundaries="semantic"``, strongest first.
SEMANTIC_LEVELS: tuple[BoundaryLevel, ...] = (PARAGRAPH, MARKDOWN, LINE, SENTENCE, WORD)
LEVELS_BY_NAME = {lvl.name: lvl for lvl in SEMANTIC_LEVELS}


def get_level(name: str) -> BoundaryLevel:
    """A built-in level by name (``paragraph``, ``markdown``, ``line``, ``sentence``, ``word``)."""
    try:
        return LEVELS_BY_NAME[name]
    except KeyError:
        raise ValueError(
            f"unknown boundary level {name!r}; built-in levels: {', '.join(LEVELS_BY_NAME)}"
        ) from None


def resolve_levels(spec) -> tuple[BoundaryLevel, ...]:
    """Turn a ``boundaries=`` argument other than ``"exact"`` into a tuple of levels.

    Accepts ``"semantic"``, a sequence of :class:`BoundaryLevel`, level names,
    or ``(name, pattern)`` pairs.
    """
    if spec == "semantic":
        return SEMANTIC_LEVELS
    if isinstance(spec, (str, bytes)) or not isinstance(spec, Sequence):
        raise ValueError(
            f"boundaries must be 'exact', 'semantic' or a sequence of boundary levels, got {spec!r}"
        )
    levels = []
    for item in spec:
        if isinstance(item, BoundaryLevel):
            levels.append(item)
        elif isinstance(item, str):
            levels.append(get_level(item))
        elif isinstance(item, tuple) and len(item) == 2:
            levels.append(BoundaryLevel(item[0], item[1]))
        else:
            raise ValueError(f"not a boundary level: {item!r}")
    return tuple(levels)
