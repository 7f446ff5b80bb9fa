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
from .formats import read_vocabulary

__all__ = ["load"]


def load(path: str | os.PathLike[str], *, pattern=None, name: str | None = None,
         special_tokens: dict[str, int] | None = None) -> Encoding:
    """The encoding of a vocabulary file, recognized from its content: an HF
    ``tokenizer.json``, a llama.cpp ``.gguf``, a Mistral Tekken ``.json``, a file saved by
    :meth:`Encoding.save`, or a ``.tiktoken`` file (which needs ``pattern=``: a member of
    :mod:`bpe_stream.pretokenize.family` by name, a regex string read as tiktoken reads
    it, or ``""`` for no pre-splitting).

    ``special_tokens`` adds special tokens to a ``.tiktoken`` file's ranks; ``name``
    names the encoding (default: from the file).
    """
    return Encoding.from_spec(read_vocabulary(path, pattern=pattern, name=name, special_tokens=special_tokens))
