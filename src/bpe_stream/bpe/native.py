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

__all__ = ["Core", "compiled_available", "bisect_right_array"]

try:
    from .._native._core import Core
    from .._native._core import bisect_right as _bisect_right_c
except ImportError:  # not built: no C compiler at install time
    Core = None
    _bisect_right_c = None

#: ``bisect.bisect_right`` for an ``array('i')`` / ``array('q')``: in C when built (no
#: Python int per probe), else the standard one.
bisect_right_array = _bisect_right_c if _bisect_right_c is not None and not os.environ.get(
    "BPE_STREAM_PURE_PYTHON") else _bisect_right


def compiled_available() -> bool:
    """Whether the compiled core was built and is not turned off."""
    return Core is not None and not os.environ.get("BPE_STREAM_PURE_PYTHON")
