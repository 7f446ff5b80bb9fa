"""The ``bpe-stream train`` subcommand.

``bpe-stream train FILE... --vocab-size N [--pattern NAME|REGEX|none]
[--min-frequency K] [--special-token TEXT]... [--name NAME] [--progress|--no-progress]
-o OUT``

Input handling (invariants):

* The pattern defaults to ``cl100k_base`` (as in the README); ``--pattern none``
  trains on raw bytes (each file one sequence, held whole, about 13 bytes of memory
  per input byte: see :mod:`bpe_stream.training.trainer`).
* Files are read as strict UTF-8 bytes, without newline translation (``\\r\\n``
  is kept).  A missing file, invalid UTF-8, a bad flag value or an output that
  cannot be written exits with code 2 and one line naming the file or the flag.
* With a custom regex each file is one document, read whole.  With a built-in
  pattern (``cl100k_base``, ``o200k_base``) a file is streamed in blocks of about
  1 MiB cut right after a ``\\n`` that is followed by a letter or digit: neither
  built-in pattern ever puts that newline and that character in one piece, nor
  does any piece before the cut look past it, so the pieces are exactly those of
  the whole file and memory stays bounded by the block size plus the distinct
  pieces.
* Progress goes to stderr, on lines of its own, through every phase (reading and
  counting, laying out, counting pairs, merging): by default when stderr is a
  terminal; ``--progress`` / ``--no-progress`` decide otherwise.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator

from ..encoding.persist import save_encoding
from ..training.trainer import Progress, resolve_pattern, train
from .args import at_least, non_negative_int
from .textio import InputError, read_utf8_blocks

__all__ = ["register_cli", "read_documents"]

BLOCK_BYTES = 1 << 20
BUILTIN_STREAMABLE = ("cl100k_base", "o200k_base")
DEFAULT_PATTERN = "cl100k_base"


def _last_safe_cut(text: str) -> int:
    """Offset just after the last ``\\n`` followed by a letter or digit, or -1."""
    pos = text.rfind("\n", 0, len(text) - 1)
    while pos >= 0:
        if text[pos + 1].isalnum():
            return pos + 1
        pos = text.rfind("\n", 0, pos)
    return -1


def read_documents(
    paths: list[str], *, streamable: bool, block_bytes: int = BLOCK_BYTES
) -> Iterator[str]:
    """Yield the text of ``paths``: whole files, or safe blocks when ``streamable``.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "a.txt")
    >>> _ = open(p, "wb").write(b"one\\r\\ntwo\\n three\\nfour")
    >>> list(read_documents([p], streamable=True, block_bytes=4))
    ['one\\r\\n', 'two\\n three\\n', 'four']
    >>> list(read_documents([p], streamable=False))
    ['one\\r\\ntwo\\n three\\nfour']
    """
    for path in paths:
        if not streamable:
            text = "".join(read_utf8_blocks(path, block_bytes))
            if text:
                yield text
            continue
        pending = ""
        for chunk in read_utf8_blocks(path, block_bytes):
            pending += chunk
            cut = _last_safe_cut(pending)
            if cut > 0:
                yield pending[:cut]
                pending = pending[cut:]
        if pending:
            yield pending


def _pattern_arg(text: str) -> str | None:
    if text.lower() in ("none", "raw", "bytes"):
        return None
    try:
        resolve_pattern(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _run_train(args: argparse.Namespace) -> int:
    prog = "bpe-stream train"
    for path in args.files:
        if not os.path.isfile(path):
            what = "is not a file" if os.path.exists(path) else "no such file"
            print(f"{prog}: error: {path}: {what}", file=sys.stderr)
            return 2
    if args.vocab_size < 256:  # the parser checks this too; kept for callers of register_cli
        print(f"{prog}: error: --vocab-size must be at least 256", file=sys.stderr)
        return 2
    out_dir = os.path.dirname(os.path.abspath(args.output))
    if os.path.isdir(args.output) or not os.path.isdir(out_dir) or not os.access(out_dir, os.W_OK):
        why = "is a directory" if os.path.isdir(args.output) else "its directory does not exist or is not writable"
        print(f"{prog}: error: -o {args.output}: {why}", file=sys.stderr)
        return 2
    pattern = args.pattern
    show = sys.stderr.isatty() if args.progress is None else args.progress
    progress = Progress(sys.stderr) if show else False
    documents = read_documents(args.files, streamable=pattern in BUILTIN_STREAMABLE)
    try:
        enc = train(
            documents,
            args.vocab_size,
            pattern=pattern,
            special_tokens=args.special_token,
            min_frequency=args.min_frequency,
            progress=progress,
            name=args.name or os.path.basename(args.output).split(".")[0] or "trained",
        )
    except (InputError, ValueError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    try:
        save_encoding(enc, args.output)
    except OSError as exc:
        print(f"{prog}: error: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    n_merges = len(enc.bpe) - 256
    print(
        f"wrote {args.output}: {len(enc.bpe)} tokens ({n_merges} merges"
        f"{', ' + str(len(enc.special_tokens)) + ' special' if enc.special_tokens else ''})",
        file=sys.stderr,
    )
    return 0


def register_cli(subparsers) -> None:
    """Add the ``train`` subcommand to an ``argparse`` subparsers object."""
    parser = subparsers.add_parser(
        "train",
        help="train a byte-level BPE vocabulary on text files",
        description=(
            "Train a byte-level BPE vocabulary (exact; see bpe_stream.train) and save it "
            "in bpe-stream's format (tiktoken ranks plus pattern and special tokens)."
        ),
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files")
    parser.add_argument(
        "--vocab-size", type=at_least(256), required=True, metavar="N",
        help="number of tokens: 256 bytes plus the merges (special tokens come on top)",
    )
    parser.add_argument(
        "--pattern", type=_pattern_arg, default=DEFAULT_PATTERN, metavar="NAME|REGEX|none",
        help="pre-split with cl100k_base (default), o200k_base or a regex; none: raw bytes",
    )
    parser.add_argument(
        "--min-frequency", type=non_negative_int, default=2, metavar="K",
        help="stop when no pair occurs K times (default 2)",
    )
    parser.add_argument(
        "--special-token", action="append", default=[], metavar="TEXT",
        help="add a special token after the merges (repeatable)",
    )
    parser.add_argument("--name", default=None, help="encoding name (default: OUT's stem)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="report every phase on stderr (default: when stderr is a terminal)")
    parser.add_argument("-o", "--output", required=True, metavar="OUT", help="output file")
    parser.set_defaults(func=_run_train)
