"""The Ray example's map function and its output check, without starting Ray.

The example itself (examples/ray_chunk_corpus.py) runs on a local Ray instance in
tests/test_examples.py and in CI; here its two halves are tested directly: the batch
function makes exact rows, and the check rejects an output that is wrong.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="ray is not installed (pip install 'ray[data]'; CI installs it)")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ray_chunk_corpus.py"


def load_example():
    spec = importlib.util.spec_from_file_location("ray_chunk_corpus", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_output(module, input_dir: Path, output_dir: Path, max_tokens: int) -> dict:
    files = sorted(input_dir.iterdir())
    batch = {"bytes": [f.read_bytes() for f in files], "path": [str(f) for f in files]}
    rows = module.ChunkDocuments("cl100k_base", max_tokens, 0)(batch)
    output_dir.mkdir()
    pq.write_table(pa.table(rows), output_dir / "part-0.parquet")
    return rows


def test_rows_are_exact_and_the_check_catches_bad_output(tmp_path):
    module = load_example()
    input_dir = tmp_path / "in"
    input_dir.mkdir()
    (input_dir / "a.md").write_text("# A\n\n" + "Words in a document. " * 200, encoding="utf-8")
    (input_dir / "b.txt").write_text("中文句子。" * 300, encoding="utf-8")
    (input_dir / "empty.txt").write_text("", encoding="utf-8")
    rows = write_output(module, input_dir, tmp_path / "good", 64)
    assert max(rows["token_count"]) <= 64 and len(rows["text"]) > 10
    documents, chunks = module.check_output(str(input_dir), str(tmp_path / "good"), encoding="cl100k_base",
                                            max_tokens=64, overlap=0, fmt="parquet")
    assert (documents, chunks) == (2, len(rows["text"]))
    # the check must be able to fail: a lost chunk, a wrong count, a budget overrun
    for name, tamper in (
        ("lost", lambda r: {k: v[1:] for k, v in r.items()}),
        ("count", lambda r: {**r, "token_count": [c - 1 for c in r["token_count"]]}),
    ):
        bad = tmp_path / name
        bad.mkdir()
        pq.write_table(pa.table(tamper(rows)), bad / "part-0.parquet")
        with pytest.raises(AssertionError):
            module.check_output(str(input_dir), str(bad), encoding="cl100k_base", max_tokens=64, overlap=0,
                                fmt="parquet")
    with pytest.raises(AssertionError):
        module.check_output(str(input_dir), str(tmp_path / "good"), encoding="cl100k_base", max_tokens=10,
                            overlap=0, fmt="parquet")
