"""One place that turns "an encoding" as a user writes it into an :class:`Encoding`.

Everything in the package that takes an encoding (:class:`~bpe_stream.Chunker`, the
streaming counters, the framework adapters, the command line's ``--encoding``)
calls :func:`resolve_encoding` (or :func:`resolve_encoding_or_bpe` where a raw
:class:`~bpe_stream.BytePairEncoding` is allowed too).  It accepts, in this order:

1. an :class:`Encoding` (returned as is);
2. a bundled encoding name (``"cl100k_base"``, ``"o200k_base"``, ``"r50k_base"``, ...);
3. a model name (``"gpt-4o"``, ``"gpt-4-0613"``, ...; see
   :func:`~bpe_stream.encoding_name_for_model`);
4. a path (``str`` or ``os.PathLike``) of a vocabulary file :func:`bpe_stream.load`
   reads without more arguments (``tokenizer.json``, ``.gguf``, Tekken, a saved
   encoding), or of a model folder (:meth:`Encoding.from_pretrained`).

Anything else raises: ``TypeError`` for a value of the wrong type, ``ValueError``
naming the problem for a string that is none of the above, a folder without a
tokenizer file, or a file that is not a vocabulary.

>>> resolve_encoding("gpt-4o").name
'o200k_base'
>>> resolve_encoding("cl100k_base") is resolve_encoding(resolve_encoding("cl100k_base"))
True
>>> resolve_encoding("gpt-99")
Traceback (most recent call last):
...
ValueError: unknown encoding 'gpt-99': not an encoding name (cl100k_base, o200k_base, ...), a known model name (e.g. gpt-4o) or an existing file
"""

from __future__ import annotations

import os
from typing import TypeAlias

from ..bpe.vocabulary import BytePairEncoding
from .encoding import Encoding, get_encoding
from .load import load
from .registry import encoding_name_for_model, list_encoding_names

__all__ = ["EncodingLike", "resolve_encoding", "resolve_encoding_or_bpe"]

#: What every public entry point accepts as an encoding.
EncodingLike: TypeAlias = "Encoding | str | os.PathLike[str]"


def resolve_encoding(spec: EncodingLike) -> Encoding:
    """The :class:`Encoding` that ``spec`` names (see the module docstring for the rules)."""
    if isinstance(spec, Encoding):
        return spec
    if isinstance(spec, str):
        if spec in list_encoding_names():
            return get_encoding(spec)
        try:
            name = encoding_name_for_model(spec)
        except KeyError:
            pass
        else:
            return get_encoding(name)
        if not spec or not os.path.exists(spec):
            raise ValueError(
                f"unknown encoding {spec!r}: not an encoding name "
                f"({', '.join(list_encoding_names()[:2])}, ...), a known model name (e.g. gpt-4o) "
                "or an existing file"
            )
        return _load_file(spec)
    if isinstance(spec, os.PathLike):
        path = os.fspath(spec)
        if not isinstance(path, str):
            raise TypeError("an encoding path must be a str path, not bytes")
        if not os.path.exists(path):
            raise ValueError(f"encoding file {path!r} does not exist")
        return _load_file(path)
    if isinstance(spec, BytePairEncoding):
        raise TypeError(
            "expected an Encoding, an encoding or model name, or a path; got a BytePairEncoding "
            "(wrap it: Encoding(name, pat_str=None, bpe=bpe))"
        )
    raise TypeError(
        f"expected an Encoding, an encoding or model name, or a path; got {type(spec).__name__}"
    )


def resolve_encoding_or_bpe(spec: EncodingLike | BytePairEncoding) -> Encoding | BytePairEncoding:
    """Like :func:`resolve_encoding`, but a :class:`BytePairEncoding` passes through (raw BPE).

    >>> import bpe_stream
    >>> bpe = bpe_stream.get_encoding("cl100k_base").bpe
    >>> resolve_encoding_or_bpe(bpe) is bpe
    True
    """
    if isinstance(spec, BytePairEncoding):
        return spec
    return resolve_encoding(spec)


def _load_file(path: str) -> Encoding:
    if os.path.isdir(path):
        try:
            return Encoding.from_pretrained(path)
        except FileNotFoundError:
            raise ValueError(f"encoding {path!r} is a directory that holds no tokenizer.json, "
                             "tekken.json or .gguf file") from None
    try:
        return load(path)
    except OSError as e:
        raise ValueError(f"cannot read encoding file {path!r}: {e.strerror or e}") from None
