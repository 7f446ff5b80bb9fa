"""Every public name of bpe_stream, used as a typed program would use it.

CI runs ``mypy --strict tests/typing_sample.py`` (and ``tests/test_typing.py`` runs it
too when mypy is installed): the public API must be typed precisely enough that this
checks with no ``Any`` leaking into strict code.  It also runs as a script.
"""

from __future__ import annotations

import io
import os
import pickle
import tempfile
from pathlib import Path

import bpe_stream
from bpe_stream import (
    METHODS,
    AppendableEncoder,
    BytePairEncoding,
    Chunk,
    Chunker,
    Encoding,
    IntervalCounter,
    PrependableEncoder,
    __version__,
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
    load,
    train,
)
from bpe_stream.chunk.boundaries import BoundaryLevel
from bpe_stream.chunk.chunker import CharacterOverBudget
from bpe_stream.encoding.resolve import EncodingLike, resolve_encoding
from bpe_stream.training.trainer import Progress


def main() -> None:
    version: str = __version__
    names: list[str] = list_encoding_names()
    methods: tuple[str, ...] = METHODS
    assert version and names and methods

    enc: Encoding = get_encoding("cl100k_base")
    model_enc: Encoding = encoding_for_model("gpt-4o")
    name: str = encoding_name_for_model("gpt-4")
    assert model_enc.name == "o200k_base" and name == "cl100k_base"
    spec: EncodingLike = "gpt-4o"
    assert resolve_encoding(spec) is model_enc

    ids: list[int] = enc.encode("hello world")
    ordinary: list[int] = enc.encode_ordinary("<|endoftext|>")
    special: list[int] = enc.encode("<|endoftext|>", allowed_special="all")
    text: str = enc.decode(ids)
    raw: bytes = enc.decode_bytes(ids)
    n: int = enc.count(text)
    capped: int | None = enc.count_till_limit(text, 1)
    cut: int = enc.split_at(text, 1)
    head: str = enc.truncate(text, 1)
    tail: str = enc.truncate_start(text, 1)
    vocab: int = enc.n_vocab
    eot: int = enc.eot_token
    assert ordinary != special and raw == text.encode() and n == 2 and capped is None
    assert cut == len(head) and tail and vocab > eot

    bpe: BytePairEncoding = enc.bpe
    byte_ids: list[int] = bpe.encode(b"hello", method="table")
    assert bpe.decode(byte_ids) == b"hello" and bpe.count(b"hello") == len(byte_ids)
    small: BytePairEncoding = BytePairEncoding.from_tokens([b"a", b"b", b"ab"])
    assert len(small) == 3

    ae = AppendableEncoder("gpt-4o")
    ae.append("hello")
    ae.append(" world")
    count: int = ae.token_count
    pe = PrependableEncoder(enc)
    pe.prepend("world")
    ic = IntervalCounter(enc, "hello world")
    assert count == 2 and pe.token_count == 1 and ic.count(0, 5) == 1

    chunker: Chunker[str] = Chunker("gpt-4o", chunk_size=16, overlap=2, markdown=True, context="Title")
    chunks: list[Chunk[str]] = chunker("# A\n\nSome text to chunk. " * 10)
    first: Chunk[str] = chunks[0]
    chunk_text: str = first.text
    with_context: str = first.text_with_context
    headings: tuple[str, ...] = first.headings
    span: tuple[int, int, int] = (first.start, first.end, first.token_count)
    assert chunk_text and with_context.startswith("Title") and headings == () and span[2] <= 16
    many: list[list[Chunk[str]]] = chunker(["one text", "another"])
    streamed: list[Chunk[str]] = list(chunker.chunk_stream(iter(["Some ", "text."])))
    batched: list[list[Chunk[str]]] = chunker.chunk_batch(["Some text.", "More."], workers=1,
                                                          progress=lambda done, total: None)
    assert batched == [chunker.chunks("Some text."), chunker.chunks("More.")]
    assert len(many) == 2 and streamed

    byte_chunker: Chunker[bytes] = Chunker(bpe, 4, boundaries="exact")
    byte_chunks: list[Chunk[bytes]] = byte_chunker.chunks(b"bytes are chunked too")
    data: bytes = byte_chunks[0].text
    assert data

    custom = Chunker(enc, 8, boundaries=["paragraph", BoundaryLevel("comma", r",\s*"), ("semi", r";")])
    assert custom.chunks("a, b; c")
    try:
        Chunker(enc, 1).chunks("\u9f98")
    except CharacterOverBudget as e:
        where: int = e.position
        assert where == 0

    trained: Encoding = train("low lower lowest " * 20, 260, pattern="cl100k_base", progress=Progress(io.StringIO()))
    path = Path(tempfile.mkdtemp()) / "trained.bpe"
    trained.save(path)
    loaded: Encoding = load(path)
    from_path: Encoding = resolve_encoding(os.fspath(path))
    assert loaded.encode("lowest") == from_path.encode("lowest")
    assert pickle.loads(pickle.dumps(chunker)).chunks("x") == chunker.chunks("x")
    assert bpe_stream.Chunker is Chunker


if __name__ == "__main__":
    main()
    print("typing sample ran")
