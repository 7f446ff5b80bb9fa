"""LlamaIndex: :class:`ExactTokenNodeParser`, a ``NodeParser`` with exact token budgets.

``pip install 'bpe-stream[llama-index]'`` (needs ``llama-index-core``).

>>> from llama_index.core import Document
>>> from bpe_stream.integrations.llama_index import ExactTokenNodeParser
>>> parser = ExactTokenNodeParser(encoding="cl100k_base", chunk_size=6)
>>> nodes = parser.get_nodes_from_documents([Document(text="Nodes know where they are, exactly.")])
>>> [(n.text, n.start_char_idx, n.end_char_idx, n.metadata["token_count"]) for n in nodes]
[('Nodes know where they are,', 0, 26, 6), (' exactly.', 26, 35, 2)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

try:
    from llama_index.core.bridge.pydantic import Field, PrivateAttr
    from llama_index.core.node_parser.interface import NodeParser
    from llama_index.core.schema import (
        DEFAULT_TEXT_NODE_TMPL,
        BaseNode,
        Document,
        MetadataMode,
        NodeRelationship,
        TextNode,
    )
    from llama_index.core.utils import get_tqdm_iterable
except ImportError as e:  # pragma: no cover - exercised only without the extra
    from . import missing

    raise missing("llama-index-core", "llama-index", e) from None

from ..chunk.chunker import Chunker
from ..encoding.encoding import Encoding
from ..encoding.resolve import resolve_encoding

__all__ = ["ExactTokenNodeParser"]

#: Metadata keys the parser adds; kept out of the text embedded and sent to the LLM.
ADDED_KEYS = ("token_count", "headings")


class ExactTokenNodeParser(NodeParser):
    """Split documents (nodes) into ``TextNode`` s of at most ``chunk_size`` tokens, exactly.

    ``encoding``: an Encoding, an encoding or model name, or a vocabulary's path;
    ``chunk_size`` and ``chunk_overlap`` in tokens; ``boundaries``, ``fill_floor`` and
    ``markdown`` as for :class:`~bpe_stream.Chunker`.

    Each node has the exact ``start_char_idx`` / ``end_char_idx`` of its text in the
    source node's text, ``metadata["token_count"]`` (of its text) and, with
    ``markdown=True``, ``metadata["headings"]`` (both excluded from the embed and
    LLM metadata strings).  With ``include_metadata=True`` (LlamaIndex's default)
    and the default text template, the metadata string of the source node is
    counted inside the budget: ``node.get_content(MetadataMode.EMBED)`` holds at
    most ``chunk_size`` tokens.
    """

    encoding: Any = Field(default="cl100k_base", description="Encoding, encoding or model name, or path.")
    chunk_size: int = Field(default=512, gt=0, description="Token budget of each node.")
    chunk_overlap: int = Field(default=0, ge=0, description="Tokens repeated from the previous node.")
    boundaries: Any = Field(default="semantic", description="'semantic', 'exact' or boundary levels.")
    fill_floor: float = Field(default=0.8, ge=0, le=1)
    markdown: bool = Field(default=False, description="Record the Markdown heading path of each node.")

    _encoding: Encoding = PrivateAttr()
    _chunker: Chunker[str] = PrivateAttr()

    def __init__(self, encoding: Any = "cl100k_base", chunk_size: int = 512, chunk_overlap: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(encoding=encoding, chunk_size=chunk_size, chunk_overlap=chunk_overlap, **kwargs)
        self._encoding = resolve_encoding(self.encoding)
        self._chunker = self._make_chunker(None)

    @classmethod
    def class_name(cls) -> str:
        return "ExactTokenNodeParser"

    def _make_chunker(self, prefix: str | None) -> Chunker[str]:
        return Chunker(
            self._encoding,
            chunk_size=self.chunk_size,
            chunk_overlap=self.chunk_overlap,
            boundaries=self.boundaries,
            fill_floor=self.fill_floor,
            markdown=self.markdown,
            context=None if prefix is None else _Prefix(prefix),
        )

    def split_text(self, text: str) -> list[str]:
        """The texts of the nodes of ``text`` (no metadata prefix)."""
        return [c.text for c in self._chunker.iter_chunks(text)]

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        out: list[BaseNode] = []
        for node in get_tqdm_iterable(nodes, show_progress, "Parsing nodes"):
            text = node.get_content(metadata_mode=MetadataMode.NONE)
            chunker = self._chunker
            if self.include_metadata and getattr(node, "text_template", None) == DEFAULT_TEXT_NODE_TMPL:
                metadata_str = node.get_metadata_str(mode=MetadataMode.EMBED)
                if metadata_str:
                    # the embed text is exactly metadata_str + "\n\n" + text (the default template)
                    chunker = self._make_chunker(metadata_str + "\n\n")
            source = node.as_related_node_info()
            for i, c in enumerate(chunker.iter_chunks(text)):
                metadata = dict(node.metadata)
                metadata["token_count"] = c.token_count
                if self.markdown:
                    metadata["headings"] = list(c.headings)
                excluded_embed = list(node.excluded_embed_metadata_keys)
                excluded_llm = list(node.excluded_llm_metadata_keys)
                for key in ADDED_KEYS:
                    if key in metadata:
                        excluded_embed.append(key) if key not in excluded_embed else None
                        excluded_llm.append(key) if key not in excluded_llm else None
                out.append(
                    TextNode(
                        id_=self.id_func(i, node),
                        text=c.text,
                        start_char_idx=c.start,
                        end_char_idx=c.end,
                        metadata=metadata,
                        excluded_embed_metadata_keys=excluded_embed,
                        excluded_llm_metadata_keys=excluded_llm,
                        metadata_separator=node.metadata_separator,
                        metadata_template=node.metadata_template,
                        text_template=getattr(node, "text_template", DEFAULT_TEXT_NODE_TMPL),
                        relationships={NodeRelationship.SOURCE: source},
                    )
                )
        return out

    def _postprocess_parsed_nodes(
        self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]
    ) -> list[BaseNode]:
        # The base class re-finds each node's text in its document (str.find), which can
        # land on an earlier copy of a repeated text: keep the exact offsets.
        exact = [(n.start_char_idx, n.end_char_idx) if isinstance(n, TextNode) else None for n in nodes]
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for n, offsets in zip(nodes, exact):
            if offsets is not None and isinstance(n, TextNode):
                n.start_char_idx, n.end_char_idx = offsets
        return nodes


class _Prefix:
    """A context function that always returns the same prefix (picklable, unlike a lambda)."""

    __slots__ = ("prefix",)

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def __call__(self, headings: tuple[str, ...]) -> str:
        return self.prefix
