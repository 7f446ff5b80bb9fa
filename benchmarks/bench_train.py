"""Training benchmark: bpe_stream.train beside the naive reference and Hugging Face `tokenizers`.

Usage (from the repository root)::

    PYTHONPATH=src python benchmarks/bench_train.py [--naive-max-vocab N] [--skip-10mb] [--out FILE]

Part 1 -- ../shared/corpora/taylorswift.txt, vocab 512, 1000 and 10000, with no
pattern and with the GPT-4 (cl100k_base) pattern, min_frequency=1 so that every
run can reach the requested size.  Columns, all wall-clock seconds from one
benchmark run (bpe_stream and HF: median of 3 when a run takes under 5 s;
naive: one run, and its merges are checked equal to bpe_stream's):

* ``learn_merges``: bpe_stream's trainer alone (the merge list);
* ``train()``: the public call, i.e. the trainer plus building the Encoding
  (the on-disk table cache is disabled, but built tables are memoized in
  process, so repeats after the first mostly time the trainer);
* ``naive``: tests/reference_training.py (recounts every pair after every merge);
* ``HF``: ``tokenizers`` BpeTrainer, byte-level (ByteLevel alphabet as the initial
  alphabet, same vocab size, min_frequency=1 -- its own tie rule, so its merges
  differ); without a pattern the whole file is one word (ByteLevel with
  use_regex=False), with a pattern a Split pre-tokenizer with the same regex.
  HF runs on all cores (rayon); bpe_stream is single-threaded.

Part 2 -- 10 MB of text (all corpora joined, repeated to 10 MB) written to a
temporary file, cl100k_base pattern, vocab 10000, min_frequency=2: bpe_stream
streams the file in blocks (as ``bpe-stream train`` does) and HF trains with
``Tokenizer.train([file])``; each runs in a fresh subprocess, and the peak
resident memory (VmHWM) of that subprocess is reported beside the baseline
of a subprocess that only imports the library.

The target on this machine: taylorswift, 10K vocab, no pattern, under 3 s; with
a pattern, within 5x of the Hugging Face trainer.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))
os.environ["BPE_STREAM_CACHE_DIR"] = ""  # time the full Encoding build, not a cache hit

VOCAB_SIZES = (512, 1000, 10000)


def seconds(fn, repeat: int = 1) -> tuple[float, object]:
    """Wall-clock seconds of ``fn()``: the median of ``repeat`` runs if the first is under 5 s."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
        if times[0] >= 5:
            break
    return sorted(times)[len(times) // 2], result


def hf_train(texts, vocab_size: int, pat_str: str | None, min_frequency: int, files=None):
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    if pat_str is None:
        tokenizer.pre_tokenizer = byte_level
    else:
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.Split(Regex(pat_str), behavior="isolated"), byte_level]
        )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
        special_tokens=[],
    )
    if files is not None:
        tokenizer.train(files, trainer=trainer)
    else:
        tokenizer.train_from_iterator(texts, trainer=trainer)
    return tokenizer.get_vocab_size()


def part1(naive_max_vocab: int) -> list[str]:
    from reference_training import reference_merges

    from bpe_stream.pretokenize.patterns import PATTERNS
    from bpe_stream.training.trainer import learn_merges, train

    text = (CORPORA / "taylorswift.txt").read_text(encoding="utf-8")
    rows = [
        "| pattern | vocab | merges | bpe_stream learn_merges (s) | bpe_stream train() (s) "
        "| naive reference (s) | HF tokenizers (s) | HF vocab | learn_merges / HF |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for pattern_name in (None, "cl100k_base"):
        pat_str = PATTERNS[pattern_name] if pattern_name else None
        for vocab in VOCAB_SIZES:
            t_merges, merges = seconds(
                lambda: learn_merges(text, vocab, pattern=pattern_name, min_frequency=1), 3
            )
            t_train, _ = seconds(
                lambda: train(text, vocab, pattern=pattern_name, min_frequency=1), 3
            )
            if vocab <= naive_max_vocab:
                t_naive, naive = seconds(
                    lambda: reference_merges(text, vocab, pattern=pat_str, min_frequency=1)
                )
                assert naive == merges, "naive reference and bpe_stream disagree"
                naive_cell = f"{t_naive:.2f}"
            else:
                naive_cell = "not run"
            t_hf, hf_vocab = seconds(lambda: hf_train([text], vocab, pat_str, 1), 3)
            row = (
                f"| {pattern_name or 'none'} | {vocab} | {len(merges)} | {t_merges:.3f} "
                f"| {t_train:.3f} | {naive_cell} | {t_hf:.3f} | {hf_vocab} | {t_merges / t_hf:.2f}x |"
            )
            print(row, flush=True)
            rows.append(row)
    return rows


_CHILD_OURS = """
import sys, time
sys.path.insert(0, {src!r})
def peak_kb():  # VmHWM is reset by exec, unlike ru_maxrss
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
from bpe_stream.training.trainer import learn_merges
from bpe_stream.cli.train import read_documents
if sys.argv[1] == "run":
    t = time.perf_counter()
    merges = learn_merges(read_documents([{path!r}], streamable=True), 10000,
                          pattern="cl100k_base", min_frequency=2)
    print(time.perf_counter() - t, len(merges), peak_kb())
else:
    print(0, 0, peak_kb())
"""

_CHILD_HF = """
import sys, time
sys.path.insert(0, {bench!r})
def peak_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
import tokenizers
from bench_train import hf_train
from bpe_stream.pretokenize.patterns import PATTERNS
if sys.argv[1] == "run":
    t = time.perf_counter()
    n = hf_train(None, 10000, PATTERNS["cl100k_base"], 2, files=[{path!r}])
    print(time.perf_counter() - t, n, peak_kb())
else:
    print(0, 0, peak_kb())
"""


def part2() -> list[str]:
    names = sorted(p for p in CORPORA.glob("*") if p.suffix in (".txt", ".md") and p.name != "MANIFEST.md")
    joined = "\n".join(p.read_text(encoding="utf-8") for p in names)
    target = 10_000_000
    data = (joined * (target // len(joined.encode("utf-8")) + 1)).encode("utf-8")[:target]
    data = data.decode("utf-8", errors="ignore").encode("utf-8")  # do not end mid-character
    rows = [
        "| trainer | input | pattern | vocab reached | seconds | peak RSS (MB) | baseline RSS (MB) |",
        "|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "corpus10mb.txt")
        with open(path, "wb") as f:
            f.write(data)
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        for label, template in (("bpe_stream (streamed blocks)", _CHILD_OURS), ("HF tokenizers", _CHILD_HF)):
            code = template.format(src=str(ROOT / "src"), path=path, bench=str(Path(__file__).parent))
            results = {}
            for mode in ("base", "run"):
                out = subprocess.run(
                    [sys.executable, "-c", code, mode], env=env, capture_output=True, text=True,
                    check=True,
                )
                results[mode] = out.stdout.split()
            t, n, rss = results["run"]
            base_rss = results["base"][2]
            row = (
                f"| {label} | {len(data) / 1e6:.1f} MB, {len(names)} corpora joined and repeated "
                f"| cl100k_base | {256 + int(n) if 'bpe' in label else n} | {float(t):.2f} "
                f"| {int(rss) / 1024:.0f} | {int(base_rss) / 1024:.0f} |"
            )
            print(row, flush=True)
            rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--naive-max-vocab", type=int, default=10000,
                        help="run the naive reference only up to this vocab size (default: all)")
    parser.add_argument("--skip-10mb", action="store_true")
    parser.add_argument("--out", type=Path, default=None, help="also write the tables here")
    args = parser.parse_args()
    import tokenizers

    header = [
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"tokenizers {tokenizers.__version__}",
        "",
    ]
    rows = part1(args.naive_max_vocab)
    if not args.skip_10mb:
        rows += [""] + part2()
    if args.out:
        args.out.write_text("\n".join(header + rows) + "\n")


if __name__ == "__main__":
    main()
