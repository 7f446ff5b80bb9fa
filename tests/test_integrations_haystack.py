"""ExactTokenDocumentSplitter against the real Haystack 2 component interface."""

from __future__ import annotations

import pytest

pytest.importorskip("haystack", reason="haystack-ai is not installed (pip install 'bpe-stream[haystack]')")

from haystack import Document, Pipeline  # noqa: E402

from _integration_helpers import BUDGETS, check_splits, sample_texts  # noqa: E402
from bpe_stream.integrations.haystack import ExactTokenDocumentSplitter  # noqa: E402
from conftest import tiktoken_oracle  # noqa: E402


def reference_page(text: str, start: int, part: str, first_page: int = 1) -> int:
    """Haystack's convention, written plainly: the page of the first character that is no page break."""
    stripped = part.lstrip("\f")
    lead = len(part) - len(stripped) if stripped else 0
    return first_page + text[:start].count("\f") + lead


@pytest.mark.parametrize("budget,overlap", BUDGETS)
def test_splits_fit_with_ids_offsets_and_pages(budget, overlap):
    splitter = ExactTokenDocumentSplitter(encoding="cl100k_base", chunk_size=budget, chunk_overlap=overlap)
    texts = sample_texts()
    docs = [Document(content=t, meta={"name": f"d{i}"}) for i, t in enumerate(texts)]
    out = splitter.run(documents=docs)["documents"]
    tk = tiktoken_oracle("cl100k_base")
    for doc, text in zip(docs, texts):
        mine = [d for d in out if d.meta["source_id"] == doc.id]
        assert [d.meta["split_id"] for d in mine] == list(range(len(mine)))
        parts = [(d.content, d.meta["split_idx_start"], d.meta["split_idx_end"]) for d in mine]
        check_splits("cl100k_base", text, parts, budget, overlap)
        for d in mine:
            assert d.meta["name"] == doc.meta["name"]
            assert d.meta["token_count"] == len(tk.encode_ordinary(d.content))
            assert d.meta["page_number"] == reference_page(text, d.meta["split_idx_start"], d.content)
        if overlap:
            for prev, nxt in zip(mine, mine[1:]):
                (info,) = [x for x in nxt.meta["_split_overlap"] if x["doc_id"] == prev.id]
                (back,) = [x for x in prev.meta["_split_overlap"] if x["doc_id"] == nxt.id]
                a, b = info["range"]
                assert nxt.content[back["range"][0]:back["range"][1]] == prev.content[a:b]
                assert prev.content[a:b] == text[nxt.meta["split_idx_start"]:prev.meta["split_idx_end"]]
                assert nxt.content.startswith(prev.content[a:b])


def test_pages_continue_from_the_source_page_and_page_breaks_are_cuts():
    text = "Page five text here.\fPage six, with more words than fit in one split."
    out = ExactTokenDocumentSplitter(chunk_size=8, fill_floor=0.3).run(documents=[Document(content=text, meta={"page_number": 5})])["documents"]
    assert out[0].content == "Page five text here.\f"
    assert [d.meta["page_number"] for d in out] == [5] + [6] * (len(out) - 1)


def test_in_a_pipeline_and_serialization():
    splitter = ExactTokenDocumentSplitter(encoding="gpt-4o", chunk_size=16, chunk_overlap=2, markdown=True)
    pipe = Pipeline()
    pipe.add_component("splitter", splitter)
    text = "# Title\n\nBody text that is long enough to be split more than once here. " * 4
    result = pipe.run({"splitter": {"documents": [Document(content=text)]}})
    docs = result["splitter"]["documents"]
    assert docs and all(d.meta["token_count"] <= 16 for d in docs)
    assert docs[-1].meta["headings"] == ["Title"]
    data = splitter.to_dict()
    assert data["init_parameters"]["encoding"] == "gpt-4o"
    again = ExactTokenDocumentSplitter.from_dict(data)
    assert [d.content for d in again.run(documents=[Document(content=text)])["documents"]] == [d.content for d in docs]
    restored = Pipeline.loads(pipe.dumps(), allowed_modules=["bpe_stream.integrations.haystack"])
    assert [d.content for d in restored.run({"splitter": {"documents": [Document(content=text)]}})["splitter"]["documents"]] == [d.content for d in docs]


def test_pickles():
    import pickle

    splitter = ExactTokenDocumentSplitter(encoding="o200k_base", chunk_size=12, chunk_overlap=3)
    docs = [Document(content="Pickled components split alike. " * 10)]
    copy = pickle.loads(pickle.dumps(splitter))
    assert [d.content for d in copy.run(documents=docs)["documents"]] == [d.content for d in splitter.run(documents=docs)["documents"]]


def test_bad_input():
    splitter = ExactTokenDocumentSplitter(chunk_size=8)
    with pytest.raises(TypeError):
        splitter.run(documents="not a list")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no text content"):
        splitter.run(documents=[Document(content=None, blob=None)])
    assert splitter.run(documents=[Document(content="")])["documents"] == []
    with pytest.raises(ValueError, match="unknown encoding"):
        ExactTokenDocumentSplitter(encoding="nope")
