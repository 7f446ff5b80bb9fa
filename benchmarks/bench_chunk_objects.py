"""What one ``Chunk`` per token costs: exact chunking at budget 1 against its floor.

At budget 1 a text becomes one chunk per token, so the chunker cannot be cheaper than
building that many ``Chunk`` objects.  For each encoding this measures, in one process
(CPU time, ``time.thread_time``; median of ``--repeats``): ``enc.count(text)`` (first
call, then warm), ``Chunker(enc, 1, boundaries="exact").chunks(text)`` (first call),
and, from that run's cuts, the bare cost of the objects: the compiled ``make_chunks``
(the chunker's own builder) and the substrings alone.  Ratios are against the first
``count``.

    python benchmarks/bench_chunk_objects.py --family prose --size 1000000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bpe_stream  # noqa: E402
from _common import machine_info  # noqa: E402
from _families import family_text  # noqa: E402
from bpe_stream import Chunker  # noqa: E402
from bpe_stream.bpe.native import make_chunks  # noqa: E402
from bpe_stream.chunk.chunker import _CHUNK_FIELDS, Chunk  # noqa: E402


def _time(fn) -> float:
    t = time.thread_time()
    fn()
    return time.thread_time() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="prose")
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--encodings", default="cl100k_base,o200k_base")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    if make_chunks is None:
        sys.exit("needs the compiled core")
    text = family_text(args.family, args.size)
    print(f"{machine_info()}; {args.family}, {len(text.encode('utf-8')):,} bytes; CPU seconds, median of {args.repeats}")
    print()
    print("| encoding | chunks | count (first) | count (warm) | chunk, budget 1 | make_chunks alone | substrings alone |")
    print("|---|---|---|---|---|---|---|")
    for name in args.encodings.split(","):
        enc = bpe_stream.get_encoding(name)
        first = _time(lambda: enc.count(text))
        found = []
        chunk = _time(lambda: found.extend(Chunker(enc, 1, boundaries="exact").chunks(text)))
        cuts = []
        for c in found:
            cuts += [c.start, c.end, c.token_count]
        warm, objects, slices = [], [], []
        for _ in range(args.repeats):
            warm.append(_time(lambda: enc.count(text)))
            objects.append(_time(lambda: make_chunks(Chunk, _CHUNK_FIELDS, text, 0, cuts)))
            slices.append(_time(lambda: [text[cuts[i] : cuts[i + 1]] for i in range(0, len(cuts), 3)]))
        cells = [statistics.median(v) for v in (warm, objects, slices)]
        print(f"| {name} | {len(found):,} | {first:.3f} | {cells[0]:.3f} | {chunk:.3f} ({chunk / first:.1f}x) | "
              f"{cells[1]:.3f} ({cells[1] / first:.1f}x) | {cells[2]:.3f} ({cells[2] / first:.1f}x) |")


if __name__ == "__main__":
    main()
