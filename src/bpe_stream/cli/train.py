"""The ``bpe-stream train`` subcommand.

``bpe-stream train FILE... --vocab-size N [--pattern NAME|REGEX]
[--min-frequency K] [--special-token TEXT]... [--name NAME] -o OUT``

Input handling (invariants):

* Files are read as strict UTF-8 bytes, without newline translation (``\\r\\n``
  is kept).  A missing file or invalid UTF-8 exits with code 2 and a message
  naming the file (and the byte offset of the first invalid byte).
* Without a pattern, or with a custom regex, each file is one document, read
  whole.  With a built-in pattern (``cl100k_base``, ``o200k_base``) a file is
  streamed in blocks of about 1 MiB cut right after a ``\\n`` that is followed
  by a letter or digit: neither built-in pattern ever puts that newline and
  that character in one piece, nor does any piece before the cut look past
  it, so the pieces are exactly those of the whole file and memory stays
  bounded by the block size plus the distinct pieces.
* The progress bar goes to stderr, and only when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator

from ..encoding.persist import save_encoding
from ..training.trainer import resolve_pattern, train
from .textio import InputError, read_utf8_blocks

__all__ = ["register_cli", "read_documents"]

BLOCK_BYTES = 1 << 20
BUILTIN_STREAMABLE = ("cl100k_base", "o200k_base")


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


def _run_train(args: argparse.Namespace) -> int:
    prog = "bpe-stream train"
    for path in args.files:
        if not os.path.isfile(path):
            what = "is not a file" if os.path.exists(path) else "no such file"
            print(f"{prog}: error: {path}: {what}", file=sys.stderr)
            return 2
    if args.vocab_size < 256:
        print(f"{prog}: error: --vocab-size must be at least 256", file=sys.stderr)
        return 2
    try:
        resolve_pattern(args.pattern)
    except ValueError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    documents = read_documents(args.files, streamable=args.pattern in BUILTIN_STREAMABLE)
    try:
        enc = train(
            documents,
            args.vocab_size,
            pattern=args.pattern,
            special_tokens=args.special_token,
            min_frequency=args.min_frequency,
            progress=sys.stderr.isatty(),
            name=args.name or os.path.basename(args.output).split(".")[0] or "trained",
        )
    except InputError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    try:
        save_encoding(enc, args.output)
    except OSError as exc:
        print(f"{prog}: error: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 1
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
        "--vocab-size", type=int, required=True, metavar="N",
        help="number of tokens: 256 bytes plus the merges (special tokens come on top)",
    )
    parser.add_argument(
        "--pattern", default=None, metavar="NAME|REGEX",
        help="pre-split with cl100k_base, o200k_base or a regex (default: raw bytes)",
    )
    parser.add_argument(
        "--min-frequency", type=int, default=2, metavar="K",
        help="stop when no pair occurs K times (default 2)",
    )
    parser.add_argument(
        "--special-token", action="append", default=[], metavar="TEXT",
        help="add a special token after the merges (repeatable)",
    )
    parser.add_argument("--name", default=None, help="encoding name (default: OUT's stem)")
    parser.add_argument("-o", "--output", required=True, metavar="OUT", help="output file")
    parser.set_defaults(func=_run_train)
