#!/usr/bin/env python
"""A fresh process: ``get_encoding(name).count("x")`` from nothing, and its memory.

Each run is a new Python process, timed from outside (CPU time of the child,
user + sys, from ``resource.getrusage(RUSAGE_CHILDREN)``; wall time beside it), median
of ``--runs``.  bpe-stream runs with an empty cache directory (tables built: parsed
and built in C) and with a warm one (tables read from the data-only cache); tiktoken
loads the same vocabulary from a local ``.tiktoken`` file (its cached path:
``load_tiktoken_bpe`` + ``tiktoken.Encoding`` with the same pattern and special
tokens) and encodes "x".  Every child also reports its resident memory after the
call (VmRSS) and its peak (VmHWM) from /proc/self/status.  "pure Python" is
bpe-stream with ``BPE_STREAM_PURE_PYTHON=1``.  Both packages' sources are
byte-compiled first (``compileall``, as ``pip install`` does), so that no child
compiles Python source (this machine sets PYTHONDONTWRITEBYTECODE).

    python benchmarks/bench_first_run.py --markdown benchmarks/results_first_run.md
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _native_common import write_results  # noqa: E402

MEMORY = (
    "import re\n"
    "s = open('/proc/self/status').read()\n"
    "rss = int(re.search(r'VmRSS:\\s+(\\d+)', s).group(1)) / 1024\n"
    "hwm = int(re.search(r'VmHWM:\\s+(\\d+)', s).group(1)) / 1024\n"
    "print('MEM', rss, hwm)\n"
)

OURS = "import bpe_stream\nassert bpe_stream.get_encoding({name!r}).count('x') == 1\n" + MEMORY
TIKTOKEN = (
    "import tiktoken, json\n"
    "from tiktoken.load import load_tiktoken_bpe\n"
    "spec = json.loads(open({spec!r}).read())\n"
    "enc = tiktoken.Encoding({name!r}, pat_str=spec['pat_str'], mergeable_ranks=load_tiktoken_bpe({path!r}),"
    " special_tokens=spec['special_tokens'])\n"
    "assert len(enc.encode_ordinary('x')) == 1\n" + MEMORY
)


def run_child(code: str, env: dict) -> tuple[float, float, float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    mem = next(line for line in out.stdout.splitlines() if line.startswith("MEM"))
    rss, hwm = (float(x) for x in mem.split()[1:])
    return cpu, wall, rss, hwm


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--markdown")
    args = ap.parse_args()
    from bpe_stream.encoding.registry import _BUNDLED, bundled_tiktoken_bytes
    from bpe_stream.pretokenize.patterns import PATTERNS

    import bpe_stream
    import tiktoken

    for package in (bpe_stream, tiktoken):
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(package.__file__).parent)], check=True)
    work = Path(tempfile.mkdtemp())
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("BPE_STREAM")}
    rows = ["| vocabulary | process | CPU s (median) | wall s (median) | RSS after (MiB) | peak RSS (MiB) | CPU vs tiktoken | RSS vs tiktoken |",
            "|---|---|---|---|---|---|---|---|"]
    for name in ("cl100k_base", "o200k_base"):
        path = work / f"{name}.tiktoken"
        path.write_bytes(bundled_tiktoken_bytes(name))
        spec = work / f"{name}.json"
        spec.write_text(json.dumps({"pat_str": PATTERNS[name], "special_tokens": _BUNDLED[name]["special_tokens"]}))
        cases = {}
        warm = work / f"warm-{name}"
        subprocess.run([sys.executable, "-c", OURS.format(name=name)], env=dict(base_env, BPE_STREAM_CACHE_DIR=str(warm)),
                       check=True, capture_output=True)
        plans = [
            ("tiktoken (local .tiktoken file)", TIKTOKEN.format(name=name, spec=str(spec), path=str(path)), None),
            ("bpe-stream, empty cache", OURS.format(name=name), "empty"),
            ("bpe-stream, warm cache", OURS.format(name=name), str(warm)),
            ("bpe-stream pure Python, empty cache", OURS.format(name=name), "empty-pure"),
            ("bpe-stream pure Python, warm cache", OURS.format(name=name), "warm-pure"),
        ]
        pure_warm = work / f"warm-pure-{name}"
        subprocess.run([sys.executable, "-c", OURS.format(name=name)],
                       env=dict(base_env, BPE_STREAM_CACHE_DIR=str(pure_warm), BPE_STREAM_PURE_PYTHON="1"),
                       check=True, capture_output=True)
        for label, code, cache in plans:
            results = []
            runs = args.runs if "pure" not in (cache or "") else max(3, args.runs // 3)
            for k in range(runs):
                env = dict(base_env)
                if cache == "empty" or cache == "empty-pure":
                    env["BPE_STREAM_CACHE_DIR"] = str(work / f"empty-{name}-{label[:4]}-{k}")
                elif cache == "warm-pure":
                    env["BPE_STREAM_CACHE_DIR"] = str(pure_warm)
                elif cache is not None:
                    env["BPE_STREAM_CACHE_DIR"] = cache
                if cache and "pure" in cache:
                    env["BPE_STREAM_PURE_PYTHON"] = "1"
                results.append(run_child(code, env))
            cases[label] = [statistics.median(x[i] for x in results) for i in range(4)]
        tk = cases["tiktoken (local .tiktoken file)"]
        for label, (cpu, wall, rss, hwm) in cases.items():
            rows.append(f"| {name} | {label} | {cpu:.3f} | {wall:.3f} | {rss:.0f} | {hwm:.0f} | {cpu / tk[0]:.2f}x | {rss / tk[2]:.2f}x |")
            print(rows[-1], flush=True)
    lines = [
        f"Each row: median of {args.runs} fresh processes (pure Python: of {max(3, args.runs // 3)}); "
        "CPU = user + sys of the child. 'vs tiktoken' = ours / tiktoken's (below 1: less).",
        "",
        *rows,
    ]
    write_results(args.markdown, "First run in a fresh process, and resident memory", " ".join(["python", *sys.argv]), lines)


if __name__ == "__main__":
    main()
