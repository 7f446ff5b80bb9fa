"""Reading UTF-8 text for the command line, whole or in blocks.

Invariant: decoding is strict; every failure (missing file, directory,
unreadable file, invalid UTF-8) is an :class:`InputError` whose message names
the file and, for invalid UTF-8, the byte offset of the first bad byte.  The
CLI reports it on one line with exit code 2.  Blocks never split a character
(an incremental decoder holds partial sequences back).
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Callable, Iterator

__all__ = ["InputError", "read_utf8_blocks", "read_text"]


class InputError(Exception):
    """Bad command-line input: reported as one line on stderr, exit code 2."""


def read_utf8_blocks(
    path: str, block_bytes: int = 1 << 16, progress: Callable[[int], None] | None = None
) -> Iterator[str]:
    """The text of ``path`` (``-`` for stdin) in blocks of about ``block_bytes`` bytes."""
    try:
        f = sys.stdin.buffer if path == "-" else open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory") from None
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from None
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    consumed = 0
    # A pipe (an LLM's output, a slow producer) is read as it arrives: read1 returns what
    # is there (at most block_bytes) instead of waiting for a full block or the end.
    read = getattr(f, "read1", f.read) if path == "-" else f.read
    try:
        while True:
            try:
                raw = read(block_bytes)
            except OSError as e:
                raise InputError(f"{path}: {e.strerror or e}") from None
            final = not raw
            held = len(decoder.getstate()[0])  # undecoded bytes carried over
            try:
                text = decoder.decode(raw, final=final)
            except UnicodeDecodeError as e:
                offset = max(consumed - held + e.start, 0)
                raise InputError(f"{path}: not valid UTF-8 (byte offset {offset}: {e.reason})") from None
            consumed += len(raw)
            if progress is not None and raw:
                progress(len(raw))
            if text:
                yield text
            if final:
                return
    finally:
        if f is not sys.stdin.buffer:
            f.close()


def read_text(path: str) -> str:
    """The whole text of ``path`` (``-`` for stdin)."""
    return "".join(read_utf8_blocks(path, 1 << 22))
