"""Chunking against counting for the members beyond cl100k/o200k, on real vocabularies.

The chunker's promise is to cost about what counting costs, on every input, linearly.  For
each vocabulary (``--vocabs``: names of the test cache's tokenizer.json files, GPT-2, Qwen2,
Llama 3, DeepSeek-V3's layout, or paths of vocabulary files: tokenizer.json, GGUF, Tekken,
.tiktoken) and each family of ``_families.py`` (``--families``), this measures
``enc.count(text)`` and ``Chunker(enc, budget, overlap=..., boundaries=mode).chunks(text)``
for every size and budget.  A cell is the ratio chunk time / count time (count: a first
call, nothing of the text cached), with the chunk seconds in parentheses; a run that passes
``--timeout`` CPU seconds is killed (``>T s``).  Two kinds of table:

``--kind long`` (results_members_chunk.md: the long one-piece runs) for every overlap
setting (``0`` and ``budget // 4``) and mode; count the median of three forked children,
just before.  Each chunk run is a forked child of the process that loaded the vocabulary
(CPU time of the child, ``time.process_time``; the parent never counts or chunks the text,
so nothing of it is cached); its chunks are checked (each the input's slice, counted
exactly, within the budget, covering the input), ``NO`` if not; a budget below one
character's tokens is refused (``refused``).

``--kind short`` (results_members_short.md: the runs of many short pieces: whitespace,
emoji, base64, corpora) without and with overlap (budget // 4), ``boundaries="exact"``,
count and chunk in the same process (a fresh process per family and size; chunk time the
median of ``--repeat`` runs after the count, a run repeating the call until it has taken
50 ms, so that 10 KB texts are timed above the clock's resolution).  With ``--base SRC``
the same cells run on another source tree (its ``src`` directory, compiled core built in
place) in alternation with this one, for an A/B in one sitting.

    python benchmarks/bench_members_chunk.py --vocabs gpt2,qwen2 --sizes 100000 --budgets 16,256,8192
    python benchmarks/bench_members_chunk.py --kind short --vocabs qwen2 \\
        --families "NUL bytes,emoji with ZWJ sequences" --sizes 10000,100000 --budgets 16,256
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
VOCABS = {"gpt2": "gpt2/tokenizer.json", "qwen2": "qwen2/tokenizer.json", "llama3": "llama3/tokenizer.json",
          "deepseek_v3": "deepseek_v3_layout/tokenizer.json"}
LONG_PIECE_FAMILIES = ["one random-letter word", "CJK without spaces", "random ASCII punctuation", "digits",
                       "spaces", "newlines", "NUL bytes"]
SHORT_PIECE_FAMILIES = ["NUL bytes", "emoji with ZWJ sequences", "base64", "'a\\u0301' repeated", "spaces", "newlines",
                        "tabs and mixed whitespace", "prose", "code", "multilingual"]
# per kind: families, sizes, timeout (CPU seconds)
DEFAULTS = {"long": (LONG_PIECE_FAMILIES + ["prose"], "100000", 30),
            "short": (SHORT_PIECE_FAMILIES, "10000,100000,1000000", 60)}


def _import_tree():
    """bpe_stream, Chunker, CharacterOverBudget and family_text of this tree (the short
    kind's children import the tree their PYTHONPATH names instead)."""
    sys.path.insert(0, str(HERE))
    from _families import family_text

    import bpe_stream
    from bpe_stream import Chunker
    from bpe_stream.chunk.chunker import CharacterOverBudget

    return bpe_stream, Chunker, CharacterOverBudget, family_text


# ------------------------------------------------------------ --kind long: forked cells
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
    _, Chunker, CharacterOverBudget, _ = _import_tree()
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


def run_long(a, vocabs: list[tuple[str, Path]]) -> None:
    sys.path.insert(0, str(SRC))
    bpe_stream, _, _, family_text = _import_tree()
    print(f"load average at start: {os.getloadavg()[0]:.1f}; git {os.popen('git rev-parse --short HEAD').read().strip()}")
    print()
    print("| vocab | family | bytes | count s | budget | overlap | mode | chunk / count (chunk s) | chunks | checked |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, path in vocabs:
        if not path.exists():
            print(f"| {name} | (missing: {path}) |||||||||")
            continue
        enc = bpe_stream.load(path)
        for family in a.families.split(","):
            for size in map(int, a.sizes.split(",")):
                text = family_text(family, size)
                tc = statistics.median(_count_cell(enc, text) for _ in range(3))
                for budget in map(int, a.budgets.split(",")):
                    for ov in a.overlaps.split(","):
                        overlap = budget // 4 if ov == "quarter" else int(ov)
                        for mode in a.modes.split(","):
                            status, dt, ok, n = _chunk_cell(enc, text, budget, overlap, mode, a.timeout)
                            if status == "timeout":
                                cell = f">{a.timeout:.0f} s"
                            elif status == "refused":
                                cell = f"refused ({dt:.3f})"
                            else:
                                cell = f"{dt / max(tc, 1e-9):.1f} ({dt:.3f})"
                            print(f"| {name} | {family} | {size} | {tc:.4f} | {budget} | {overlap} | {mode} | {cell} "
                                  f"| {n} | {'yes' if ok else 'NO'} |", flush=True)
    print()
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


# ------------------------------------------------------------ --kind short: a process per cell
def short_cell(vocab: str, family: str, size: int, budgets: list[int], repeat: int) -> dict:
    """In the child: count and chunk times (medians) of one family text, every budget."""
    bpe_stream, Chunker, _, family_text = _import_tree()
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


def _run_child(src: str, vocab: str, family: str, size: int, budgets: list[int], repeat: int, timeout: int):
    env = dict(os.environ, PYTHONPATH=src)
    args = [sys.executable, __file__, "--child", json.dumps([vocab, family, size, budgets, repeat, timeout])]
    p = subprocess.run(args, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        return None  # killed at the CPU limit (or failed: stderr below)
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_short(a, vocabs: list[tuple[str, Path]]) -> None:
    budgets = [int(b) for b in a.budgets.split(",")]
    timeout = int(a.timeout)
    trees = [("new", str(SRC))] + ([("base", a.base)] if a.base else [])
    cols = [f"{b}/{b // 4}" if o else f"{b}" for b in budgets for o in (0, 1)]
    keys = [f"{b}/{o}" for b in budgets for o in (0, b // 4)]
    for _, vocab in vocabs:
        lines = [f"vocabulary `{vocab.parent.name}/{vocab.name}`; load average at start "
                 f"{os.getloadavg()[0]:.1f}", "",
                 "| family | size | tree | count s | " + " | ".join(f"budget {c}" for c in cols) + " |",
                 "|---|---|---|---|" + "---|" * len(cols)]
        print("\n".join(lines), flush=True)
        for family in a.families.split(","):
            for size in (int(s) for s in a.sizes.split(",")):
                for name, src in trees:
                    r = _run_child(src, str(vocab), family, size, budgets, a.repeat, timeout)
                    if r is None:
                        row = f"| {family} | {size} | {name} | — | " + " | ".join(f">{timeout} s" for _ in keys) + " |"
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


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        vocab, family, size, budgets, repeat, timeout = json.loads(sys.argv[2])
        resource.setrlimit(resource.RLIMIT_CPU, (timeout, timeout + 1))
        print(json.dumps(short_cell(vocab, family, size, budgets, repeat)))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=sorted(DEFAULTS), default="long")
    ap.add_argument("--vocabs", default=",".join(VOCABS), help="names of the test cache's files, or file paths")
    ap.add_argument("--cache", default=os.environ.get("BPE_STREAM_TEST_VOCABS", "/tmp/testvocabs"))
    ap.add_argument("--families")
    ap.add_argument("--sizes")
    ap.add_argument("--budgets", default="16,256,8192")
    ap.add_argument("--timeout", type=float, help="CPU seconds per chunk run (long) or per child (short)")
    ap.add_argument("--overlaps", default="0,quarter", help="long: 0, quarter (budget // 4) or both")
    ap.add_argument("--modes", default="semantic,exact", help="long: the boundaries modes")
    ap.add_argument("--repeat", type=int, default=3, help="short: timed runs per cell")
    ap.add_argument("--base", help="short: another tree's src directory: its cells beside these")
    ap.add_argument("--out", help="short: append the tables to this Markdown file")
    a = ap.parse_args()
    families, sizes, timeout = DEFAULTS[a.kind]
    a.families = a.families or ",".join(families)
    a.sizes = a.sizes or sizes
    a.timeout = timeout if a.timeout is None else a.timeout
    vocabs = [(v, Path(a.cache) / VOCABS[v] if v in VOCABS else Path(v)) for v in a.vocabs.split(",") if v]
    (run_long if a.kind == "long" else run_short)(a, vocabs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
