"""The ``bpe-stream`` command line: ``count``, ``chunk``, ``train``.

Each subcommand exits 0 on success and 2 with a one-line message on bad input
(missing file, undecodable bytes, unknown encoding).
"""

from __future__ import annotations

import argparse
import sys

from .._version import __version__
from .chunk import register_cli as register_chunk
from .encoding_arg import load_encoding_arg, read_text_input
from .textio import InputError
from .train import register_cli as register_train

__all__ = ["main"]


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
    register_chunk(sub)
    register_train(sub)
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
