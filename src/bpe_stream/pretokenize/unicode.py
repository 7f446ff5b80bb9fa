"""Regexes whose Unicode classes are the reference engines', whatever ``regex`` is installed.

Invariant: ``compile_regex(p)`` matches exactly what ``p`` matches in the reference engines
(tiktoken's Rust ``regex`` and the Oniguruma of HF ``tokenizers``) as far as
character classes go: every ``\\p{..}`` general category (and its one-letter groups)
and ``\\s`` have the members listed in :mod:`bpe_stream._unicode_data`, which was read
off those engines (Unicode ``UNICODE_VERSION``).

Why it is needed.  The ``regex`` module carries the Unicode tables of its release:
2025.11.3 and later class the Unicode 17 additions (CJK Extension J, new scripts) as
letters, digits and marks, while the reference engines still see them as unassigned,
i.e. as punctuation to the pre-split patterns; older releases miss the Unicode 16
additions instead.  So the installed ``regex`` is compared once per class with the
reference (one scan of all 1,112,064 code points per class, about 4 ms) and, where
they differ, the pattern is rewritten with set operations (``regex``'s version 1
syntax) so that the class has the reference members again::

    \\p{L}      ->  [[\\p{L}--[<installed only>]]<reference only>]

Where the installed ``regex`` agrees with the reference (2025.7.34 does, on every
class), patterns are compiled unchanged.  Classes this module does not know (scripts
such as ``\\p{Han}``, ``\\w``, ``\\d``) are compiled as written.

Cost: compiling a pattern is one pass over its text; the per-class comparison is done
once, for the classes patterns use, and its result (the installed ``regex``'s ranges
of each class, plain JSON keyed by the ``regex`` release) is kept in the cache
directory (:mod:`bpe_stream.bpe.cache_dir`), so that later processes skip the scans
(0.1-0.2 s of every start otherwise).  Matching with a rewritten pattern
was measured 8 % slower than with the original on multilingual text.
"""

from __future__ import annotations

import functools
import json
import sys
import threading
from array import array
from itertools import chain
from operator import le, lt

import regex

from ..bpe.cache_dir import cache_dir, write_atomically
from ..bpe.native import first_in_bitmap
from ._regex_differing import DIFFERING
from ._unicode_data import RANGES

__all__ = ["compile_regex", "reference_ranges", "corrections", "differing_bitmap", "differing_ranges", "agrees_on"]

_GROUPS = {
    "L": ("Lu", "Ll", "Lt", "Lm", "Lo"),
    "LC": ("Lu", "Ll", "Lt"),
    "M": ("Mn", "Mc", "Me"),
    "N": ("Nd", "Nl", "No"),
    "P": ("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"),
    "S": ("Sm", "Sc", "Sk", "So"),
    "Z": ("Zs", "Zl", "Zp"),
}
_LONG_NAMES = {
    "Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
    "Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M",
    "Combining_Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
    "Number": "N", "Decimal_Number": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
    "Punctuation": "P", "Symbol": "S", "Separator": "Z", "Space_Separator": "Zs",
    "White_Space": "White_Space", "Whitespace": "White_Space", "space": "White_Space",
}


def _parse(text: str) -> list[tuple[int, int]]:
    out = []
    for item in text.split(","):
        lo, _, hi = item.partition("-")
        out.append((int(lo, 16), int(hi or lo, 16)))
    return out


@functools.lru_cache(maxsize=None)
def reference_ranges(name: str) -> tuple[tuple[int, int], ...] | None:
    """The reference members of class ``name`` (a general category, a one-letter group,
    ``LC``, ``Cn`` or ``White_Space``) as sorted, disjoint, merged ranges; None if the
    name is not one of these."""
    name = _LONG_NAMES.get(name, name)
    if name in RANGES:
        parts = _parse(RANGES[name])
    elif name in _GROUPS:
        parts = [r for gc in _GROUPS[name] for r in _parse(RANGES[gc])]
    elif name == "C":  # Cc Cf Cs Co Cn: everything outside the other groups
        return _complement(_merge([r for k, v in RANGES.items() if k[0] in "LMNPSZ" for r in _parse(v)]))
    elif name == "Cn":
        return _complement(_merge([r for k, v in RANGES.items() if k != "White_Space" for r in _parse(v)]
                                  + [(0xD800, 0xDFFF)]))
    else:
        return None
    return tuple(_merge(parts))


def _merge(parts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(parts):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def _complement(parts: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out = []
    at = 0
    for lo, hi in parts:
        if lo > at:
            out.append((at, lo - 1))
        at = hi + 1
    if at <= 0x10FFFF:
        out.append((at, 0x10FFFF))
    return tuple(out)


_ALL: str | None = None
_all_lock = threading.Lock()


def _all_code_points() -> str:
    """Every code point but the surrogates, in order (built in a few milliseconds)."""
    global _ALL
    with _all_lock:
        if _ALL is None:
            a = array("I", range(0xD800))
            a.extend(range(0xE000, 0x110000))
            _ALL = a.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")
        return _ALL


def _index_to_cp(i: int) -> int:
    return i if i < 0xD800 else i + 0x800


_STORE_FORMAT = 1
_stored: dict | None = None  # escape -> ranges, as read from / written to the cache


def _store_path():
    d = cache_dir()
    version = getattr(regex, "__version__", "unknown").replace("/", "_")
    return None if d is None else d / f"regex-classes-{version}-f{_STORE_FORMAT}.json"


def _read_store() -> dict:
    path = _store_path()
    try:
        with open(path, "rb") as f:  # type: ignore[arg-type]
            raw = json.loads(f.read(1 << 22))
    except (OSError, TypeError, ValueError):
        return {}
    out = {}
    if isinstance(raw, dict):
        for escape, ranges in raw.items():
            if _valid_ranges(ranges):
                out[escape] = tuple(map(tuple, ranges))
    return out


def _valid_ranges(ranges) -> bool:
    """Whether ``ranges`` (as read from JSON) is a list of ``[lo, hi]`` int pairs, each
    ``lo <= hi``, sorted and disjoint, within ``0..0x10FFFF``.  Checked with ``map`` over
    the flat list rather than per pair in Python: the first compile in a process reads the
    whole store (about 7,000 pairs), and the per-pair checks took 3.7 ms of its 5.6."""
    if type(ranges) is not list or not ranges:
        return type(ranges) is list
    if set(map(type, ranges)) != {list} or set(map(len, ranges)) != {2}:
        return False
    flat = list(chain.from_iterable(ranges))
    return (set(map(type, flat)) == {int} and 0 <= flat[0] and flat[-1] <= 0x10FFFF
            and all(map(le, flat[::2], flat[1::2])) and all(map(lt, flat[1:-1:2], flat[2::2])))


@functools.lru_cache(maxsize=None)
def _installed_ranges(escape: str) -> tuple[tuple[int, int], ...]:
    """What the installed ``regex`` matches with ``escape`` (e.g. ``\\p{L}``), as ranges
    (kept in the cache directory: a damaged or missing entry is scanned again)."""
    global _stored
    with _all_lock:
        if _stored is None:
            _stored = _read_store()
        hit = _stored.get(escape)
    if hit is not None:
        return hit
    ranges = _scan_installed(escape)
    with _all_lock:
        _stored[escape] = ranges
        path = _store_path()
        if path is not None:
            text = json.dumps({k: [list(r) for r in v] for k, v in _stored.items()}, separators=(",", ":"))
            write_atomically(path, [text.encode("ascii")])
    return ranges


def _scan_installed(escape: str) -> tuple[tuple[int, int], ...]:
    text = _all_code_points()
    out: list[tuple[int, int]] = []
    for m in regex.finditer(escape + "+", text):
        lo, hi = _index_to_cp(m.start()), _index_to_cp(m.end() - 1)
        if lo < 0xD800 <= hi:  # a run across the surrogate gap
            out += [(lo, 0xD7FF), (0xE000, hi)]
        else:
            out.append((lo, hi))
    return tuple(_merge(out))


def _minus(a, b) -> list[tuple[int, int]]:
    """Ranges of ``a`` outside ``b`` (both sorted, disjoint); surrogates ignored."""
    out = []
    j = 0
    for lo, hi in a:
        while j < len(b) and b[j][1] < lo:
            j += 1
        k = j
        cur = lo
        while k < len(b) and b[k][0] <= hi:
            if b[k][0] > cur:
                out.append((cur, b[k][0] - 1))
            cur = max(cur, b[k][1] + 1)
            k += 1
        if cur <= hi:
            out.append((cur, hi))
    return [r for r in _minus_surrogates(out)]


def _minus_surrogates(parts):
    for lo, hi in parts:
        if hi < 0xD800 or lo > 0xDFFF:
            yield (lo, hi)
        else:
            if lo < 0xD800:
                yield (lo, 0xD7FF)
            if hi > 0xDFFF:
                yield (0xE000, hi)


@functools.lru_cache(maxsize=None)
def _difference(name: str) -> tuple[tuple, tuple]:
    """``(installed only, reference only)`` ranges of class ``name``."""
    ref = reference_ranges(name)
    escape = r"\s" if _LONG_NAMES.get(name, name) == "White_Space" else rf"\p{{{name}}}"
    inst = _installed_ranges(escape)
    return tuple(_minus(inst, ref)), tuple(_minus(ref, inst))


def corrections() -> dict[str, tuple[int, int]]:
    """For each class the reference knows: ``(installed only, reference only)`` code
    point counts of the installed ``regex`` (all zero where it agrees)."""
    names = [*RANGES, *_GROUPS, "Cn", "C"]
    out = {}
    for name in names:
        extra, missing = _difference(name)
        out[name] = (sum(h - l + 1 for l, h in extra), sum(h - l + 1 for l, h in missing))
    return out


def _set(parts) -> str:
    return "".join(f"\\U{lo:08X}" if lo == hi else f"\\U{lo:08X}-\\U{hi:08X}" for lo, hi in parts)


def _corrected(name: str, negated: bool) -> str | None:
    """The version-1 set for ``\\p{name}`` (or its negation), or None if the
    installed ``regex`` agrees with the reference on it."""
    if reference_ranges(name) is None:
        return None
    extra, missing = _difference(name)
    if not extra and not missing:
        return None
    base = r"\s" if _LONG_NAMES.get(name, name) == "White_Space" else rf"\p{{{name}}}"
    inner = base
    if extra:
        inner = f"[{inner}--[{_set(extra)}]]"
    if missing:
        inner = f"[{inner}{_set(missing)}]"
    ref = reference_ranges(name)
    if len(extra) + len(missing) > len(ref):  # the installed class is far off: list it
        inner = f"[{_set(ref)}]"
    if not negated:
        return inner if inner.startswith("[") else f"[{inner}]"
    # the complement, as a set that can stand alone or inside another set
    return f"[[{_ALL_RANGE}]--{inner if inner.startswith('[') else '[' + inner + ']'}]"


_ALL_RANGE = r"\U00000000-\U0010FFFF"
_PROPERTY = regex.compile(r"\\([pP])(?:\{\^?([A-Za-z_]+)\}|([A-Za-z]))|\\([sS])")


class LazyPattern:
    """A compiled ``regex`` pattern, compiled on first use.

    ``compile_regex`` hands these out so that importing the package compiles nothing
    (the modules keep dozens of patterns at module level; with the class rewrites
    they took 0.1-0.2 s of every start).  The first attribute read compiles the
    pattern and binds its methods on the object, so later calls cost what a call on
    the pattern itself costs.  :meth:`compiled` returns the ``regex.Pattern``.
    """

    def __init__(self, pattern: str, flags: int, rewrite: bool = True):
        self._source = (pattern, flags)
        self._pattern = None
        self._rewrite = rewrite

    def compiled(self) -> "regex.Pattern[str]":
        compiled = self._pattern
        if compiled is None:
            pattern, flags = self._source
            rewritten = _rewrite(pattern) if self._rewrite else None
            if rewritten is None:
                compiled = regex.compile(pattern, flags)
            else:
                compiled = regex.compile(rewritten, flags | regex.VERSION1)
            for name in _PATTERN_METHODS:
                self.__dict__[name] = getattr(compiled, name)
            self._pattern = compiled
        return compiled

    def as_written(self) -> "LazyPattern":
        """The pattern as written, without the class rewrite (compiled on first use too): on a text whose
        characters are all ASCII it matches exactly what :meth:`compiled` matches (the
        installed ``regex`` and the reference engines class every ASCII character alike;
        tests/test_unicode_classes.py checks it), and building it reads no stored class
        ranges and parses no correction sets (the first :meth:`compiled` of a rewritten
        pattern takes 10-28 ms)."""
        return _as_written(*self._source)

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_source", "_pattern", "_rewrite"):
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __reduce__(self):
        return (compile_regex, self._source) if self._rewrite else (_as_written, self._source)

    def __repr__(self) -> str:
        return f"LazyPattern({self._source[0]!r})" if self._rewrite else f"LazyPattern({self._source[0]!r}, as written)"


@functools.lru_cache(maxsize=64)
def _as_written(pattern: str, flags: int = 0) -> LazyPattern:
    return LazyPattern(pattern, flags, rewrite=False)


_PATTERN_METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split", "splititer")


@functools.lru_cache(maxsize=512)
def compile_regex(pattern: str, flags: int = 0) -> LazyPattern:
    """``regex.compile(pattern, flags)`` with the reference engines' Unicode classes,
    compiled on first use (a :class:`LazyPattern`).

    >>> bool(compile_regex(r"\\p{L}").match("a")), bool(compile_regex(r"\\s").match("\\x1c"))
    (True, False)
    """
    return LazyPattern(pattern, flags)


@functools.lru_cache(maxsize=64)
def differing_bitmap(pattern: str) -> bytes | None:
    """Bit ``c`` set for every code point ``c`` on which the installed ``regex`` and the
    reference engines class differently for some class ``pattern`` uses (0x110000 bits);
    None if they agree on all of them (the pattern is then compiled unchanged).

    Why: a text holding none of these characters is split the same by the pattern as
    written (with the installed classes) and by its rewrite, and the rewrite's set
    operations cost about 20x per character (one 1 MB run of CJK letters: 53 ms
    against 2.7 ms)."""
    ranges = []
    for m in _PROPERTY.finditer(pattern):
        name = "White_Space" if m.group(4) else (m.group(2) or m.group(3))
        if reference_ranges(name) is None:
            continue
        extra, missing = _difference(name)
        ranges += [*extra, *missing]
    return _bitmap(ranges) if ranges else None


def _bitmap(ranges) -> bytes:
    """Bit ``c`` set for every code point ``c`` in ``ranges`` (0x110000 bits): whole bytes
    by slice assignment, so a range costs O(1) Python steps however long it is."""
    bits = bytearray(0x110000 // 8)
    for lo, hi in ranges:
        a, b = (lo + 7) >> 3, (hi + 1) >> 3  # the whole bytes inside [lo, hi]
        if a < b:
            bits[a:b] = b"\xff" * (b - a)
            edges = (*range(lo, a << 3), *range(b << 3, hi + 1))
        else:
            edges = range(lo, hi + 1)  # fewer than 16 code points
        for c in edges:
            bits[c >> 3] |= 1 << (c & 7)
    return bytes(bits)


def differing_ranges() -> str:
    """The code points on which the installed ``regex`` classes differently from the
    reference engines for some class this module knows (any general category, group,
    ``Cn``, ``C`` or ``\\s``), as comma-separated hexadecimal ranges ("" if none).
    Computed from the per-class comparisons (stored class ranges read and compared);
    :data:`~._regex_differing.DIFFERING` keeps it per ``regex`` release so that
    :func:`agrees_on` needs neither."""
    ranges = []
    for name in (*RANGES, *_GROUPS, "Cn", "C"):
        extra, missing = _difference(name)
        ranges += [*extra, *missing]
    return ",".join(f"{lo:X}" if lo == hi else f"{lo:X}-{hi:X}" for lo, hi in _merge(ranges))


@functools.lru_cache(maxsize=1)
def _differing_everywhere() -> bytes | None:
    known = DIFFERING.get(getattr(regex, "__version__", None))
    text = known if known is not None else differing_ranges()
    return _bitmap(_parse(text)) if text else None


def ascii_agrees() -> bool:
    """Whether the installed ``regex`` classes every ASCII character as the reference
    engines do, for every class this module knows: then ASCII text may be matched with
    a pattern as written (:meth:`LazyPattern.as_written`) with no test of its characters.
    Once per process: a look at the first 128 bits of the table of differing code
    points."""
    bits = _differing_everywhere()
    return bits is None or not any(bits[:16])


def agrees_on(text: str) -> bool:
    """Whether the installed ``regex`` classes every character of ``text`` as the
    reference engines do, for every class this module knows.  Then any pattern matches
    the same on ``text`` (lookarounds included: they see only ``text``) as written and
    rewritten, so the pattern as written (:meth:`LazyPattern.as_written`) may be used,
    skipping the 10-28 ms first compile of a rewrite.

    Cost: O(1) on ASCII text (``str.isascii``) where the classes agree on every ASCII
    character (:func:`ascii_agrees`: every release listed in the table; some older ones
    do not, e.g. 2022.1.18 takes ``\\x00`` into ``\\p{LC}``);
    else one bit test per character (under 1 ms per megabyte compiled) against a bitmap
    built once per process from :data:`~._regex_differing.DIFFERING` (about 80 ranges
    for a ``regex`` with newer Unicode tables), no stored class ranges read for a
    ``regex`` release listed there."""
    if text.isascii() and ascii_agrees():
        return True
    bits = _differing_everywhere()
    return bits is None or first_in_bitmap(text, 0, len(text), bits) < 0


def _rewrite(pattern: str) -> str | None:
    """``pattern`` in version-1 syntax with corrected classes, or None if none needs it.

    Version 1 reads ``[`` inside a set as a nested set and ``--``, ``&&``, ``||``, ``~~``
    as set operations, where version 0 (in which the patterns are written) reads them
    literally: inside a set those characters are escaped.  Its ``(?i)`` folds case
    fully; ``(?-f)`` keeps the simple folding of version 0 and of the reference engines."""
    out = []
    changed = False
    in_set = False
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            m = _PROPERTY.match(pattern, i)
            if m is None:
                out.append(pattern[i : i + 2])
                i += 2
                continue
            if m.group(4):
                name, negated = "White_Space", m.group(4) == "S"
            else:
                name = m.group(2) or m.group(3)
                negated = (m.group(1) == "P") != ("{^" in m.group())
            corrected = _corrected(name, negated)
            if corrected is None:
                out.append(m.group())
            else:
                out.append(corrected)
                changed = True
            i = m.end()
            continue
        if not in_set:
            if c == "[":
                in_set = True
                # a "]" first in the set (after an optional "^") is literal
                j = i + 1 + (pattern[i + 1 : i + 2] == "^")
                out.append(pattern[i:j])
                if pattern[j : j + 1] == "]":
                    out.append("\\]")
                    j += 1
                i = j
                continue
            out.append(c)
        elif c == "]":
            in_set = False
            out.append(c)
        elif c in "[&|~" or (c == "-" and out and out[-1] == "-"):
            out.append("\\" + c)
        else:
            out.append(c)
        i += 1
    if not changed:
        return None
    return "(?-f)" + "".join(out)
