"""Exact BPE token counting and chunking on streams of text.

>>> import bpe_stream
>>> enc = bpe_stream.get_encoding("cl100k_base")
>>> enc.count("Streaming counts stay exact.")
5
"""

__version__ = "0.1.0"

from .encoding import Encoding  # noqa: E402
from .registry import (  # noqa: E402
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
)
from .vocabulary import METHODS, BytePairEncoding  # noqa: E402
from .appendable import AppendableEncoder  # noqa: E402
from .prependable import PrependableEncoder  # noqa: E402
from .interval import IntervalCounter  # noqa: E402
from .chunker import Chunk, Chunker  # noqa: E402

__all__ = [
    "AppendableEncoder",
    "BytePairEncoding",
    "Chunk",
    "Chunker",
    "Encoding",
    "IntervalCounter",
    "METHODS",
    "PrependableEncoder",
    "encoding_for_model",
    "encoding_name_for_model",
    "get_encoding",
    "list_encoding_names",
    "load",
    "train",
]


def load(path) -> Encoding:
    """Load an encoding saved with :meth:`Encoding.save` (or a plain ``.tiktoken`` file)."""
    from .persist import load_encoding

    return load_encoding(path)


def train(*args, **kwargs) -> Encoding:
    """Train a byte-level BPE vocabulary; see :func:`bpe_stream.training.train`."""
    from .training import train as _train

    return _train(*args, **kwargs)
