"""The compiled core, when it is built: one place that says whether it is used.

``_native/_core`` (C, built by ``pip install`` when a C compiler is there) holds a
vocabulary's tables and the encoders that read them: the backtracking encoder, the
table pass and interval index, the merge loop and the ASCII pre-split scanner.  Every
routine has a pure-Python twin in this package that gives the same answers; the tests
run both.  Setting the environment variable ``BPE_STREAM_PURE_PYTHON`` to a non-empty
value (read when a vocabulary is built) turns the compiled core off.
"""

from __future__ import annotations

import os
from bisect import bisect_right as _bisect_right

__all__ = ["Core", "compiled_available", "bisect_right_array", "exact_cuts", "make_chunks", "run_cuts", "run_overlap_start", "longest_token_in", "first_in_bitmap",
           "normalization_runs", "presplit",
           "text_query", "distinct_chars", "whole_set", "load_strings", "tokens_holding_compiled", "merges_compiled",
           "merges_products_compiled", "gguf_byte_level",
           "json_sections_compiled", "drop_tokens_compiled",
           "classify_waiting_compiled"]

try:
    from .._native._core import Core, whole_set
    from .._native._core import bisect_right as _bisect_right_c
    from .._native._core import first_in_bitmap as _first_in_bitmap_c
    from .._native._core import presplit as _presplit_c
    from .._native import _core as _core_module
    from .._native._core import byte_level_decode as _byte_level_decode_c
    from .._native._core import gguf_strings as _gguf_strings_c
    from .._native._core import tokens_holding as _tokens_holding_c
    from .._native._core import merges_check as _merges_check_c
    from .._native._core import order_by_merges as _order_by_merges_c
    from .._native._core import exact_cuts as _exact_cuts_c
    from .._native._core import make_chunks as _make_chunks_c
    from .._native._core import run_cuts as _run_cuts_c
    from .._native._core import run_overlap_start as _run_overlap_start_c
    from .._native._core import longest_token_in as _longest_token_in_c
except ImportError:  # not built: no C compiler at install time
    Core = None
    _bisect_right_c = None
    _first_in_bitmap_c = None
    _presplit_c = None
    _byte_level_decode_c = None
    _gguf_strings_c = None
    _tokens_holding_c = None
    _merges_check_c = None
    _order_by_merges_c = None
    _exact_cuts_c = None
    _make_chunks_c = None
    _run_cuts_c = None
    _run_overlap_start_c = None
    _longest_token_in_c = None
    whole_set = None
    _core_module = None

#: model.vocab and model.merges of a tokenizer.json's bytes (``json_sections.c``)
_json_sections_c = getattr(_core_module, "tokenizer_json_sections", None)
#: a vocabulary's parts without some tokens (``dropping.c``)
_drop_tokens_c = getattr(_core_module, "drop_tokens", None)
#: the waiting tokens of a first pass decided by the merge loop (``waiting.c``)
_classify_waiting_c = getattr(_core_module, "classify_waiting", None)
#: a GGUF file's token and merge strings decoded from its bytes (``gguf_byte_level.c``)
_gguf_tokens_c = getattr(_core_module, "gguf_tokens", None)
_gguf_merges_c = getattr(_core_module, "gguf_merges", None)
#: merges_check from order_by_merges' products (``merges_products.c``)
_merges_check_products_c = getattr(_core_module, "merges_check_products", None)
#: the compiled text interval query (``text_intervals.c``), None where not built
text_query = getattr(_core_module, "text_query", None)
#: the distinct characters of a str, in code point order (``text_intervals.c``)
distinct_chars = getattr(_core_module, "distinct_chars", None)
#: the periodic runs of bytes for the raw interval index (``periodic_runs.c``)
periodic_runs = getattr(_core_module, "periodic_runs", None)


def _warn_not_compiled() -> None:
    """One warning when the build skipped the compiled core (setup.py leaves a marker
    then); none when it was turned off on purpose (``BPE_STREAM_PURE_PYTHON``)."""
    import importlib.resources
    import warnings

    try:
        marker = importlib.resources.files("bpe_stream._native").joinpath("NOT_COMPILED")
        reason = marker.read_text(encoding="utf-8").strip() if marker.is_file() else None
    except (OSError, ModuleNotFoundError):  # pragma: no cover - unusual installs
        reason = None
    if reason is None or os.environ.get("BPE_STREAM_PURE_PYTHON"):
        return
    warnings.warn(
        "bpe-stream was installed without its compiled core (the build could not compile "
        f"it: {reason}); the answers are the same, a first pass over new text is 4-25x "
        "slower. Install a C compiler and reinstall, or install a wheel; set "
        "BPE_STREAM_PURE_PYTHON=1 to run pure Python without this warning.",
        RuntimeWarning,
        stacklevel=2,
    )


if Core is None:
    _warn_not_compiled()

#: ``bisect.bisect_right`` for an ``array('i')`` / ``array('q')``: in C when built (no
#: Python int per probe), else the standard one.
bisect_right_array = _bisect_right_c if _bisect_right_c is not None and not os.environ.get(
    "BPE_STREAM_PURE_PYTHON") else _bisect_right


def compiled_available() -> bool:
    """Whether the compiled core was built and is not turned off."""
    return Core is not None and not os.environ.get("BPE_STREAM_PURE_PYTHON")


_BITMAP_CHARS: dict = {}  # id(bitmap) -> (bitmap, frozenset of its characters)


def _first_in_bitmap_py(text: str, start: int, end: int, bits: bytes) -> int:
    chars = _bitmap_chars(bits)
    if chars.isdisjoint(text[start:end]):  # C speed: the usual answer
        return -1
    return next(i for i in range(start, end) if text[i] in chars)


#: The first index in ``text[start:end]`` whose code point has its bit set in ``bits``
#: (0x110000 bits), or -1: in C when built, else in Python.
first_in_bitmap = _first_in_bitmap_c if _first_in_bitmap_c is not None and not os.environ.get(
    "BPE_STREAM_PURE_PYTHON") else _first_in_bitmap_py


def _bitmap_chars(bits: bytes) -> frozenset:
    """The characters whose bits are set in ``bits`` (kept per bitmap object)."""
    entry = _BITMAP_CHARS.get(id(bits))
    if entry is None or entry[0] is not bits:
        chars = frozenset(
            chr(8 * i + k) for i, byte in enumerate(bits) if byte for k in range(8) if (byte >> k) & 1
        )
        entry = _BITMAP_CHARS[id(bits)] = (bits, chars)
    return entry[1]


#: The flags of normalization_runs' table (``_native/normalization_check.c``).
NC_ALONE, NC_JOINS, NC_TAIL, NC_SECOND, NC_FIRST = 1, 2, 4, 8, 16
_NC_BLOCKS = 0x1100


def _nc_flags(table: bytes, c: str) -> int:
    cp = ord(c)
    return table[_NC_BLOCKS + 256 * table[cp >> 8] + (cp & 255)]


def _normalization_runs_py(text: str, table: bytes) -> list[int]:
    out: list[int] = []
    n = len(text)
    at = i = 0
    prev = 0
    while i < n:
        f = _nc_flags(table, text[i])
        if f & NC_ALONE or (prev & NC_TAIL and f & NC_JOINS) or (prev & NC_FIRST and f & NC_SECOND):
            s, e = i, i + 1
            while s > at and _nc_flags(table, text[s]) & NC_JOINS:
                s -= 1
            while e < n and _nc_flags(table, text[e]) & NC_JOINS:
                e += 1
            out += (s, e)
            at = i = e
            prev = 0
            continue
        prev = f
        i += 1
    return out


#: The runs of ``text`` that may change under a normalization form, as
#: ``[start, end, ...]``: each run starts at a boundary (or where the previous one ended)
#: and ends at one, and the text outside them is its own normalization.  ``table`` holds
#: the quick check's flags per code point (pretokenize/normalize.py builds it); in C when
#: built (``_native/normalization_check.c``).
normalization_runs = getattr(_core_module, "normalization_runs", None)
if normalization_runs is None or os.environ.get("BPE_STREAM_PURE_PYTHON"):
    normalization_runs = _normalization_runs_py


#: The compiled pre-split of the family's members (``_native/presplit.c``):
#: ``presplit(text, spec) -> list[str]`` with ``spec`` from
#: :func:`bpe_stream.pretokenize.family.native_spec`; None when the compiled core is not
#: built, turned off, or the compiled scanner is turned off (``BPE_STREAM_REGEX_SPLIT``
#: set to a non-empty value: every split then runs the ``regex`` module).
presplit = _presplit_c if _presplit_c is not None and not os.environ.get("BPE_STREAM_PURE_PYTHON") and not \
    os.environ.get("BPE_STREAM_REGEX_SPLIT") else None


def load_strings():
    """The compiled string readers of vocabulary files (``_native/load_strings.c``):
    ``(byte_level_decode, gguf_strings)``, or None when the compiled core is not built or
    turned off (decided at each call: the readers run once per loaded file)."""
    if _byte_level_decode_c is None or os.environ.get("BPE_STREAM_PURE_PYTHON"):
        return None
    return _byte_level_decode_c, _gguf_strings_c


def gguf_byte_level():
    """``(gguf_tokens, gguf_merges)`` of ``_native/gguf_byte_level.c`` (a GGUF string array
    decoded from byte level as it is read: ``load_strings``' two readers in one pass), or
    None when the compiled core is not built or turned off."""
    if _gguf_tokens_c is None or os.environ.get("BPE_STREAM_PURE_PYTHON"):
        return None
    return _gguf_tokens_c, _gguf_merges_c


def tokens_holding_compiled(blob: bytes, offsets: bytes, inner: list[int]) -> list[int] | None:
    """The ranks (increasing) of the tokens of a compiled core's ``parts()`` whose bytes hold
    one of the tokens ranked in ``inner`` (``_native/holding.c``; the pure-Python twin is
    :func:`bpe_stream.bpe.tables.tokens_holding`), or None when the compiled core is not
    built or turned off."""
    if _tokens_holding_c is None or os.environ.get("BPE_STREAM_PURE_PYTHON"):
        return None
    return _tokens_holding_c(blob, offsets, inner)


def merges_compiled():
    """``(order_by_merges, merges_check)`` of ``_native/merges.c`` (the twins of
    :mod:`bpe_stream.bpe.merges`'s functions), or None when the compiled core is not built
    or turned off."""
    if _merges_check_c is None or os.environ.get("BPE_STREAM_PURE_PYTHON"):
        return None
    return _order_by_merges_c, _merges_check_c


def merges_products_compiled():
    """``merges_check_products`` of ``_native/merges_products.c`` (``merges_check``'s answer
    from the products ``order_by_merges(..., products=True)`` gives, no table of the
    pairs), or None when the compiled core is not built or turned off."""
    if _merges_check_products_c is None or os.environ.get("BPE_STREAM_PURE_PYTHON"):
        return None
    return _merges_check_products_c


def json_sections_compiled():
    """``tokenizer_json_sections`` of ``_native/json_sections.c`` (what
    :func:`bpe_stream.encoding.formats.hf_json.read_sections` reads a tokenizer.json with),
    or None when the compiled core is not built or turned off."""
    if _json_sections_c is None or os.environ.get("BPE_STREAM_PURE_PYTHON"):
        return None
    return _json_sections_c


def drop_tokens_compiled():
    """``drop_tokens`` of ``_native/dropping.c`` (the twin of
    :func:`bpe_stream.bpe.vocabulary._drop_tokens_py`), or None when the compiled core is
    not built or turned off."""
    if _drop_tokens_c is None or os.environ.get("BPE_STREAM_PURE_PYTHON"):
        return None
    return _drop_tokens_c


def classify_waiting_compiled():
    """``classify_waiting`` of ``_native/waiting.c`` (the twin of
    :func:`bpe_stream.bpe.tables.classify_waiting`, on a first pass's parts), or None when
    the compiled core is not built or turned off."""
    if _classify_waiting_c is None or os.environ.get("BPE_STREAM_PURE_PYTHON"):
        return None
    return _classify_waiting_c


#: The exact chunker's cuts that prefix sums decide, many chunks per call
#: (``_native/chunk_cuts.c``); None when the compiled core is not built or turned off
#: (the chunker then finds every cut in Python, the reference).
exact_cuts = _exact_cuts_c if _exact_cuts_c is not None and not os.environ.get("BPE_STREAM_PURE_PYTHON") else None
#: The Chunk objects for exact_cuts' cuts, many per call (``_native/chunk_objects.c``);
#: None like exact_cuts (the chunker then builds them in Python, chunker._plain_chunk).
make_chunks = _make_chunks_c if exact_cuts is not None else None
#: The exact chunker's chunks inside a long one-piece run, many per call
#: (``_native/chunk_runs.c``); None like exact_cuts (ChunkView's run mode then finds them).
run_cuts = _run_cuts_c if exact_cuts is not None else None
#: The overlap start after a chunk ending in such a run (``_native/chunk_runs.c``), or -1.
run_overlap_start = _run_overlap_start_c if exact_cuts is not None else None
#: The longest token occurring in some bytes (``_native/chunk_runs.c``), for
#: text/cuts.py's region bound without the Python automaton; None like exact_cuts.
longest_token_in = _longest_token_in_c if exact_cuts is not None else None

# ---- the exact chunker's chunks inside runs of ASCII digits (``_native/digit_runs.c``,
# twin of chunk/digit_runs.py); None like exact_cuts (the Python steps then find them).
digit_cuts = getattr(_core_module, "digit_cuts", None) if exact_cuts is not None else None
digit_overlap_start = getattr(_core_module, "digit_overlap_start", None) if exact_cuts is not None else None
# ---- chunk_ws.c
#: The exact chunker's chunks inside a stretch of whitespace, many per call
#: (``_native/chunk_ws.c``); None like exact_cuts (the chunker's steps then find them).
ws_cuts = getattr(_core_module, "ws_cuts", None) if exact_cuts is not None else None
#: Whether no token crosses a whitespace string's last line break (``_native/chunk_ws.c``).
ws_split_holds = getattr(_core_module, "line_break_split_holds", None) if exact_cuts is not None else None
