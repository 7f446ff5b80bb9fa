"""The compiled merge loop for short pieces, when it is there.

``Encoding`` encodes every piece it has not seen yet; that per-piece cost decides how
fast a first pass over new text is.  ``_merge_loop.c`` is BPE's merge loop compiled
(the same loop as ``encoding._merge_short``, for pieces of at most ``max_piece``
bytes).  It is built by ``pip install`` when a C compiler is there and skipped
otherwise; the pure-Python encoders then answer the same, only slower.  Setting the
environment variable ``BPE_STREAM_PURE_PYTHON`` to a non-empty value (read when an
encoding first needs the table) turns the compiled loop off.
"""

from __future__ import annotations

import os

try:
    from ._merge_loop import MergeTable
except ImportError:  # not built: no C compiler at install time
    MergeTable = None

__all__ = ["compiled_available", "merge_table_for"]


def compiled_available() -> bool:
    """Whether the compiled merge loop was built and is not turned off."""
    return MergeTable is not None and not os.environ.get("BPE_STREAM_PURE_PYTHON")


def merge_table_for(bpe):
    """The compiled merge table of ``bpe`` (built once, kept on it), or None."""
    if not compiled_available():
        return None
    table = bpe.__dict__.get("_merge_table")
    if table is None:
        # Two threads may both build it; either table is the same, one is kept.
        table = bpe.__dict__.setdefault("_merge_table", MergeTable(bpe.tokens))
    return table
