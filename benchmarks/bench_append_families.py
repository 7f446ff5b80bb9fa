"""Appending one character at a time: microseconds per character, per input family.

``AppendableEncoder(enc)`` is fed each family's text of ``_families.py`` one character
per ``append``, and ``token_count`` is read after every append (the streaming use).
Each cell is the CPU time per character appended and, in parentheses, that time over
the same figure for prose with the same encoding (the target: every family within 3x of
prose).  A run that passes ``--timeout`` CPU seconds is killed (``>T s``).  Each run
ends with a check that the final count equals ``enc.count`` of the text; the exactness
of every intermediate count is what tests/test_appendable.py checks.  Every run is a
fresh process (no piece cached, no automaton built).

    python benchmarks/bench_append_families.py --out benchmarks/results_append_families.md
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpe_stream  # noqa: E402
from _common import end_table, in_child, load_average, machine_info, results_head  # noqa: E402
from _families import FAMILIES, family_text  # noqa: E402
from bpe_stream import AppendableEncoder  # noqa: E402


def _run(conn, enc, text):
    ae = AppendableEncoder(enc)
    append = ae.append
    ae.append("x" * 300)  # builds the engine's tables (a long piece's too): not what is measured
    ae.truncate(0)
    t0 = time.thread_time()
    for ch in text:
        append(ch)
        ae.token_count  # noqa: B018  (read after every append, as a stream does)
    dt = time.thread_time() - t0
    conn.send((dt, ae.token_count == enc.count(text)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=1_000_000, help="bytes of UTF-8 per text")
    ap.add_argument("--encodings", default="cl100k_base,o200k_base")
    ap.add_argument("--families", default=None, help="comma-separated family names (default: all)")
    ap.add_argument("--timeout", type=int, default=300, help="CPU seconds per run before it is killed")
    ap.add_argument("--out", help="also write the table to this Markdown file")
    ap.add_argument("--repeat", type=int, default=1, help="runs per cell (each a fresh process); the median is shown")
    args = ap.parse_args()
    families = list(FAMILIES) if args.families is None else args.families.split(",")
    if "prose" not in families:
        families.insert(0, "prose")
    encodings = args.encodings.split(",")
    lines = results_head(
        "Appending one character at a time, per input family",
        f"{machine_info()}; {args.size:,} bytes per text; CPU time, the median of {args.repeat} run(s) per "
        f"cell, each in a fresh process; cells: µs per character appended (`token_count` read after each), and "
        f"in parentheses that over prose's.  Load average at start: "
        f"{load_average()}.",
    ) + [
        "| family | characters | " + " | ".join(encodings) + " | within 3x of prose | final count exact |",
        "|---|---|" + "---|" * len(encodings) + "---|---|",
    ]
    print("\n".join(lines), flush=True)
    encs = {}
    for name in encodings:
        enc = encs[name] = bpe_stream.get_encoding(name)
        enc.count("warm the tables: ünïcode 中文 123 !! \n")
    prose_us = {}
    for fam in families:
        text = family_text(fam, args.size)
        cells = []
        ratios = []
        ok = True
        for name in encodings:
            runs = [in_child(_run, (encs[name], text), args.timeout) for _ in range(args.repeat)]
            res = None if None in runs else (statistics.median(dt for dt, _ in runs), all(good for _, good in runs))
            if res is None:
                cells.append(f">{args.timeout} s")
                ratios.append(float("inf"))
                continue
            dt, good = res
            ok = ok and good
            us = dt / len(text) * 1e6
            if fam == "prose":
                prose_us[name] = us
            ratios.append(us / prose_us[name])
            cells.append(f"{us:.2f} ({us / prose_us[name]:.1f}x)")
        met = all(r <= 3 for r in ratios)
        row = (f"| {fam} | {len(text):,} | " + " | ".join(cells)
               + f" | {'met' if met else 'missed'} | {'yes' if ok else 'NO'} |")
        print(row, flush=True)
        lines.append(row)
    end_table(lines, args.out)


if __name__ == "__main__":
    main()
