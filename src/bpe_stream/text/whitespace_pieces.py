"""The pieces and the count of a whitespace-only string, directly (no regex).

Invariant.  For the cl100k and o200k members (Llama 3's spelling of cl100k's pattern
included), a string ``w`` of whitespace only (``\\s``: Unicode White_Space) at the end of
the text (a chunk's text ends there) splits as

* o200k (``...|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+``): ``w[:N]``, ``w[N:]`` (empty ones left out),
  ``N`` the end of ``w``'s last ``\\r`` or ``\\n`` (0 without one): the greedy ``\\s*``
  backs off to the last line break, and ``\\s+(?!\\S)`` takes the rest to the end;
* cl100k (``...|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s``): ``w`` as one piece (``\\s++$``).

No other alternative of either pattern matches without a letter, digit or punctuation
character.  Where the stretch is followed by more text (a character ``x`` that is not
whitespace) both split it as ``w[:N]``, then ``w[N:-1]`` (``\\s+(?!\\S)``), and the last
character goes with ``x`` when the pattern's letter alternative takes it (``x`` a letter,
for o200k also a mark, and ``w[-1]`` no line break) or its punctuation one does (``w[-1]``
a space and ``x`` punctuation, in cl100k marks included), else it is a piece by itself; the chunker's compiled path
only uses chunks that end inside the stretch, where the first rule holds.

Count.  ``count(w) = bpe(w[:N]) + bpe(w[N:])`` for both members, ``bpe`` the raw BPE
count of the bytes, for a vocabulary without whole-piece tokens (tokens no merge builds,
which only a whole piece becomes: cl100k's piece ``w`` may be one while ``w[N:]`` is no
piece).  For o200k these are its pieces; for cl100k's one piece it holds because no token
of the vocabulary crosses ``N``: such a token would hold the last line break followed by
whitespace that is no line break, and BPE merges never cross a position that no token
crosses, so the merges on ``w`` are those on ``w[:N]`` and on ``w[N:]``.
:func:`line_break_split_holds` checks that property of a vocabulary (both bundled ones
have it, and neither has whole-piece tokens); the chunker uses the rule only then.

Complexity: O(len(w)) for the pieces, one pass over the tokens (cached per vocabulary)
for the property.
"""

from __future__ import annotations

import sys

from ..bpe.native import ws_split_holds as _compiled_holds
from ..pretokenize.patterns import CL100K_PATTERN, O200K_PATTERN

#: Unicode White_Space, what ``\s`` matches in the members' patterns.
WHITESPACE = frozenset(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()) - frozenset("\x1c\x1d\x1e\x1f")
_LINE_BREAK_FREE = sorted(WHITESPACE - {"\r", "\n"})


def last_break_end(w: str) -> int:
    """The end of the last ``\\r`` or ``\\n`` of ``w``, 0 without one."""
    return max(w.rfind("\n"), w.rfind("\r")) + 1


def whitespace_pieces(w: str, pat_str: str) -> list[str]:
    """The pieces of the whitespace-only ``w`` at the end of a text for ``pat_str`` (one of
    the members above): the rule of the module docstring."""
    if not w:
        return []
    if any(c not in WHITESPACE for c in w):
        raise ValueError("whitespace_pieces: w holds a character that is not whitespace")
    if pat_str == CL100K_PATTERN or pat_str.endswith(r"\s++$|\s*[\r\n]|\s+(?!\S)|\s"):
        return [w]
    if pat_str == O200K_PATTERN or pat_str.endswith(r"\s*[\r\n]+|\s+(?!\S)|\s+"):
        n = last_break_end(w)
        return [p for p in (w[:n], w[n:]) if p]
    raise ValueError("whitespace_pieces: not a cl100k or o200k member's pattern")


def whitespace_count(enc, w: str) -> int:
    """``enc.count(w)`` for a whitespace-only ``w``, by the two-part rule (the reference of
    ``_native/chunk_ws.c``'s counts)."""
    n = last_break_end(w)
    return sum(enc.count(p) for p in (w[:n], w[n:]) if p)


def _holds_for(tokens) -> bool:
    starts = [c.encode("utf-8") for c in _LINE_BREAK_FREE]
    for t in tokens:
        if b"\n" not in t and b"\r" not in t:
            continue
        i = max(t.rfind(b"\n"), t.rfind(b"\r"))
        if i == len(t) - 1:
            continue
        tail = t[i + 1 :]
        # could tail begin whitespace that is no line break (a whole character or a part of one)?
        if any(tail.startswith(s) or s.startswith(tail) for s in starts):
            return False
    return True


_HOLDS: dict[int, tuple[object, bool]] = {}  # id(bpe) -> (bpe, result): one pass per vocabulary


def line_break_split_holds(enc) -> bool:
    """Whether no token of ``enc``'s vocabulary crosses the end of a whitespace string's last
    line break (see the module docstring): then ``whitespace_count`` is exact."""
    bpe = getattr(enc, "bpe", None)
    tokens = getattr(bpe, "tokens", None)
    if tokens is None:
        return False
    known = _HOLDS.get(id(bpe))
    if known is None or known[0] is not bpe:
        core = getattr(bpe, "_core", None) if _compiled_holds is not None else None
        holds = _compiled_holds(core) if core is not None else _holds_for(tokens)
        known = _HOLDS[id(bpe)] = (bpe, holds)
    return known[1]
