"""Argument parsing shared by the subcommands: one-line errors, exit code 2, typed flags.

Invariant: every bad argument ends the command with exit code 2 and one line on
stderr, ``bpe-stream SUBCOMMAND: error: ...``, naming the flag as it is written
(``--max-tokens``), never a traceback.  Flag values are checked where they are
parsed (the types below), so a command starts only with arguments that are valid.

>>> positive_int("3"), non_negative_int("0")
(3, 0)
>>> positive_int("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be an integer >= 1, got '0'
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from ..encoding.encoding import Encoding
from ..encoding.resolve import resolve_encoding

__all__ = ["CliParser", "encoding_type", "non_negative_int", "positive_int", "at_least"]


class CliParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (with a pointer to ``--help``), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def at_least(low: int):
    """An argparse type: an integer ``>= low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {text!r}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


positive_int = at_least(1)
non_negative_int = at_least(0)


def encoding_type(text: str) -> Encoding:
    """An argparse type: an encoding name, a model name or a vocabulary file."""
    try:
        return resolve_encoding(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_encoding_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--encoding", type=encoding_type, default="cl100k_base", metavar="NAME|MODEL|FILE",
        help="encoding name (cl100k_base, o200k_base), model name (gpt-4o, gpt-4, ...) or "
        "saved vocabulary file (default cl100k_base)",
    )


def fail(prog: str, message: str) -> int:
    """Report a bad input on one line; the exit code to return (2)."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    return 2
