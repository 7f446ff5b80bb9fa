"""The ``bpe-stream chunk`` subcommand.

``bpe-stream chunk FILE... | - --max-tokens N [--overlap K]
[--boundaries exact|semantic] [--encoding NAME] [--format jsonl|text]``

Invariants:

* every file (and stdin, ``-``) is read as strict UTF-8 in blocks and fed to
  :meth:`Chunker.chunk_stream`, so memory stays bounded by a few chunks and
  chunks are printed as soon as they are final;
* ``jsonl``: one JSON object per chunk with ``text``, ``start``, ``end``
  (character offsets into that file), ``token_count`` and ``source``;
  ``text``: for reading, each chunk under a header line
  ``--- SOURCE [START:END] N tokens ---``;
* a missing file or invalid UTF-8 exits 2 with a message naming the file (and
  the byte offset); a character that alone exceeds the budget exits 2 too;
* a progress bar goes to stderr for inputs over 1 MiB, only when stderr is a
  terminal.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator

from ..chunk.chunker import Chunker
from .encoding_arg import load_encoding_arg
from .textio import InputError, read_utf8_blocks

__all__ = ["register_cli"]

BLOCK_BYTES = 1 << 16
PROGRESS_MIN_BYTES = 1 << 20


def _blocks(path: str, progress) -> Iterator[str]:
    """Strict UTF-8 text of ``path`` (``-`` = stdin) in blocks."""
    return read_utf8_blocks(path, BLOCK_BYTES, progress)


def _progress_for(path: str):
    if not sys.stderr.isatty() or path == "-":
        return None, None
    try:
        size = os.path.getsize(path)
    except OSError:
        return None, None
    if size < PROGRESS_MIN_BYTES:
        return None, None
    try:
        from tqdm import tqdm
    except ImportError:
        done = [0]

        def update(k):
            done[0] += k
            print(f"\r{path}: {100 * done[0] // max(size, 1)}%", end="", file=sys.stderr, flush=True)

        return update, lambda: print(file=sys.stderr)
    bar = tqdm(total=size, unit="B", unit_scale=True, desc=path, file=sys.stderr, leave=False)
    return bar.update, bar.close


def _chunk(args) -> int:
    enc = load_encoding_arg(args.encoding)
    try:
        chunker = Chunker(enc, args.max_tokens, overlap=args.overlap, boundaries=args.boundaries)
    except ValueError as e:
        raise InputError(str(e)) from None
    out = sys.stdout
    first = True
    chunk_ended_with_newline = True
    for path in args.files:
        update, close = _progress_for(path)
        try:
            for chunk in chunker.chunk_stream(_blocks(path, update)):
                if args.format == "jsonl":
                    record = {
                        "text": chunk.text,
                        "start": chunk.start,
                        "end": chunk.end,
                        "token_count": chunk.token_count,
                        "source": path,
                    }
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
                else:
                    if not first and not chunk_ended_with_newline:
                        out.write("\n")
                    out.write(
                        f"--- {path} [{chunk.start}:{chunk.end}] {chunk.token_count} tokens ---\n"
                    )
                    out.write(chunk.text)
                    chunk_ended_with_newline = chunk.text.endswith("\n")
                first = False
                if path == "-":
                    out.flush()  # a stream's reader sees each chunk when it is final
        except ValueError as e:  # a character that alone needs more than the budget
            raise InputError(f"{path}: {e}") from None
        finally:
            if close is not None:
                close()
    if args.format == "text" and not first and not chunk_ended_with_newline:
        out.write("\n")
    out.flush()
    return 0


def register_cli(subparsers) -> None:
    """Add the ``chunk`` subcommand to the ``bpe-stream`` parser."""
    p = subparsers.add_parser(
        "chunk",
        help="cut files (- for stdin) into chunks of at most N tokens, exactly, as JSON lines",
        description="Cut text into chunks of at most --max-tokens tokens (exact counts), "
        "streaming: chunks are printed as soon as they are final.",
    )
    p.add_argument("files", nargs="*", default=["-"], metavar="FILE")
    p.add_argument("--max-tokens", type=int, required=True, metavar="N", help="token budget per chunk")
    p.add_argument("--overlap", type=int, default=0, metavar="K", help="repeat up to K tokens of the previous chunk")
    p.add_argument("--boundaries", choices=["exact", "semantic"], default="semantic",
                   help="semantic (default): cut at paragraphs/headings/lines/sentences/words; exact: fill to the budget")
    p.add_argument("--encoding", default="cl100k_base", help="encoding name or saved file (default cl100k_base)")
    p.add_argument("--format", choices=["jsonl", "text"], default="jsonl", help="output format (default jsonl)")
    p.set_defaults(func=_chunk)
