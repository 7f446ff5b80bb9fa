"""Chunking against counting for the members beyond cl100k/o200k, on real vocabularies.

The chunker's promise is to cost about what counting costs, on every input, linearly.  For
each vocabulary (``--vocabs``: tokenizer.json files of the test cache, GPT-2, Qwen2, Llama 3,
DeepSeek-V3's layout) and each family of ``_families.py`` (``--families``), this measures
``enc.count(text)`` and ``Chunker(enc, budget, overlap=..., boundaries=mode).chunks(text)``
for every size, budget, overlap setting (``0`` and ``budget // 4``) and mode.  Each cell is
the ratio chunk time / count time (count: a first call, nothing of the text cached, median of
three forked children, just before), with the chunk seconds in parentheses; a chunk run that passes
``--timeout`` CPU seconds is killed (``>T s``); a budget below one character's tokens is
refused (``refused``).  Each chunk run is a forked child of the process that loaded the
vocabulary (CPU time of the child, ``time.process_time``; the parent never counts or chunks
the text, so nothing of it is cached); its chunks are checked (each the
input's slice, counted exactly, within the budget, covering the input), ``NO`` if not.

    python benchmarks/bench_members_chunk.py --vocabs gpt2,qwen2 --sizes 100000 --budgets 16,256,8192
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpe_stream  # noqa: E402
from _families import family_text  # noqa: E402
from bpe_stream import Chunker  # noqa: E402
from bpe_stream.chunk.chunker import CharacterOverBudget  # noqa: E402

VOCABS = {"gpt2": "gpt2/tokenizer.json", "qwen2": "qwen2/tokenizer.json", "llama3": "llama3/tokenizer.json",
          "deepseek_v3": "deepseek_v3_layout/tokenizer.json"}
LONG_PIECE_FAMILIES = ["one random-letter word", "CJK without spaces", "random ASCII punctuation", "digits",
                       "spaces", "newlines", "NUL bytes"]


def _check(enc, text: str, chunks, budget: int, overlap: int) -> bool:
    seen = enc._text(text)
    if not chunks:
        return seen == ""
    if chunks[0].start != 0 or chunks[-1].end != len(seen):
        return False
    step = max(1, len(chunks) // 200)
    for i, c in enumerate(chunks):
        if seen[c.start : c.end] != c.text or c.token_count > budget:
            return False
        if i % step == 0 and c.token_count != enc.count(c.text):
            return False
        if i and not (chunks[i - 1].start < c.start <= chunks[i - 1].end < c.end
                      and (overlap or c.start == chunks[i - 1].end)):
            return False
    return True


def _child(conn, enc, text, budget, overlap, mode):
    t0 = time.process_time()
    try:
        chunks = Chunker(enc, budget, overlap=overlap, boundaries=mode).chunks(text)
    except CharacterOverBudget:
        conn.send(("refused", time.process_time() - t0, True, 0))
        return
    dt = time.process_time() - t0
    conn.send(("ok", dt, _check(enc, text, chunks, budget, overlap), len(chunks)))


def _count_child(conn, enc, text):
    t0 = time.process_time()
    enc.count(text)
    conn.send(time.process_time() - t0)


def _count_cell(enc, text) -> float:
    """``enc.count(text)`` as a first call (a forked child: nothing of the text cached)."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_count_child, args=(child, enc, text))
    p.start()
    child.close()
    dt = parent.recv()
    p.join()
    return dt


def _chunk_cell(enc, text, budget, overlap, mode, timeout):
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(child, enc, text, budget, overlap, mode))
    p.start()
    child.close()
    if parent.poll(timeout * 1.5 + 5):  # wall-clock guard for a CPU-time limit on a shared machine
        result = parent.recv()
        p.join()
        return result
    p.kill()
    p.join()
    return ("timeout", timeout, True, 0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocabs", default=",".join(VOCABS))
    ap.add_argument("--cache", default=os.environ.get("BPE_STREAM_TEST_VOCABS", "/tmp/testvocabs"))
    ap.add_argument("--families", default=",".join(LONG_PIECE_FAMILIES + ["prose"]))
    ap.add_argument("--sizes", default="100000")
    ap.add_argument("--budgets", default="16,256,8192")
    ap.add_argument("--overlaps", default="0,quarter", help="0, quarter (budget // 4) or both")
    ap.add_argument("--modes", default="semantic,exact")
    ap.add_argument("--timeout", type=float, default=30.0)
    args = ap.parse_args()
    families = [f for f in args.families.split(",") if f]
    print(f"load average at start: {os.getloadavg()[0]:.1f}; git {os.popen('git rev-parse --short HEAD').read().strip()}")
    print()
    print("| vocab | family | bytes | count s | budget | overlap | mode | chunk / count (chunk s) | chunks | checked |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for vocab in args.vocabs.split(","):
        path = Path(args.cache) / VOCABS[vocab]
        if not path.exists():
            print(f"| {vocab} | (missing: {path}) |||||||||")
            continue
        enc = bpe_stream.load(path)
        for family in families:
            for size in map(int, args.sizes.split(",")):
                text = family_text(family, size)
                tc = statistics.median(_count_cell(enc, text) for _ in range(3))
                for budget in map(int, args.budgets.split(",")):
                    for ov in args.overlaps.split(","):
                        overlap = budget // 4 if ov == "quarter" else int(ov)
                        for mode in args.modes.split(","):
                            status, dt, ok, n = _chunk_cell(enc, text, budget, overlap, mode, args.timeout)
                            if status == "timeout":
                                cell = f">{args.timeout:.0f} s"
                            elif status == "refused":
                                cell = f"refused ({dt:.3f})"
                            else:
                                cell = f"{dt / max(tc, 1e-9):.1f} ({dt:.3f})"
                            print(f"| {vocab} | {family} | {size} | {tc:.4f} | {budget} | {overlap} | {mode} | {cell} "
                                  f"| {n} | {'yes' if ok else 'NO'} |", flush=True)
    print()
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
