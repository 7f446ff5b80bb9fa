"""Free-threaded Python (3.13t and later): with the compiled core, nothing the library
does on the common paths imports pyahocorasick, the one dependency that does not declare
itself free-threading safe and would turn the GIL back on for the whole process.  Checked
in fresh interpreters (the test process itself has imported the oracles).  On a build
with the GIL the import check still runs; the GIL check is skipped."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import bpe_stream.bpe.native as native

pytestmark = pytest.mark.skipif(not native.compiled_available(), reason="compiled core not built")

_SRC = str(Path(__file__).resolve().parents[1] / "src")

_COMMON_PATHS = """
import sys
import bpe_stream
text = "Hello wörld, 中文 and code: x = f(1, 2)\\n" * 200
for name in ("cl100k_base", "o200k_base"):
    enc = bpe_stream.get_encoding(name)
    assert enc.decode(enc.encode(text)) == text
    assert enc.count_batch([text, text[:99]], num_threads=2) == [enc.count(text), enc.count(text[:99])]
    bpe_stream.Chunker(enc, 64, overlap=8).chunks(text)
    appender = bpe_stream.AppendableEncoder(enc)
    appender.extend(text[:500])
    prepender = bpe_stream.PrependableEncoder(enc)
    prepender.prepend(text[:300])
    bpe_stream.IntervalCounter(enc, text).count(5, 700)
print("ahocorasick" in sys.modules, getattr(sys, "_is_gil_enabled", lambda: True)())
"""


def _run(code: str) -> list[str]:
    env = {"PYTHONPATH": _SRC, "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", code], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_common_paths_do_not_import_pyahocorasick():
    imported, _ = _run(_COMMON_PATHS)
    assert imported == "False"


@pytest.mark.skipif(not sysconfig.get_config_var("Py_GIL_DISABLED"), reason="not a free-threaded build")
def test_gil_stays_disabled_on_a_free_threaded_build():
    _, gil = _run(_COMMON_PATHS)
    assert gil == "False"
