"""Loading an :class:`~bpe_stream.Encoding` from a file.

>>> import bpe_stream, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "tiny.bpe")
>>> bpe_stream.train("abcabcabd", 258).save(path)
>>> bpe_stream.load(path).encode("abcabd")
[256, 257, 100]
"""

from __future__ import annotations

import os

from .encoding import Encoding
from .persist import read_saved

__all__ = ["load"]


def load(path: str | os.PathLike[str]) -> Encoding:
    """Load an encoding saved with :meth:`Encoding.save` (or a plain ``.tiktoken`` file)."""
    name, pat_str, ranks, special_tokens = read_saved(path)
    return Encoding(name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=special_tokens)
