"""Which stretches can make the front engine re-split far: the units whose split shifts phase.

Prepending re-splits from the new front until a piece starts on a boundary of the split
already known (front_stream); from there the two splits agree, since the patterns have no
look-behind.  The re-split is long only where a piece started off the known boundaries
never meets one again.  In a periodic stretch ``w * k`` that is a *shift unit* ``w``: some
start p that is not a boundary of the split of the stretch, from which the split of the
rest shares no boundary with it over the whole stretch.  Inside a long stretch the
patterns are finite-state, so a long shift in any text repeats a unit of some length:
enumerating the units of the patterns' classes up to a length finds every kind of shift
made of units that short.

The test pins down the kinds the front engine is built for (digit runs, front_digits and
front_periods; o200k's contraction chains and its punctuation-newline-mark chains,
front_periods and front_alts), so that a pattern that brings another kind fails here
before it makes some prepend re-split a whole stretch.  Units that make one long piece
(a word, a run of spaces) are not shifts: their pieces have states (front_words,
front_runs).  Deeper searches (every class of ``bench_work_growth.CLASS_CHARACTERS``, longer
units) run from the command line:

    python tests/test_shift_units.py --maxlen 5
"""

from __future__ import annotations

import itertools
import re

import pytest

import bpe_stream
from bpe_stream.pretokenize.patterns import compile_pattern

# One character per class the two patterns tell apart, with the letters of the contractions.
CLASS_REPRESENTATIVES = ["\r", "\n", " ", "\t", "/", "'", "A", "S", "T", "a", "s", "t", "d", "m", "r", "e", "v",
                         "l", "\u01c5", "\u02b0", "\u4e2d", "\u0301", "1", "\u00bd", "!"]


def _primitive_and_first(w: str) -> bool:
    """Whether ``w`` is not a power of a shorter unit and is the least of its rotations."""
    n = len(w)
    if any(n % d == 0 and w[:d] * (n // d) == w for d in range(1, n)):
        return False
    return all(w <= w[i:] + w[:i] for i in range(1, n))


def shifts(pattern, w: str, margin: int = 48) -> bool:
    """Whether some start p (1 to 12, not a piece start of ``w * k``) splits the rest of the
    stretch without meeting a piece start of the stretch between its first and last
    ``margin`` characters, though the stretch has piece starts there."""
    t = w * max(40, 160 // len(w))
    starts = [m.start() for m in pattern.finditer(t)]
    inside = {b for b in starts if margin <= b <= len(t) - margin}
    if not inside:
        return False  # one long piece: a state's business, not a shift
    known = set(starts)
    for p in range(1, 13):
        if p not in known and not any(m.start() in inside for m in pattern.finditer(t, p)):
            return True
    return False


def shift_units(name: str, alphabet: list, maxlen: int) -> list:
    """The shift units of encoding ``name``'s pattern over ``alphabet`` up to ``maxlen``
    characters, each as the least of its rotations."""
    pattern = compile_pattern(bpe_stream.get_encoding(name).pat_str)
    return [w for n in range(1, maxlen + 1)
            for w in map("".join, itertools.product(alphabet, repeat=n))
            if _primitive_and_first(w) and shifts(pattern, w)]


_DIGITS = re.compile(r"[1\u00bd]+")  # groups of three numbers
_CONTRACTIONS = re.compile(r"(?:'(?:[stdmST]|re|ve|ll))+")  # o200k: a word takes one contraction
# o200k: a punctuation piece takes the next unit's newlines and slashes, leaving its last
# mark alone (found at length 4, "\n//\u0301"; at length 5 with more newlines, slashes,
# punctuation or marks)
_NEWLINE_MARKS = re.compile(r"[\r\n]+/[/!'\u0301]*\u0301")


def _kind(name: str, w: str) -> str:
    """The kind of shift unit ``w`` is (any of its rotations), or "unknown"."""
    rotations = [w[i:] + w[:i] for i in range(len(w))]
    if _DIGITS.fullmatch(w):
        return "digits"
    if name == "o200k_base" and any(_CONTRACTIONS.fullmatch(r) for r in rotations):
        return "contractions"
    if name == "o200k_base" and any(_NEWLINE_MARKS.fullmatch(r) for r in rotations):
        return "newline-marks"
    return "unknown"


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_shift_units_are_the_kinds_the_front_engine_handles(name):
    # Every class up to 3 characters, and up to 4 over the classes that the punctuation-
    # newline-mark chains are made of (the full length-4 search takes about a minute, length 5
    # about 7: run them with ``--maxlen 4`` or ``5`` from the command line; both find the same
    # three kinds).
    found = shift_units(name, CLASS_REPRESENTATIVES, 3)
    found += [w for w in shift_units(name, ["\n", "/", "!", "'", "\u0301", "a", "s", "1"], 4) if len(w) == 4]
    assert {w: _kind(name, w) for w in found if _kind(name, w) == "unknown"} == {}
    kinds = {_kind(name, w) for w in found}
    assert kinds == ({"digits", "contractions", "newline-marks"} if name == "o200k_base" else {"digits"})


def test_shifts_tells_a_shift_from_a_long_piece_and_from_a_split_that_meets_again():
    pattern = compile_pattern(bpe_stream.get_encoding("o200k_base").pat_str)
    assert shifts(pattern, "1")  # "111" "111": a start one digit on never meets them again
    assert shifts(pattern, "'m")  # "'m'm" "'m'm": a start at "m" pairs them the other way
    assert not shifts(pattern, "a")  # one long word: a state, not a shift
    assert not shifts(pattern, "a ")  # "a" " a" " a": a start at " " is a piece start
    assert not shifts(pattern, "ab ")  # a start at "b" meets " ab" after one piece


if __name__ == "__main__":
    import argparse
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_work_growth import CLASS_CHARACTERS

    ap = argparse.ArgumentParser(description="List the shift units up to a length (see the module docstring).")
    ap.add_argument("--maxlen", type=int, default=4)
    ap.add_argument("--alphabet", choices=["representatives", "classes"], default="representatives",
                    help="one character per class (25), or bench_work_growth.CLASS_CHARACTERS (65)")
    args = ap.parse_args()
    alphabet = CLASS_REPRESENTATIVES if args.alphabet == "representatives" else CLASS_CHARACTERS
    for name in ("cl100k_base", "o200k_base"):
        for w in shift_units(name, alphabet, args.maxlen):
            print(name, _kind(name, w), repr(w), flush=True)
