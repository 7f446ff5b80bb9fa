"""What the subcommands share: the ``--encoding`` argument and reading input text."""

from __future__ import annotations

from pathlib import Path

from ..encoding.encoding import get_encoding
from ..encoding.load import load
from ..encoding.registry import list_encoding_names
from .textio import InputError, read_text

__all__ = ["load_encoding_arg", "read_text_input"]


def read_text_input(path: str) -> str:
    """The UTF-8 text of a file, or of stdin for ``-``."""
    return read_text(path)


def load_encoding_arg(name: str):
    if name in list_encoding_names():
        return get_encoding(name)
    if Path(name).exists():
        return load(name)
    raise InputError(
        f"unknown encoding {name!r}: use one of {', '.join(list_encoding_names())} or a saved encoding file"
    )
