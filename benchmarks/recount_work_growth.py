"""Count the trials a work search listed again, at larger scales.

Run from the project root on a file written by ``bench_work_growth.py --sequences --dump``:

    python benchmarks/recount_work_growth.py trials.jsonl --split --scales 64,256

A search counts each trial at 1x, 4x and 16x.  With long edits (``--big``) that rule lists
many trials whose work takes one step as the text grows (an edit that empties the 1x text
works on a text that is not there at 1x), so the ones that matter are counted again here:
the trials marked linear in characters read, and the ``--top`` whose Python lines grow most
from 1x to 16x (or the ones named by ``--only``).  A trial *grows* from one scale to the
next, 4x larger, when its count there passes the count before by more than twice the growth
of the step before, plus 200 lines or 4,096 characters (``bench_work_growth._linear``):
linear work grows about 4x more per 4x, a step or the O(log n) rounds of a fetch by about
the same or less.  Counts, not times: deterministic, and fine to run two at a time.  Use
``--split`` when the search used it (characters the pre-split pattern runs over are added
to characters read).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_work_growth as growth  # noqa: E402

import bpe_stream  # noqa: E402


def pick(trials: list, top: int, only: set) -> list:
    """The trials to count again: those named in ``only`` (1-based, in file order), else the
    ones marked linear in characters read and the ``top`` that grow most in lines."""
    if only:
        return [t for t in trials if t["idx"] in only]
    chosen = [t for t in trials if t["linear_chars"]]
    chosen += sorted(trials, key=lambda t: t["lines"][2] - t["lines"][0], reverse=True)[:top]
    seen, out = set(), []
    for t in chosen:
        if t["idx"] not in seen:
            seen.add(t["idx"])
            out.append(t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dump", help="JSON lines written by bench_work_growth.py --sequences --dump")
    ap.add_argument("--scales", default="64", help="scales beyond 16x, each 4x the one before")
    ap.add_argument("--top", type=int, default=20, help="the trials growing most in lines")
    ap.add_argument("--only", default="", help="comma-separated trial numbers (1-based)")
    ap.add_argument("--split", action="store_true", help="count characters split too")
    args = ap.parse_args()
    growth.COUNT_SPLIT = args.split
    scales = [int(s) for s in args.scales.split(",")]
    with open(args.dump, encoding="utf-8") as f:
        trials = [json.loads(line) for line in f if line.strip()]
    for i, t in enumerate(trials):
        t["idx"] = i + 1
    chosen = pick(trials, args.top, {int(x) for x in args.only.split(",") if x})
    print(f"{len(trials)} listed, {sum(t['linear_chars'] for t in trials)} marked in characters, "
          f"{sum(t['linear_lines'] for t in trials)} in lines; counting {len(chosen)} again at "
          f"{', '.join(f'{s}x' for s in scales)}\n")
    every = [1, 4, 16] + scales  # (the search's scales, then these)
    head = " / ".join(f"{s}x" for s in every)
    print(f"| trial | encoding | lines {head} | characters {head} | grows |")
    print("|---|---|---|---|---|")
    encodings: dict = {}
    for t in chosen:
        enc = encodings.setdefault(t["encoding"], bpe_stream.get_encoding(t["encoding"]))
        lines, chars = list(t["lines"]), list(t["chars"])
        for s in scales:
            work = growth.sequence_work(enc, t["runs"], t["ops"], s, t["side"], t["cut"], t["restore"])
            if work is None:  # (a pass ended below the text built: not comparable)
                break
            lines.append(work[1][0])
            chars.append(work[1][1])
        grows = [f"{every[i + 2]}x -> {every[i + 3]}x {what}"
                 for what, counts, slack in (("lines", lines, 400), ("characters", chars, 8192))
                 for i in range(len(counts) - 3)
                 if growth._linear(counts[i + 1], counts[i + 2], counts[i + 3], slack)]
        print(f"| #{t['idx']} | {t['encoding']} | {' / '.join(f'{x:,}' for x in lines)} | "
              f"{' / '.join(f'{x:,}' for x in chars)} | {', '.join(grows) or 'no'} |", flush=True)


if __name__ == "__main__":
    main()
