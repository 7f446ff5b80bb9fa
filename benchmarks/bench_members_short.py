"""The exact Chunker against counting for the members beyond cl100k/o200k, per input family
(the runs of many short pieces: whitespace, emoji, base64, corpora; results_members_short.md).

For one vocabulary file (``--vocab``: a tokenizer.json, GGUF, Tekken or .tiktoken file)
each family text of each size is chunked at each budget, without and with overlap
(budget // 4), ``boundaries="exact"``; a cell is chunk CPU time / ``enc.count`` CPU time
of the same text in the same process (a fresh process per family and size; ``count`` its
first call, as in results_chunk_vs_count.md; chunk time the median of ``--repeat`` runs
after it, a run repeating the call until it has taken 50 ms, so that 10 KB texts are
timed above the clock's resolution).  With ``--base SRC`` the same cells run on another
source tree (its ``src`` directory, compiled core built in place) in alternation with this
one, for an A/B in one sitting.  Sizes 10 KB / 100 KB / 1 MB show whether the ratio stays
flat (linear time).  A child that passes ``--timeout`` CPU seconds is killed (``>T s``).

    python benchmarks/bench_members_short.py --vocab /tmp/testvocabs/qwen2/tokenizer.json \\
        --families "NUL bytes,emoji with ZWJ sequences" --sizes 10000,100000 --budgets 16,256
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
DEFAULT_FAMILIES = ("NUL bytes,emoji with ZWJ sequences,base64,'a\\u0301' repeated,spaces,newlines,"
                    "tabs and mixed whitespace,prose,code,multilingual")


def cell(vocab: str, family: str, size: int, budgets: list[int], repeat: int) -> dict:
    """In the child: count and chunk times (medians) of one family text, every budget."""
    sys.path.insert(0, str(HERE))
    from _families import family_text

    import bpe_stream
    from bpe_stream import Chunker

    enc = bpe_stream.load(vocab)
    text = family_text(family, size)
    t0 = time.process_time_ns()
    enc.count(text)
    out = {"count": max(1, time.process_time_ns() - t0) / 1e9, "chunk": {}}
    for budget in budgets:
        for overlap in (0, budget // 4):
            chunker = Chunker(enc, budget, overlap=overlap, boundaries="exact")
            out["chunk"][f"{budget}/{overlap}"] = _timed(lambda: chunker.chunks(text), repeat)
    return out


def _timed(call, repeat: int) -> float:
    """CPU seconds of one ``call()``: the median of ``repeat`` runs, each repeating the
    call until 50 ms have passed."""
    runs = []
    for _ in range(repeat):
        k = 0
        t0 = time.process_time()
        while True:
            call()
            k += 1
            spent = time.process_time() - t0
            if spent >= 0.05:
                break
        runs.append(spent / k)
    return statistics.median(runs)


def run_child(src: str, vocab: str, family: str, size: int, budgets: list[int], repeat: int, timeout: int):
    env = dict(os.environ, PYTHONPATH=src)
    args = [sys.executable, __file__, "--child", json.dumps([vocab, family, size, budgets, repeat, timeout])]
    p = subprocess.run(args, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        return None  # killed at the CPU limit (or failed: stderr below)
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        vocab, family, size, budgets, repeat, timeout = json.loads(sys.argv[2])
        resource.setrlimit(resource.RLIMIT_CPU, (timeout, timeout + 1))
        print(json.dumps(cell(vocab, family, size, budgets, repeat)))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", required=True, help="vocabulary file (tokenizer.json, ...)")
    ap.add_argument("--families", default=DEFAULT_FAMILIES)
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--budgets", default="16,256,8192")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=60, help="CPU seconds per child")
    ap.add_argument("--base", help="another tree's src directory: its cells beside these")
    ap.add_argument("--out", help="append the table to this Markdown file")
    a = ap.parse_args()
    budgets = [int(b) for b in a.budgets.split(",")]
    trees = [("new", str(SRC))] + ([("base", a.base)] if a.base else [])
    cols = [f"{b}/{b // 4}" if o else f"{b}" for b in budgets for o in (0, 1)]
    keys = [f"{b}/{o}" for b in budgets for o in (0, b // 4)]
    lines = [f"vocabulary `{Path(a.vocab).parent.name}/{Path(a.vocab).name}`; load average at start "
             f"{os.getloadavg()[0]:.1f}", "",
             "| family | size | tree | count s | " + " | ".join(f"budget {c}" for c in cols) + " |",
             "|---|---|---|---|" + "---|" * len(cols)]
    print("\n".join(lines), flush=True)
    for family in a.families.split(","):
        for size in (int(s) for s in a.sizes.split(",")):
            for name, src in trees:
                r = run_child(src, a.vocab, family, size, budgets, a.repeat, a.timeout)
                if r is None:
                    row = f"| {family} | {size} | {name} | — | " + " | ".join(f">{a.timeout} s" for _ in keys) + " |"
                else:
                    row = f"| {family} | {size} | {name} | {r['count']:.4f} | " + " | ".join(
                        f"{r['chunk'][k] / r['count']:.1f}x ({r['chunk'][k]:.3f})" for k in keys) + " |"
                lines.append(row)
                print(row, flush=True)
    lines.append("")
    lines.append(f"load average at end {os.getloadavg()[0]:.1f}")
    print(lines[-1])
    if a.out:
        with open(a.out, "a", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n\n")


if __name__ == "__main__":
    main()
