"""The tiktoken-compatible :class:`~bpe_stream.Encoding`, named encodings and files.

:mod:`.encoding` (the class, :func:`~bpe_stream.get_encoding`), :mod:`.registry` (the
bundled vocabularies and model names), :mod:`.cache` (built tables on disk),
:mod:`.persist` (the saved-encoding format), :mod:`.spec` and :mod:`.load` (reading
a file into an encoding).

Layer 4: imports :mod:`bpe_stream.text` and below.
"""


def __getattr__(name: str):
    # bpe-stream 0.1.0 had a module bpe_stream.encoding (now this package): a pickle of an
    # Encoding made with it names bpe_stream.encoding._rebuild.  Its names are found where
    # they live now (bpe_stream._moved lists them; all are in this layer or below).
    import importlib

    from .._moved import MOVED

    default, names = MOVED["encoding"]
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return getattr(importlib.import_module(f"bpe_stream.{names.get(name, default)}"), name)
    except AttributeError:
        raise AttributeError(f"module 'bpe_stream.encoding' has no attribute {name!r}") from None
