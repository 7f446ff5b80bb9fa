"""ExactTokenTextSplitter against the real LangChain TextSplitter interface."""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip(
    "langchain_text_splitters",
    reason="langchain-text-splitters is not installed (pip install 'bpe-stream[langchain]')",
)

from langchain_core.documents import Document  # noqa: E402
from langchain_text_splitters import TextSplitter  # noqa: E402

import bpe_stream  # noqa: E402
from _integration_helpers import BUDGETS, check_splits, sample_texts  # noqa: E402
from bpe_stream.integrations.langchain import ExactTokenTextSplitter  # noqa: E402
from conftest import tiktoken_oracle  # noqa: E402


@pytest.mark.parametrize("budget,overlap", BUDGETS)
@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_documents_fit_and_offsets_are_exact(encoding, budget, overlap):
    splitter = ExactTokenTextSplitter(encoding=encoding, chunk_size=budget, chunk_overlap=overlap, add_start_index=True)
    assert isinstance(splitter, TextSplitter)
    texts = sample_texts()
    metadatas = [{"source": i, "nested": {"k": [i]}} for i in range(len(texts))]
    docs = splitter.create_documents(texts, metadatas=metadatas)
    by_source: dict[int, list[Document]] = {}
    tk = tiktoken_oracle(encoding)
    for d in docs:
        by_source.setdefault(d.metadata["source"], []).append(d)
        assert d.metadata["token_count"] == len(tk.encode_ordinary(d.page_content)) <= budget
        assert d.metadata["nested"] == {"k": [d.metadata["source"]]}
    for i, text in enumerate(texts):
        parts = [(d.page_content, d.metadata["start_index"], d.metadata["end_index"]) for d in by_source.get(i, [])]
        check_splits(encoding, text, parts, budget, overlap)
        assert splitter.split_text(text) == [p for p, _, _ in parts]
    # metadata are copies: changing one split's leaves the others and the input alone
    docs[0].metadata["nested"]["k"].append("x")
    assert metadatas[0]["nested"] == {"k": [0]}


def test_split_documents_and_transform_documents():
    splitter = ExactTokenTextSplitter(chunk_size=32)
    source = [Document(page_content="First document. " * 40, metadata={"id": "a"}),
              Document(page_content="Second one, shorter.", metadata={"id": "b"})]
    out = splitter.split_documents(source)
    assert "".join(d.page_content for d in out if d.metadata["id"] == "a") == source[0].page_content
    assert [d.page_content for d in out if d.metadata["id"] == "b"] == ["Second one, shorter."]
    assert "start_index" not in out[0].metadata
    assert [d.page_content for d in splitter.transform_documents(source)] == [d.page_content for d in out]


def test_offsets_where_str_find_would_be_wrong():
    # LangChain's own create_documents finds each split with str.find; with repeated text
    # and an overlap that can name an earlier copy.  The offsets here are the chunker's.
    text = "ab ab ab. " * 200
    splitter = ExactTokenTextSplitter(chunk_size=10, chunk_overlap=4, add_start_index=True)
    docs = splitter.create_documents([text])
    chunks = splitter.split_chunks(text)
    assert [(d.metadata["start_index"], d.metadata["end_index"]) for d in docs] == [(c.start, c.end) for c in chunks]
    assert all(text[c.start:c.end] == c.text for c in chunks)


def test_encoding_forms_and_context(tmp_path):
    text = "# Guide\n\n## Setup\n\nInstall the package, then run it. " * 20
    enc = bpe_stream.get_encoding("o200k_base")
    path = tmp_path / "o200k.bpe"
    enc.save(path)
    results = {str(spec): ExactTokenTextSplitter(encoding=spec, chunk_size=24).split_text(text)
               for spec in (enc, "o200k_base", "gpt-4o", path)}
    assert len({tuple(v) for v in results.values()}) == 1
    splitter = ExactTokenTextSplitter(encoding="gpt-4o", chunk_size=24, markdown=True, context="Guide")
    docs = splitter.create_documents([text])
    tk = tiktoken_oracle("o200k_base")
    for d in docs:
        assert d.page_content.startswith("Guide\n")
        assert len(tk.encode_ordinary(d.page_content)) == d.metadata["token_count"] <= 24
    assert docs[-1].metadata["headings"] == ["Guide", "Setup"]


def test_bad_arguments():
    with pytest.raises(ValueError, match="strip_whitespace"):
        ExactTokenTextSplitter(strip_whitespace=True)
    with pytest.raises(TypeError, match="length_function"):
        ExactTokenTextSplitter(length_function=len)
    with pytest.raises(ValueError, match="chunk_overlap must be >= 0 and < chunk_size"):
        ExactTokenTextSplitter(chunk_size=8, chunk_overlap=8)
    with pytest.raises(ValueError, match="unknown encoding"):
        ExactTokenTextSplitter(encoding="gpt-99")
    with pytest.raises(ValueError, match="2 texts but 1 metadatas"):
        ExactTokenTextSplitter().create_documents(["a", "b"], [{}])


def test_pickles():
    splitter = ExactTokenTextSplitter(encoding="cl100k_base", chunk_size=16, chunk_overlap=2)
    text = "Pickled splitters split alike. " * 20
    assert pickle.loads(pickle.dumps(splitter)).split_text(text) == splitter.split_text(text)
