"""Only for the optional compiled core; all other metadata is in pyproject.toml.

One extension, ``bpe_stream._native._core``, built from the C files listed here (one
per algorithm, registered in ``module.c``).  ``optional=True``: without a C compiler
the build skips it and the package falls back to its pure-Python path (same answers,
slower)."""

from setuptools import Extension, setup

_NATIVE = "src/bpe_stream/_native/"
_PARTS = ["module.c", "vocab.c", "backtracking.c", "merge_loop.c", "prefix_table.c", "search.c", "batch.c"]

setup(
    ext_modules=[
        Extension(
            "bpe_stream._native._core",
            [_NATIVE + part for part in _PARTS],
            depends=[_NATIVE + "core.h", _NATIVE + "ascii_split.h"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
