"""Only for the optional compiled core; all other metadata is in pyproject.toml.

``optional=True``: without a C compiler the build skips the extension and the package
falls back to its pure-Python path (same answers, slower first pass over new text)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "bpe_stream._native._merge_loop",
            ["src/bpe_stream/_native/merge_loop.c"],
            depends=["src/bpe_stream/_native/ascii_split.h"],
            optional=True,
        )
    ]
)
