"""What the integration tests share: texts and the exactness checks on splits."""

from __future__ import annotations

from pathlib import Path

from conftest import CORPUS_FILES, tiktoken_oracle

BUDGETS = [(16, 0), (64, 8), (200, 0), (512, 64)]


def sample_texts() -> list[str]:
    """Short texts with the hard cases, and slices of the corpora when they are there."""
    texts = [
        "",
        "One short sentence.",
        "A model may print <|endoftext|> or <|fim_prefix|> as plain text. " * 20,
        "# Title\n\nSome intro.\n\n## Part\n\n    indented code\n    more code\n\nText again. " * 15,
        "abc " * 500,  # repeated text: offsets found by str.find would land on earlier copies
        "Page one.\fPage two has more words in it.\f\fPage four." * 10,
        "中文句子。" * 100 + "😀" * 50,
    ]
    for path in CORPUS_FILES[:4]:
        texts.append(Path(path).read_text(encoding="utf-8")[:30_000])
    return texts


def check_splits(encoding_name: str, text: str, parts: list[tuple[str, int, int]], budget: int, overlap: int) -> None:
    """``parts``: (text, start, end) of every split, in order."""
    tk = tiktoken_oracle(encoding_name)
    if not text:
        assert parts == []
        return
    assert parts[0][1] == 0 and parts[-1][2] == len(text)
    for part, start, end in parts:
        assert text[start:end] == part
        assert len(tk.encode_ordinary(part)) <= budget
    for (_, s0, e0), (_, s1, e1) in zip(parts, parts[1:]):
        if overlap == 0:
            assert s1 == e0
        else:
            assert s0 < s1 <= e0 < e1
            assert len(tk.encode_ordinary(text[s1:e0])) <= overlap
    if overlap == 0:
        assert "".join(p for p, _, _ in parts) == text
