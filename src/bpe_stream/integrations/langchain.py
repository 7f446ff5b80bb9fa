"""LangChain: :class:`ExactTokenTextSplitter`, a ``TextSplitter`` with exact token budgets.

``pip install 'bpe-stream[langchain]'`` (needs ``langchain-text-splitters``).

>>> from bpe_stream.integrations.langchain import ExactTokenTextSplitter
>>> splitter = ExactTokenTextSplitter(encoding="gpt-4o", chunk_size=8, add_start_index=True)
>>> docs = splitter.create_documents(["Exact budgets. Every split fits; offsets are exact."])
>>> [(d.page_content, d.metadata) for d in docs]  # doctest: +NORMALIZE_WHITESPACE
[('Exact budgets. Every split fits; offsets', {'start_index': 0, 'end_index': 40, 'token_count': 8}),
 (' are exact.', {'start_index': 40, 'end_index': 51, 'token_count': 3})]
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

try:
    from langchain_core.documents import Document
    from langchain_text_splitters import TextSplitter
except ImportError as e:  # pragma: no cover - exercised only without the extra
    from . import missing

    raise missing("langchain-text-splitters", "langchain", e) from None

from ..chunk.chunker import Boundaries, Chunk, Chunker, ContextArg
from ..encoding.resolve import EncodingLike, resolve_encoding

__all__ = ["ExactTokenTextSplitter"]


class ExactTokenTextSplitter(TextSplitter):
    """A LangChain ``TextSplitter`` whose splits hold at most ``chunk_size`` tokens, exactly.

    ``encoding``: an Encoding, an encoding or model name, or a vocabulary's path.
    ``chunk_size`` and ``chunk_overlap`` are in tokens.  ``boundaries``,
    ``fill_floor``, ``markdown`` and ``context`` are :class:`~bpe_stream.Chunker`'s.
    With ``context``, a document's page content is the split's prefix and text
    (``Chunk.text_with_context``), and the prefix is counted inside ``chunk_size``.

    Metadata of each split: the source document's, plus ``token_count`` (of the page
    content), with ``add_start_index=True`` the exact ``start_index`` and
    ``end_index`` of the split in its source text, and with ``markdown=True`` its
    ``headings``.  Splits are never stripped of whitespace (that would change their
    token counts and break the offsets): ``strip_whitespace=True`` is refused.
    """

    def __init__(
        self,
        encoding: EncodingLike = "cl100k_base",
        chunk_size: int = 512,
        chunk_overlap: int = 0,
        *,
        boundaries: Boundaries = "semantic",
        fill_floor: float = 0.8,
        markdown: bool = False,
        context: ContextArg | None = None,
        add_start_index: bool = False,
        strip_whitespace: bool = False,
        **kwargs: Any,
    ) -> None:
        if strip_whitespace:
            raise ValueError(
                "strip_whitespace=True is not supported: stripping a split changes its token "
                "count (it may then exceed chunk_size) and its offsets"
            )
        if "length_function" in kwargs:
            raise TypeError("length_function is fixed: lengths are exact token counts of the encoding")
        self._encoding = resolve_encoding(encoding)
        self._chunker: Chunker[str] = Chunker(
            self._encoding,
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            boundaries=boundaries,
            fill_floor=fill_floor,
            markdown=markdown,
            context=context,
        )
        super().__init__(
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            length_function=self._encoding.count,
            add_start_index=add_start_index,
            strip_whitespace=False,
            **kwargs,
        )

    @property
    def chunker(self) -> Chunker[str]:
        """The :class:`~bpe_stream.Chunker` that makes the splits."""
        return self._chunker

    def split_text(self, text: str) -> list[str]:
        """The splits of ``text`` (with their context prefixes when ``context`` is set)."""
        return [c.text_with_context for c in self._chunker.iter_chunks(text)]

    def split_chunks(self, text: str) -> list[Chunk[str]]:
        """The :class:`~bpe_stream.Chunk` objects behind :meth:`split_text` (offsets, counts)."""
        return self._chunker.chunks(text)

    def create_documents(
        self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None
    ) -> list[Document]:
        """Documents of the splits of ``texts``, with exact offsets (see the class docstring)."""
        if metadatas is not None and len(metadatas) != len(texts):
            raise ValueError(f"got {len(texts)} texts but {len(metadatas)} metadatas")
        out: list[Document] = []
        for i, text in enumerate(texts):
            base = metadatas[i] if metadatas is not None else {}
            for c in self._chunker.iter_chunks(text):
                metadata = copy.deepcopy(base)
                if self._add_start_index:
                    metadata["start_index"] = c.start
                    metadata["end_index"] = c.end
                metadata["token_count"] = c.token_count_with_context
                if self._chunker.markdown:
                    metadata["headings"] = list(c.headings)
                out.append(Document(page_content=c.text_with_context, metadata=metadata))
        return out

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        """Split every document's ``page_content``; metadata as in :meth:`create_documents`."""
        texts: list[str] = []
        metadatas: list[dict[Any, Any]] = []
        for doc in documents:
            texts.append(doc.page_content)
            metadatas.append(doc.metadata)
        return self.create_documents(texts, metadatas=metadatas)

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        return self.split_documents(list(documents))
