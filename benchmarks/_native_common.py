"""Helpers shared by the native-core benchmarks (bench_long_piece, bench_raw_bytes,
bench_first_run, bench_memory, bench_batch, bench_interval): peers built offline
from the bundled vocabularies, and a results writer.

Every peer is built from the same ranks as bpe-stream: tiktoken with
``tiktoken.Encoding(name, pat_str=..., mergeable_ranks=..., special_tokens=...)``,
tokie from a HuggingFace ``tokenizer.json`` written here (byte-level BPE whose merges
are the vocabulary's split tables in rank order, pre-split by the same pattern),
rs-bpe from its own bundled copies of cl100k/o200k.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tiktoken_encoding(name: str):
    import tiktoken

    from bpe_stream.bpe.ranks import parse_tiktoken
    from bpe_stream.encoding.registry import _BUNDLED, bundled_tiktoken_bytes
    from bpe_stream.pretokenize.patterns import PATTERNS

    return tiktoken.Encoding(
        name,
        pat_str=PATTERNS[name],
        mergeable_ranks=parse_tiktoken(bundled_tiktoken_bytes(name)),
        special_tokens=_BUNDLED[name]["special_tokens"],
    )


def rs_bpe_encoding(name: str):
    from rs_bpe.bpe import openai

    return getattr(openai, name)()


def _byte_level_alphabet() -> dict[int, str]:
    # GPT-2's bytes_to_unicode, as HF's ByteLevel pre-tokenizer uses it
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) + list(
        range(ord("\xae"), ord("\xff") + 1)
    )
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def tokie_tokenizer(name: str):
    """A tokie Tokenizer with the bundled vocabulary ``name`` (via tokenizer.json)."""
    import tokie

    from bpe_stream import get_encoding

    enc = get_encoding(name)
    bpe = enc.bpe
    alphabet = _byte_level_alphabet()

    def show(token: bytes) -> str:
        return "".join(alphabet[b] for b in token)

    vocab = {show(t): r for r, t in enumerate(bpe.tokens)}
    merges = [
        [show(bpe.tokens[bpe.split_left[r]]), show(bpe.tokens[bpe.split_right[r]])]
        for r in range(len(bpe))
        if len(bpe.tokens[r]) > 1
    ]
    spec = {
        "version": "1.0",
        "added_tokens": [
            {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for s, i in enc.special_tokens.items()
        ],
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": enc.pat_str}, "behavior": "Isolated", "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        },
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                  "ignore_merges": True, "vocab": vocab, "merges": merges},
    }
    path = Path(tempfile.mkdtemp()) / f"{name}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return tokie.Tokenizer.from_json(str(path))


def machine_line() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores (shared), Python {sys.version.split()[0]}"


def write_results(path: str | None, title: str, command: str, lines: list[str]) -> None:
    text = "\n".join([f"# {title}", "", f"Command: `{command}`", "", f"Machine: {machine_line()}", "", *lines, ""])
    print(text)
    if path:
        Path(path).write_text(text, encoding="utf-8")
