"""Loading an :class:`~bpe_stream.Encoding` from a file.

>>> import bpe_stream, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "tiny.bpe")
>>> bpe_stream.train("abcabcabd", 258).save(path)
>>> bpe_stream.load(path).encode("abcabd")
[256, 257, 100]
"""

from __future__ import annotations

import gzip
import os
import tempfile  # noqa: F401  (used by the docstring example)
import zlib

from .encoding import Encoding
from .persist import read_saved

__all__ = ["load"]


def load(path: str | os.PathLike[str]) -> Encoding:
    """Load an encoding saved with :meth:`Encoding.save` (or a plain ``.tiktoken`` file).

    A file that is not a vocabulary (malformed lines, no tokens, ranks that are not
    ``0..n-1``, a corrupt gzip stream) raises ``ValueError`` naming the file; a file
    that cannot be read raises ``OSError``.

    >>> empty = os.path.join(tempfile.mkdtemp(), "empty.tiktoken")
    >>> open(empty, "w").close()
    >>> load(empty)
    Traceback (most recent call last):
    ...
    ValueError: .../empty.tiktoken: not a vocabulary file (it holds no tokens)
    """
    where = os.fspath(path)
    try:
        name, pat_str, ranks, special_tokens = read_saved(path)
    except (EOFError, gzip.BadGzipFile, zlib.error) as e:
        raise ValueError(f"{where}: not a vocabulary file ({e})") from None
    except ValueError as e:
        message = str(e)
        if not message.startswith(str(where)):
            message = f"{where}: not a vocabulary file ({message})"
        raise ValueError(message) from None
    if not ranks:
        raise ValueError(f"{where}: not a vocabulary file (it holds no tokens)")
    try:
        return Encoding(name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=special_tokens)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
