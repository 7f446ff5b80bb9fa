"""ExactTokenNodeParser against the real LlamaIndex NodeParser interface."""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip(
    "llama_index.core", reason="llama-index-core is not installed (pip install 'bpe-stream[llama-index]')"
)

from llama_index.core import Document  # noqa: E402
from llama_index.core.node_parser import NodeParser  # noqa: E402
from llama_index.core.schema import MetadataMode, NodeRelationship, TextNode  # noqa: E402

from _integration_helpers import BUDGETS, check_splits, sample_texts  # noqa: E402
from bpe_stream.integrations.llama_index import ExactTokenNodeParser  # noqa: E402
from conftest import tiktoken_oracle  # noqa: E402


@pytest.mark.parametrize("budget,overlap", BUDGETS)
def test_nodes_fit_and_carry_exact_offsets(budget, overlap):
    parser = ExactTokenNodeParser(encoding="cl100k_base", chunk_size=budget, chunk_overlap=overlap)
    assert isinstance(parser, NodeParser)
    texts = [t for t in sample_texts() if t]
    docs = [Document(text=t, id_=f"doc{i}") for i, t in enumerate(texts)]
    nodes = parser.get_nodes_from_documents(docs)
    tk = tiktoken_oracle("cl100k_base")
    for i, text in enumerate(texts):
        mine = [n for n in nodes if n.ref_doc_id == f"doc{i}"]
        assert all(isinstance(n, TextNode) for n in mine)
        check_splits("cl100k_base", text, [(n.text, n.start_char_idx, n.end_char_idx) for n in mine], budget, overlap)
        for n in mine:
            assert n.metadata["token_count"] == len(tk.encode_ordinary(n.text))
        for prev, nxt in zip(mine, mine[1:]):
            assert prev.relationships[NodeRelationship.NEXT].node_id == nxt.node_id
            assert nxt.relationships[NodeRelationship.PREVIOUS].node_id == prev.node_id


def test_metadata_is_counted_inside_the_budget():
    text = "Metadata takes room in what is embedded. " * 60
    doc = Document(text=text, metadata={"title": "A long title of a document", "author": "Someone"})
    parser = ExactTokenNodeParser(encoding="o200k_base", chunk_size=40)
    nodes = parser.get_nodes_from_documents([doc])
    tk = tiktoken_oracle("o200k_base")
    assert "".join(n.text for n in nodes) == text
    for n in nodes:
        embedded = n.get_content(metadata_mode=MetadataMode.EMBED)
        assert "A long title" in embedded and "token_count" not in embedded
        assert len(tk.encode_ordinary(embedded)) <= 40
    # without metadata in the budget the text alone fills it
    loose = ExactTokenNodeParser(encoding="o200k_base", chunk_size=40, include_metadata=False)
    assert len(loose.get_nodes_from_documents([doc])) < len(nodes)


def test_markdown_headings_and_split_text():
    text = "# Guide\n\nIntro.\n\n## Install\n\nRun the installer and wait. " * 10
    parser = ExactTokenNodeParser(encoding="gpt-4o", chunk_size=20, markdown=True)
    nodes = parser.get_nodes_from_documents([Document(text=text)])
    assert nodes[-1].metadata["headings"] == ["Guide", "Install"]
    assert parser.split_text(text) == [n.text for n in nodes]


def test_bad_arguments_and_pickle():
    with pytest.raises(ValueError):
        ExactTokenNodeParser(chunk_size=0)
    with pytest.raises(ValueError, match="unknown encoding"):
        ExactTokenNodeParser(encoding="nope")
    with pytest.raises(ValueError, match="chunk_overlap"):
        ExactTokenNodeParser(chunk_size=8, chunk_overlap=8)
    parser = ExactTokenNodeParser(chunk_size=12)
    copy = pickle.loads(pickle.dumps(parser))
    assert copy.split_text("Pickled parsers parse alike. " * 10) == parser.split_text("Pickled parsers parse alike. " * 10)
