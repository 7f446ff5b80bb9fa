"""Exact BPE token counting and chunking on streams of text.

>>> import bpe_stream
>>> enc = bpe_stream.get_encoding("cl100k_base")
>>> enc.count("Streaming counts stay exact.")
5

The package is layered; each subpackage imports only from the ones listed before it:

* ``bpe``: raw byte-level BPE (vocabulary, pair test, encoders, byte engines);
* ``pretokenize``: the regex pre-split, its Unicode classes and streaming rules;
* ``text``: BPE over pre-split text and the engines that grow, index and cut it;
* ``encoding``: :class:`Encoding` (tiktoken's interface), named encodings, files;
* ``stream``: :class:`AppendableEncoder`, :class:`PrependableEncoder`,
  :class:`IntervalCounter`;
* ``chunk``: :class:`Chunker`;  ``training``: :func:`train`;  ``cli``: the command line.
"""

from . import _legacy
from ._version import __version__
from .bpe.vocabulary import METHODS, BytePairEncoding
from .chunk.chunker import Chunk, Chunker
from .encoding.encoding import (
    Encoding,
    encoding_for_model,
    get_encoding,
)
from .encoding.load import load
from .encoding.registry import encoding_name_for_model, list_encoding_names
from .stream.appendable import AppendableEncoder
from .stream.interval import IntervalCounter
from .stream.prependable import PrependableEncoder
from .training.trainer import train

_legacy.install()  # pickles written by bpe-stream 0.1.0 keep loading

__all__ = [
    "AppendableEncoder",
    "BytePairEncoding",
    "Chunk",
    "Chunker",
    "Encoding",
    "IntervalCounter",
    "METHODS",
    "PrependableEncoder",
    "__version__",
    "encoding_for_model",
    "encoding_name_for_model",
    "get_encoding",
    "list_encoding_names",
    "load",
    "train",
]
