"""The bpe-stream command: count, encode, decode, chunk, train; one line and exit 2 on bad input."""

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
    assert "--max-tokens" in capsys.readouterr().err
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


# ------------------------------------------------------- one line, exit 2, flags by name
def one_line_error(capsys, argv, *needles):
    """Run ``argv``: exit code 2, nothing on stdout, exactly one line on stderr holding ``needles``."""
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (argv, out, err)
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


def test_every_bad_argument_is_one_line_and_exit_2(tmp_path, capsys):
    doc = tmp_path / "doc.txt"
    doc.write_text("hello world", encoding="utf-8")
    d = str(doc)
    cases = [
        (["chunk", d, "--max-tokens", "0"], "--max-tokens", ">= 1"),
        (["chunk", d, "--max-tokens", "ten"], "--max-tokens", "'ten'"),
        (["chunk", d], "--max-tokens"),
        (["chunk", d, "--max-tokens", "8", "--overlap", "-1"], "--overlap"),
        (["chunk", d, "--max-tokens", "8", "--overlap", "8"], "--overlap", "--max-tokens"),
        (["chunk", d, "--max-tokens", "8", "--boundaries", "lines"], "--boundaries"),
        (["chunk", d, "--max-tokens", "8", "--format", "xml"], "--format"),
        (["count", d, "--encoding", "gpt-99"], "--encoding", "unknown encoding 'gpt-99'"),
        (["count", d, "--bogus"], "--bogus"),
        (["train", d, "--vocab-size", "100", "-o", str(tmp_path / "o.bpe")], "--vocab-size", ">= 256"),
        (["train", d, "--vocab-size", "300", "--pattern", "cl100k", "-o", str(tmp_path / "o.bpe")], "--pattern", "cl100k"),
        (["train", d, "--vocab-size", "300", "--pattern", "(", "-o", str(tmp_path / "o.bpe")], "--pattern"),
        (["train", d, "--vocab-size", "300", "--min-frequency", "-2", "-o", str(tmp_path / "o.bpe")], "--min-frequency"),
        (["train", d, "--vocab-size", "300", "-o", str(tmp_path)], "-o", "is a directory"),
        (["train", d, "--vocab-size", "300", "-o", str(tmp_path / "no" / "dir.bpe")], "-o", "does not exist"),
        (["train", d, "--vocab-size", "300"], "-o/--output"),
        (["nope"], "invalid choice"),
        ([], "COMMAND"),
        (["decode", "--encoding", "o200k_base", str(doc)], "'hello' is not a token id"),
    ]
    for argv, *needles in cases:
        one_line_error(capsys, argv, *needles)
    assert not (tmp_path / "o.bpe").exists()


def test_encoding_that_is_no_vocabulary_file_or_a_directory(tmp_path, capsys):
    doc = tmp_path / "doc.txt"
    doc.write_text("hello world", encoding="utf-8")
    empty = tmp_path / "empty.tiktoken"
    empty.write_bytes(b"")
    gz = tmp_path / "broken.tiktoken"
    gz.write_bytes(b"\x1f\x8b not gzip")
    for command in (["count"], ["encode"], ["chunk", "--max-tokens", "8"]):
        one_line_error(capsys, [*command, str(doc), "--encoding", str(doc)], "--encoding", "not a vocabulary file")
        one_line_error(capsys, [*command, str(doc), "--encoding", str(tmp_path)], "--encoding", "is a directory")
        one_line_error(capsys, [*command, str(doc), "--encoding", str(empty)], "the file is empty")
        one_line_error(capsys, [*command, str(doc), "--encoding", str(gz)], "broken.tiktoken")
    # and from a shell: no traceback, exit code 2
    done = subprocess.run([sys.executable, "-m", "bpe_stream", "count", "--encoding", str(tmp_path), str(doc)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_model_names_and_vocabulary_files_as_encoding(tmp_path, capsys):
    doc = tmp_path / "doc.txt"
    text = "Model names pick the model's encoding. 中文"
    doc.write_text(text, encoding="utf-8")
    o200k = get_encoding("o200k_base")
    saved = tmp_path / "mine.bpe"
    o200k.save(saved)
    for spec in ("gpt-4o", "gpt-4o-mini", "o200k_base", str(saved)):
        assert main(["count", "--encoding", spec, str(doc)]) == 0
        assert capsys.readouterr().out == f"{o200k.count(text)}\t{doc}\n"
    assert main(["count", "--encoding", "gpt-4", str(doc)]) == 0
    assert capsys.readouterr().out.startswith(f"{get_encoding('cl100k_base').count(text)}\t")


def test_encode_and_decode_round_trip(tmp_path, capsys, monkeypatch):
    text = "Tokens <|endoftext|> stay ordinary text.\n中文 😀"
    doc = tmp_path / "doc.txt"
    doc.write_text(text, encoding="utf-8")
    enc = get_encoding("o200k_base")
    assert main(["encode", "--encoding", "gpt-4o", str(doc)]) == 0
    out = capsys.readouterr().out
    assert out == " ".join(map(str, enc.encode_ordinary(text))) + "\n"
    ids = tmp_path / "ids.txt"
    ids.write_text(out)
    assert main(["decode", "--encoding", "gpt-4o", str(ids)]) == 0
    assert capsys.readouterr().out == text
    assert main(["encode", "--encoding", "gpt-4o", "--allowed-special", str(doc)]) == 0
    assert str(enc.eot_token) in capsys.readouterr().out.split()
    # a JSON list, from stdin
    assert run(["decode", "--encoding", "o200k_base", "-"], json.dumps(enc.encode("hi there")).encode(), monkeypatch) == 0
    assert capsys.readouterr().out == "hi there"
    ids.write_text("1 2 999999999")
    one_line_error(capsys, ["decode", "--encoding", "o200k_base", str(ids)], "invalid token id 999999999")
    ids.write_text("1 2\n3 x4")
    one_line_error(capsys, ["decode", str(ids)], "line 2", "'x4'")


def test_chunk_errors_name_flags(tmp_path, capsys):
    rare = "\u9f98"
    doc = tmp_path / "doc.txt"
    doc.write_text("ab " + rare, encoding="utf-8")
    err = one_line_error(capsys, ["chunk", str(doc), "--max-tokens", "1"], "--max-tokens=1", "position 3", str(doc))
    assert "max_tokens" not in err
    err = one_line_error(capsys, ["chunk", str(doc), "--max-tokens", "3", "--context", "a long title of many words"],
                         "--max-tokens", "context")
    assert "max_tokens" not in err


def test_chunk_markdown_and_context_fields(tmp_path, capsys):
    text = "# Guide\n\nIntro.\n\n## Install\n\n" + "Run the installer and wait. " * 30
    doc = tmp_path / "doc.md"
    doc.write_text(text, encoding="utf-8")
    assert main(["chunk", str(doc), "--max-tokens", "32", "--markdown", "--context", "Manual"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    enc = get_encoding("cl100k_base")
    assert "".join(r["text"] for r in records) == text
    assert records[-1]["headings"] == ["Guide", "Install"]
    for r in records:
        assert r["context"].startswith("Manual\n")
        assert r["token_count_with_context"] == enc.count(r["context"] + r["text"]) <= 32


def test_chunk_progress_is_on_its_own_lines_on_stderr(tmp_path, capsys):
    doc = tmp_path / "big.txt"
    doc.write_text("A sentence that repeats to make a large file. " * 25_000, encoding="utf-8")
    assert doc.stat().st_size > (1 << 20)
    assert main(["chunk", str(doc), "--max-tokens", "512", "--progress"]) == 0
    out, err = capsys.readouterr()
    for line in out.splitlines():
        json.loads(line)  # stdout holds chunks only
    assert "chunking" in err and str(doc) in err
    assert all(line.startswith("chunking ") for line in err.splitlines())
    assert "\r" not in err  # not a terminal: whole lines, no redrawing
    assert main(["chunk", str(doc), "--max-tokens", "512"]) == 0
    assert capsys.readouterr().err == ""  # stderr is no terminal here: quiet by default


def test_train_defaults_to_the_cl100k_pattern_and_reports_every_phase(tmp_path, capsys):
    doc = tmp_path / "corpus.txt"
    doc.write_text("low lower lowest newer newest wider widest\n" * 200, encoding="utf-8")
    out = tmp_path / "v.bpe"
    assert main(["train", str(doc), "--vocab-size", "300", "-o", str(out), "--progress"]) == 0
    _, err = capsys.readouterr()
    from bpe_stream import load
    from bpe_stream.pretokenize.patterns import PATTERNS

    assert load(out).pat_str == PATTERNS["cl100k_base"]
    phases = [line[:-3] for line in err.splitlines() if line.endswith("...")]
    assert [p.split()[0] for p in phases] == ["reading", "laying", "counting", "merging"]
    assert err.splitlines()[-1].startswith(f"wrote {out}")
    assert main(["train", str(doc), "--vocab-size", "300", "--pattern", "none", "-o", str(out)]) == 0
    assert load(out).pat_str is None
    assert capsys.readouterr().err.count("\n") == 1  # no progress by default off a terminal
