"""Random edit/undo toggles at the growing end: does their Python work grow with the text?

Run from the project root:

    python benchmarks/bench_work_growth.py --seconds 240 --out benchmarks/results_work_growth.md

`bench_toggle_fuzz.py` times random toggles; a time mixes Python work with C-speed work
(regex scans, string joins, the compiled merge loop) and with machine noise.  This
script counts instead: the Python lines run (``sys.settrace``) by one round of toggles
(each edit, then a truncation back), after two warm-up rounds, on ``unit * n`` for two
lengths ``n`` and ``16 n``.  A toggle that does O(n) Python work shows as thousands of
extra lines; the O(log n) rounds of a re-split that fetches 4x more text each time show
as a few hundred at most.  Each trial picks an encoding, a unit and one to three edit
strings from an alphabet of characters whose pieces behave differently.  Trials whose
lines grow by more than ``--slack`` are listed.  Deterministic for a seed (up to which
trials fit in the time); counts are not checked here (the tests do that).

With ``--sequences`` a trial is a random sequence of 20 additions and truncations at the
growing end on a text built in several steps, counted on its third pass (each pass ending
with a truncation back to the text built) with the runs as given and 16x longer; trials
over the slack are counted at 4x too, and those that grow about 4x more per 4x (linear
work) are marked apart from the O(log n) fetch rounds.  ``--dump`` writes the trials
listed as JSON lines, to replay them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import time

import bpe_stream
from bpe_stream import AppendableEncoder, PrependableEncoder

ALPHABET = ["!", "/", "\n", "\r\n", " ", "\t", "a", "A", "s", "'", "'s", "1", "12", "\u0301", "a\u0301",
            "\u4e2d", "\u02b0", "?", ".", "x", "\u00e9", "-", "_", "/\n", " \n", "Ab", "aB", "''", " a",
            "\n\n", "\u00a0", "\U0001F600", "\u4e2d\u0301", " '", "0", "<"]


def python_lines(action) -> int:
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        action()
    finally:
        sys.settrace(None)
    return count


def toggle_lines(enc, side: str, unit: str, edits: list, n: int) -> int:
    text = (unit * n)[:n]
    st = (PrependableEncoder if side == "front" else AppendableEncoder)(enc)
    add = st.prepend if side == "front" else st.append
    add(text)
    size = len(st)

    def one_round():
        for e in edits:
            add(e)
            st.truncate(size)

    one_round()
    one_round()
    return python_lines(one_round)


def sequence_lines(enc, runs: list, ops: list, scale: int, side: str = "front"):
    """Python lines of the second and third passes of the edit sequence ``ops`` (("p", text)
    puts text at the growing end, ("t", k) truncates k characters there) on the text built
    by adding ``unit * (k * scale)`` for each (unit, k) of ``runs``, each pass followed by a
    truncation back to the built length (counted with it); None when a pass ends below
    that length.  The second pass may build states once (a pass that cuts into the built
    text leaves a text the sequence has not seen); the third shows the work that comes
    back on every pass."""
    pe = (PrependableEncoder if side == "front" else AppendableEncoder)(enc)
    add = pe.prepend if side == "front" else pe.append
    for unit, k in runs:
        add(unit * (k * scale))
    size = len(pe)

    def sequence():
        for op, arg in ops:
            if op == "p":
                add(arg)
            else:
                pe.truncate(max(0, len(pe) - arg))
        if len(pe) >= size:
            pe.truncate(size)  # (counted: the way back is part of the round)

    counts = []
    for i in range(3):
        counts.append(python_lines(sequence) if i else (sequence() or 0))
        if len(pe) < size:
            return None
    return counts[1], counts[2]


def search_sequences(side: str, seconds: float, slack: int, rng, encs, dump=None) -> list:
    """Report lines for random edit sequences on texts built in several prepends, counted
    on the text and on the text with every run 16x longer."""
    t0 = time.time()
    tried, once, listed = 0, 0, []
    while time.time() - t0 < seconds:
        enc = rng.choice(encs)
        runs = [("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 2))), rng.randint(50, 400))
                for _ in range(rng.randint(1, 4))]
        ops = [("p", "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 3)))) if rng.random() < 0.6
               else ("t", rng.randint(1, 5)) for _ in range(20)]
        short = sequence_lines(enc, runs, ops, 1, side)
        long = sequence_lines(enc, runs, ops, 16, side) if short is not None else None
        if long is None:
            continue
        tried += 1
        if long[0] - short[0] > slack and long[1] - short[1] <= slack:
            once += 1
        if long[1] - short[1] > slack:
            # a logarithmic path (4x more text fetched per round) adds about the same lines
            # per 4x; a linear one about 4x more each time: count at 4x too to tell them apart
            mid = sequence_lines(enc, runs, ops, 4, side)[1]
            linear = long[1] - mid > 2 * max(mid - short[1], 0) + slack // 2
            listed.append((long[1] - short[1], enc.name, runs, ops, short[1], mid, long[1], linear))
            if dump:
                dump.write(json.dumps({"side": side, "encoding": enc.name, "runs": runs, "ops": ops, "lines": short[1],
                                       "lines_4x": mid, "lines_16x": long[1], "linear": linear}) + "\n")
                dump.flush()
    linear = [x for x in listed if x[-1]]
    lines = [
        f"## {'PrependableEncoder' if side == 'front' else 'AppendableEncoder'} ({side}), sequences of edits",
        "",
        f"{tried:,} trials (an encoding, 1-4 runs added one after another, 20 additions of 1-3 "
        f"strings or truncations of 1-5 characters, then a truncation back), each counted with "
        f"the runs as given and 16x longer, on the third pass over the sequence.  Trials growing "
        f"by more than {slack} lines: {len(listed)}; of these, counted at 4x too, "
        f"**{len(linear)} grow faster from 4x to 16x than twice their growth from 1x to 4x** "
        f"(linear work: about 4x more each time) and {len(listed) - len(linear)} grow by about "
        f"the same lines per 4x (the O(log n) fetch rounds).  Trials whose second pass grows by "
        f"more than {slack}, but not their third (states built once, on a text the first pass "
        f"left): {once}.",
        "",
    ]
    if listed:
        lines += ["| growth | encoding | runs | edits | lines | at 4x | at 16x | linear |",
                  "|---|---|---|---|---|---|---|---|"]
        for g, name, runs, ops, short, mid, long, lin in sorted(listed, key=lambda x: (x[-1], x[0]),
                                                                reverse=True)[:20]:
            lines.append(f"| {g} | {name} | {runs!r} | {ops!r} | {short} | {mid} | {long} | "
                         f"{'yes' if lin else 'no'} |")
        lines.append("")
    return lines


def search(side: str, seconds: float, n: int, slack: int, rng, encs) -> list:
    """Report lines (markdown) for the trials of one side."""
    t0 = time.time()
    tried, growths, listed = 0, [], []
    while time.time() - t0 < seconds:
        enc = rng.choice(encs)
        unit = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 3)))
        edits = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 3))]
        short = toggle_lines(enc, side, unit, edits, n)
        long = toggle_lines(enc, side, unit, edits, 16 * n)
        tried += 1
        growths.append(long - short)
        if long - short > slack:
            listed.append((long - short, enc.name, unit, edits, short, long))
    growths.sort()

    def pct(q):
        return growths[min(len(growths) - 1, int(q * len(growths)))] if growths else 0

    cls = "PrependableEncoder" if side == "front" else "AppendableEncoder"
    lines = [
        f"## {cls} ({side})",
        "",
        f"{tried:,} trials (an encoding, a unit of 1-3 strings, 1-3 edit strings), each counted at "
        f"n = {n:,} and {16 * n:,} characters.  Growth of the Python lines of one round of "
        f"toggles from the shorter text to the longer: median {pct(0.5)}, 99th percentile "
        f"{pct(0.99)}, largest {growths[-1] if growths else 0}.  Trials growing by more than "
        f"{slack} lines: {len(listed)}.",
        "",
    ]
    if listed:
        lines += ["| growth | encoding | unit | edits | lines at n | lines at 16 n |", "|---|---|---|---|---|---|"]
        for g, name, unit, edits, short, long in sorted(listed, reverse=True)[:40]:
            lines.append(f"| {g} | {name} | {unit!r} | {edits!r} | {short} | {long} |")
        lines.append("")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=240, help="per side")
    ap.add_argument("--side", choices=["front", "back", "both"], default="both")
    ap.add_argument("--sequences", action="store_true",
                    help="random sequences of prepends and truncations instead of toggles")
    ap.add_argument("--n", type=int, default=3000, help="the shorter length (the longer is 16x)")
    ap.add_argument("--slack", type=int, default=400, help="lines of growth listed")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out")
    ap.add_argument("--dump", help="with --sequences: write every listed trial to this file as JSON lines")
    args = ap.parse_args()
    load = os.getloadavg()
    encs = [bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")]
    rng = random.Random(args.seed)
    lines = [
        "# Python work of random edit toggles as the text grows 16x",
        "",
        f"Command: `python benchmarks/bench_work_growth.py --seconds {args.seconds:g} --side {args.side} "
        f"--n {args.n} --slack {args.slack} --seed {args.seed}`; load average at start: "
        + ", ".join(f"{x:.2f}" for x in load) + ".",
        "",
        "Python lines counted with `sys.settrace` (a measure of work, not of time; C-speed "
        "work is not counted, `bench_toggle_fuzz.py` times it).",
        "",
    ]
    if args.sequences:
        lines[0] = "# Python work of random edit sequences as the text grows 16x"
        lines[2] = lines[2].replace("--seed", "--sequences --seed")
        with open(args.dump, "w", encoding="utf-8") if args.dump else contextlib.nullcontext() as dump:
            for side in (["front", "back"] if args.side == "both" else [args.side]):
                lines += search_sequences(side, args.seconds, args.slack, rng, encs, dump)
    else:
        for side in (["front", "back"] if args.side == "both" else [args.side]):
            lines += search(side, args.seconds, args.n, args.slack, rng, encs)
    report = "\n".join(lines)
    print(report)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(report)


if __name__ == "__main__":
    main()
