"""The hard-boundary rule of every family member (``pretokenize/hard_boundaries.py``) by
brute force against the member's own regex (its reference spelling, chains included):
at every position the rule calls hard, the split of every slice across it is the split
of its two sides; every piece the rule calls a letter run has only one-piece prefixes and
one-piece runs of letters.  Texts: every string of up to three characters (full tier:
four over a smaller alphabet) of one character per class the members tell apart, and
random longer ones; the compiled test (``chunk_cuts.c``) is checked against the regex on
the same strings."""

from __future__ import annotations

import itertools
import random

import pytest
import conftest

from bpe_stream.pretokenize.family import MEMBERS, custom
from bpe_stream.pretokenize.hard_boundaries import HB_MARK_CONT, HardRule, hard_rule

# one character per class: contraction letters, cased letters (Lu Lt Lm Ll), Lo inside and
# outside DeepSeek's CJK ranges, Lm and Po inside them, a mark, digits, apostrophe,
# whitespace of every kind, punctuation, "/", a symbol, ASCII punctuation, controls
ALPHABET = ["s", "l", "e", "B", "\u01c5", "\u02b0", "\u0e01", "\u4e2d", "\u30fc", "\u30fb", "\u0301", "1", "\u0663",
            "'", " ", "\t", "\n", "\r", "\u3000", "!", "/", "$", "(", "\x00", "\u200d", "D"]
SMALL = ["s", "l", "B", "\u4e2d", "\u0301", "1", "'", " ", "\n", "\r", "!", "/"]


def _splitter(member):
    return member.compiled().findall


def _hard_positions(rule: HardRule, text: str) -> list[int]:
    return [h for h in range(1, len(text)) if rule.hard_at.match(text, h - 1) is not None]


def _check_text(member, rule, split, text: str) -> None:
    n = len(text)
    for h in _hard_positions(rule, text):
        for i in range(h):
            left = split(text[i:h])
            for j in range(h + 1, n + 1):
                assert split(text[i:j]) == left + split(text[h:j]), (member.name, text, i, h, j)
    for piece in split(text):
        if rule.letter_run.fullmatch(piece) is None:
            continue
        for k in range(1, len(piece) + 1):
            assert split(piece[:k]) == [piece[:k]], (member.name, piece, k)
        letters = piece[1:] if not piece[0].isalpha() else piece
        for a, b in itertools.combinations(range(len(letters) + 1), 2):
            assert split(letters[a:b]) == [letters[a:b]], (member.name, piece, a, b)


def _random_texts(rng: random.Random, count: int, max_len: int) -> list[str]:
    words = ALPHABET + ["'ll", "'re", "'S", "don't", "ab", "AB", "Ab", "\r\n", "  ", "\n\n", "123", "ab\u0301c"]
    return ["".join(rng.choice(words) for _ in range(rng.randint(2, max_len))) for _ in range(count)]


@pytest.mark.parametrize("name", sorted(MEMBERS))
def test_rule_is_sound_by_brute_force(name):
    member = MEMBERS[name]
    rule = hard_rule(member)
    assert rule is not None
    split = _splitter(member)
    if conftest.FULL:
        texts = ["".join(t) for k in (2, 3) for t in itertools.product(ALPHABET, repeat=k)]
        texts += ["".join(t) for t in itertools.product(SMALL, repeat=4)]
        texts += _random_texts(random.Random(name), 3000, 7)
    else:
        rng = random.Random(name)
        texts = ["".join(t) for t in itertools.product(ALPHABET, repeat=2)]
        texts += ["".join(rng.choice(ALPHABET) for _ in range(3)) for _ in range(600)]
        texts += _random_texts(rng, 300, 5)
    for text in texts:
        _check_text(member, rule, split, text)


def test_rule_gates():
    # a pattern the family does not know keeps the general path; a member's spelling is the member
    assert hard_rule(None) is None
    assert hard_rule(custom(r"\w+|\s+|[^\w\s]+")) is None
    assert hard_rule(MEMBERS["llama3"]) == hard_rule(MEMBERS["cl100k_base"])
    assert hard_rule(MEMBERS["o200k_base"]).flags & HB_MARK_CONT


def test_too_permissive_rule_fails():
    # the brute force catches a rule that calls a letter + mark hard for o200k
    from bpe_stream.pretokenize.hard_boundaries import _rule_of_flags

    member = MEMBERS["o200k_base"]
    loose = _rule_of_flags(hard_rule(member).flags & ~HB_MARK_CONT)
    with pytest.raises(AssertionError):
        for text in ["a\u0301b", "Ba\u0301", "\u4e2d\u0301", "sB\u0301s"]:
            _check_text(member, loose, _splitter(member), text)


@pytest.mark.parametrize("name", sorted(MEMBERS))
def test_compiled_rule_matches(name):
    # chunk_cuts.c's hard_at and letter_run take the rule as HB_* flags: the same answers
    try:
        from bpe_stream._native._core import hard_boundaries
    except ImportError:
        pytest.skip("compiled core not built")
    rule = hard_rule(MEMBERS[name])
    rng = random.Random(name)
    texts = ["".join(t) for t in itertools.product(ALPHABET, repeat=2)] + _random_texts(rng, 2000 if conftest.FULL else 500, 8)
    texts += [w + "".join(rng.choice(ALPHABET) for _ in range(3)) for w in ("ab", " ab", "AB", " Ab", "中中")
              for _ in range(50)]
    for text in texts:
        positions, run = hard_boundaries(text, rule.flags)
        assert positions == _hard_positions(rule, text), (name, text)
        assert run == (rule.letter_run.fullmatch(text) is not None), (name, text)
