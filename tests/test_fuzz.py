"""The differential fuzzer (tests/fuzz) for a fixed number of cases, in the slow tier:
against tiktoken, and against HF tokenizers on the real vocabularies in the test cache
(skipped, with the reason, where the cache lacks one; failed under
BPE_STREAM_REQUIRE_VOCABS=1).

A longer run: ``python -m tests.fuzz --cases 100000 --seed N`` (see tests/fuzz/__init__.py).
"""

from __future__ import annotations

import pytest
from fuzz import (
    FAMILIES,
    HF_VOCABULARIES,
    FuzzFailure,
    VocabularyUnavailable,
    check_text,
    check_text_hf,
    hf_pair,
    run_case,
)

SEED = 20261127
CASES = 150  # per family
# per family and vocabulary against HF tokenizers; the runs family (long one-class runs,
# whose cuts and chunks take ~1 s a case on these vocabularies) gets fewer
HF_CASES = 20
HF_RUNS_CASES = 2


def _hf_or_skip(path: str) -> None:
    try:
        hf_pair(path)
    except VocabularyUnavailable as e:
        import real_vocabularies as rv

        if rv.REQUIRE:
            pytest.fail(str(e))
        pytest.skip(f"{e} (python tests/real_vocabularies.py fetches it)")


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_fuzz_family(family):
    pytest.importorskip("tiktoken")
    for case in range(CASES):
        run_case(SEED, case, family)  # the failure message holds the seed, case and text


@pytest.mark.slow
@pytest.mark.parametrize("path", HF_VOCABULARIES)
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_fuzz_family_against_hf_tokenizers(family, path):
    _hf_or_skip(path)
    for case in range(HF_RUNS_CASES if family == "runs" else HF_CASES):
        run_case(SEED, case, family, encodings=(), vocabularies=(path,))


def test_fuzz_checks_can_fail():
    # the checks catch a wrong answer: a chunker whose counts are off by one is reported
    pytest.importorskip("tiktoken")
    import random

    import fuzz

    real = fuzz.Chunker

    class Off(real):
        def chunks(self, text):
            return [type(c)(c.text, c.start, c.end, c.token_count + 1) for c in super().chunks(text)]

    fuzz.Chunker = Off
    try:
        with pytest.raises(FuzzFailure, match="chunk count"):
            check_text("hello world, hello there", "cl100k_base", random.Random(1))
    finally:
        fuzz.Chunker = real


def test_fuzz_a_few_cases():
    # the fast tier runs a handful of cases of every family
    pytest.importorskip("tiktoken")
    for family in sorted(FAMILIES):
        for case in range(2):
            run_case(SEED, case, family)


@pytest.mark.parametrize("path", [pytest.param(p, marks=[] if p == "gpt2/tokenizer.json" else pytest.mark.slow)
                                  for p in HF_VOCABULARIES])
def test_fuzz_a_few_cases_against_hf_tokenizers(path):
    # the fast tier: GPT-2's (the quickest to load); the others with --full
    _hf_or_skip(path)
    for family in sorted(set(FAMILIES) - {"runs"}):
        run_case(SEED, 0, family, encodings=(), vocabularies=(path,))


@pytest.mark.slow
def test_fuzz_hf_checks_can_fail(monkeypatch):
    # an oracle that disagrees (GPT-2's tokenizer for Qwen2's vocabulary) is reported
    import random

    import fuzz

    _hf_or_skip("qwen2/tokenizer.json")
    _hf_or_skip("gpt2/tokenizer.json")
    qwen, gpt2 = hf_pair("qwen2/tokenizer.json"), hf_pair("gpt2/tokenizer.json")
    monkeypatch.setattr(fuzz, "hf_pair", lambda path: (qwen[0], gpt2[1]))
    with pytest.raises(FuzzFailure, match="differs from HF tokenizers"):
        check_text_hf("hello world, hello there", "qwen2/tokenizer.json", random.Random(1))
