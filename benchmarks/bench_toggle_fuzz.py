"""Random edit/undo toggles at the growing end of a long repeated unit: which are slow?

Run from the project root:

    python benchmarks/bench_toggle_fuzz.py --seconds 300 --out benchmarks/results_toggle_fuzz.md

`bench_edit_toggles.py` tries 20 chosen edit strings on 20 chosen texts; this script
looks for the cases nobody chose.  Each trial picks an encoding, a unit of 1-3
characters and six edit strings of 1-3 characters from an alphabet of the
characters whose pieces behave differently (punctuation, marks, spaces, tabs, CR, LF,
letters of each case, digits, CJK, apostrophe, slash), builds ``unit * n`` with an
``AppendableEncoder`` (30 %) or a ``PrependableEncoder`` (70 %), and toggles every edit
three times (edit, then truncate back).  An edit whose third-round toggle takes more
than ``--slow-ms`` is timed three more times; if the best of those is still slow it is
listed.  Wall clock; the seed makes a run repeatable (up to which trials fit in the
time).  Counts are not checked here (the tests do that).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections import Counter

import bpe_stream
from bpe_stream import AppendableEncoder, PrependableEncoder

ALPHABET = ["!", "\u0301", " ", "\n", "a", "A", "1", "/", "'", "\u4e2d", "\t", "\u02b0", "\r", "?", "s"]


def trial(rng, encs, n: int, slow: float):
    enc = rng.choice(encs)
    unit = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 3)))
    text = (unit * (n // len(unit) + 1))[:n]
    front = rng.random() < 0.7
    st = PrependableEncoder(enc) if front else AppendableEncoder(enc)
    add = st.prepend if front else st.append
    add(text)
    edits = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 3))) for _ in range(6)]
    found = []
    for rnd in range(3):
        for c in edits:
            t0 = time.perf_counter()
            add(c)
            t1 = time.perf_counter()
            st.truncate(n)
            t2 = time.perf_counter()
            if rnd == 2 and max(t1 - t0, t2 - t1) > slow:
                best = float("inf")
                for _ in range(3):
                    t0 = time.perf_counter()
                    add(c)
                    st.truncate(n)
                    best = min(best, time.perf_counter() - t0)
                if best > slow:
                    found.append((enc.name, "prepend" if front else "append", unit, c, best))
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=300)
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--slow-ms", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    encs = [bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")]
    load0 = os.getloadavg()
    end = time.time() + args.seconds
    trials = 0
    found = []
    while time.time() < end:
        found += trial(rng, encs, args.n, args.slow_ms / 1e3)
        trials += 1
    kinds = Counter((name, side, unit) for name, side, unit, _, _ in found)
    worst = {}
    for name, side, unit, c, t in found:
        key = (name, side, unit)
        if t > worst.get(key, (0, ""))[0]:
            worst[key] = (t, c)
    lines = [
        "# Random edit toggles: the slow ones",
        "",
        f"Command: `python benchmarks/bench_toggle_fuzz.py --seconds {args.seconds:g} --n {args.n} "
        f"--slow-ms {args.slow_ms:g} --seed {args.seed}`; load average at start: "
        f"{', '.join(f'{x:.2f}' for x in load0)}.",
        "",
        f"{trials} trials ({trials * 6} edit strings, each toggled 3 times on a text of {args.n:,} "
        f"characters); {len(found)} edit strings slower than {args.slow_ms:g} ms (best of 3 "
        f"re-timings), in {len(kinds)} (encoding, side, unit) kinds:",
        "",
        "| encoding | side | unit | slow edit strings | slowest (ms) | its edit |",
        "|---|---|---|---|---|---|",
    ]
    for key, count in kinds.most_common():
        t, c = worst[key]
        lines.append(f"| {key[0]} | {key[1]} | {key[2]!r} | {count} | {t * 1e3:.1f} | {c!r} |")
    lines += ["", f"Load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}.", ""]
    print("\n".join(lines))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))


if __name__ == "__main__":
    main()
