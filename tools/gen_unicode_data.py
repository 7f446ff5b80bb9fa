"""Generate ``src/bpe_stream/_unicode_data.py``: the Unicode classes of the
reference regex engines.

The pre-split must classify characters exactly as the model's own tokenizer does:
tiktoken's Rust ``regex`` for tiktoken vocabularies, Oniguruma inside HF ``tokenizers``
for ``tokenizer.json`` files.  Neither exposes its tables, so this script *asks* them:
for every general category (and ``\\s``) it runs the engine on a text holding every
code point once and keeps what matched.

* tiktoken: an ``Encoding`` whose pattern is the class alone and whose ranks are the
  256 single bytes; ``encode_ordinary`` keeps only matched text, so decoding the
  tokens gives the members.
* HF tokenizers: a ``Split`` pre-tokenizer on the complement class with behaviour
  ``removed``; the pieces left are the runs of members.

The two must agree (the script stops if they do not: then each engine needs a table
of its own).  Run it when tiktoken or tokenizers move to a new Unicode version, and
give that version::

    python tools/gen_unicode_data.py --unicode-version 16.0.0

The output lists, per general category, the ranges of code points in it (unassigned
code points, ``Cn``, are those in none), and the ``White_Space`` characters.
"""

from __future__ import annotations

import argparse
import sys
from array import array
from pathlib import Path

GENERAL_CATEGORIES = (
    "Lu Ll Lt Lm Lo Mn Mc Me Nd Nl No Pc Pd Ps Pe Pi Pf Po "
    "Sm Sc Sk So Zs Zl Zp Cc Cf Co"
).split()
OUT = Path(__file__).resolve().parents[1] / "src" / "bpe_stream" / "_unicode_data.py"


def all_code_points() -> str:
    a = array("I", range(0xD800))
    a.extend(range(0xE000, 0x110000))
    return a.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")


def tiktoken_members(text: str, cls: str) -> set[int]:
    import tiktoken

    ranks = {bytes([i]): i for i in range(256)}
    enc = tiktoken.Encoding("probe", pat_str=cls, mergeable_ranks=ranks, special_tokens={})
    return set(map(ord, enc.decode_bytes(enc.encode_ordinary(text)).decode("utf-8")))


def hf_members(text: str, complement: str) -> set[int]:
    from tokenizers import Regex, pre_tokenizers

    split = pre_tokenizers.Split(Regex(complement + "+"), behavior="removed")
    return set(map(ord, "".join(piece for piece, _ in split.pre_tokenize_str(text))))


def ranges(members: set[int]) -> str:
    out = []
    cps = sorted(members)
    i = 0
    while i < len(cps):
        j = i
        while j + 1 < len(cps) and cps[j + 1] == cps[j] + 1:
            j += 1
        out.append(f"{cps[i]:X}" if i == j else f"{cps[i]:X}-{cps[j]:X}")
        i = j + 1
    return ",".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--unicode-version", required=True, help="the engines' Unicode version, e.g. 16.0.0")
    ap.add_argument("-o", "--output", type=Path, default=OUT)
    args = ap.parse_args()
    import tiktoken
    import tokenizers

    text = all_code_points()
    table: dict[str, str] = {}
    seen: set[int] = set()
    for gc in GENERAL_CATEGORIES + ["White_Space"]:
        cls, complement = (r"\s", r"\S") if gc == "White_Space" else (rf"\p{{{gc}}}", rf"\P{{{gc}}}")
        tk = tiktoken_members(text, cls)
        hf = hf_members(text, complement)
        if tk != hf:
            diff = sorted(tk ^ hf)
            sys.exit(f"{gc}: tiktoken and tokenizers disagree on {len(diff)} code points, "
                     f"first U+{diff[0]:04X}; each engine needs its own table")
        if gc != "White_Space":
            if tk & seen:
                sys.exit(f"{gc} overlaps another category")
            seen |= tk
        table[gc] = ranges(tk)
    lines = [
        '"""Unicode classes of the reference regex engines (generated; do not edit).',
        "",
        f"Made by ``tools/gen_unicode_data.py`` from tiktoken {tiktoken.__version__} and",
        f"tokenizers {tokenizers.__version__}, which agree on every code point.  Per general",
        "category, comma-separated hexadecimal ranges; code points in no category are",
        'unassigned (``Cn``).  ``White_Space`` is the set of ``\\\\s``."""',
        "",
        f'UNICODE_VERSION = "{args.unicode_version}"',
        "",
        "RANGES = {",
    ]
    for key, value in table.items():
        lines.append(f'    "{key}": (')
        for k in range(0, len(value), 88):
            lines.append(f'        "{value[k:k + 88]}"')
        lines.append("    ),")
    lines.append("}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text("\n".join(lines) + "\n", encoding="ascii")
    print(f"wrote {args.output} ({args.output.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
