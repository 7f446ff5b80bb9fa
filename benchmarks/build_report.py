"""Assemble BENCHMARKS.md from ``benchmarks/summary.md`` and the latest results files.

Each ``benchmarks/results_*.md`` is written by its benchmark script (the command that
made it is at its top); this script only concatenates them.  BENCHMARKS.md opens with the
summary's first part (the table of ratios against each peer, with the command of each
row), then a list of contents, then the rest of the summary (targets, search record),
then one section per results file.

    python benchmarks/build_report.py
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = [
    ("Encoders, `Encoding` and load time", "results_encode.md"),
    ("Streaming counts and exact cuts", "results_streaming.md"),
    ("Edit toggles at the growing end", "results_edit_toggles.md"),
    ("Random edit toggles", "results_toggle_fuzz.md"),
    ("Work (Python lines, characters read) of random edit toggles", "results_work_growth.md"),
    ("Work (Python lines, characters read) of random edit sequences", "results_work_growth_sequences.md"),
    ("Work of random edit sequences with long edits", "results_work_growth_big.md"),
    ("Timed edit sequences found by the searches", "results_edit_sequences.md"),
    ("Chunkers", "results_chunkers.md"),
    ("Chunking adversarial inputs", "results_chunk_adversarial.md"),
    ("Training", "results_train.md"),
    ("Native core: one long piece", "results_long_piece.md"),
    ("Native core: raw BPE over bytes", "results_raw_bytes.md"),
    ("Native core: first run in a fresh process, and memory", "results_first_run.md"),
    ("Native core: batches on 1 and 2 threads", "results_batch.md"),
    ("Native core: IntervalCounter queries", "results_interval.md"),
    ("Native core: compiled vs pure Python", "results_pure_python.md"),
    ("Native core: the compiled pre-split scanner", "results_presplit.md"),
    ("Real model vocabularies: loading and counting", "results_vocabularies.md"),
    ("Streaming on every family member", "results_members_streaming.md"),
    ("Worst cases: chunking against counting, per input family", "results_chunk_vs_count.md"),
    ("Worst cases: IntervalCounter memory and build speed", "results_interval_memory.md"),
    ("Worst cases: appending one character at a time", "results_append_families.md"),
]
# The summary's first part ends where this heading starts; the contents go there.
REST_STARTS = "\n## Targets\n"


def anchor(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def main() -> None:
    summary = (ROOT / "benchmarks" / "summary.md").read_text(encoding="utf-8")
    head, sep, rest = summary.partition(REST_STARTS)
    if not sep or "## Summary" not in head:
        raise SystemExit("summary.md must open with '## Summary' (the table of ratios) before '## Targets'")
    rest_titles = re.findall(r"^## (.+)$", sep + rest, re.M)
    contents = "\n## Contents\n\n" + "".join(
        f"* [{title}](#{anchor(title)})\n" for title in rest_titles + [t for t, _ in SECTIONS]
    )
    parts = [head.rstrip() + "\n", contents, "\n" + (sep.lstrip("\n") + rest).rstrip() + "\n"]
    for title, name in SECTIONS:
        body = (ROOT / "benchmarks" / name).read_text(encoding="utf-8")
        lines = [line for line in body.splitlines() if not line.startswith("<!--")]
        # demote the file's own headings below this section's
        lines = ["##" + line if line.startswith("#") else line for line in lines]
        parts.append(f"\n## {title}\n\n(from `benchmarks/{name}`)\n\n" + "\n".join(lines).strip() + "\n")
    (ROOT / "BENCHMARKS.md").write_text("".join(parts), encoding="utf-8")


if __name__ == "__main__":
    main()
