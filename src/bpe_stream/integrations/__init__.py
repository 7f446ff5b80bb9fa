"""Adapters for the pipelines people run: LangChain, LlamaIndex, Haystack, docling.

Each module imports its framework and is installed with an extra:

=====================================  ===============================  =================================
module                                 class                            install
=====================================  ===============================  =================================
:mod:`bpe_stream.integrations.langchain`    ``ExactTokenTextSplitter``       ``pip install bpe-stream[langchain]``
:mod:`bpe_stream.integrations.llama_index`  ``ExactTokenNodeParser``         ``pip install bpe-stream[llama-index]``
:mod:`bpe_stream.integrations.haystack`     ``ExactTokenDocumentSplitter``   ``pip install bpe-stream[haystack]``
:mod:`bpe_stream.integrations.docling`      ``ExactTokenizer``               ``pip install bpe-stream[docling]``
=====================================  ===============================  =================================

Every adapter takes ``encoding=`` (an :class:`~bpe_stream.Encoding`, an encoding
name, a model name such as ``"gpt-4o"``, or a saved vocabulary's path),
``chunk_size=`` in tokens and, where the framework has it, ``chunk_overlap=`` in
tokens.  Splits are :class:`~bpe_stream.Chunker` chunks: each fits the budget
exactly (counted as tiktoken counts, special-token text as ordinary text), the
splits of a document join back to it, and their offsets are exact.

Layer 8: imports :mod:`bpe_stream.training` and below (in practice the chunker and
the encoding resolver); nothing in the package imports this layer except the CLI.
"""

from __future__ import annotations

__all__: list[str] = []


def missing(framework: str, extra: str, error: ImportError) -> ImportError:
    """The ImportError an adapter raises when its framework is not installed."""
    return ImportError(
        f"bpe_stream.integrations needs {framework} for this adapter: "
        f"pip install 'bpe-stream[{extra}]' ({error})"
    )
