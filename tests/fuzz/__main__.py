"""``python -m tests.fuzz --cases N --seed S``: the differential fuzzer from the command line.

Prints a progress line every 500 cases and ``DONE cases=N seed=S`` at the end; on a failure,
the seed, the case, the text and the command that runs that case alone, with exit status 1.
"""

from __future__ import annotations

import argparse
import sys
import time

from . import ENCODING_NAMES, FAMILIES, HF_VOCABULARIES, FuzzFailure, VocabularyUnavailable, hf_pair, run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="first case number (to rerun one case)")
    ap.add_argument("--family", choices=sorted(FAMILIES), default=None, help="only this generator family")
    ap.add_argument("--encodings", default=",".join(ENCODING_NAMES), help="tiktoken's encodings as the oracle")
    ap.add_argument("--vocabularies", default=",".join(HF_VOCABULARIES),
                    help="real vocabularies with HF tokenizers as the oracle (those the cache lacks are skipped)")
    args = ap.parse_args(argv)
    vocabularies = []
    for path in filter(None, args.vocabularies.split(",")):
        try:
            hf_pair(path)
            vocabularies.append(path)
        except VocabularyUnavailable as e:
            print(f"SKIP {path}: {e}", flush=True)
    t0 = time.time()

    def progress(done: int) -> None:
        print(f"{done} cases, {time.time() - t0:.0f} s", flush=True)

    try:
        run(args.cases, args.seed, args.start, args.family, tuple(filter(None, args.encodings.split(","))), progress,
            tuple(vocabularies))
    except FuzzFailure as e:
        print(f"FAIL {e}", flush=True)
        return 1
    print(f"DONE cases={args.cases} seed={args.seed} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
