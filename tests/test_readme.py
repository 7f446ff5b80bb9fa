"""The README's Python examples run as written, and it opens with the two commands."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
FIRST_COMMANDS = (
    "pip install . && bpe-stream chunk README.md --max-tokens 128 --format text | head -n 20\n"
    "pip install -e '.[test]' && python -m pytest\n"
)


def test_readme_opens_with_the_install_and_test_commands():
    text = README.read_text(encoding="utf-8")
    first = re.search(r"```bash\n(.*?)```", text, re.S)
    assert first is not None and first.group(1) == FIRST_COMMANDS
    assert not re.search(r"```\w*\n", text[: first.start()])  # no code block before it


def test_readme_python_blocks_run_in_order(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 6
    shutil.copy(README, tmp_path / "README.md")
    monkeypatch.chdir(tmp_path)  # the examples read README.md and write mine.tiktoken here
    namespace: dict = {}
    for block in blocks:
        if block.startswith("# pip install 'bpe-stream["):
            continue  # the adapters' examples need their frameworks (tests/test_integrations_*.py)
        exec(compile(block, str(README), "exec"), namespace)


def test_readme_command_lines_run(tmp_path):
    import shlex
    import subprocess
    import sys

    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.S)[1:]
    lines = [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()]
    lines = [line for line in lines if line.startswith("bpe-stream ")]
    assert len(lines) >= 4
    shutil.copy(README, tmp_path / "README.md")
    for line in lines:
        args = [sys.executable, "-m", "bpe_stream", *shlex.split(line)[1:]]
        done = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (line, done.stderr)
        assert done.stdout.strip() or (tmp_path / "mine.tiktoken").exists(), line
