"""ExactTokenizer against docling-core's BaseTokenizer, inside HybridChunker.

The full ``docling`` package (the converters) is not needed: ``HybridChunker`` and the
document model live in ``docling-core``; the document is built here with its API.
"""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip(
    "docling_core.transforms.chunker.hybrid_chunker",
    reason="docling-core[chunking] is not installed (pip install 'bpe-stream[docling]')",
)
pytest.importorskip("semchunk", reason="semchunk (docling-core[chunking]) is not installed")

from docling_core.transforms.chunker.hybrid_chunker import HybridChunker  # noqa: E402
from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer  # noqa: E402
from docling_core.types.doc import DocItemLabel, DoclingDocument  # noqa: E402

from bpe_stream.integrations.docling import ExactTokenizer, OrdinaryTokenizer  # noqa: E402
from conftest import tiktoken_oracle  # noqa: E402


def small_document() -> DoclingDocument:
    doc = DoclingDocument(name="sample")
    doc.add_heading("Introduction", level=1)
    doc.add_text(label=DocItemLabel.PARAGRAPH,
                 text="A language model may print <|endoftext|> in its output, as plain text. " * 25)
    doc.add_heading("Details", level=2)
    doc.add_text(label=DocItemLabel.PARAGRAPH, text="Short paragraph about <|fim_prefix|> tokens.")
    doc.add_text(label=DocItemLabel.PARAGRAPH, text="中文段落。" * 80)
    return doc


@pytest.mark.parametrize("encoding,name", [("cl100k_base", "cl100k_base"), ("gpt-4o", "o200k_base")])
@pytest.mark.parametrize("max_tokens", [32, 128])
def test_hybrid_chunker_counts_exactly_and_fits(encoding, name, max_tokens):
    tokenizer = ExactTokenizer(encoding=encoding, max_tokens=max_tokens)
    assert isinstance(tokenizer, BaseTokenizer)
    chunker = HybridChunker(tokenizer=tokenizer)
    tk = tiktoken_oracle(name)
    chunks = list(chunker.chunk(small_document()))
    assert len(chunks) > 2
    for chunk in chunks:
        text = chunker.contextualize(chunk)
        assert tokenizer.count_tokens(text) == len(tk.encode_ordinary(text))
        assert tokenizer.count_tokens(text) <= max_tokens
    joined = " ".join(c.text for c in chunks)
    assert "<|endoftext|>" in joined and "<|fim_prefix|>" in joined


def test_special_token_text_does_not_crash_the_tokenizer():
    # docling's OpenAITokenizer calls tiktoken's encode(), which raises on such text
    tk = tiktoken_oracle("cl100k_base")
    with pytest.raises(ValueError):
        tk.encode("<|endoftext|>")
    tokenizer = ExactTokenizer(encoding="cl100k_base", chunk_size=64)
    assert tokenizer.count_tokens("<|endoftext|>") == len(tk.encode_ordinary("<|endoftext|>"))
    counter = tokenizer.get_tokenizer()
    assert isinstance(counter, OrdinaryTokenizer) and not hasattr(counter, "encode")
    assert counter("<|endoftext|> x") == counter.count("<|endoftext|> x") == len(counter.encode_ordinary("<|endoftext|> x"))
    assert counter.decode(counter.encode_ordinary("round trip")) == "round trip"


def test_arguments_and_pickle(tmp_path):
    import bpe_stream

    assert ExactTokenizer(chunk_size=100).get_max_tokens() == 100
    path = tmp_path / "o200k.bpe"
    bpe_stream.get_encoding("o200k_base").save(path)
    assert ExactTokenizer(encoding=str(path)).count_tokens("hello world") == 2
    with pytest.raises(ValueError):
        ExactTokenizer(max_tokens=0)
    with pytest.raises(ValueError):
        ExactTokenizer(max_tokens=5, chunk_size=5)
    with pytest.raises(ValueError, match="unknown encoding"):
        ExactTokenizer(encoding="nope")
    tok = ExactTokenizer(encoding="o200k_base", max_tokens=64)
    copy = pickle.loads(pickle.dumps(tok))
    assert copy.count_tokens("pickled") == tok.count_tokens("pickled") and copy.get_max_tokens() == 64


def test_full_docling_converts_markdown_and_chunks_it_exactly(tmp_path):
    # the full `docling` package (converters; several GB with torch) is optional here:
    # when it is installed, a converted document goes through HybridChunker too
    converter = pytest.importorskip(
        "docling.document_converter", reason="the full docling package is not installed (docling-core suffices)"
    )
    source = tmp_path / "notes.md"
    source.write_text(
        "# Release notes\n\nModels may print <|endoftext|> in their output.\n\n## Details\n\n"
        "| column | value |\n|---|---|\n| a | 1 |\n| b | 2 |\n\n" + "More text in the details section. " * 20 + "\n",
        encoding="utf-8",
    )
    doc = converter.DocumentConverter().convert(str(source)).document
    tokenizer = ExactTokenizer(encoding="gpt-4o", max_tokens=40)
    chunker = HybridChunker(tokenizer=tokenizer)
    tk = tiktoken_oracle("o200k_base")
    chunks = list(chunker.chunk(doc))
    assert len(chunks) >= 3
    for chunk in chunks:
        text = chunker.contextualize(chunk)
        assert tokenizer.count_tokens(text) == len(tk.encode_ordinary(text)) <= 40
    assert any("<|endoftext|>" in c.text for c in chunks)
