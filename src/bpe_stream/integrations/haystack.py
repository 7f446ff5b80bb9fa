"""Haystack 2: :class:`ExactTokenDocumentSplitter`, a component with exact token budgets.

``pip install 'bpe-stream[haystack]'`` (needs ``haystack-ai``).

>>> from haystack import Document
>>> from bpe_stream.integrations.haystack import ExactTokenDocumentSplitter
>>> splitter = ExactTokenDocumentSplitter(encoding="o200k_base", chunk_size=6)
>>> docs = splitter.run(documents=[Document(content="Page one text.\\fPage two, longer text here.")])["documents"]
>>> [(d.content, d.meta["split_id"], d.meta["split_idx_start"], d.meta["page_number"]) for d in docs]
[('Page one text.\\x0c', 0, 0, 1), ('Page two, longer text', 1, 15, 2), (' here.', 2, 36, 2)]
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

try:
    from haystack import Document, component, default_from_dict, default_to_dict
except ImportError as e:  # pragma: no cover - exercised only without the extra
    from . import missing

    raise missing("haystack-ai", "haystack", e) from None

from ..chunk.boundaries import SEMANTIC_LEVELS, BoundaryLevel
from ..chunk.chunker import Chunker
from ..encoding.encoding import Encoding
from ..encoding.resolve import resolve_encoding
from ..encoding.registry import list_encoding_names

__all__ = ["ExactTokenDocumentSplitter"]

_PAGE_BREAK = "\f"
#: With ``boundaries="semantic"`` a page break is the strongest cut (after the form feeds).
PAGE_LEVEL = BoundaryLevel("page", r"\f+", required=("\f",))


@component
class ExactTokenDocumentSplitter:
    """Split documents into parts of at most ``chunk_size`` tokens, exactly.

    ``encoding``: an Encoding, an encoding or model name, or a vocabulary's path
    (``to_dict`` keeps a name or a path; an Encoding object is saved by its name
    when it is a bundled one).  ``chunk_size`` and ``chunk_overlap`` in tokens;
    ``boundaries``, ``fill_floor`` and ``markdown`` as for :class:`~bpe_stream.Chunker`
    (``"semantic"`` here puts page breaks before paragraphs: a cut right after the form
    feeds that end a page is preferred).

    Each split keeps the source document's meta and adds, as Haystack's
    ``DocumentSplitter`` does: ``source_id``, ``split_id`` (0, 1, ...),
    ``split_idx_start`` (exact character offset in the source content) and
    ``page_number`` (the page of the split's first character that is not a page
    break, counting form feeds ``\\f`` from the source's own ``page_number``, 1 if
    it has none); with ``chunk_overlap`` also ``_split_overlap``.  It adds
    ``split_idx_end`` and ``token_count`` too, and ``headings`` with ``markdown=True``.
    Documents without text content raise ``ValueError``; empty ones are skipped.

    A pipeline holding it serializes with ``Pipeline.dumps()``; Haystack loads a
    component from outside its own modules only when told to trust it:
    ``Pipeline.loads(text, allowed_modules=["bpe_stream.integrations.haystack"])``.
    """

    def __init__(
        self,
        encoding: str | Encoding = "cl100k_base",
        chunk_size: int = 512,
        chunk_overlap: int = 0,
        boundaries: str = "semantic",
        fill_floor: float = 0.8,
        markdown: bool = False,
    ) -> None:
        self.encoding = encoding
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.boundaries = boundaries
        self.fill_floor = fill_floor
        self.markdown = markdown
        self._chunker: Chunker[str] = Chunker(
            resolve_encoding(encoding),  # type: ignore[arg-type]
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            boundaries=[PAGE_LEVEL, *SEMANTIC_LEVELS] if boundaries == "semantic" else boundaries,  # type: ignore[arg-type]
            fill_floor=fill_floor,
            markdown=markdown,
        )

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, list[Document]]:
        """Split ``documents``; returns ``{"documents": [...]}`` in order."""
        if not isinstance(documents, list) or any(not isinstance(d, Document) for d in documents):
            raise TypeError("ExactTokenDocumentSplitter expects a list of Documents")
        out: list[Document] = []
        for doc in documents:
            if doc.content is None:
                raise ValueError(f"document {doc.id} has no text content to split")
            if doc.content == "":
                continue
            out.extend(self._split(doc))
        return {"documents": out}

    def _split(self, doc: Document) -> list[Document]:
        text = doc.content
        assert text is not None
        first_page = doc.meta.get("page_number", 1)
        if not isinstance(first_page, int):
            first_page = 1
        splits: list[Document] = []
        counted_to = 0
        breaks = 0
        for i, c in enumerate(self._chunker.iter_chunks(text)):
            breaks += text.count(_PAGE_BREAK, counted_to, c.start)
            counted_to = c.start
            leading = len(c.text) - len(c.text.lstrip(_PAGE_BREAK))
            if leading == len(c.text):
                leading = 0  # a chunk of page breaks only stays on the page it starts on
            meta = deepcopy(doc.meta)
            meta["source_id"] = doc.id
            meta["page_number"] = first_page + breaks + leading
            meta["split_id"] = i
            meta["split_idx_start"] = c.start
            meta["split_idx_end"] = c.end
            meta["token_count"] = c.token_count
            if self.markdown:
                meta["headings"] = list(c.headings)
            split = Document(content=c.text, meta=meta)
            if self.chunk_overlap:
                split.meta["_split_overlap"] = []
                if splits:
                    prev = splits[-1]
                    prev_start = prev.meta["split_idx_start"]
                    prev_end = prev.meta["split_idx_end"]
                    if c.start < prev_end:
                        split.meta["_split_overlap"].append(
                            {"doc_id": prev.id, "range": (c.start - prev_start, prev_end - prev_start)}
                        )
                        prev.meta["_split_overlap"].append(
                            {"doc_id": split.id, "range": (0, prev_end - c.start)}
                        )
            splits.append(split)
        return splits

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component (the encoding as a name or a path)."""
        encoding = self.encoding
        if isinstance(encoding, Encoding):
            if encoding.name not in list_encoding_names():
                raise ValueError(
                    "to_dict needs the encoding as a name or a path; this Encoding is neither bundled "
                    "nor loaded from a path (save it and pass the path)"
                )
            encoding = encoding.name
        return default_to_dict(
            self,
            encoding=str(encoding),
            chunk_size=self.chunk_size,
            chunk_overlap=self.chunk_overlap,
            boundaries=self.boundaries,
            fill_floor=self.fill_floor,
            markdown=self.markdown,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExactTokenDocumentSplitter:
        """Deserialize a component written by :meth:`to_dict`."""
        return default_from_dict(cls, data)
