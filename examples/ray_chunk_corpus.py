"""Chunk a directory of documents with Ray Data: exact budgets, offsets, beyond one machine.

    pip install 'ray[data]'
    python examples/ray_chunk_corpus.py [INPUT_DIR] [OUTPUT_DIR] [--max-tokens N]
        [--overlap K] [--encoding NAME|MODEL|FILE] [--format parquet|jsonl] [--address ADDR]

Every file under INPUT_DIR (UTF-8 text) is read by Ray Data, cut by a
``bpe_stream.Chunker`` inside ``map_batches`` (one chunker per actor, built once),
and written to OUTPUT_DIR as Parquet (or JSON lines), one row per chunk: ``path``,
``chunk_index``, ``start`` and ``end`` (character offsets into the document),
``token_count`` and ``text``.  Then the output is read back and checked: every
chunk holds at most N tokens (recounted), and each document's chunks, in order,
join back to it (without overlap; with one, each chunk is the document's own slice).

Without arguments it chunks the project's corpora (``../shared/corpora``, or a
small generated corpus) on a local Ray instance (``--address`` joins a cluster
instead; then INPUT_DIR and OUTPUT_DIR must be paths every node can read, such as
``s3://`` URIs).  The same shape works with Dask (``dask.bag.read_text`` ...
``.map_partitions`` calling the chunker) or Spark (``mapInPandas`` with a chunker
built once per partition): a Chunker pickles by its encoding's name, so it ships
to workers cheaply, and chunks of one document never depend on any other.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report from examples

from bpe_stream import Chunker  # noqa: E402
from bpe_stream.encoding.resolve import resolve_encoding  # noqa: E402

try:
    import ray  # noqa: E402
except ImportError:
    sys.exit("this example needs Ray Data: pip install 'ray[data]'")


class ChunkDocuments:
    """The ``map_batches`` function: a batch of files in, a batch of chunk rows out."""

    def __init__(self, encoding: str, max_tokens: int, overlap: int) -> None:
        self.chunker = Chunker(encoding, max_tokens, overlap=overlap)

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[Any]]:
        rows: dict[str, list[Any]] = {k: [] for k in ("path", "chunk_index", "start", "end", "token_count", "text")}
        for data, path in zip(batch["bytes"], batch["path"]):
            text = bytes(data).decode("utf-8")
            for i, chunk in enumerate(self.chunker.iter_chunks(text)):
                rows["path"].append(str(path))
                rows["chunk_index"].append(i)
                rows["start"].append(chunk.start)
                rows["end"].append(chunk.end)
                rows["token_count"].append(chunk.token_count)
                rows["text"].append(chunk.text)
        return rows


def chunk_corpus(input_dir: str, output_dir: str, *, encoding: str, max_tokens: int, overlap: int,
                 fmt: str, workers: int) -> None:
    ds = ray.data.read_binary_files(input_dir, include_paths=True)
    chunks = ds.map_batches(
        ChunkDocuments,
        fn_constructor_kwargs={"encoding": encoding, "max_tokens": max_tokens, "overlap": overlap},
        batch_size=4,
        concurrency=workers,
    )
    if fmt == "parquet":
        chunks.write_parquet(output_dir)
    else:
        chunks.write_json(output_dir)


def check_output(input_dir: str, output_dir: str, *, encoding: str, max_tokens: int, overlap: int,
                 fmt: str) -> tuple[int, int]:
    """Read the chunks back: every one within budget, each document's chunks join back to it."""
    import pandas as pd
    import pyarrow.parquet as pq

    enc = resolve_encoding(encoding)
    if fmt == "parquet":
        table = pq.read_table(output_dir).to_pandas()
    else:
        table = pd.concat([pd.read_json(f, lines=True) for f in sorted(Path(output_dir).glob("*.json"))])
    documents = 0
    for path, rows in table.groupby("path"):
        rows = rows.sort_values("chunk_index")
        text = Path(str(path).removeprefix("local://")).read_text(encoding="utf-8")
        pieces = list(rows["text"])
        for piece, start, end, count in zip(pieces, rows["start"], rows["end"], rows["token_count"]):
            assert text[start:end] == piece, (path, start, end)
            assert count == enc.count(piece) <= max_tokens, (path, start, count)
        if overlap == 0:
            assert "".join(pieces) == text, f"the chunks of {path} do not join back to it"
        else:
            assert list(rows["start"])[0] == 0 and list(rows["end"])[-1] == len(text)
        documents += 1
    files = [p for p in Path(input_dir).rglob("*") if p.is_file()]
    non_empty = sum(1 for p in files if p.stat().st_size)
    assert documents == non_empty, f"{documents} documents chunked, {non_empty} non-empty files"
    return documents, len(table)


def default_input() -> str:
    corpora = Path(__file__).resolve().parents[2] / "shared" / "corpora"
    target = Path(tempfile.mkdtemp(prefix="ray-corpus-"))
    if corpora.is_dir():
        for p in sorted(corpora.glob("*")):
            if p.is_file() and p.name not in ("MANIFEST.md", "SHA256SUMS"):
                # a few documents per corpus file, 20,000 characters each
                text = p.read_text(encoding="utf-8")
                for k in range(3):
                    part = text[k * 20_000 : (k + 1) * 20_000]
                    if part:
                        (target / f"{p.stem}-{k}.txt").write_text(part, encoding="utf-8")
    else:
        for k in range(12):
            (target / f"doc{k}.md").write_text(
                f"# Document {k}\n\n" + ("A paragraph of text about tokens and budgets. " * (30 + 7 * k) + "\n\n") * 5,
                encoding="utf-8",
            )
    return str(target)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input_dir", nargs="?")
    parser.add_argument("output_dir", nargs="?")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--overlap", type=int, default=0)
    parser.add_argument("--encoding", default="cl100k_base")
    parser.add_argument("--format", choices=["parquet", "jsonl"], default="parquet")
    parser.add_argument("--workers", type=int, default=2, help="chunking actors (default 2)")
    parser.add_argument("--address", default=None, help="a Ray cluster to join (default: a local instance)")
    args = parser.parse_args(argv)
    input_dir = args.input_dir or default_input()
    output_dir = args.output_dir or tempfile.mkdtemp(prefix="ray-chunks-")
    if args.address:
        ray.init(address=args.address)
    else:
        # one CPU more than the actors hold: the read tasks need one too (else they wait forever)
        ray.init(num_cpus=args.workers + 1, include_dashboard=False, log_to_driver=False)
    try:
        started = time.perf_counter()
        chunk_corpus(input_dir, output_dir, encoding=args.encoding, max_tokens=args.max_tokens,
                     overlap=args.overlap, fmt=args.format, workers=args.workers)
        documents, chunks = check_output(input_dir, output_dir, encoding=args.encoding,
                                         max_tokens=args.max_tokens, overlap=args.overlap, fmt=args.format)
        print(f"{documents} documents -> {chunks} chunks of at most {args.max_tokens} tokens "
              f"({args.format} in {output_dir}), checked, {time.perf_counter() - started:.1f} s")
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
