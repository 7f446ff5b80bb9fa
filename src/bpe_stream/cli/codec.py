"""The ``bpe-stream encode`` and ``bpe-stream decode`` subcommands.

``bpe-stream encode FILE... | - [--encoding E] [--allowed-special]``: the token ids
of each input on one line, separated by spaces (text that spells a special token
is ordinary text unless ``--allowed-special`` is given, as in ``count``).

``bpe-stream decode FILE... | - [--encoding E]``: reads token ids (integers
separated by whitespace or commas, brackets allowed: the output of ``encode``
or a JSON list) and writes the decoded text.  An id that is no token of the
encoding exits 2 naming it and where it is; bytes that are not valid UTF-8
become U+FFFD (as tiktoken's ``decode``).
"""

from __future__ import annotations

import re
import sys

from .args import add_encoding_argument
from .encoding_arg import load_encoding_arg, read_text_input
from .textio import InputError

__all__ = ["register_cli"]

_ID = re.compile(r"[^\s,\[\]]+")


def _encode(args) -> int:
    enc = load_encoding_arg(args.encoding)
    out = sys.stdout
    for path in args.files:
        text = read_text_input(path)
        ids = enc.encode(text, allowed_special="all") if args.allowed_special else enc.encode_ordinary(text)
        out.write(" ".join(map(str, ids)) + "\n")
    out.flush()
    return 0


def _decode(args) -> int:
    enc = load_encoding_arg(args.encoding)
    out = sys.stdout
    for path in args.files:
        text = read_text_input(path)
        ids = []
        for m in _ID.finditer(text):
            word = m.group()
            if not word.isdigit() or not word.isascii():
                line = text.count("\n", 0, m.start()) + 1
                raise InputError(f"{path}: line {line}: {word[:40]!r} is not a token id")
            ids.append(int(word))
        try:
            out.write(enc.decode(ids))
        except ValueError as e:
            raise InputError(f"{path}: {e}") from None
    out.flush()
    return 0


def register_cli(subparsers) -> None:
    """Add ``encode`` and ``decode`` to the ``bpe-stream`` parser."""
    p = subparsers.add_parser("encode", help="print the token ids of each file (- for stdin)",
                              description="Print the token ids of each input, one line per input.")
    p.add_argument("files", nargs="*", default=["-"], metavar="FILE")
    add_encoding_argument(p)
    p.add_argument("--allowed-special", action="store_true",
                   help="encode text that spells a special token as that token (default: ordinary text)")
    p.set_defaults(func=_encode)
    p = subparsers.add_parser("decode", help="turn token ids back into text",
                              description="Decode token ids (separated by spaces, commas or brackets) to text.")
    p.add_argument("files", nargs="*", default=["-"], metavar="FILE")
    add_encoding_argument(p)
    p.set_defaults(func=_decode)
