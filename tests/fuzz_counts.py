"""Long random search for wrong counts in the streaming classes (not collected by pytest).

The property tests run for seconds in CI; this runs for as long as asked, against
``Encoding.count`` on the exact text after every step, and writes each failing sequence
of operations as a JSON line.

    python tests/fuzz_counts.py --cls pre --seconds 600 --seed 1
    python tests/fuzz_counts.py --cls pre --small --seconds 600 --seed 2

``--cls``: ``pre`` (PrependableEncoder: prepends, truncations, copies, pickles), ``app``
(AppendableEncoder, the same), ``int`` (IntervalCounter on random intervals), ``cuts``
(``split_at`` and ``truncate_start`` against the brute-force answers).  ``--small`` sets
the long-piece constants tiny (as the ``small_constants`` fixture does), so that the
machinery for long pieces acts on short texts.  The texts are runs of units (one repeated,
or a random mix of two or three, half of those in stretches of random length by random
weights) drawn from
characters whose pieces behave differently (punctuation, marks, spaces, CR, LF, tabs,
letters of each case, digits, CJK, apostrophes, slashes, emoji; ``--wide`` adds other
whitespace, a title-case letter, numbers that are not ASCII digits, ZWJ and more;
``--classes`` adds a character of every class of the two patterns and every contraction;
``--shifts`` the units of stretches whose split can shift phase).  With
``--cls app`` the invariant of the long-piece records is checked after every step too
(``_streaming_helpers.append_records_violations``).  Prints a progress line
every 5,000 cases and ``DONE cases=... steps=... fails=...`` at the end.
"""
import argparse
import json
import pickle
import random
import time
import traceback

p = argparse.ArgumentParser()
p.add_argument("--cls", required=True, choices=["pre", "app", "int", "cuts"])
p.add_argument("--small", action="store_true")
p.add_argument("--seed", type=int, default=0)
p.add_argument("--seconds", "--time", dest="time", type=float, default=600)
p.add_argument("--maxrun", type=int, default=200)
p.add_argument("--out", default=None)
p.add_argument("--enc", default="both")
p.add_argument("--nodig", action="store_true")
p.add_argument("--wide", action="store_true",
               help="add VT, LINE SEPARATOR, a title-case letter, non-ASCII digits, ZWJ, ... to the units")
p.add_argument("--classes", action="store_true",
               help="add bench_work_growth.py's CLASSES: a character of every class of the two "
                    "patterns in each UTF-8 length, and every contraction in three cases")
p.add_argument("--shifts", action="store_true",
               help="add bench_work_growth.py's SHIFTS: the units of stretches whose split can shift phase")
a = p.parse_args()

import bpe_stream

if a.small:
    import bpe_stream.pretokenize.long_pieces as long_pieces
    import bpe_stream.text.appendable as piece_stream
    from bpe_stream.stream.front.text_prependable import TextPrependable
    long_pieces._KEEP = 3; long_pieces._MIN_CUT = 1; piece_stream._LONG = 6
    TextPrependable._LONG = 6; TextPrependable._FETCH = 5
    import bpe_stream.text.intervals as interval
    interval._LONG = 6
from _streaming_helpers import append_records_violations

from bpe_stream import AppendableEncoder, IntervalCounter, PrependableEncoder

ENCS = {n: bpe_stream.get_encoding(n) for n in (["o200k_base", "cl100k_base"] if a.enc == "both" else [a.enc])}
ALPHA = ["!", "/", "\n", "\r\n", "\r", " ", "\t", "a", "A", "s", "'", "'s", "'ll", "'re", "'S", "1", "12",
         "\u0301", "a\u0301", "\u4e2d", "\u02b0", "?", ".", "x", "\u00e9", "\u00c9", "-", "_", "/\n", " \n",
         "Ab", "aB", "''", ".\n", " a", "\n\n", "\u0660", "\u00a0", "\u3000", "\u02b0a", "A\u0301", "<", "%",
         "\U0001F600", "\u4e2d\u0301", "ab", " '", "\t\n", "0"]
if a.wide:  # what bench_work_growth.py --alphabet wide adds and ALPHA lacks
    ALPHA += ["'LL", "'t", "\x0b", "\u2028", "\u01c5", "\u00bd", "\u0663", "123", "  ", "\u00df", "\u200d",
              "\ud55c", ")"]
if a.classes or a.shifts:
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks"))
    from bench_work_growth import CLASSES, SHIFTS
    ALPHA += [u for u in (CLASSES if a.classes else []) + (SHIFTS if a.shifts else []) if u not in ALPHA]
if a.nodig:
    ALPHA = [u for u in ALPHA if not any(c.isdigit() or c == "\u0660" for c in u)]
CHARS = sorted(set("".join(ALPHA)))

R = random.Random(a.seed)
out = open(a.out or f"fuzz_failures_{a.cls}_{'small' if a.small else 'default'}_{a.seed}.jsonl", "a")


def unit():
    if R.random() < 0.25:
        return "".join(R.choice(CHARS) for _ in range(R.randint(1, 3)))
    return R.choice(ALPHA)


def run(maxrun=None):
    m = maxrun or a.maxrun
    u = unit()
    k = R.choice([R.randint(1, 4), R.randint(1, 20), R.randint(1, m), R.randint(60, max(61, m)),
                  R.randint(60, 70) // len(u) + 1, R.randint(250, 262) // len(u) + 1])
    if R.random() < 0.15:  # a mixed run: not periodic (o200k contractions pair up along it)
        units = [u, unit()] + ([unit()] if R.random() < 0.5 else [])
        if R.random() < 0.5:  # nested: stretches of random length, by random weights
            weights, burst = [R.randint(1, 10) for _ in units], R.choice([1, 2, 4, 8, 16])
            return "".join(R.choices(units, weights)[0] * R.randint(1, burst) for _ in range(k))
        return "".join(R.choice(units) for _ in range(k))
    return u * k


def short():
    return "".join(R.choice(CHARS) for _ in range(R.randint(1, 3)))


def gentext():
    return "".join(run() for _ in range(R.randint(1, 6)))


def framed_text():
    """A generated text, half the time with short strings around it."""
    text = gentext()
    if R.random() < 0.5:
        text = short() + text + short()
    return text


def chunk():
    r = R.random()
    if r < 0.45:
        return short()
    if r < 0.85:
        return run()
    return gentext()


nfail = 0
ncases = 0
nsteps = 0


def report(kind, encname, ops, got, exp, extra=None):
    global nfail
    nfail += 1
    rec = {"cls": kind, "enc": encname, "small": a.small, "ops": ops, "got": got, "exp": exp, "extra": extra}
    out.write(json.dumps(rec) + "\n"); out.flush()


def fuzz_stream(encname, enc, cls):
    pre = cls == "pre"
    C = PrependableEncoder if pre else AppendableEncoder
    obj = C(enc)
    text = ""
    ops = []
    saved = None  # (obj, text)
    try:
        _fuzz_stream_body(encname, enc, cls, pre, obj, text, ops, saved)
    except Exception:
        report(cls, encname, ops + [["EXC", traceback.format_exc()[-800:]]], None, None)


def _fuzz_stream_body(encname, enc, cls, pre, obj, text, ops, saved):
    global nsteps
    for step in range(R.randint(1, 25)):
        r = R.random()
        if r < 0.55 or not text:
            s = chunk()
            ops.append(["add", s])
            if pre:
                obj.prepend(s); text = s + text
            else:
                obj.append(s); text = text + s
        elif r < 0.85:
            n = len(text)
            q = R.random()
            if q < 0.2:
                k = n - R.randint(1, min(n, 3))
            elif q < 0.35:
                k = min(n, R.choice([R.randint(0, 10), R.randint(60, 70), R.randint(250, 262)]))
            elif q < 0.6:
                k = R.randint(0, n)
            else:
                k = max(0, n - R.randint(1, 80))
            ops.append(["trunc", k])
            obj.truncate(k)
            text = text[len(text) - k:] if pre else text[:k]
        elif r < 0.93:
            ops.append(["copy"])
            saved = (obj, text, list(ops))
            obj = obj.copy()
        else:
            ops.append(["pickle"])
            obj = pickle.loads(pickle.dumps(obj))
        nsteps += 1
        exp = enc.count(text)
        try:
            got = obj.token_count
        except Exception as e:
            got = "EXC " + repr(e)
        if got != exp:
            report(cls, encname, ops, got, exp)
            return
        if not pre:
            bad = append_records_violations(obj._impl)
            if bad:
                report(cls, encname, ops, got, exp, {"records": bad[:5]})
                return
        if saved is not None and R.random() < 0.3:
            so, st, sops = saved
            if so.token_count != enc.count(st):
                report(cls, encname, sops + [["check_original_after_copy_then", ops[len(sops):]]], so.token_count, enc.count(st))
                return


def fuzz_int(encname, enc):
    global nsteps
    text = framed_text()
    ic = IntervalCounter(enc, text)
    n = len(text)
    for _ in range(30):
        q = R.random()
        if q < 0.3:
            i = R.randint(0, n); j = R.randint(i, n)
        elif q < 0.6:
            i = R.randint(0, min(n, 5)); j = R.randint(max(i, n - 5), n)
        else:
            i = R.randint(0, n); j = min(n, i + R.randint(0, 80))
        nsteps += 1
        exp = enc.count(text[i:j])
        try:
            got = ic.count(i, j)
        except Exception as e:
            got = "EXC " + repr(e)
        if got != exp:
            report("int", encname, [["text", text], ["ij", i, j]], got, exp)
            return


def fuzz_cuts(encname, enc):
    global nsteps
    text = framed_text()
    if len(text) > 500:
        text = text[:500]
    n = len(text)
    pc = [enc.count(text[:i]) for i in range(n + 1)]
    sc = [enc.count(text[i:]) for i in range(n + 1)]
    for _ in range(6):
        b = R.randint(0, pc[-1] + 1)
        nsteps += 1
        exp = max(i for i in range(n + 1) if pc[i] <= b)
        try:
            got = enc.split_at(text, b)
        except Exception as e:
            got = "EXC " + repr(e)
        if got != exp:
            report("cuts_split_at", encname, [["text", text], ["budget", b]], got, exp)
            return
        exps = min(i for i in range(n + 1) if sc[i] <= b)
        try:
            gs = enc.truncate_start(text, b)
            got = n - len(gs)
            if gs != text[got:]:
                got = "BADSUFFIX"
        except Exception as e:
            got = "EXC " + repr(e)
        if got != exps:
            report("cuts_truncate_start", encname, [["text", text], ["budget", b]], got, exps)
            return


t0 = time.time()
names = list(ENCS)
while time.time() - t0 < a.time:
    en = R.choice(names)
    enc = ENCS[en]
    ncases += 1
    try:
        if a.cls in ("pre", "app"):
            fuzz_stream(en, enc, a.cls)
        elif a.cls == "int":
            fuzz_int(en, enc)
        else:
            fuzz_cuts(en, enc)
    except Exception:
        report(a.cls, en, ["exception", traceback.format_exc()], None, None)
    if ncases % 5000 == 0:
        print(f"cases={ncases} steps={nsteps} fails={nfail} t={time.time()-t0:.0f}", flush=True)
print(f"DONE cases={ncases} steps={nsteps} fails={nfail}", flush=True)
