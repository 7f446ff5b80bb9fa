"""Random edit/undo toggles at the growing end: does their work grow with the text?

Run from the project root:

    python benchmarks/bench_work_growth.py --seconds 240 --out benchmarks/results_work_growth.md

`bench_toggle_fuzz.py` times random toggles; a time mixes Python work with C-speed work
(regex scans, string joins, the compiled merge loop) and with machine noise.  This
script counts instead, for one round of toggles (each edit, then a truncation back),
after two warm-up rounds, on ``unit * n`` for two lengths ``n`` and ``16 n``:

- the Python lines run (``sys.settrace``): a toggle that does O(n) Python work shows as
  thousands of extra lines;
- the characters of the text read (fetched at the front, sliced at the back).  A
  re-split that fetches 4x more text per round until it finds where its pieces end adds
  only a few Python lines per round, but when it runs to the end of the text it reads
  all of it, at C speed: linear work that the lines do not show.

Each trial picks an encoding, a unit and one to three edit strings from an alphabet of
characters whose pieces behave differently.  Trials that grow by more than ``--slack``
lines or ``--char-slack`` characters are listed.  Deterministic for a seed (up to which
trials fit in the time); counts are not checked here (the tests do that).  ``--alphabet
wide`` draws from 19 more strings (``WIDE``): other whitespace, the other contractions,
a title-case letter, numbers that are not ASCII digits, ZWJ, ...; ``--alphabet classes``
draws from a character of every class the two patterns tell apart, in each UTF-8 length,
and every contraction in three cases (``CLASSES``).

With ``--sequences`` a trial is a random sequence of 20 additions and truncations at the
growing end on a text built in several steps, counted on its third pass (each pass ending
with a truncation back to the text built) with the runs as given and 16x longer; trials
over a slack are counted at 4x too, and those that grow about 4x more per 4x (linear
work) are marked apart from those that grow by about the same per 4x (O(log n)).
``--mixed f`` makes a share f of the runs random mixes of 2-3 strings instead of one string
repeated (text is seldom periodic, and a periodic stretch is jumped); a mix is drawn the
same at every scale near the growing end (``run_text``).  ``--nested f`` makes a share f of
them stretches of random length of 2-4 random words, drawn by random weights (nearly
periodic when one weight dominates), ``--corpus f`` a share f slices of a shared corpus.
``--cuts f`` makes a share f of the trials truncate the text built deep into a run of one
string repeated before the edits (``edit_pass``): the edits then meet what a truncation
left of the records about that run.  ``--big f`` makes a share f of the edits long: an
addition of 65-400 characters (one or two strings repeated) or a truncation of as many, past
the text built, which the pass then puts back (a long prepend or append used to be split
differently from a short one).
``--alphabet shifts`` draws from the units of the stretches whose split can shift phase for
good (``SHIFTS``, found by ``tests/test_shift_units.py``).  ``--dump`` writes the trials
listed as JSON lines, to replay them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import time

import bpe_stream
from bpe_stream import AppendableEncoder, PrependableEncoder

ALPHABET = ["!", "/", "\n", "\r\n", " ", "\t", "a", "A", "s", "'", "'s", "1", "12", "\u0301", "a\u0301",
            "\u4e2d", "\u02b0", "?", ".", "x", "\u00e9", "-", "_", "/\n", " \n", "Ab", "aB", "''", " a",
            "\n\n", "\u00a0", "\U0001F600", "\u4e2d\u0301", " '", "0", "<"]

# ``--alphabet wide`` adds what the base alphabet lacks and the two patterns treat apart: a
# lone CR, the other contractions (upper-case ones too: cl100k matches them ignoring case),
# whitespace that is neither space nor newline (VT, LINE SEPARATOR, IDEOGRAPHIC SPACE), a
# title-case letter (upper-case class only in o200k), numbers that are not ASCII digits (No,
# Nd), a three-digit group, a double space, a mark on an upper-case letter, ZWJ (format, so
# punctuation for the patterns) and a letter from a third script.
WIDE = ALPHABET + ["\r", "'ll", "'LL", "'t", "'S", "'re", "\x0b", "\u2028", "\u3000", "\u01c5",
                   "\u00bd", "\u0663", "123", "  ", "A\u0301", "\u00df", "\u200d", "\ud55c", ")"]

# ``--alphabet classes`` is built from the patterns' classes, not from strings that once
# mattered: one character of every class the two patterns tell apart, in every UTF-8 length
# that class has among common characters, and every contraction in lower, upper and mixed
# case (both patterns match them ignoring case, so the long s U+017F is an ``s`` there).
# Classes: CR, LF, space, other whitespace (``\s``: 1, 2 and 3 bytes), ``/``, the
# apostrophe, Lu and Ll (contraction letters and others), Lt, Lm, Lo (2, 3, 4 bytes), marks
# (Mn, Mc, Me), numbers (Nd in 1, 2 and 4 bytes, Nl, No) and everything else (punctuation,
# symbols, format and control characters, 1 to 4 bytes).
CLASS_CHARACTERS = [
    "\r", "\n", " ", "\t", "\x0c", "\x85", "\u00a0", "\u2028", "\u3000",
    "/", "'",
    "A", "S", "T", "D", "M", "L", "V", "R", "E", "\u00c9", "\u0130",
    "a", "s", "t", "d", "m", "l", "v", "r", "e", "x", "\u00e9", "\u00df", "\u017f",
    "\u01c5", "\u02b0", "\u30fc", "\u00aa", "\u4e2d", "\ud55c", "\U00020000",
    "\u0301", "\u0903", "\u20dd",
    "0", "1", "7", "\u0663", "\U0001d7d8", "\u216b", "\u00bd",
    "!", ".", "-", "_", "<", ")", "?", "\x00", "\u00a7", "\u200d", "\u20ac", "\U0001F600",
]
CONTRACTIONS = ["'" + case for core in ("s", "t", "d", "m", "re", "ve", "ll")
                for case in sorted({core, core.upper(), core[0].upper() + core[1:]})]
CLASSES = CLASS_CHARACTERS + CONTRACTIONS + ["'\u017f", "\r\n", "A\u0301", "123"]

# ``--alphabet shifts``: the units of the stretches whose split can shift phase for good (a
# piece started one character off never meets a boundary of the split again), as found by
# enumerating every unit of up to 4 characters of the classes above (tests/test_shift_units.py):
# digits (groups of three), o200k's contractions (a word takes one, so a stretch of them
# pairs up) and o200k's punctuation with trailing newlines and slashes before a mark (a
# punctuation piece takes the next unit's newline and slashes, leaving its mark alone, so
# these units pair up too; at 5 characters with more newlines, slashes, punctuation or marks);
# with the characters they are made of and a few others.
SHIFT_UNITS = ["1", "12", "\u00bd", "\u0663"] + CONTRACTIONS + [
    lead + mid + "\u0301" for lead in ("\n", "\r") for mid in ("//", "/!", "/'")]
SHIFTS = SHIFT_UNITS + ["\n", "\r", "/", "!", "'", "\u0301", "a", "x", "A", " ", "\u4e2d"]


# With --split, measure() counts the characters that the pre-split pattern runs over too
# (set by main): C-speed work on strings a stream keeps, such as a proxy's stored tail part,
# which characters read do not show.  Fetched text split is then counted twice, which only
# adds to both sizes of a trial alike.
COUNT_SPLIT = False


def measure(action, stream=None) -> tuple[int, int]:
    """(Python lines run, characters of the text read) by ``action()``.  Characters read are
    those fetched from the front (``TextPrependable._front``/``_window``) and sliced from the
    back (``_Rope``): Python lines do not show C-speed work, such as a regex over a fetch that
    grows 4x per round to the whole text (a few lines per round); this does.  With
    ``COUNT_SPLIT`` and a ``stream``, the characters its pattern runs over are added."""
    if COUNT_SPLIT and stream is not None:
        tests = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests")
        if tests not in sys.path:
            sys.path.append(tests)
        from _streaming_helpers import characters_split

        out = []
        split = characters_split(stream, lambda: out.append(measure(action)))
        return out[0][0], out[0][1] + split
    from bpe_stream.stream.front.text_prependable import TextPrependable
    from bpe_stream.text.appendable import _Rope

    lines = chars = 0
    originals = {(TextPrependable, "_front"): TextPrependable._front,
                 (TextPrependable, "_window"): TextPrependable._window,
                 (_Rope, "__getitem__"): _Rope.__getitem__}

    def counting(method):
        def read(*args):
            nonlocal chars
            out = method(*args)
            chars += len(out)
            return out
        return read

    def tracer(frame, event, arg):
        nonlocal lines
        if event == "line":
            lines += 1
        return tracer

    for (cls, name), method in originals.items():
        setattr(cls, name, counting(method))
    sys.settrace(tracer)
    try:
        action()
    finally:
        sys.settrace(None)
        for (cls, name), method in originals.items():
            setattr(cls, name, method)
    return lines, chars


def toggle_work(enc, side: str, unit: str, edits: list, n: int) -> tuple[int, int]:
    text = (unit * n)[:n]
    st = (PrependableEncoder if side == "front" else AppendableEncoder)(enc)
    add = st.prepend if side == "front" else st.append
    add(text)
    size = len(st)

    def one_round():
        for e in edits:
            add(e)
            st.truncate(size)

    one_round()
    one_round()
    return measure(one_round)


def run_text(unit, k: int, side: str = "front") -> str:
    """The text of one run, drawn the same at every scale where the edits are (the first
    draws lie at the growing end: the front for ``side == "front"``, the back otherwise):

    - a string: ``unit * k``;
    - a list of strings (a *mixed* run): k of them drawn at random, so that the run is not
      periodic, as text seldom is;
    - ``{"parts", "weights", "burst"}`` (a *nested* run): k draws of a part by its weight,
      each repeated 1 to ``burst`` times: stretches of random length of random words, nearly
      periodic when one weight dominates;
    - ``{"corpus", "at"}``: k characters of a shared corpus from offset ``at`` on (ending
      there, at the back).

    Random draws come from a generator seeded by the unit."""
    if isinstance(unit, str):
        return unit * k
    if isinstance(unit, dict) and "corpus" in unit:
        text = _corpus(unit["corpus"])
        copies = text * (k // len(text) + 2)  # a run may wrap around the corpus's end
        at = unit["at"] % len(text)
        if side == "front":
            return copies[at:at + k]
        end = len(copies) - len(text) + at
        return copies[end - k:end]
    if isinstance(unit, dict):
        rng = random.Random(json.dumps(unit, sort_keys=True))
        parts = [rng.choices(unit["parts"], unit["weights"])[0] * rng.randint(1, unit["burst"])
                 for _ in range(k)]
    else:
        draw = random.Random("\x00".join(unit)).choice
        parts = [draw(unit) for _ in range(k)]
    return "".join(parts if side == "front" else reversed(parts))


_CORPORA: dict = {}


def _corpus(name: str) -> str:
    """A shared corpus's text (``../shared/corpora``), read once."""
    if name not in _CORPORA:
        from pathlib import Path
        path = Path(__file__).resolve().parents[2] / "shared" / "corpora" / name
        _CORPORA[name] = path.read_text(encoding="utf-8")
    return _CORPORA[name]


CORPUS_FILES = ["taylorswift.txt", "tinyshakespeare.txt", "markdown_docs.md", "code_python_black.py.txt",
                "multilingual_sentences.txt", "utf8_demo.txt", "blns.txt", "emoji_test.txt"]


def draw_run(rng, alphabet, mixed: float, nested: float, corpus: float):
    """One (unit, k) of a trial's text: a repeated string, a mixed, a nested or a corpus run
    (the last three with probabilities ``mixed``, ``nested`` and ``corpus``)."""
    x = rng.random()
    if x < mixed:
        return sorted({rng.choice(alphabet) for _ in range(rng.randint(2, 3))}), rng.randint(50, 400)
    if x < mixed + nested:
        parts = sorted({"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3)))
                        for _ in range(rng.randint(2, 4))})
        weights = [rng.randint(1, 10) for _ in parts]
        if rng.random() < 0.3:
            weights[0] = 50 * sum(weights)  # nearly periodic: rare other parts
        burst = rng.choice([1, 2, 4, 8, 16])
        return {"parts": parts, "weights": weights, "burst": burst}, max(10, rng.randint(50, 400) * 2 // (burst + 1))
    if x < mixed + nested + corpus:
        return {"corpus": rng.choice(CORPUS_FILES), "at": rng.randrange(1 << 20)}, rng.randint(100, 800)
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 2))), rng.randint(50, 400)


def edit_pass(enc, runs: list, ops: list, scale: int, side: str = "front", cut=None, restore: bool = False):
    """(stream, built length, one pass): the stream (PrependableEncoder for ``side ==
    "front"``, else AppendableEncoder) built by adding ``run_text(unit, k * scale, side)`` for
    each (unit, k) of ``runs``, and a function that runs the edit sequence ``ops`` once
    (("p", text) puts text at the growing end, ("t", k) truncates k characters there),
    then truncates back to the built length when the pass did not end below it.  With
    ``cut = (i, f)`` the text built is first truncated to keep ``int(f * k * scale)`` units
    of run i (a string repeated), so that the edits happen where a deep truncation left
    the text: the same text there at every scale.  With ``restore`` a pass that truncated
    into the text built puts the part it removed back at its end (truncating to the shortest
    length it reached, then adding that part), so it may cut as deep as it likes."""
    st = (PrependableEncoder if side == "front" else AppendableEncoder)(enc)
    add = st.prepend if side == "front" else st.append
    ends = []  # the length of the text after each run
    built = []  # the runs' texts, from the growing end (kept for restore)
    for unit, k in runs:
        built.append(run_text(unit, k * scale, side))
        add(built[-1])
        ends.append(len(st))
    if cut is not None:
        i, f = cut
        unit, k = runs[i]
        st.truncate((ends[i - 1] if i else 0) + int(f * k * scale) * len(unit))
    size = len(st)
    if restore:
        whole = "".join(reversed(built) if side == "front" else built)
        built = whole[len(whole) - size:] if side == "front" else whole[:size]

    def one_pass():
        low = size
        for op, arg in ops:
            if op == "p":
                add(arg)
            else:
                st.truncate(max(0, len(st) - arg))
                low = min(low, len(st))
        if restore and low < size:
            st.truncate(low)
            add(built[: size - low] if side == "front" else built[low:])
        if len(st) >= size:
            st.truncate(size)  # (counted: the way back is part of the round)

    return st, size, one_pass


def sequence_work(enc, runs: list, ops: list, scale: int, side: str = "front", cut=None, restore=False):
    """(lines of the second pass, (lines, characters read) of the third) of the edit sequence
    ``ops`` on the text built from ``runs`` (see :func:`edit_pass`), each pass followed by a
    truncation back to the built length (counted with it); None when a pass ends below that
    length.  The second pass may build states once (a pass that cuts into the built text
    leaves a text the sequence has not seen); the third shows the work that comes back on
    every pass."""
    st, size, sequence = edit_pass(enc, runs, ops, scale, side, cut, restore)
    counts = []
    for i in range(3):
        counts.append(measure(sequence, st) if i else (sequence() or 0))
        if len(st) < size:
            return None
    return counts[1][0], counts[2]


def _linear(c1: int, c4: int, c16: int, slack: int) -> bool:
    """Whether counts at 1x, 4x and 16x grow linearly (about 4x more per 4x), not by about
    the same amount per 4x (O(log n): the rounds of a re-split fetching 4x more each time)."""
    return c16 - c4 > 2 * max(c4 - c1, 0) + slack // 2


def search_sequences(side: str, seconds: float, slack: int, char_slack: int, rng, encs, dump=None,
                     alphabet=ALPHABET, mixed: float = 0.0, nested: float = 0.0, corpus: float = 0.0,
                     cuts: float = 0.0, big: float = 0.0) -> list:
    """Report lines for random edit sequences on texts built in several additions, counted
    on the text and on the text with every run 16x longer (and 4x, when over a slack)."""
    t0 = time.time()
    tried, once, listed = 0, 0, []
    while time.time() - t0 < seconds:
        enc = rng.choice(encs)
        runs = [draw_run(rng, alphabet, mixed, nested, corpus) for _ in range(rng.randint(1, 4))]
        ops = [("p", "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3)))) if rng.random() < 0.6
               else ("t", rng.randint(1, 5)) for _ in range(20)]
        if big:
            for j in range(len(ops)):
                if rng.random() < big:
                    if ops[j][0] == "p":
                        unit = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 2)))
                        ops[j] = ("p", unit * (rng.randint(65, 400) // len(unit) + 1))
                    else:
                        ops[j] = ("t", rng.randint(65, 400))
        periodic = [i for i, (unit, _) in enumerate(runs) if isinstance(unit, str)]
        cut = (rng.choice(periodic), round(rng.uniform(0.2, 0.8), 3)) if cuts and periodic and rng.random() < cuts \
            else None
        if cut is not None:  # (a run cut into is 4x longer, so that what is kept of it is not tiny at 1x)
            runs[cut[0]] = (runs[cut[0]][0], 4 * runs[cut[0]][1])
        restore = big > 0
        short = sequence_work(enc, runs, ops, 1, side, cut, restore)
        long = sequence_work(enc, runs, ops, 16, side, cut, restore) if short is not None else None
        if long is None:
            continue
        tried += 1
        (l1, c1), (l16, c16) = short[1], long[1]
        if long[0] - short[0] > slack and l16 - l1 <= slack:
            once += 1
        if l16 - l1 > slack or c16 - c1 > char_slack:
            l4, c4 = sequence_work(enc, runs, ops, 4, side, cut, restore)[1]
            lin_lines = l16 - l1 > slack and _linear(l1, l4, l16, slack)
            lin_chars = c16 - c1 > char_slack and _linear(c1, c4, c16, char_slack)
            listed.append((lin_lines or lin_chars, l16 - l1, enc.name, repr(runs) + (f", cut {cut}" if cut else ""),
                           ops, (l1, l4, l16), (c1, c4, c16), lin_lines, lin_chars))
            if dump:
                dump.write(json.dumps({"side": side, "encoding": enc.name, "runs": runs, "cut": cut, "ops": ops,
                                       "restore": restore,
                                       "lines": [l1, l4, l16], "chars": [c1, c4, c16],
                                       "linear_lines": lin_lines, "linear_chars": lin_chars}) + "\n")
                dump.flush()
    n_lines = sum(1 for x in listed if x[7])
    n_chars = sum(1 for x in listed if x[8])
    n_any = sum(1 for x in listed if x[0])
    lines = [
        f"## {'PrependableEncoder' if side == 'front' else 'AppendableEncoder'} ({side}), sequences of edits",
        "",
        f"{tried:,} trials (an encoding, 1-4 runs added one after another, 20 additions of 1-3 "
        f"strings or truncations of 1-5 characters"
        + (f", a share {big:g} of them long: 65-400 characters added or removed, the text built put back "
           f"after the pass" if big else "") + f", then a truncation back), each counted with "
        f"the runs as given and 16x longer, on the third pass over the sequence.  Trials growing "
        f"by more than {slack} Python lines or {char_slack:,} characters read: {len(listed)}; of "
        f"these, counted at 4x too, **{n_any} grow linearly** (faster from 4x to 16x than twice "
        f"their growth from 1x to 4x: {n_lines} in lines, {n_chars} in characters read); the "
        f"others grow by about the same per 4x (the O(log n) fetch rounds).  Trials whose "
        f"second pass grows by more than {slack} lines, but not their third (states built once, "
        f"on a text the first pass left): {once}.",
        "",
    ]
    if listed:
        lines += ["| encoding | runs | edits | lines 1x / 4x / 16x | characters read 1x / 4x / 16x | linear |",
                  "|---|---|---|---|---|---|"]
        for lin, _, name, runs, ops, ls, cs, lin_l, lin_c in sorted(listed, key=lambda x: (x[0], x[1]),
                                                                    reverse=True)[:20]:
            what = ", ".join(w for w, f in (("lines", lin_l), ("characters", lin_c)) if f) or "no"
            lines.append(f"| {name} | {runs} | {ops!r} | {' / '.join(map(str, ls))} | "
                         f"{' / '.join(map(str, cs))} | {what} |")
        lines.append("")
    return lines


def search(side: str, seconds: float, n: int, slack: int, char_slack: int, rng, encs, alphabet=ALPHABET) -> list:
    """Report lines (markdown) for the trials of one side."""
    t0 = time.time()
    tried, growths, char_growths, listed = 0, [], [], []
    while time.time() - t0 < seconds:
        enc = rng.choice(encs)
        unit = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3)))
        edits = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 3))]
        (l1, c1) = toggle_work(enc, side, unit, edits, n)
        (l16, c16) = toggle_work(enc, side, unit, edits, 16 * n)
        tried += 1
        growths.append(l16 - l1)
        char_growths.append(c16 - c1)
        if l16 - l1 > slack or c16 - c1 > char_slack:
            listed.append((l16 - l1, c16 - c1, enc.name, unit, edits, l1, l16, c1, c16))
    growths.sort()
    char_growths.sort()

    def pct(values, q):
        return values[min(len(values) - 1, int(q * len(values)))] if values else 0

    cls = "PrependableEncoder" if side == "front" else "AppendableEncoder"
    lines = [
        f"## {cls} ({side})",
        "",
        f"{tried:,} trials (an encoding, a unit of 1-3 strings, 1-3 edit strings), each counted at "
        f"n = {n:,} and {16 * n:,} characters.  Growth of the Python lines of one round of "
        f"toggles from the shorter text to the longer: median {pct(growths, 0.5)}, 99th percentile "
        f"{pct(growths, 0.99)}, largest {growths[-1] if growths else 0}; of the characters read: "
        f"median {pct(char_growths, 0.5)}, 99th percentile {pct(char_growths, 0.99)}, largest "
        f"{char_growths[-1] if char_growths else 0}.  Trials growing by more than {slack} lines or "
        f"{char_slack:,} characters read: {len(listed)}.",
        "",
    ]
    if listed:
        lines += ["| lines growth | characters growth | encoding | unit | edits | lines at n / 16 n | "
                  "characters at n / 16 n |", "|---|---|---|---|---|---|---|"]
        for gl, gc, name, unit, edits, l1, l16, c1, c16 in sorted(listed, key=lambda x: (x[1], x[0]),
                                                                  reverse=True)[:40]:
            lines.append(f"| {gl} | {gc} | {name} | {unit!r} | {edits!r} | {l1} / {l16} | {c1} / {c16} |")
        lines.append("")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=240, help="per side")
    ap.add_argument("--side", choices=["front", "back", "both"], default="both")
    ap.add_argument("--sequences", action="store_true",
                    help="random sequences of prepends and truncations instead of toggles")
    ap.add_argument("--n", type=int, default=3000, help="the shorter length (the longer is 16x)")
    ap.add_argument("--slack", type=int, default=400, help="lines of growth listed")
    ap.add_argument("--char-slack", type=int, default=8192, help="characters read of growth listed")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out")
    ap.add_argument("--alphabet", choices=["base", "wide", "classes", "shifts"], default="base",
                    help="the strings trials are made of (wide: base and 19 more, see WIDE; classes: "
                         "a character of every class of the two patterns, and the contractions, see CLASSES; "
                         "shifts: the units of stretches whose split can shift phase for good, see SHIFTS)")
    ap.add_argument("--mixed", type=float, default=0.0,
                    help="with --sequences: the share of runs that are random mixes of 2-3 strings "
                         "(not periodic) instead of one string repeated")
    ap.add_argument("--nested", type=float, default=0.0,
                    help="with --sequences: the share of runs that are nested: stretches of random length "
                         "of 2-4 random words, drawn by random weights (see run_text)")
    ap.add_argument("--corpus", type=float, default=0.0,
                    help="with --sequences: the share of runs that are slices of a shared corpus")
    ap.add_argument("--cuts", type=float, default=0.0,
                    help="with --sequences: the share of trials whose edits happen after a deep truncation, "
                         "into a run of one string repeated (see edit_pass)")
    ap.add_argument("--big", type=float, default=0.0,
                    help="with --sequences: the share of edits that add or remove 65-400 characters")
    ap.add_argument("--split", action="store_true",
                    help="with --sequences: count the characters the pre-split pattern runs over as read "
                         "(C-speed work on strings a stream keeps; see COUNT_SPLIT)")
    ap.add_argument("--dump", help="with --sequences: write every listed trial to this file as JSON lines")
    args = ap.parse_args()
    global COUNT_SPLIT
    COUNT_SPLIT = args.split
    load = os.getloadavg()
    encs = [bpe_stream.get_encoding(name) for name in ("cl100k_base", "o200k_base")]
    rng = random.Random(args.seed)
    alphabet = {"base": ALPHABET, "wide": WIDE, "classes": CLASSES, "shifts": SHIFTS}[args.alphabet]
    lines = [
        "# Work of random edit toggles as the text grows 16x",
        "",
        f"Command: `python benchmarks/bench_work_growth.py --seconds {args.seconds:g} --side {args.side} "
        f"--n {args.n} --slack {args.slack} --char-slack {args.char_slack} --seed {args.seed}"
        + (f" --alphabet {args.alphabet}" if args.alphabet != "base" else "")
        + (f" --mixed {args.mixed:g}" if args.mixed else "")
        + (f" --nested {args.nested:g}" if args.nested else "")
        + (f" --corpus {args.corpus:g}" if args.corpus else "")
        + (f" --cuts {args.cuts:g}" if args.cuts else "")
        + (f" --big {args.big:g}" if args.big else "")
        + (" --split" if args.split else "") + "`; load average at start: "
        + ", ".join(f"{x:.2f}" for x in load) + ".",
        "",
        "Python lines counted with `sys.settrace` (a measure of work, not of time), and the "
        "characters of the text read (fetched at the front, sliced at the back), which show "
        "work done at C speed over the text (regex scans of fetches that grow to the whole "
        "text); other C-speed work (copies of lists and states) is not counted, "
        "`bench_toggle_fuzz.py` times it.",
        "",
    ]
    if args.sequences:
        lines[0] = "# Work of random edit sequences as the text grows 16x"
        lines[2] = lines[2].replace("--seed", "--sequences --seed")
        with open(args.dump, "w", encoding="utf-8") if args.dump else contextlib.nullcontext() as dump:
            for side in (["front", "back"] if args.side == "both" else [args.side]):
                lines += search_sequences(side, args.seconds, args.slack, args.char_slack, rng, encs, dump,
                                          alphabet, args.mixed, args.nested, args.corpus, args.cuts, args.big)
    else:
        for side in (["front", "back"] if args.side == "both" else [args.side]):
            lines += search(side, args.seconds, args.n, args.slack, args.char_slack, rng, encs, alphabet)
    report = "\n".join(lines)
    print(report)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(report)


if __name__ == "__main__":
    main()
