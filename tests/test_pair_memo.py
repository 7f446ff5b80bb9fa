"""The pair test's memo (``_native/core.h`` valid_pair_memo, which the compiled table
passes ask instead of valid_pair): the compiled table pass, cold and with the memo full
of other texts' pairs (and so of collisions), equals a table pass written here in Python
over the pure-Python pair test of the vocabulary's twin, for short texts from the
benchmark's family generators (whitespace, CJK, emoji, prose, code) and random strings
over small alphabets (hypothesis).  The chunks that go through the memo (chunk_ws.c,
chunk_runs.c, chunk_symbol_runs.c, chunk_counted_cuts.c) are compared with the Python
steps in tests/test_chunk_ws.py, test_chunk_runs.py and test_chunker_native.py."""

from __future__ import annotations

import functools
import sys
from array import array
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe_stream

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _families import family_text  # noqa: E402

ENCODINGS = {name: bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
pytestmark = pytest.mark.skipif(ENCODINGS["cl100k_base"].bpe._core is None, reason="compiled core not built")

# prose and code first: their pairs fill the memo before the whitespace and CJK texts ask theirs
FAMILIES = ["prose", "code", "tabs and mixed whitespace", "spaces", "newlines", "CJK without spaces",
            "emoji with ZWJ sequences", "one random-letter word", "random ASCII punctuation"]
ALPHABETS = [" \t\n\r\xa0", " \t\u3000\xa0", "ab \t", "中文 \t", "!? \n"]


@functools.lru_cache(maxsize=None)
def _reference(name: str):
    """(rank of each usable token's bytes, the pure-Python pair test, max_token_len)."""
    bpe = ENCODINGS[name].bpe
    unreachable = set(bpe.unreachable)
    ranks = {t: r for r, t in enumerate(bpe.tokens) if r not in unreachable}
    return ranks, bpe._python_twin().is_valid_token_pair, bpe.max_token_len


def _python_table(name: str, data: bytes) -> tuple[list[int], list[int]]:
    """The table recurrence: at p, the longest token ending there whose pair with the last
    token at its start is valid (any token from position 0); its count one more."""
    ranks, valid, longest = _reference(name)
    n = len(data)
    last, counts = [0] * (n + 1), [0] * (n + 1)
    for p in range(1, n + 1):
        for length in range(min(longest, p), 0, -1):
            t = ranks.get(data[p - length : p])
            if t is None:
                continue
            start = p - length
            if start == 0 or valid(last[start], t):
                last[p], counts[p] = t, counts[start] + 1
                break
    return last[1:], counts[1:]


def _compiled_table(name: str, data: bytes) -> tuple[list[int], list[int]]:
    n = len(data)
    last, counts = array("i", bytes(4 * (n + 1))), array("i", bytes(4 * (n + 1)))
    ENCODINGS[name].bpe._core.table_fill(data, last, counts, 0, n, 1, 0)
    return list(last[1:]), list(counts[1:])


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_table_through_the_memo_equals_python(name):
    texts = [family_text(f, 1500).encode("utf-8") for f in FAMILIES]
    for data in texts:  # cold for this text's pairs, then warm: the same table both times
        want = _python_table(name, data)
        assert _compiled_table(name, data) == want, (name, data[:60])
        assert _compiled_table(name, data) == want, (name, data[:60])
    for data in reversed(texts):  # the memo now holds every text's pairs, colliding
        assert _compiled_table(name, data) == _python_table(name, data), (name, data[:60])


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(ENCODINGS)), st.sampled_from(ALPHABETS).flatmap(
    lambda a: st.text(alphabet=a, min_size=1, max_size=120)))
def test_random_strings_through_the_memo(name, text):
    data = text.encode("utf-8")
    assert _compiled_table(name, data) == _python_table(name, data)
