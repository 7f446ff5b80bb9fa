"""The ``bpe-stream`` command line: ``count``, ``chunk``, ``train``.

Each subcommand exits 0 on success and 2 with a one-line message on bad input
(missing file, undecodable bytes, unknown encoding).
"""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .textio import InputError, read_text

__all__ = ["main"]


def read_text_input(path: str) -> str:
    """The UTF-8 text of a file, or of stdin for ``-``."""
    return read_text(path)


def load_encoding_arg(name: str):
    from .registry import get_encoding, list_encoding_names

    if name in list_encoding_names():
        return get_encoding(name)
    from pathlib import Path

    if Path(name).exists():
        from . import load

        return load(name)
    raise InputError(
        f"unknown encoding {name!r}: use one of {', '.join(list_encoding_names())} or a saved encoding file"
    )


def _count(args) -> int:
    enc = load_encoding_arg(args.encoding)
    total = 0
    for path in args.files:
        n = enc.count(read_text_input(path))
        total += n
        print(f"{n}\t{path}")
    if len(args.files) > 1:
        print(f"{total}\ttotal")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bpe-stream", description="Exact BPE token counting and chunking (tiktoken-compatible)."
    )
    parser.add_argument("--version", action="version", version=f"bpe-stream {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    count = sub.add_parser("count", help="print the token count of each file (- for stdin)")
    count.add_argument("files", nargs="*", default=["-"], metavar="FILE")
    count.add_argument("--encoding", default="cl100k_base", help="encoding name or saved file (default cl100k_base)")
    count.set_defaults(func=_count)
    for module in ("chunk_cli", "training_cli"):
        try:
            mod = __import__(f"{__package__}.{module}", fromlist=["register_cli"])
        except ImportError:
            continue
        mod.register_cli(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except InputError as e:
        print(f"bpe-stream: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
