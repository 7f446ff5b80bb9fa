"""What the subcommands share: loading ``--encoding`` and reading input text."""

from __future__ import annotations

from ..encoding.encoding import Encoding
from ..encoding.resolve import resolve_encoding
from .textio import InputError, read_text

__all__ = ["load_encoding_arg", "read_text_input"]


def read_text_input(path: str) -> str:
    """The UTF-8 text of a file, or of stdin for ``-``."""
    return read_text(path)


def load_encoding_arg(name: str | Encoding) -> Encoding:
    """The encoding ``--encoding`` names (already resolved by the parser, or a string)."""
    if isinstance(name, Encoding):
        return name
    try:
        return resolve_encoding(name)
    except ValueError as e:
        raise InputError(str(e)) from None
