"""Assemble BENCHMARKS.md from the summary below and the latest results files.

Each ``benchmarks/results_*.md`` is written by its benchmark script (the command
that made it is at its top); this script only concatenates them.

    python benchmarks/build_report.py
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = [
    ("Core encoders and `Encoding` (issue 2)", "results_encode.md"),
    ("Streaming counts and exact cuts (issue 3)", "results_streaming.md"),
    ("Edit toggles at the growing end (issue 3)", "results_edit_toggles.md"),
    ("Random edit toggles (issue 3)", "results_toggle_fuzz.md"),
    ("Work (Python lines, characters read) of random edit toggles (issue 3)", "results_work_growth.md"),
    ("Work (Python lines, characters read) of random edit sequences (issue 3)", "results_work_growth_sequences.md"),
    ("Work of random edit sequences with long edits (issue 3)", "results_work_growth_big.md"),
    ("Timed edit sequences found by the searches (issue 3)", "results_edit_sequences.md"),
    ("Chunkers (issue 4)", "results_chunkers.md"),
    ("Chunking adversarial inputs (issue 4)", "results_chunk_adversarial.md"),
    ("Training (issue 5)", "results_train.md"),
    ("Native core: one long piece", "results_long_piece.md"),
    ("Native core: raw BPE over bytes", "results_raw_bytes.md"),
    ("Native core: first run in a fresh process, and memory", "results_first_run.md"),
    ("Native core: batches on 1 and 2 threads", "results_batch.md"),
    ("Native core: IntervalCounter queries", "results_interval.md"),
    ("Native core: compiled vs pure Python", "results_pure_python.md"),
]


def main() -> None:
    parts = [(ROOT / "benchmarks" / "summary.md").read_text(encoding="utf-8").rstrip() + "\n"]
    for title, name in SECTIONS:
        body = (ROOT / "benchmarks" / name).read_text(encoding="utf-8")
        lines = [line for line in body.splitlines() if not line.startswith("<!--")]
        # demote the file's own headings below this section's
        lines = ["##" + line if line.startswith("#") else line for line in lines]
        parts.append(f"\n## {title}\n\n(from `benchmarks/{name}`)\n\n" + "\n".join(lines).strip() + "\n")
    (ROOT / "BENCHMARKS.md").write_text("".join(parts), encoding="utf-8")


if __name__ == "__main__":
    main()
