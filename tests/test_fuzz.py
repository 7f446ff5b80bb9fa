"""The differential fuzzer (tests/fuzz) for a fixed number of cases, in the slow tier.

A longer run: ``python -m tests.fuzz --cases 100000 --seed N`` (see tests/fuzz/__init__.py).
"""

from __future__ import annotations

import pytest
from fuzz import FAMILIES, FuzzFailure, check_text, run_case

SEED = 20261127
CASES = 150  # per family


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_fuzz_family(family):
    pytest.importorskip("tiktoken")
    for case in range(CASES):
        run_case(SEED, case, family)  # the failure message holds the seed, case and text


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
