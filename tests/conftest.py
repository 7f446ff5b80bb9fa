"""Shared test fixtures: corpora, a naive reference BPE, tiktoken oracles, and the tiers.

Two tiers.  ``python -m pytest`` (the README's command) runs every test with fewer
hypothesis examples and skips those marked ``slow`` (long scale and search tests): a
few minutes on a 2-core machine.  ``python -m pytest --full`` (or
``BPE_STREAM_FULL_TESTS=1``) runs them all with every example count as written; CI runs
both.  No assertion differs between the tiers, only how many inputs they see.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

FULL = bool(os.environ.get("BPE_STREAM_FULL_TESTS"))
# In the fast tier every hypothesis test sees this share of its examples (at least 10).
FAST_SHARE = 4


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true",
                     help="run the slow tests too, and every hypothesis test with all its examples")


def pytest_configure(config):
    global FULL
    FULL = FULL or config.getoption("--full")
    config.addinivalue_line("markers", "slow: a scale or search test, run with --full (CI runs it)")


def pytest_collection_modifyitems(config, items):
    if FULL:
        return
    skip = pytest.mark.skip(reason="slow: run with --full")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def examples(n: int, fast: int | None = None) -> int:
    """``max_examples`` for a hypothesis test written with ``n``: all of them with
    ``--full``, a quarter (at least 10) in the fast tier, or ``fast`` there if given."""
    if FULL:
        return n
    return fast if fast is not None else max(10, n // FAST_SHARE)


def full_tier_only(reason: str = "slow: run with --full") -> None:
    """Skip the calling test case in the fast tier (for one case of a parametrized test
    whose other cases cover the same code there)."""
    if not FULL:
        pytest.skip(reason)

CORPORA_DIR = Path(__file__).resolve().parents[2] / "shared" / "corpora"
CORPUS_FILES = sorted(
    p for p in CORPORA_DIR.glob("*") if p.is_file() and p.name not in ("MANIFEST.md", "SHA256SUMS")
) if CORPORA_DIR.is_dir() else []

# The small vocabulary from the Rust bpe crate's README.
README_TOKENS = [b"a", b"b", b"c", b"ab", b"cb", b"ac", b"bb", b"cbb", b"acbb"]


def naive_bpe(ranks: dict[bytes, int], data: bytes) -> list[int]:
    """The original algorithm, written for clarity: O(n^2).

    Start from single bytes; repeatedly merge the adjacent pair whose
    concatenation is the lowest-ranked token, leftmost first.
    """
    parts = [data[i : i + 1] for i in range(len(data))]
    while True:
        best = None
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best is None or rank < best[0]):
                best = (rank, i)
        if best is None:
            break
        i = best[1]
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return [ranks[p] for p in parts]


def corpus_text(name: str) -> str:
    path = CORPORA_DIR / name
    if not path.exists():
        pytest.skip(f"corpus {name} not available at {CORPORA_DIR}")
    return path.read_text(encoding="utf-8")


# The official files of the bundled encodings (their bytes ship in the package); the
# URLs name them in tiktoken's cache.
_TIKTOKEN_FILES = {
    name: f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
    for name in ("r50k_base", "p50k_base", "cl100k_base", "o200k_base")
}


@functools.lru_cache(maxsize=None)
def _seeded_tiktoken_cache() -> str:
    """A tiktoken cache directory holding the bundled files under tiktoken's own names
    (the SHA-1 of their URL), so that tiktoken loads its own definitions offline."""
    import atexit
    import hashlib
    import shutil
    import tempfile

    from bpe_stream.encoding.registry import bundled_tiktoken_bytes

    d = tempfile.mkdtemp(prefix="tiktoken-cache-")
    atexit.register(shutil.rmtree, d, True)
    for name, url in _TIKTOKEN_FILES.items():
        Path(d, hashlib.sha1(url.encode()).hexdigest()).write_bytes(bundled_tiktoken_bytes(name))
    return d


@functools.lru_cache(maxsize=None)
def tiktoken_oracle(name: str):
    """tiktoken's own encoding ``name`` (its pattern, ranks and special tokens), loaded
    offline from the bundled files, which tiktoken checks against its published SHA-256."""
    tiktoken = pytest.importorskip("tiktoken")
    saved = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = _seeded_tiktoken_cache()
    try:
        return tiktoken.get_encoding(name)
    finally:
        if saved is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = saved


ENCODING_NAMES = ["cl100k_base", "o200k_base"]
# Every bundled encoding tiktoken also defines (gpt2 is r50k_base under another name, and
# tiktoken reads it from files the package does not ship).
TIKTOKEN_NAMES = ["r50k_base", "p50k_base", "p50k_edit", "cl100k_base", "o200k_base", "o200k_harmony"]

# The two implementations of every table and encoder: the compiled core
# (bpe_stream/_native/_core: merge loop, ASCII pre-split scanner, backtracking encoder,
# table pass, interval index) and pure Python.
IMPLEMENTATIONS = ["compiled", "python"]


def encoding_with(name: str, implementation: str):
    """The bundled encoding ``name``, its pieces encoded by ``implementation``."""
    from bpe_stream import get_encoding
    enc = get_encoding(name)
    if implementation == "compiled":
        if not enc.bpe.native:
            pytest.skip("the compiled core is not built (or BPE_STREAM_PURE_PYTHON is set)")
        return enc
    return pure_python_twin(enc)


@functools.lru_cache(maxsize=None)
def _twin(enc):
    from bpe_stream import Encoding

    twin = Encoding(enc.name, pat_str=enc.pat_str, bpe=enc.bpe._python_twin(), special_tokens=enc.special_tokens)
    assert twin._compiled() is None  # every table and encoder in pure Python
    return twin


def pure_python_twin(enc):
    """An Encoding with ``enc``'s vocabulary that encodes every piece in pure Python."""
    return _twin(enc)


@pytest.fixture(params=ENCODING_NAMES)
def encoding_name(request):
    return request.param


@pytest.fixture(params=[False, True], ids=["default", "tiny"])
def small_constants(request, monkeypatch):
    """With tiny constants the long-piece machinery (cuts of long pieces in re-splits,
    long-first-piece states of prepending) runs on short hypothesis texts."""
    if request.param:
        import bpe_stream.pretokenize.long_pieces as long_pieces
        import bpe_stream.text.appendable as piece_stream
        from bpe_stream.stream.front.text_prependable import TextPrependable

        monkeypatch.setattr(long_pieces, "_KEEP", 3)
        monkeypatch.setattr(long_pieces, "_MIN_CUT", 1)
        monkeypatch.setattr(piece_stream, "_LONG", 6)
        monkeypatch.setattr(TextPrependable, "_LONG", 6)
        monkeypatch.setattr(TextPrependable, "_FETCH", 5)
