"""Unicode classes: the installed ``regex``, corrected, against the reference engines.

The pre-split must class every code point as tiktoken's Rust regex (and HF tokenizers'
Oniguruma) do, whichever ``regex`` release is installed.  These tests check the
corrected classes member by member, the reference table against both engines, and the
bundled patterns on every assigned code point in context against tiktoken.
"""

from __future__ import annotations

import functools
import pickle

import pytest
import regex
from conftest import ENCODING_NAMES, examples, tiktoken_oracle
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_stream import get_encoding
from bpe_stream.pretokenize import unicode as uc
from bpe_stream.pretokenize._unicode_data import RANGES

CLASSES = [*RANGES, "L", "M", "N", "P", "S", "Z", "C", "Cn", "LC"]
GENERAL_CATEGORIES = [k for k in RANGES if k != "White_Space"]


def _escape(name: str, negated: bool = False) -> str:
    if name == "White_Space":
        return r"\S" if negated else r"\s"
    return (r"\P{%s}" if negated else r"\p{%s}") % name


def _members(ranges) -> set[int]:
    out: set[int] = set()
    for lo, hi in ranges:
        out.update(range(lo, hi + 1))
    return out - set(range(0xD800, 0xE000))


def _index(cp: int) -> int:
    """Position of code point ``cp`` in ``uc._all_code_points()`` (no surrogates)."""
    return cp if cp < 0xD800 else cp - 0x800


def _mask(ranges) -> bytearray:
    """One byte per position of ``uc._all_code_points()``: 1 for members of ``ranges``."""
    mask = bytearray(0x110000 - 0x800)
    for lo, hi in ranges:
        for a, b in ((lo, min(hi, 0xD7FF)), (max(lo, 0xE000), hi)):
            if a <= b:
                mask[_index(a) : _index(b) + 1] = b"\x01" * (b - a + 1)
    return mask


_FLIP = bytes.maketrans(b"\x00\x01", b"\x01\x00")


@pytest.fixture(scope="module")
def every_code_point():
    return uc._all_code_points()


@pytest.mark.parametrize("name", CLASSES)
def test_every_class_has_the_reference_members(name, every_code_point):
    ref = _mask(uc.reference_ranges(name))
    x = "x" if not ref[ord("x")] else "!"
    with_x = bytearray(ref)
    with_x[ord(x)] = 1

    def matched(pattern):
        # runs of matches, as a mask (one scan, no list of a million strings)
        mask = bytearray(len(ref))
        for m in uc.compile_regex(f"(?:{pattern})+").finditer(every_code_point):
            mask[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
        return mask

    pos, neg = _escape(name), _escape(name, negated=True)
    not_ref = ref.translate(_FLIP)
    assert matched(pos) == ref
    assert matched(neg) == not_ref
    assert matched(f"[{x}{pos}]") == with_x
    assert matched(f"[^{x}{pos}]") == with_x.translate(_FLIP)
    not_ref[ord(x)] = 1
    assert matched(f"[{x}{neg}]") == not_ref


def test_general_categories_partition_the_assigned_code_points():
    seen: set[int] = set()
    for gc in GENERAL_CATEGORIES:
        members = _members(uc.reference_ranges(gc))
        assert not members & seen, gc
        seen |= members
    assert seen | _members(uc.reference_ranges("Cn")) == set(range(0x110000)) - set(range(0xD800, 0xE000))


@pytest.mark.parametrize("name", [*GENERAL_CATEGORIES, "White_Space"])
def test_reference_table_is_what_tiktoken_matches(name, every_code_point):
    tiktoken = pytest.importorskip("tiktoken")
    ranks = {bytes([i]): i for i in range(256)}
    probe = tiktoken.Encoding("probe", pat_str=_escape(name), mergeable_ranks=ranks, special_tokens={})
    got = set(map(ord, probe.decode_bytes(probe.encode_ordinary(every_code_point)).decode()))
    assert got == _members(uc.reference_ranges(name))


@pytest.mark.slow
@pytest.mark.parametrize("name", [*GENERAL_CATEGORIES, "White_Space"])
def test_reference_table_is_what_hf_tokenizers_matches(name, every_code_point):
    tokenizers = pytest.importorskip("tokenizers")
    split = tokenizers.pre_tokenizers.Split(
        tokenizers.Regex(_escape(name, negated=True) + "+"), behavior="removed"
    )
    got = set(map(ord, "".join(p for p, _ in split.pre_tokenize_str(every_code_point))))
    assert got == _members(uc.reference_ranges(name))


def _contexts(c: str) -> str:
    # before and after letters (both cases), digits, spaces, newlines, apostrophes,
    # marks and punctuation, doubled, and as a contraction's letter
    return f"a{c}b A{c}B 1{c}2 {c} \n{c}\n '{c}s {c}'s {c}{c}\u0301 !{c}? \t{c}\r\n{c}x"


def _code_points_to_check() -> list[int]:
    """Every code point assigned in the reference or by the installed ``regex``
    (private use sampled: one class, 137,468 members), plus samples of the rest."""
    assigned = set()
    for gc in GENERAL_CATEGORIES:
        if gc != "Co":
            assigned |= _members(uc.reference_ranges(gc))
    installed = regex.compile(r"[^\p{Cn}\p{Co}\p{Cs}]")
    assigned |= {ord(c) for c in installed.findall(uc._all_code_points())}
    assigned |= set(range(0xE000, 0x110000, 997))  # private use and unassigned, sampled
    return sorted(assigned)


@pytest.mark.slow
@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_every_assigned_code_point_in_context_encodes_like_tiktoken(name):
    enc = get_encoding(name)
    oracle = tiktoken_oracle(name)
    cps = _code_points_to_check()
    block = 2048
    for k in range(0, len(cps), block):
        text = "".join(_contexts(chr(c)) for c in cps[k : k + block])
        if enc.encode_ordinary(text) != oracle.encode_ordinary(text):
            for c in cps[k : k + block]:  # name the first code point that differs
                one = _contexts(chr(c))
                assert enc.encode_ordinary(one) == oracle.encode_ordinary(one), f"U+{c:04X}"
            pytest.fail(f"block from U+{cps[k]:04X} differs, no single code point does")


def test_patterns_are_compiled_as_written_where_the_installed_regex_agrees():
    pattern = r"[^\r\n\p{L}\p{N}]?+\p{L}++|\s+(?!\S)"
    compiled = uc.compile_regex(pattern)
    agrees = all(uc._difference(n) == ((), ()) for n in ("L", "N", "White_Space"))
    assert (compiled.pattern == pattern) == agrees
    assert bool(compiled.flags & regex.VERSION1) == (not agrees)


def test_a_corrected_pattern_keeps_the_meaning_of_version_0_syntax(monkeypatch):
    # Pretend that the installed regex classes "a" as a letter where the reference does
    # not, and misses "!" as one: the rewrite switches to version-1 sets, in which "["
    # and "--" inside a set would be nested sets and differences; they must stay literal.
    real = uc._difference

    def fake(name):
        if name == "L":
            return (((0x61, 0x61),), ((0x21, 0x21),))
        return real(name)

    monkeypatch.setattr(uc, "_difference", fake)
    uc.compile_regex.cache_clear()
    try:
        compiled = uc.compile_regex(r"[+--]|[[]|[]z]|\p{L}+|(?i:'s)")
        assert compiled.flags & regex.VERSION1
        assert compiled.findall("[-]+,z'S'\u017fa!\u00e9") == ["[", "-", "]", "+", ",", "z", "'S", "'\u017f", "!\u00e9"]
        assert uc.compile_regex(r"\p{L}+").findall("a!\u00e9") == ["!\u00e9"]
        assert uc.compile_regex(r"\P{L}+").findall("a!\u00e9") == ["a"]
        assert uc.compile_regex(r"[^\p{L}]+").findall("a!\u00e9") == ["a"]
        # simple case folding, as in version 0 and the reference engines: "ss" is not "\u00df"
        assert uc.compile_regex(r"(?i:ss)\p{L}").match("\u00dfb") is None
        assert uc.compile_regex(r"(?i:ss)\p{L}").match("SSb") is not None
    finally:
        uc.compile_regex.cache_clear()


def test_corrections_report_counts_per_class():
    corrections = uc.corrections()
    assert set(corrections) >= set(RANGES) | {"L", "N", "M"}
    for name, (extra, missing) in corrections.items():
        extra_ranges, missing_ranges = uc._difference(name)
        assert extra == sum(h - lo + 1 for lo, h in extra_ranges)
        assert missing == sum(h - lo + 1 for lo, h in missing_ranges)


@pytest.mark.parametrize("name", CLASSES)
def test_ascii_shortcut_only_where_every_class_agrees_on_ascii(name):
    # LazyPattern.as_written is taken on ASCII text without a look at its characters only
    # where the installed regex classes each ASCII character as the reference engines do
    # (both signs), for every class (uc.ascii_agrees): the newer releases do; regex
    # 2022.1.18, the oldest the requirement allows, takes NUL into \p{LC}
    members = _members(uc.reference_ranges(name))
    agree = True
    for negated in (False, True):
        plain = regex.compile(_escape(name, negated))
        agree = agree and all((plain.match(chr(c)) is not None) == ((c in members) != negated) for c in range(128))
    extra, missing = uc._difference(name)
    assert agree == all(lo >= 0x80 for lo, _ in (*extra, *missing)), name
    if not agree:
        assert not uc.ascii_agrees(), name


def test_ascii_agrees_is_every_class_on_ascii():
    every = all(lo >= 0x80 for name in CLASSES for lo, _ in (*uc._difference(name)[0], *uc._difference(name)[1]))
    assert uc.ascii_agrees() == every


def test_as_written_is_the_pattern_without_the_rewrite():
    lazy = uc.compile_regex(r"\p{L}+\s", regex.REVERSE)
    plain = lazy.as_written()
    assert plain._pattern is None  # compiled on first use
    assert plain.pattern == r"\p{L}+\s" and plain.flags & regex.REVERSE and not plain.flags & regex.VERSION1
    assert lazy.as_written() is plain
    assert lazy._pattern is None  # the rewrite is not compiled for it
    assert pickle.loads(pickle.dumps(plain)).compiled() is plain.compiled()


def _valid_ranges_reference(ranges) -> bool:
    # the store check pair by pair, as first written
    ok = isinstance(ranges, list) and all(
        isinstance(r, list) and len(r) == 2 and all(type(x) is int and 0 <= x <= 0x10FFFF for x in r)
        and r[0] <= r[1] for r in ranges
    )
    return ok and all(a[1] < b[0] for a, b in zip(ranges, ranges[1:]))


_bound = st.one_of(st.integers(-3, 12), st.integers(0x10FFFD, 0x110001), st.sampled_from([True, 1.0, "1", None]))
_pair = st.one_of(st.lists(_bound, min_size=2, max_size=2), st.lists(_bound, max_size=3), _bound)


@settings(max_examples=examples(500), deadline=None)
@given(ranges=st.one_of(st.lists(_pair, max_size=6), _bound,
                        st.lists(st.integers(0, 0x10FFFF), max_size=12).map(lambda v: [list(p) for p in zip(v[::2], v[1::2])]),
                        st.lists(st.integers(0, 40), max_size=12, unique=True).map(
                            lambda v: [list(p) for p in zip(sorted(v)[::2], sorted(v)[1::2])]),
                        st.lists(st.integers(0, 12), max_size=12).map(  # sorted, some pairs touching
                            lambda v: [list(p) for p in zip(sorted(v)[::2], sorted(v)[1::2])])))
def test_stored_ranges_check_equals_the_pairwise_check(ranges):
    assert uc._valid_ranges([[0, 0x10FFFF]]) and uc._valid_ranges([]) and not uc._valid_ranges({})
    for bad in ([[1, 2], [2, 3]], [[3, 2]], [[-1, 2]], [[1, 0x110000]], [[True, 2]], [[1.0, 2]], [[1, 2, 3]], [(1, 2)]):
        assert not uc._valid_ranges(bad), bad
    assert uc._valid_ranges(ranges) == _valid_ranges_reference(ranges), ranges


def test_the_stored_classes_pass_the_check():
    for escape in (r"\p{L}", r"\s"):
        uc._installed_ranges(escape)
    stored = uc._read_store()
    assert stored and all(_valid_ranges_reference([list(r) for r in v]) for v in stored.values())


@functools.lru_cache(maxsize=1)
def _differing_members() -> frozenset[int]:
    # the union of the per-class differences, from the comparisons themselves
    out: set[int] = set()
    for name in CLASSES:
        extra, missing = uc._difference(name)
        out |= _members(extra) | _members(missing)
    return frozenset(out)


def test_the_differing_table_is_the_installed_releases():
    # _regex_differing.DIFFERING (what agrees_on reads) regenerated for the installed regex:
    # tools/gen_regex_differing.py must be run again if this fails
    listed = uc.DIFFERING.get(regex.__version__)
    if listed is None:
        pytest.skip(f"regex {regex.__version__} is not listed (agrees_on compares at run time)")
    assert listed == uc.differing_ranges()
    assert (_members(uc._parse(listed)) if listed else set()) == _differing_members()


_range = st.tuples(st.integers(0, 0x10FFFF), st.integers(0, 40)).map(lambda p: (p[0], min(0x10FFFF, p[0] + p[1])))


@settings(max_examples=examples(300), deadline=None)
@given(ranges=st.lists(st.one_of(_range, st.tuples(st.integers(0, 0x10FFFF), st.integers(0, 5000)).map(
    lambda p: (p[0], min(0x10FFFF, p[0] + p[1])))), max_size=5))
def test_bitmap_sets_exactly_the_code_points_of_its_ranges(ranges):
    bits = uc._bitmap(ranges)
    members = set()
    for lo, hi in ranges:
        members.update(range(lo, hi + 1))
    got = {8 * i + k for i, byte in enumerate(bits) if byte for k in range(8) if byte >> k & 1}
    assert got == members


def _some_differing() -> list[str]:
    members = sorted(_differing_members())
    return [chr(c) for c in members[:: max(1, len(members) // 60)]] + [chr(c) for c in members[-3:]]


_AGREEING_ATOMS = ["a\u0301", "\u00e9", "\u4e2d\u6587", "\u3000", "\u00a0", "\u2028", "\u017f", "\U0001f44d",
                   "\u200d", "\u0663", "\u00b2", "\u2019", "\U00020000", "\ufffd", "\U000e0001"]


@settings(max_examples=examples(200), deadline=None)
@given(data=st.data())
def test_agrees_on_means_no_differing_character(data):
    # agrees_on(text) is True exactly when text holds no code point on which some class of
    # the installed regex differs from the reference: with the release's listed table and
    # with the table computed at run time (a release not listed)
    differing = _some_differing()
    atoms = _AGREEING_ATOMS + differing if differing else _AGREEING_ATOMS
    text = data.draw(st.one_of(
        st.lists(st.sampled_from(atoms + ["x", " ", "1", "!\n"]), max_size=20).map("".join),
        st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)))
    members = _differing_members()
    want = not any(ord(c) in members for c in text)
    assert uc.agrees_on(text) == want, text
    saved = dict(uc.DIFFERING)
    uc.DIFFERING.clear()
    uc._differing_everywhere.cache_clear()
    try:
        assert uc.agrees_on(text) == want, text
    finally:
        uc.DIFFERING.update(saved)
        uc._differing_everywhere.cache_clear()
