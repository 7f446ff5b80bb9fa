"""The ``bpe-stream`` command line: ``count``, ``encode``, ``decode``, ``chunk``, ``train``.

Each subcommand exits 0 on success and 2 with a one-line message on bad input or a
bad argument (missing file, undecodable bytes, an ``--encoding`` that names no
encoding, model or vocabulary file, a flag out of range); the message names flags
as they are written (``--max-tokens``).  ``--encoding`` takes an encoding name, a
model name (``gpt-4o``) or a saved vocabulary file.
"""

from __future__ import annotations

import sys

from .._version import __version__
from .args import CliParser, add_encoding_argument
from .chunk import register_cli as register_chunk
from .codec import register_cli as register_codec
from .encoding_arg import load_encoding_arg, read_text_input
from .textio import InputError
from .train import register_cli as register_train

__all__ = ["main", "build_parser"]


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


def build_parser() -> CliParser:
    parser = CliParser(
        prog="bpe-stream", description="Exact BPE token counting and chunking (tiktoken-compatible)."
    )
    parser.add_argument("--version", action="version", version=f"bpe-stream {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=CliParser)
    count = sub.add_parser("count", help="print the token count of each file (- for stdin)")
    count.add_argument("files", nargs="*", default=["-"], metavar="FILE")
    add_encoding_argument(count)
    count.set_defaults(func=_count)
    register_codec(sub)
    register_chunk(sub)
    register_train(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # a bad argument (one line printed, code 2), or --help / --version
        return e.code if isinstance(e.code, int) else 2
    try:
        return args.func(args)
    except InputError as e:
        print(f"bpe-stream {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print(f"bpe-stream {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
