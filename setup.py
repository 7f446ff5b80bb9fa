"""Only for the optional compiled core; all other metadata is in pyproject.toml.

One extension, ``bpe_stream._native._core``, built from the C files listed here (one
per algorithm, registered in ``module.c``).  ``optional=True``: without a C compiler
the build skips it and the package falls back to its pure-Python path (same answers,
slower).  setuptools skips an optional extension silently, so ``build_ext`` here says so
out loud: a warning block on stderr at build time, and a marker file
(``_native/NOT_COMPILED``) that makes ``import bpe_stream`` warn once, where the user
sees it (pip hides a successful build's output).  Wheels (cibuildwheel, see
pyproject.toml) always carry the compiled core.
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

MARKER = os.path.join("bpe_stream", "_native", "NOT_COMPILED")


class build_ext_loudly(build_ext):
    """``build_ext`` that reports a skipped optional extension instead of hiding it."""

    def run(self):
        super().run()
        for target in self._marker_paths():
            if os.path.exists(target):
                os.remove(target)
        if self._failed:
            for target in self._marker_paths():
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "w", encoding="utf-8") as f:
                    f.write(self._failed + "\n")

    def _marker_paths(self):
        paths = [os.path.join(self.build_lib, MARKER)]
        if self.inplace:
            paths.append(os.path.join("src", MARKER))
        return paths

    def build_extension(self, ext):
        self._failed = getattr(self, "_failed", "")
        try:
            super().build_extension(ext)
            return
        except Exception as e:  # noqa: BLE001 - what setuptools itself would swallow
            if not ext.optional:
                raise
            reason = f"{type(e).__name__}: {str(e)[:160]}".strip()
        self._failed = reason
        bar = "!" * 78
        sys.stderr.write(
            f"\n{bar}\nWARNING: bpe-stream's compiled core ({ext.name}) was not built:\n  {reason}\n"
            "bpe-stream works without it (the same answers), but a first pass over new text is\n"
            "4-7x slower. Install a C compiler and reinstall, or install a wheel.\n"
            f"{bar}\n\n"
        )

    def finalize_options(self):
        super().finalize_options()
        self._failed = ""


_NATIVE = "src/bpe_stream/_native/"
_PARTS = ["module.c", "vocab.c", "backtracking.c", "merge_loop.c", "prefix_table.c", "search.c", "batch.c", "pool.c", "presplit.c",
          "text_intervals.c", "periodic_runs.c", "pair_filter.c",
          "load_strings.c", "holding.c", "merges.c",
          "chunk_cuts.c", "chunk_objects.c", "chunk_counted_cuts.c", "chunk_runs.c",
          "digit_runs.c",
          "json_sections.c", "dropping.c", "waiting.c", "merges_products.c",
          "gguf_byte_level.c", "normalization_check.c",
          "chunk_symbol_runs.c",
          "chunk_ws.c",
          "chunk_nospace_cuts.c",
          "table_meet.c"]

setup(
    ext_modules=[
        Extension(
            "bpe_stream._native._core",
            [_NATIVE + part for part in _PARTS],
            depends=[_NATIVE + "core.h", _NATIVE + "ascii_split.h", _NATIVE + "unicode_classes.h",
                     _NATIVE + "piece_cache.h"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ],
    cmdclass={"build_ext": build_ext_loudly},
)
