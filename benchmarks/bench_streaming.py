"""Streaming benchmarks: appending, interval counts, exact cuts.

Run: python benchmarks/bench_streaming.py [--size 100000] [--repeat 3]
Prints a Markdown table.  Every timing is the minimum of ``--repeat`` runs (the machine
is shared; the load average is printed at start and end).  tiktoken is the baseline
(built from the bundled ranks).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

import tiktoken

import bpe_stream
from bpe_stream.stream.appendable import AppendableEncoder
from bpe_stream.stream.interval import IntervalCounter
from bpe_stream.stream.prependable import PrependableEncoder

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def oracle(enc):
    return tiktoken.Encoding(enc.name + "_bench", pat_str=enc.pat_str, mergeable_ranks=enc.bpe.ranks, special_tokens={})


def best_of(repeat, fn):
    """Minimum wall time of ``repeat`` calls of ``fn()`` and the last result."""
    best = float("inf")
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-adversarial", action="store_true")
    args = ap.parse_args()
    R = args.repeat
    text = (CORPORA / "tinyshakespeare.txt").read_text()
    rows = []
    print(f"load average at start: {os.getloadavg()}")
    for name in ("cl100k_base", "o200k_base"):
        enc = bpe_stream.get_encoding(name)
        tt = oracle(enc)
        t = text[: args.size]
        data = t.encode()
        AppendableEncoder(enc.bpe)  # build the reversed-token tables once, outside the timings

        # raw BPE, one byte at a time, count read after every append
        def raw_append():
            ae = AppendableEncoder(enc.bpe)
            for i in range(len(data)):
                ae.append(data[i : i + 1])
                ae.token_count
            return ae

        dt, ae = best_of(R, raw_append)
        assert ae.token_count == enc.bpe.count(data)
        rows.append((name, f"append raw BPE, 1 byte at a time (+ token_count), {len(data)} B", f"{dt:.2f} s", f"{dt / len(data) * 1e6:.2f} us/byte"))

        # pre-split, one character at a time, count read after every append
        for corpus, label in (("tinyshakespeare.txt", "prose"), ("code_python_black.py.txt", "code"), ("multilingual_sentences.txt", "multilingual")):
            tc = t if label == "prose" else (CORPORA / corpus).read_text()[: args.size]

            def text_append(tc=tc):
                ae = AppendableEncoder(enc)
                for ch in tc:
                    ae.append(ch)
                    ae.token_count
                return ae

            dt, ae = best_of(R, text_append)
            assert ae.token_count == len(tt.encode_ordinary(tc))
            rows.append((name, f"append with pre-split, 1 char at a time (+ token_count), {len(tc)} chars of {label}", f"{dt:.2f} s", f"{dt / len(tc) * 1e6:.2f} us/char"))
        # tiktoken recount after each append: measured on the first 5,000 chars, extrapolated (quadratic)
        m = 5000
        t0 = time.perf_counter()
        for k in range(1, m + 1):
            tt.encode_ordinary(t[:k])
        dtm = time.perf_counter() - t0
        est = dtm * (len(t) / m) ** 2
        rows.append((name, f"tiktoken re-count after each append: measured to {m} chars", f"{dtm:.2f} s", f"extrapolated to {len(t)} chars: ~{est:.0f} s (quadratic)"))
        # intervals
        build, ic = best_of(R, lambda: IntervalCounter(enc, t))
        build_raw, ib = best_of(R, lambda: IntervalCounter(enc.bpe, data))
        rows.append((name, "interval index build (pre-split / raw)", f"{build / len(data) * 1e6:.2f} / {build_raw / len(data) * 1e6:.2f} s per MB",
                     f"memory: pre-split {ic.memory_bytes() / len(data):.1f}, raw {ib.memory_bytes() / len(data):.1f} B per input byte"))
        rng = random.Random(1)
        for length in (10, 100, 1000, 10000):
            qs = [(i, i + length) for i in (rng.randrange(len(t) - length) for _ in range(2000))]
            qb = [(i, i + length) for i in (rng.randrange(len(data) - length) for _ in range(2000))]

            def run_text(qs=qs):
                for i, j in qs:
                    ic.count(i, j)

            def run_raw(qb=qb):
                for i, j in qb:
                    ib.count(i, j)

            run_text()  # first pass fills the piece cache with the new suffix/prefix pieces
            dq = best_of(R, run_text)[0] / len(qs) * 1e6
            dqb = best_of(R, run_raw)[0] / len(qb) * 1e6

            def run_tt(qs=qs):
                for i, j in qs[:500]:
                    tt.encode_ordinary(t[i:j])

            dtt = best_of(R, run_tt)[0] / 500 * 1e6
            rows.append((name, f"interval query, range {length}", f"pre-split {dq:.1f} us, raw {dqb:.1f} us", f"tiktoken slice {dtt:.1f} us"))
        # cuts on 1 MB
        big = text[:1_000_000]
        d3 = best_of(R, lambda: tt.encode_ordinary(big))[0]
        for budget in (512, 8192):
            d1 = best_of(R, lambda: enc.split_at(big, budget))[0]
            d2 = best_of(R, lambda: enc.truncate_start(big, budget))[0]
            rows.append((name, f"split_at / truncate_start on 1 MB, budget {budget}", f"{d1 * 1e3:.1f} ms / {d2 * 1e3:.1f} ms", f"tiktoken whole text {d3 * 1e3:.0f} ms"))
        if not args.skip_adversarial:
            # single pieces and runs with no early stop: linear, not quadratic
            for label, adv in (("one 100K-char word", "x" * 100_000), ("100K spaces", " " * 100_000),
                               ("100K alternating space/newline", " \n" * 50_000), ("100K digits", "7" * 100_000),
                               ("50K CJK chars", "中" * 50_000)):
                d1 = best_of(1, lambda: enc.split_at(adv, 512))[0]
                d2 = best_of(1, lambda: enc.truncate_start(adv, 512))[0]

                def adv_append(adv=adv):
                    ae = AppendableEncoder(enc)
                    for ch in adv[:20_000]:
                        ae.append(ch)
                    return ae

                d4 = best_of(1, adv_append)[0]
                def adv_prepend(adv=adv):
                    pe = PrependableEncoder(enc)
                    for ch in reversed(adv[:20_000]):
                        pe.prepend(ch)
                    return pe

                d5 = best_of(1, adv_prepend)[0]
                rows.append((name, f"adversarial: {label}, budget 512", f"split_at {d1 * 1e3:.0f} ms / truncate_start {d2 * 1e3:.0f} ms",
                             f"append / prepend 1 char at a time: {d4 / 20_000 * 1e6:.1f} / {d5 / 20_000 * 1e6:.1f} us/char (first 20K)"))
            # cuts inside one huge piece / run of 1M characters: cost bounded by the kept part plus
            # max_tokens * max_token_len bytes of look-ahead, independent of the run's length
            rng = random.Random(2)
            huge = {"1M spaces": " " * 1_000_000, "1M 'x'": "x" * 1_000_000, "1M '!'": "!" * 1_000_000,
                    "1M digits": "7" * 1_000_000, "1M random letters": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(1_000_000)),
                    "1M '\\n \\n'": "\n \n " * 250_000, "1M 'é'": "é" * 1_000_000, "1M CRLF": "\r\n" * 500_000,
                    "1M emoji ZWJ": "👨\u200d👩\u200d👧" * 200_000}
            for label, adv in huge.items():
                d1 = best_of(R, lambda: enc.split_at(adv, 10))[0]
                d2 = best_of(R, lambda: enc.truncate_start(adv, 10))[0]
                d3 = best_of(1, lambda: enc.split_at(adv, 512))[0]
                d6 = best_of(1, lambda: enc.truncate_start(adv, 512))[0]
                rows.append((name, f"adversarial: {label}, split_at / truncate_start", f"budget 10: {d1 * 1e3:.1f} / {d2 * 1e3:.1f} ms",
                             f"budget 512: {d3 * 1e3:.0f} / {d6 * 1e3:.0f} ms"))
            # raw runs: table pass and byte-at-a-time appends (periodic shortcut)
            sp = b" " * 100_000
            d1 = best_of(R, lambda: IntervalCounter(enc.bpe, sp))[0]

            def sp_append():
                ae = AppendableEncoder(enc.bpe)
                for i in range(len(sp)):
                    ae.append(sp[i : i + 1])
                return ae

            d2 = best_of(R, sp_append)[0]
            rows.append((name, "adversarial: 100 KB of spaces, raw", f"interval build {d1 / len(sp) * 1e6:.2f} us/B",
                         f"append 1 byte at a time {d2 / len(sp) * 1e6:.2f} us/B"))
            for label, unit in (("' '", " "), ("'!'", "!"), ("'1'", "1"), ("' \\n'", " \n")):
                def run_prepend(unit=unit):
                    pe = PrependableEncoder(enc)
                    pe.prepend("x.")
                    for _ in range(200_000 // len(unit)):
                        pe.prepend(unit)
                    return pe

                d = best_of(1, run_prepend)[0]
                rows.append((name, f"adversarial: prepend {label} 200K chars one unit at a time", f"{d:.2f} s", f"{d / 200_000 * 1e6:.1f} us/char"))
            pe = PrependableEncoder(enc)
            pe.prepend("x.")
            pe.prepend("7" * 200_000)

            def drop_front(pe=pe):
                for _ in range(100_000):
                    pe.truncate(len(pe) - 1)

            d = best_of(1, drop_front)[0]
            rows.append((name, "adversarial: truncate 100K times by 1 char at the front of a 200K-digit run", f"{d:.2f} s", f"{d / 100_000 * 1e6:.1f} us/truncate"))
            # Multi-character edits inside one long piece (long_pieces.py): the cost per edit
            # must not grow with the piece.  One untimed edit first (it may merge the front).
            for label, unit in (("'A中'", "A中"), ("\"!'\"", "!'"), ("'/\\n'", "/\n"), ("'中\\u0301'", "中\u0301"),
                                ("'\\r\\n \\t'", "\r\n \t"), ("'a\\u0301'", "a\u0301")):
                per = []
                for size in (20_000, 200_000):
                    body = (unit * (size // len(unit) + 1))[:size]

                    def edits(make, grow, body=body, unit=unit, size=size):
                        st = make(enc)
                        grow(st, body)
                        grow(st, unit + unit[0])
                        st.truncate(size - 1)
                        t0 = time.thread_time()
                        for k in range(200):
                            grow(st, unit + unit[0])
                            st.truncate(size - 1 - k % 3)
                        return (time.thread_time() - t0) / 200 * 1e6

                    per.append((edits(AppendableEncoder, AppendableEncoder.append),
                                edits(PrependableEncoder, PrependableEncoder.prepend)))
                rows.append((name, f"adversarial: edit inside one long piece of {label} (3 chars added, then truncated)",
                             f"append+truncate {per[0][0]:.0f} / {per[1][0]:.0f} us at 20K / 200K chars",
                             f"prepend+truncate {per[0][1]:.0f} / {per[1][1]:.0f} us at 20K / 200K chars"))
    print("| encoding | measurement | result | comparison |")
    print("|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
