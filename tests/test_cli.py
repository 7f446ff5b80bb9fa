"""The bpe-stream command: count and chunk, exit codes on bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from bpe_stream import get_encoding
from bpe_stream.cli.main import main


def run(argv, stdin: bytes | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    return main(argv)


def test_count_files_and_total(tmp_path, capsys):
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("hello world", encoding="utf-8")
    b.write_text("héllo wörld 中文", encoding="utf-8")
    assert main(["count", str(a), str(b)]) == 0
    lines = capsys.readouterr().out.splitlines()
    enc = get_encoding("cl100k_base")
    na, nb = enc.count("hello world"), enc.count("héllo wörld 中文")
    assert lines == [f"{na}\t{a}", f"{nb}\t{b}", f"{na + nb}\ttotal"]


def test_count_stdin_and_encoding(monkeypatch, capsys):
    assert run(["count", "--encoding", "o200k_base", "-"], b"hello world\n", monkeypatch) == 0
    assert capsys.readouterr().out.split("\t")[0] == str(get_encoding("o200k_base").count("hello world\n"))


def test_count_bad_input_exits_2(tmp_path, monkeypatch, capsys):
    assert main(["count", str(tmp_path / "missing.txt")]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok \xff\xfe")
    assert main(["count", str(bad)]) == 2
    assert "not valid UTF-8 (byte offset 3" in capsys.readouterr().err
    assert main(["count", "--encoding", "nope", str(bad)]) == 2
    assert "unknown encoding" in capsys.readouterr().err


def test_chunk_jsonl_round_trip(tmp_path, capsys):
    text = ("A paragraph about tokens. " * 30 + "\n\n") * 10 + "中文句子。" * 50
    path = tmp_path / "doc.txt"
    path.write_text(text, encoding="utf-8")
    assert main(["chunk", str(path), "--max-tokens", "64"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    enc = get_encoding("cl100k_base")
    assert "".join(r["text"] for r in records) == text
    for r in records:
        assert r["source"] == str(path)
        assert text[r["start"] : r["end"]] == r["text"]
        assert r["token_count"] == enc.count(r["text"]) <= 64


def test_chunk_stdin_exact_and_text_format(monkeypatch, capsys):
    text = "one two three four five six seven eight nine ten " * 20
    assert run(["chunk", "-", "--max-tokens", "16", "--boundaries", "exact", "--format", "text"],
               text.encode(), monkeypatch) == 0
    out = capsys.readouterr().out
    headers = [line for line in out.splitlines() if line.startswith("--- - [")]
    assert len(headers) >= len(text) // 16 // 6
    assert all(line.endswith(" tokens ---") for line in headers)


def test_chunk_bad_arguments_exit_2(tmp_path, capsys):
    path = tmp_path / "doc.txt"
    path.write_text("hello", encoding="utf-8")
    assert main(["chunk", str(path), "--max-tokens", "0"]) == 2
    assert "max_tokens" in capsys.readouterr().err
    assert main(["chunk", str(tmp_path / "missing"), "--max-tokens", "5"]) == 2


def test_console_script_runs_as_module(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("hello world", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "bpe_stream", "count", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("2\t")


def test_chunk_stdin_streams_before_the_input_ends():
    # An LLM's output piped in: chunks must come out while the input is still open
    # (reading stdin in full blocks, or buffering stdout, would hold them until the end).
    import threading

    proc = subprocess.Popen(
        [sys.executable, "-m", "bpe_stream", "chunk", "-", "--max-tokens", "16"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        proc.stdin.write(("This is one sentence of a slow stream. " * 20).encode())
        proc.stdin.flush()
        got = []
        reader = threading.Thread(target=lambda: got.append(proc.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout=60)
        # the input is still open here: a line only arrives if the chunk was streamed
        assert got, "no chunk came out while the input was still open"
        assert json.loads(got[0])["token_count"] <= 16
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()
        proc.stderr.close()
