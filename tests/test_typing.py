"""The package is typed: py.typed ships, the typing sample runs, and mypy --strict accepts it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bpe_stream

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "typing_sample.py"


def test_py_typed_ships_with_the_package():
    assert (Path(bpe_stream.__file__).parent / "py.typed").exists()
    assert "py.typed" in (ROOT / "pyproject.toml").read_text()


def test_the_sample_uses_every_public_name_and_runs():
    text = SAMPLE.read_text()
    missing = [name for name in bpe_stream.__all__ if name not in text]
    assert not missing, f"the typing sample does not use {missing}"
    done = subprocess.run([sys.executable, str(SAMPLE)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_mypy_strict_accepts_the_sample_and_rejects_a_type_error(tmp_path):
    if shutil.which("mypy") is None and not _has_module("mypy"):
        pytest.skip("mypy is not installed (CI installs it: pip install mypy)")
    ok = subprocess.run([sys.executable, "-m", "mypy", "--strict", str(SAMPLE)],
                        capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # the check can fail: a chunk of a str chunker is a Chunk[str], its text no bytes
    bad = ROOT / "tests" / "_typing_error_sample.py"
    bad.write_text("from bpe_stream import Chunker\n"
                   "data: bytes = Chunker('cl100k_base', 8).chunks('text')[0].text\n")
    try:
        failed = subprocess.run([sys.executable, "-m", "mypy", "--strict", str(bad)],
                                capture_output=True, text=True, cwd=ROOT, timeout=600)
    finally:
        bad.unlink()
    assert failed.returncode == 1 and "Incompatible types in assignment" in failed.stdout, failed.stdout


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None
