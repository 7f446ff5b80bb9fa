"""Every script in examples/ runs and its own assertions hold."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.py"))


# Examples that need a package outside the test extra: skipped without it (CI installs it).
NEEDS = {"ray_chunk_corpus.py": "ray"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path):
    if path.name in NEEDS:
        pytest.importorskip(NEEDS[path.name], reason=f"{path.name} needs {NEEDS[path.name]} (CI installs it)")
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
