"""Edits at the growing end of a text that is one long piece (or one long stretch).

Run from the project root:

    python benchmarks/bench_edit_toggles.py --out benchmarks/results_edit_toggles.md

Each text is a unit (one or a few characters) repeated to ``n`` characters: a long
word (``"x"``, ``"a\\u0301"``, ``"A中"`` ...), a whitespace run, a digit run, a
punctuation stretch, marks, a periodic run of contraction words (``"'s"``), mixed whitespace.  For each of
23 edit strings ``c`` (leads such as ``" "``/``"!"``/``"'"``, letters, marks, digits,
newlines, two- and three-character mixes),
``AppendableEncoder`` appends ``c`` and truncates back (backspace), and
``PrependableEncoder`` prepends ``c`` and truncates back.  Every edit string is
tried in ``ROUNDS`` rounds on the same encoder; the first is a warm-up (a first,
one-time O(piece) set-up per piece is allowed, as it is amortized against building
the piece).  For each edit string the cost is the slower call of its pair (edit,
undo), the best over the later rounds (work that grows with the text shows in every
round; a single call also catches cache misses after the check below); the table
shows the worst edit string, at each text length.  Flat across lengths means O(1)
per edit.  Every count is checked against ``Encoding.count`` on the exact text.
Wall clock; the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import random
import time

import bpe_stream
from bpe_stream import AppendableEncoder, PrependableEncoder

UNITS = ["x", "abc", "Aa", "A", "AB", "a\u0301", "A\u4e2d", "\u4e2d", "\u02b0", " ", "\n", "\u3000 ",
         "1", "!", "!'", " !", "/\n", "-=", "\u0301\u0301!", "!\u0301\u0301",
         "'s", "\u0301\u4e2d", "\u0301A",  # a periodic stretch; o200k words led by a mark
         "\n ", "\r\n"]  # whitespace pieces cut on a proxy (mixed: as a stretch)
EDITS = ["!", " ", "a", "A", "\u0301", "1", "\n", "'", "/", "\u4e2d", "!!", " !", "\u02b0", "'s", "s",
         "x'", "\r\n", "\t", "\u3000", "\u00ca\u00b0", " \u4e2dA", "s'/", " '\u00a0\u4e2d\u0301"]


ROUNDS = 4


def worst_edit(enc, text: str, front: bool) -> tuple[float, str]:
    """The worst edit string's cost (ms; see the module docstring), and that string."""
    if front:
        st = PrependableEncoder(enc)
        st.prepend(text)
    else:
        st = AppendableEncoder(enc)
        st.append(text)
    n = len(text)
    best = {c: float("inf") for c in EDITS}
    for rnd in range(ROUNDS):
        for c in EDITS:
            t0 = time.perf_counter()
            st.prepend(c) if front else st.append(c)
            t1 = time.perf_counter()
            edited = c + text if front else text + c
            if st.token_count != enc.count(edited):
                raise AssertionError(f"count differs: {enc.name} {text[:6]!r} {c!r}")
            t2 = time.perf_counter()
            st.truncate(n)
            t3 = time.perf_counter()
            if rnd > 0:
                best[c] = min(best[c], max(t1 - t0, t3 - t2) * 1e3)
    if st.token_count != enc.count(text):
        raise AssertionError("count differs after the edits")
    c = max(best, key=best.get)
    return best[c], c


def back_to_back(sizes) -> list[str]:
    """Median of 50 back-to-back toggles (no count check between calls) of a few edit strings
    at both ends of ``"x" * n`` (both encodings) and in front of ``"!\u0301\u0301" * n`` (o200k,
    the merge), of mixed mark-led words (a merge with a floor) and of ``"'s" * n``: the cost
    without the cache misses that the check between calls of the main table causes."""
    lines = ["", "Back to back (`--medians`): median of 50 edit/undo toggles per edit string, no count "
             "check between the calls, in µs (slowest edit string; one warm-up toggle each):", "",
             "| encoding | text | side | " + " | ".join(f"{n:,}" for n in sizes) + " |",
             "|---|---|---|" + "---|" * len(sizes)]

    def repeated(unit):
        return f"{unit!r} * n", lambda n: (unit * (n // len(unit) + 1))[:n]

    def mixed_words(n):  # "'\u0301" and "'\u0301\u0301" words in a fixed random order, then "x"
        rng = random.Random(1)
        words = "".join(rng.choice(("'\u0301", "'\u0301\u0301")) for _ in range(n // 2))
        return words[: n - 1] + "x"

    rows = [(name, *repeated("x"), front, ["!", " ", "a", "!!", " !", "'s"])
            for name in ("cl100k_base", "o200k_base") for front in (False, True)]
    # the merge of mark-led words into one punctuation piece, and its undo
    rows.append(("o200k_base", *repeated("!\u0301\u0301"), True, ["!", " ", "'", "!!"]))
    # a merge that ends a character into the word after the stretch: its boundary goes under
    # the hidden ones (the hole's floor); the words are not periodic, so each has a boundary
    mixed = f"mixed {chr(39) + chr(0x301)!r}, {chr(39) + chr(0x301) * 2!r} + 'x'"
    rows.append(("o200k_base", mixed, mixed_words, True, [" '", "0 '"]))
    # a prepend that shifts the phase of every "'s's" piece (the re-split jumps the stretch)
    rows.append(("o200k_base", *repeated("'s"), True, [" \u4e2dA", "A", "s"]))
    for name, label, make, front, edits in rows:
        enc = bpe_stream.get_encoding(name)
        cells = []
        for n in sizes:
            text = make(n)
            st = PrependableEncoder(enc) if front else AppendableEncoder(enc)
            add = st.prepend if front else st.append
            add(text)
            for c in edits:
                add(c)
                st.truncate(n)
            worst = 0.0
            for c in edits:
                ts = []
                for _ in range(50):
                    t0 = time.perf_counter()
                    add(c)
                    st.truncate(n)
                    ts.append(time.perf_counter() - t0)
                worst = max(worst, sorted(ts)[len(ts) // 2])
            if st.token_count != enc.count(text):
                raise AssertionError("count differs after the toggles")
            cells.append(f"{worst * 1e6:.1f}")
        lines.append(f"| {name} | {label} | {'prepend' if front else 'append'} | "
                     + " | ".join(cells) + " |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="20000,100000")
    ap.add_argument("--out")
    ap.add_argument("--medians", action="store_true", help="only the back-to-back medians")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    if args.medians:
        print("\n".join(back_to_back(sizes)))
        return
    lines = [
        "# Edit toggles at the growing end of one long piece",
        "",
        f"Command: `python benchmarks/bench_edit_toggles.py --sizes {args.sizes}`; "
        f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}.",
        "",
        f"Cost (ms) of the worst of {len(EDITS)} edit strings and that string: for each, the "
        f"slower call of its edit/undo pair, best of rounds 2-{ROUNDS} (see the script's docstring).",
        "",
        "| encoding | unit | " + " | ".join(f"append {n:,}" for n in sizes) + " | "
        + " | ".join(f"prepend {n:,}" for n in sizes) + " |",
        "|---|---|" + "---|" * (2 * len(sizes)),
    ]
    for name in ("cl100k_base", "o200k_base"):
        enc = bpe_stream.get_encoding(name)
        for unit in UNITS:
            cells = []
            for front in (False, True):
                for n in sizes:
                    text = (unit * (n // len(unit) + 1))[:n]
                    ms, c = worst_edit(enc, text, front)
                    cells.append(f"{ms:.2f} ({c!r})")
            lines.append(f"| {name} | {unit!r} | " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    lines += ["", f"Load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}.", ""]
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))


if __name__ == "__main__":
    main()
