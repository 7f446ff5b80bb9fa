"""The members' one-piece runs (``chunk/member_runs.py``) by brute force against each member's
own regex (chains included): every string the run matches, and every prefix of it, is one
piece; a longer text's first piece reaches the match's last character but one; every string
the letters match, and every suffix of it, is one piece.  Texts: every string of up to three
characters (full tier: four over a smaller alphabet) of one character per class the members
tell apart, and random longer ones."""

from __future__ import annotations

import itertools
import random

import pytest
import conftest

from bpe_stream.chunk.member_runs import member_run_sources, member_runs, member_runs_mode
from bpe_stream.pretokenize.family import MEMBERS
from bpe_stream.pretokenize.unicode import compile_regex

from test_hard_boundaries import ALPHABET, SMALL

# the class strings of the compiled routine's mode 1 (chunk_runs.c): letters, punctuation
_MODE1_CLASSES = (compile_regex(r"\p{L}+"), compile_regex(r"[^\s\p{L}\p{N}]+"))


def _texts(name: str) -> list[str]:
    rng = random.Random(name)
    if conftest.FULL:
        texts = ["".join(t) for k in (1, 2, 3) for t in itertools.product(ALPHABET, repeat=k)]
        texts += ["".join(t) for t in itertools.product(SMALL, repeat=4)]
        extra = 3000
    else:
        texts = ["".join(t) for k in (1, 2) for t in itertools.product(ALPHABET, repeat=k)]
        texts += ["".join(rng.choice(ALPHABET) for _ in range(3)) for _ in range(800)]
        extra = 300
    words = ALPHABET + ["'ll", "'re", "don't", "ab", "AB", "\r\n", "  ", "\n\n", "123", "!!", "\u4e2d\u4e2d"]
    texts += ["".join(rng.choice(words) for _ in range(rng.randint(2, 6))) for _ in range(extra)]
    return texts


@pytest.mark.parametrize("name", sorted(n for n in MEMBERS if member_run_sources(MEMBERS[n]) is not None))
def test_member_runs_by_brute_force(name):
    member = MEMBERS[name]
    run, letters = member_runs(member)
    split = member.compiled().findall
    mode1 = member_runs_mode(member) == 1
    for text in _texts(name):
        pieces = split(text)
        if run.fullmatch(text) is not None:
            assert pieces == [text], (name, text)  # 1 (its prefixes are texts of the set too)
        if letters is not None and letters.fullmatch(text) is not None:
            assert pieces == [text], (name, text)  # 3 (likewise its suffixes)
        if mode1 and any(c.fullmatch(text) for c in _MODE1_CLASSES) and "\r" not in text and "\n" not in text:
            for i in range(len(text)):  # the compiled mode: one piece from any character
                assert split(text[i:]) == [text[i:]], (name, text, i)
        for v in range(2, len(text)):
            if run.fullmatch(text, 0, v) is not None:
                assert len(pieces[0]) >= v - 1, (name, text, v)  # 2


def test_member_runs_gates():
    assert member_run_sources(MEMBERS["cl100k_base"]) is None  # its own entry (\s++$)
    assert member_runs_mode(MEMBERS["o200k_base"]) is None
    assert {n for n in MEMBERS if member_runs_mode(MEMBERS[n]) == 1} == {"gpt2", "llama3", "qwen2", "cl100k_base"}
    assert member_runs(None) == (None, None)
