"""The ``bpe-stream chunk`` subcommand.

``bpe-stream chunk FILE... | - --max-tokens N [--overlap K]
[--boundaries exact|semantic] [--encoding NAME|MODEL|FILE] [--format jsonl|text]
[--markdown] [--context TITLE] [--progress|--no-progress]``

Invariants:

* every file (and stdin, ``-``) is read as strict UTF-8 in blocks and fed to
  :meth:`Chunker.chunk_stream`, so memory stays bounded by a few chunks and
  chunks are printed as soon as they are final;
* ``jsonl``: one JSON object per chunk with ``text``, ``start``, ``end``
  (character offsets into that file), ``token_count`` and ``source``; with
  ``--markdown`` also ``headings``; with ``--context`` also ``context`` and
  ``token_count_with_context`` (``count(context + text) <= N``).
  ``text``: for reading, each chunk under a header line
  ``--- SOURCE [START:END] N tokens ---`` (the context, if any, printed first);
* a missing file, invalid UTF-8, a bad flag value (``--overlap`` not below
  ``--max-tokens``, say) and a character that alone exceeds the budget each exit 2
  with one line naming the file, the position or the flag;
* progress (inputs over 1 MiB) goes to stderr on a line of its own: by default only
  when stderr is a terminal and stdout is not (the chunks then go to a file or a
  pipe, so the two never share a line); ``--progress`` forces it (one line per
  file when stderr is not a terminal), ``--no-progress`` turns it off.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator

from ..chunk.chunker import CharacterOverBudget, Chunker
from ..training.trainer import Progress
from .args import add_encoding_argument, non_negative_int, positive_int
from .encoding_arg import load_encoding_arg
from .textio import InputError, read_utf8_blocks

__all__ = ["register_cli"]

BLOCK_BYTES = 1 << 16
PROGRESS_MIN_BYTES = 1 << 20


def _blocks(path: str, progress) -> Iterator[str]:
    """Strict UTF-8 text of ``path`` (``-`` = stdin) in blocks."""
    return read_utf8_blocks(path, BLOCK_BYTES, progress)


def _show_progress(choice: bool | None) -> bool:
    if choice is not None:
        return choice
    return sys.stderr.isatty() and not sys.stdout.isatty()


def _progress_for(path: str, show: bool) -> Progress | None:
    if not show or path == "-":
        return None
    try:
        size = os.path.getsize(path)
    except OSError:
        return None
    if size < PROGRESS_MIN_BYTES:
        return None
    bar = Progress(sys.stderr)
    bar.phase(f"chunking {path}", total=size, unit="B")
    return bar


def _chunk(args) -> int:
    enc = load_encoding_arg(args.encoding)
    if args.overlap >= args.max_tokens:
        raise InputError(
            f"argument --overlap: must be less than --max-tokens ({args.max_tokens}), got {args.overlap}"
        )
    chunker = Chunker(enc, args.max_tokens, overlap=args.overlap, boundaries=args.boundaries,
                      markdown=args.markdown, context=args.context)
    chunker._budget_name = "--max-tokens"  # messages name the flag, not the parameter
    out = sys.stdout
    first = True
    chunk_ended_with_newline = True
    show = _show_progress(args.progress)
    for path in args.files:
        bar = _progress_for(path, show)
        done = [0]

        def update(k: int, bar=bar, done=done) -> None:
            done[0] += k
            if bar is not None:
                bar.update(done[0])

        try:
            for chunk in chunker.chunk_stream(_blocks(path, update)):
                if args.format == "jsonl":
                    record: dict[str, object] = {
                        "text": chunk.text,
                        "start": chunk.start,
                        "end": chunk.end,
                        "token_count": chunk.token_count,
                        "source": path,
                    }
                    if args.markdown:
                        record["headings"] = list(chunk.headings)
                    if args.context is not None:
                        record["context"] = chunk.context
                        record["token_count_with_context"] = chunk.token_count_with_context
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
                else:
                    if not first and not chunk_ended_with_newline:
                        out.write("\n")
                    out.write(
                        f"--- {path} [{chunk.start}:{chunk.end}] {chunk.token_count_with_context} tokens ---\n"
                    )
                    out.write(chunk.text_with_context)
                    chunk_ended_with_newline = chunk.text.endswith("\n")
                first = False
                if path == "-":
                    out.flush()  # a stream's reader sees each chunk when it is final
        except CharacterOverBudget as e:
            raise InputError(f"{path}: {e}") from None
        except ValueError as e:  # the context leaves no room
            raise InputError(f"{path}: {str(e).replace('max_tokens=', '--max-tokens ')}") from None
        finally:
            if bar is not None:
                bar.close()
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
    p.add_argument("--max-tokens", type=positive_int, required=True, metavar="N", help="token budget per chunk")
    p.add_argument("--overlap", type=non_negative_int, default=0, metavar="K",
                   help="repeat up to K tokens of the previous chunk (K < N)")
    p.add_argument("--boundaries", choices=["exact", "semantic"], default="semantic",
                   help="semantic (default): cut at paragraphs/headings/lines/sentences/words; exact: fill to the budget")
    add_encoding_argument(p)
    p.add_argument("--format", choices=["jsonl", "text"], default="jsonl", help="output format (default jsonl)")
    p.add_argument("--markdown", action="store_true", help="give each chunk its Markdown heading path")
    p.add_argument("--context", default=None, metavar="TITLE",
                   help="put TITLE (and, with --markdown, the heading path) before each chunk, "
                   "counted inside --max-tokens")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress on stderr (default: when stderr is a terminal and stdout is not)")
    p.set_defaults(func=_chunk)
