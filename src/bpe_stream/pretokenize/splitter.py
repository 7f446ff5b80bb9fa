"""Pre-splitting text into pieces with tiktoken's patterns.

tiktoken runs its patterns with Rust's ``fancy-regex``; the ``regex`` module
supports the same syntax (``\\p{..}`` classes, possessive quantifiers) and the
same Unicode ``White_Space`` definition of ``\\s``.  One difference matters: in
Python ``$`` also matches before a final newline, while in Rust it matches only
at the very end, so an unescaped ``$`` outside a character class is rewritten to
``\\Z``.

Speed: the standard library's ``re`` splits about 2.5x faster than ``regex`` but
has no ``\\p{..}`` classes.  On ASCII text the Unicode classes reduce to ASCII
ranges, so :class:`PreSplitter` runs an ASCII translation of the pattern with
``re`` on every ASCII stretch of the input and the full pattern with ``regex`` on
the rest.  Stretches are cut only at two kinds of position ``p``, each a piece boundary
of the whole text and of ``text[:p]`` alike:

* just after a newline followed by an ASCII letter or digit, or by spaces/tabs
  and then a non-space: a piece containing a newline either ends with it or
  continues only with more whitespace, ``/`` or newlines (o200k's punctuation
  pieces); a whitespace piece reaching ``p`` ends at the last newline of its
  whitespace run, which is at ``p - 1`` because the spaces after it contain none,
  and in ``text[:p]`` the same run ends the text and is matched whole;
* just before a space between two ASCII letters: no alternative continues a
  piece holding a letter with a space (letter runs stop at it, contractions need
  an apostrophe), and the piece ending at ``p`` only looked one character ahead
  to see its letter run end, which the end of ``text[:p]`` also ends.

Pieces are found left to right with no look-behind, so splitting the stretches
separately gives the pieces of the whole text.  Tests check this against
splitting the whole text at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import regex

from ..bpe.native import first_in_bitmap, presplit
from .family import _onig_to_python, custom, native_spec
from .patterns import (
    CL100K_PATTERN,
    O200K_PATTERN,
    PATTERNS,
    _rust_dollar_to_python,
)
from .unicode import differing_bitmap

__all__ = ["PreSplitter"]

# ASCII meaning of the Unicode classes the bundled patterns use.
_ASCII_CLASSES = {
    r"\p{L}": "A-Za-z",
    r"\p{N}": "0-9",
    r"\p{Lu}": "A-Z",
    r"\p{Ll}": "a-z",
    r"\p{Lt}": "",
    r"\p{Lm}": "",
    r"\p{Lo}": "",
    r"\p{M}": "",
    r"\s": r" \t\n\x0b\x0c\r",
}
_ESCAPE = re.compile(r"\\p\{[A-Za-z]+\}|\\[sSdDwWbB]")


def _ascii_translation(pat_str: str) -> str | None:
    """``pat_str`` with its Unicode classes replaced by ASCII ranges, or None if unsupported."""
    out = []
    in_class = False
    i = 0
    pattern = _rust_dollar_to_python(pat_str)
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            m = _ESCAPE.match(pattern, i)
            if m is None:
                out.append(pattern[i : i + 2])
                i += 2
                continue
            esc = m.group()
            if esc == r"\S":
                if in_class:
                    return None
                out.append("[^" + _ASCII_CLASSES[r"\s"] + "]")
            elif esc in _ASCII_CLASSES:
                ranges = _ASCII_CLASSES[esc]
                if in_class:
                    out.append(ranges)
                else:
                    out.append("[" + ranges + "]" if ranges else "(?!)")
            else:
                return None
            i = m.end()
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class and pattern[i - 1] not in "[^":
            in_class = False
        out.append(c)
        i += 1
    return "".join(out)


# Hand-written ASCII patterns that match exactly what the originals match on
# ASCII text, with less backtracking:
# * o200k has no possessive quantifiers; in ``[A-Z]*[a-z]+`` and after an
#   optional non-letter lead the classes are disjoint, so giving back characters
#   can never let the rest match; in `` ?[^\s..]+[\r\n/]*`` the tail can match
#   empty, so the first greedy attempt always succeeds.
# * o200k's two letter alternatives (``[A-Z]*[a-z]+`` and ``[A-Z]+[a-z]*``, same
#   lead, same contraction tail) together match ``[A-Z]*[a-z]*`` holding at
#   least one letter, which the look-ahead checks; one alternative instead of
#   two makes every other kind of piece fail once, not twice (about 7 % faster
#   on code).  The contraction is the last thing matched, so it may be possessive.
# * Digits start no other alternative, so trying them last changes no match.
# * ``\s*[\r\n]`` (cl100k) and ``\s*[\r\n]+`` (o200k) both match a whitespace
#   run up to and including its last newline: that is what
#   ``(?:[ \t\v\f]*+[\r\n])++`` matches, without backtracking through the run
#   when it has no newline (indentation in code).
# * ``\s+(?!\S)`` keeps its one step of backtracking.
_WS = r" \t\n\x0b\x0c\r"
_HWS = r" \t\x0b\x0c"
_TO_LAST_NEWLINE = r"(?:[" + _HWS + r"]*+[\r\n])++"
_CONTRACTION = "(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
_ASCII_PATTERNS = {
    O200K_PATTERN: "|".join(
        [
            r"[^\r\nA-Za-z0-9]?+(?=[A-Za-z])[A-Z]*+[a-z]*+" + _CONTRACTION + "+",
            r" ?+[^" + _WS + r"A-Za-z0-9]++[\r\n/]*+",
            _TO_LAST_NEWLINE,
            r"[" + _WS + r"]+(?![^" + _WS + r"])",
            r"[" + _WS + r"]+",
            r"[0-9]{1,3}+",
        ]
    ),
    CL100K_PATTERN: "|".join(
        [
            r"'(?i:[sdmt]|ll|ve|re)",
            r"[^\r\nA-Za-z0-9]?+[A-Za-z]++",
            r"[0-9]{1,3}+",
            r" ?[^" + _WS + r"A-Za-z0-9]++[\r\n]*+",
            r"[" + _WS + r"]++\Z",
            _TO_LAST_NEWLINE,
            r"[" + _WS + r"]+(?![^" + _WS + r"])",
            r"[" + _WS + r"]",
        ]
    ),
}

# Zero-width: every match position is a safe cut (see the module comment).
_SAFE_CUT = re.compile(r"(?<=\n)(?=[A-Za-z0-9]|[ \t]+\S)|(?<=[A-Za-z])(?= [A-Za-z])")


class PreSplitter:
    """``findall`` of a pre-tokenizer (a member of :mod:`bpe_stream.pretokenize.family`, or
    a tiktoken pattern string), with an ``re`` fast path on ASCII stretches for the bundled
    patterns.

    >>> PreSplitter(PATTERNS["cl100k_base"]).findall("Hello world!\\n")
    ['Hello', ' world', '!\\n']
    """

    __slots__ = ("member", "pat_str", "pattern", "ascii_pattern", "_plain", "native")

    def __init__(self, member):
        if isinstance(member, str):
            member = custom(member, "tiktoken")
        self.member = member
        self.pat_str = member.pattern
        self.pattern = member.compiled()  # compiled on first use (LazyPattern)
        self._plain = None  # (pattern as written, bitmap of differing code points), on first use
        #: the member's spec for the compiled scanner (``_native/presplit.c``), which then
        #: splits every text; None: the regex does (no compiled core, or not a member)
        self.native = native_spec(member) if presplit is not None else None
        self.ascii_pattern = None
        if member.known and not member.chained and member.dialect == "tiktoken" and member.pattern in PATTERNS.values():
            translated = _ASCII_PATTERNS.get(member.pattern) or _ascii_translation(member.pattern)
            if translated is not None:
                self.ascii_pattern = re.compile(translated)

    def __reduce__(self):
        return (PreSplitter, (self.member,))

    def findall(self, text: str) -> list[str]:
        if self.native is not None:
            try:
                return presplit(text, self.native)
            except ValueError:  # a lone surrogate (the encoders replace them first): the regex takes it
                pass
        fast = self.ascii_pattern
        if fast is None:
            return self.unicode_findall(text, 0, len(text))
        if text.isascii():
            return fast.findall(text)
        # ``findall(text, pos, endpos)`` equals ``findall(text[pos:endpos])``
        # for these patterns (no look-behind, no ``^``).
        out: list[str] = []
        for is_ascii, pos, end in self.stretches(text):
            out += fast.findall(text, pos, end) if is_ascii else self.unicode_findall(text, pos, end)
        return out

    def unicode_findall(self, text: str, pos: int, end: int) -> list[str]:
        """``pattern.findall(text, pos, end)``.  Where ``text[pos:end]`` holds no character
        that the installed ``regex`` classes differently from the reference engines (for
        the classes the pattern uses: :func:`~.unicode.differing_bitmap`), the pattern as
        written gives the same pieces, without the set operations of its rewrite (which
        cost about 20x per character).  One bit test per character decides."""
        plain = self._plain
        if plain is None:
            plain = self._plain = self._plain_pattern()
        pattern, bits = plain
        if pattern is not None and first_in_bitmap(text, pos, end, bits) < 0:
            return pattern.findall(text, pos, end)
        return self.pattern.findall(text, pos, end)

    def _plain_pattern(self):
        member = self.member
        if member.chained or (member.dialect == "hf" and not member.known):
            return (None, None)  # a chain: its own SplitPattern
        if member.dialect == "tiktoken":
            source = _rust_dollar_to_python(member.pattern)
        else:
            source = _onig_to_python(member.pattern)
        bits = differing_bitmap(source)
        return (None, None) if bits is None else (regex.compile(source), bits)

    def stretches(self, text: str) -> Iterator[tuple[bool, int, int]]:
        """``(is_ascii, start, end)``: consecutive stretches of ``text``, cut at safe cuts
        only, whose pieces together are the pieces of ``text``; the pattern may be run on
        each as a whole text, its ASCII translation on those with ``is_ascii``."""
        n = len(text)
        if self.ascii_pattern is None:
            yield (False, 0, n)
            return
        if text.isascii():
            yield (True, 0, n)
            return
        # Mostly non-ASCII text (more than ~1 extra UTF-8 byte per 128
        # characters): stretches would be short, one pass of the full pattern wins.
        if (len(text.encode("utf-8", "surrogatepass")) - n) * _DENSE_TEXT > n:
            yield (False, 0, n)
            return
        # Alternate: ASCII stretch (fast) / stretch around non-ASCII text (slow).
        pos = 0
        regions = 0
        since = 0
        dense_block = _DENSE_BLOCK
        while pos < n:
            # Text dense in non-ASCII characters makes the stretches short; then
            # one pass of the full pattern over a block is faster.  The block
            # doubles while the text stays dense.
            regions += 1
            if regions == 16:
                if pos - since < 16 * _DENSE_STRETCH:
                    m2 = _SAFE_CUT.search(text, pos + dense_block)
                    cut = m2.start() if m2 is not None else n
                    yield (False, pos, cut)
                    pos = cut
                    dense_block *= 2
                else:
                    dense_block = _DENSE_BLOCK
                regions = 0
                since = pos
                continue
            m = _NON_ASCII.search(text, pos)
            if m is None:
                yield (True, pos, n)
                break
            cut_before = _last_safe_cut(text, pos, m.start())
            if cut_before > pos:
                yield (True, pos, cut_before)
            m2 = _SAFE_CUT.search(text, m.end())
            cut_after = m2.start() if m2 is not None else n
            yield (False, cut_before, cut_after)
            pos = cut_after


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# Extra UTF-8 bytes per character above which a text counts as mostly non-ASCII.
_DENSE_TEXT = 128
# Average length of text per non-ASCII stretch below which stretching stops paying.
_DENSE_STRETCH = 256
_DENSE_BLOCK = 1 << 13


def _last_safe_cut(text: str, lo: int, hi: int) -> int:
    """The largest safe cut position in [lo, hi], or lo if there is none."""
    span = 64
    end = min(len(text), hi + 2)  # the cut patterns look at most 2 characters ahead
    while True:
        start = max(lo, hi - span)
        best = -1
        for m in _SAFE_CUT.finditer(text, start, end):
            if m.start() > hi:
                break
            best = m.start()
        if best >= 0:
            return best
        if start == lo:
            return lo
        span *= 4
