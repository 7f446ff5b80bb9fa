"""Timed edit sequences at the growing end, on texts built in several steps, as they grow.

Run from the project root:

    python benchmarks/bench_edit_sequences.py --out benchmarks/results_edit_sequences.md

``bench_work_growth.py --sequences`` searches random edit sequences for work that grows
with the text (Python lines, characters read); this script times the minimized trials it
found, fixed or not, so that the fixes show in microseconds and the open ones are named.
Each sequence (``("p", s)`` adds ``s`` at the growing end, ``("t", k)`` removes ``k``
characters there, and each pass ends with a truncation back to the text built, after
putting back what it cut of that text) runs on the
text built from its runs at 1x, 16x and 64x: median time of one pass over 7 passes, after
two warm-up passes (wall clock; the script prints the load average).  A pass that costs
O(text) shows as a time about 4x higher at 64x than at 16x.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import bpe_stream
from bench_work_growth import edit_pass  # (the same sequences the search runs)

# (side, encoding, runs, ops, what): minimized trials of bench_work_growth.py --sequences
SEQUENCES = [
    ("front", "cl100k_base", [(" ", 294), ("Ab", 174)], [("p", "'")],
     "long word before a run of spaces (fixed: a second piece's run state took the word's place)"),
    ("front", "o200k_base", [("\t", 163), ("\r\n", 269)], [("p", "12'")],
     "\"\\r\\n\" * k, no state applies (fixed: known)"),
    ("front", "o200k_base", [("Ab a", 50), ("\u4e2d\u0301", 241)], [("p", "x")],
     "\"x\" before (中 + mark)* + \"Ab\" (fixed: known_cut with the state)"),
    ("front", "o200k_base", [("/", 273), ("\n", 167)], [("p", " <")],
     "\" <\" before newlines then slashes (fixed in part: the punctuation record keeps its tail)"),
    ("front", "o200k_base", [("!\u0301", 300)], [("p", " '")],
     "\" '\" before (\"!\" + mark)* (the merge; was fine)"),
    ("front", "o200k_base", [("x", 1), ("!\u0301", 300)], [("p", " '")],
     "\" '\" before (\"!\" + mark)* + \"x\" (fixed: the merged piece's end from its record)"),
    ("front", "o200k_base", [("/\n\n", 373), ("\n\n", 349)], [("p", " aA!")],
     "a new piece that runs into a long one (fixed: the merged piece records its own stretch)"),
    ("front", "cl100k_base", [(" \n", 145), ("\n", 71)], [("p", "\t"), ("p", "''\r\n\u02b0")],
     "whitespace state with no anchor in reach (fixed: kept as the whitespace state; was Python-linear)"),
    ("front", "cl100k_base", [(" ", 364), ("\r\n", 349)],
     [("p", "\u4e2d\u0301\n\n"), ("p", "'s.\u4e2d"), ("t", 4), ("t", 3)],
     "a cut record cut again (fixed: known_cut takes the text of the second cut)"),
    ("front", "cl100k_base", [("1", 320), ("\t\t", 389)], [("t", 1), ("p", "/\n"), ("p", "\u0301\u4e2d\u0301 \n"),
                                                         ("p", "\tx '"), ("t", 2)],
     "cl100k \\s++$ at the end of a fetch inside a blank (fixed: a non-space after the fetch)"),
    ("front", "o200k_base", [("'s", 234), ("\xe1\u0301", 365)], [("p", "\r\nAb")],
     "a word that joins a long word of marks (fixed: known)"),
    ("front", "o200k_base", [("Ab", 334), ("\u0301", 267)], [("p", "\u02b0Ab"), ("p", "\t\u02b0!")],
     "a lead before a word whose state was found (fixed: the record keeps the state)"),
    ("front", "o200k_base", [("'s", 330), ("\u4e2d\u0301s", 249)],
     [("p", "<"), ("p", "Ab\u0301"), ("t", 5), ("p", "'s")],
     "two leads in turn before one word (fixed: known_cut keeps a few texts per start)"),
    ("front", "o200k_base", [("\t", 155), ("\n", 240)], [("p", " a\r\n"), ("p", "x/\n"), ("p", "/\n"), ("t", 3),
                                                       ("t", 2), ("p", "-aBAb"), ("t", 5), ("t", 3), ("p", ".")],
     "a whitespace piece behind slash pieces (fixed: the record keeps the run state)"),
    ("front", "o200k_base", [("\r\n/", 303), ("\r\n", 162)], [("p", "\r\n.-")],
     "a merge two characters before a kept ghost alternative (fixed: a near alternative is taken)"),
    ("front", "cl100k_base", [("\u4e2d\u0301!", 256), (" ", 219), ("\n\n", 256)],
     [("p", " "), ("p", "0112"), ("t", 2), ("p", "\U0001F600."), ("t", 3), ("t", 1), ("t", 2), ("p", "1\n "),
      ("p", "\n\n\xe9?")],
     "a whitespace piece's anchor cut off (fixed: no anchor left above the text)"),
    ("front", "o200k_base", [("\n/", 373)], [("p", "\r\n/\n"), ("p", "s"), ("t", 2), ("p", "\r\n's''")],
     "a truncation into a merged piece's [\\r\\n/] tail (fixed: the rest of the tail is recorded)"),
    ("front", "o200k_base", [("''", 129)], [("p", "_/"), ("p", "\u02b0"), ("t", 2), ("p", "0./\n"), ("p", "s\r\n\r\n"),
                                          ("p", "\U0001F600")],
     "a piece in front takes a punctuation piece's first character (fixed: its anchor is moved into it)"),
    ("front", "o200k_base", [("'s", 70), ("\u4e2d\u0301\xe9", 388)],
     [("p", "_1"), ("t", 5), ("p", "1<a\u0301"), ("p", "'."), ("t", 5), ("p", "s"), ("p", "s")],
     "records of one long piece at four starts (fixed: a record counts _LONG in the budget)"),
    ("front", "o200k_base", [("'s", 231), ("'\u0301", 244)], [("p", "Ab''-")],
     "a merge that shifts the phase of a periodic stretch after it (fixed: several jumps per re-split)"),
    ("front", "o200k_base", [("'s", 300), ("'S", 30)], [("p", "\u0301")],
     "a mark before two stretches of one period (fixed: an interval per stretch)"),
    ("front", "o200k_base", [("'re", 1), ("\u01c5", 261)],
     [("t", 1), ("p", "123aB\u4e2d"), ("p", "A\u0301"), ("p", "\u3000"), ("p", "a")],
     "a short word before a long upper-word stretch (fixed: its end is recorded)"),
    ("front", "o200k_base", [(["'m", "'Ve"], 155)], [("p", "r"), ("t", 1), ("p", "'s"), ("t", 2)],
     "a random mix of contractions (not periodic) whose pairs a prepend shifts (fixed: the earlier split's boundaries are kept)"),
    ("front", "o200k_base", [(["'LL", "'T"], 28)], [("t", 5), ("p", "T"), ("p", "dl"), ("p", "0A")],
     "the same with two units, where stretches of one unit are jumped (fixed: popped boundaries are kept too)"),
    ("front", "o200k_base", [(["\n//\u0301", "\n/!\u0301", "\n/'\u0301"], 155)],
     [("p", "!"), ("t", 1), ("p", "/"), ("t", 1)],
     "a random mix of newline-mark units whose pairs a prepend shifts (tests/test_shift_units.py; the same fix)"),
    ("back", "o200k_base", [("/", 300)], [("p", "0")],
     "o200k punctuation ending in \"/\" (fixed: what was read of the last piece is remembered)"),
    ("back", "cl100k_base", [("\n\n \n", 360), (" ", 246)], [("p", "\t"), ("p", " '0")],
     "all-whitespace text split and joined again (fixed: kept records cut, not dropped, by truncations)"),
    ("back", "o200k_base", [("'", 178), ("\n\n", 168)], [("p", "x\n")],
     "a long newline tail behind an apostrophe run (fixed: long runs beside a stretch cut are cut)"),
    ("back", "o200k_base", [("/", 281), ("/\n", 70)], [("p", "\u02b0 '"), ("t", 1), ("p", "_\xe1\u02b0")],
     "overlapping stretch cuts (fixed: the longest is taken)"),
    ("back", "o200k_base", [("\u4e2d\u0301", 340)], [("p", "\xe1'sA"), ("p", "\xe9'x")],
     "a word ending in a contraction (fixed: the stretch before the contraction is cut)"),
    ("back", "o200k_base", [("\u0301 '", 126), ("\u0301!", 383)], [("p", "\u4e2d\u0301/")],
     "\" '\" + (mark + \"!\")* (fixed: a space-led punctuation piece the re-split starts at is cut)"),
    ("back", "o200k_base", [("\u0301 '", 126), ("\u0301!", 383)], [("p", "/\r\n-"), ("p", "\u4e2d\u0301/")],
     "the same ending in \"!/\" (fixed: the cut starts after the space even then)"),
    ("back", "o200k_base", [("\u0301\u4e2d", 387)], [("p", "A\u02b0's"), ("p", "''\xe9")],
     "a word ending in short stretches (fixed: up to four are passed over)"),
    ("back", "o200k_base", [("\u4e2d\u0301", 189), ("A\u4e2d\u0301", 363)], [("p", "\u4e2d\u0301\xe1.")],
     "a word stretch before the upper-word stretch (fixed: cut too)"),
    ("back", "o200k_base", [("<", 70), ("\n", 66), ("/", 143)], [("p", "1'ss"), ("t", 5), ("p", "\u02b0!")],
     "a [\\r\\n/] tail right after punctuation (fixed: cut from its start)"),
    ("back", "o200k_base", [("\r\n/\n", 188)], [("p", ". "), ("t", 3), ("p", "aA"), ("p", "\U0001F600"), ("t", 1),
                                              ("t", 2), ("p", "a/\n\n"), ("t", 2), ("p", "0"), ("p", "\xe9aB"),
                                              ("t", 3), ("t", 3), ("p", "A")],
     "the newline check of a last \"/\" piece (fixed: read in growing windows)"),
    ("back", "o200k_base", [("a\u0301\U0001F600", 355), ("\n\n\n\n", 122), ("/", 343)], [("p", " a-?")],
     "one punctuation character, then newlines and slashes (fixed: its tail is cut)"),
    ("back", "o200k_base", [("A\u0301", 300)], [("p", "'LL"), ("t", 4), ("p", "'S")],
     "an upper word with marks and a contraction, cut into the marks (fixed: its last mark is found)"),
    ("back", "o200k_base", [("\u00aa" * 30 + "m", 100)], [("p", "x"), ("t", 1), ("p", "\u00e97"), ("t", 2)],
     "a long word with a long one-class run every 31 characters (fixed: the runs under its word cut are jumped)"),
    ("back", "o200k_base", [("/-", 300), ("/", 1)], [("p", "\x85/"), ("p", "y"), ("t", 3), ("p", "x")],
     "a long piece ending in \"/\" and a short one in turn (fixed: the newline search of a few pieces is kept)"),
    # found with --big (long additions and truncations; the pass puts back what it cut of the text built)
    ("back", "o200k_base", [("!!" + "\u0301" * 30, 100)], [("t", 70), ("p", "x")],
     "70 characters cut off a long piece and put back (fixed: the record kept for them is not copied again)"),
    ("front", "cl100k_base", [("\n", 300)], [("t", 70), ("p", "x")],
     "70 newlines cut off a long run and put back (fixed: a long prepend is taken in parts by the run state)"),
    ("front", "o200k_base", [("/\n\n", 300)], [("t", 300), ("p", "x")],
     "the same on a [\\r\\n/] stretch (fixed: each part moves the anchor to the first \"/\")"),
    ("front", "o200k_base", [("\u2028", 280)], [("p", "V" * 115), ("t", 275)],
     "a cut through a word into the long run behind it (fixed: the run's saved state is taken)"),
    ("front", "cl100k_base", [("\n", 300)], [("p", "1" * 100), ("t", 105)],
     "the same through a digit run (fixed: as for a word)"),
    ("back", "o200k_base", [("\u20dd\u0130", 300), ("D", 200)], [("p", "\U00020000"), ("p", "\ud55c\u0301" * 136)],
     "a letter joins an upper-case run to a word, which then grows as much as the edit (fixed: no copy for that)"),
    ("front", "cl100k_base", [("\r", 300)], [("p", "!" * 100)],
     "100 punctuation characters in front of a newline run, and the truncation back (fixed: bounded states both ways)"),
    ("front", "o200k_base", [("\n", 300)], [("p", "\U0001F600" * 150)],
     "the same in o200k, 150 emoji (fixed: the same)"),
    ("front", "o200k_base", [("x", 41), ("\x0c", 314), ("\r", 244)], [("p", "x"), ("t", 2), ("t", 300)],
     "a cut through a short piece into a newline run before other whitespace (fixed: the piece's rest keeps its state)"),
    ("front", "cl100k_base", [("\u2028", 280)], [("p", "'s"), ("t", 12), ("p", "\r" * 239), ("p", "x"), ("t", 240)],
     "a cut leaves a whitespace run the whole text, then newlines in front in parts (fixed: an edit sets absorbs)"),
    ("front", "o200k_base", [("x", 1), ("\u0301'", 300)], [("p", "\u20ac" * 300), ("p", "a"), ("p", "b"), ("p", "'")],
     "a punctuation run in front of a long stretch of marks (fixed: the stretch is cut, not the run)"),
    ("front", "o200k_base", [("\u20dd\u02b0", 300), ("\U0001F600", 300)], [("t", 275), ("p", "\U0001F600" * 275)],
     "a cut into punctuation ending in a mark before letters, put back (fixed: final on its proxy)"),
    ("front", "cl100k_base", [("x", 1), (" ", 300), ("\n", 300)], [("p", "!"), ("t", 1), ("t", 70)],
     "\"!\" in front of newlines before spaces, its undo, a cut (fixed: RunState.nl_last)"),
    ("front", "o200k_base", [("x", 1), ("/\n", 300)], [("p", "\u20ac?" * 100)],
     "punctuation put in front of \"/\\n\" * k in parts (fixed: the stretch state from a bounded head)"),
    ("front", "o200k_base", [(" x", 1), ("R\u4e2d", 300), ("\u4e2d", 300)],
     [("p", "v"), ("t", 285), ("p", "\u4e2d" * 284), ("p", "\xc9"), ("t", 1), ("p", "v")],
     "a lower-case letter before a word whose upper-case letters lie late (fixed: _lower_led_piece)"),
    ("front", "o200k_base", [("x", 1), ("/", 300), ("\n", 300)], [("p", "!"), ("p", "?"), ("t", 2), ("t", 70)],
     "\"!\" joins a newline run and a slash run (fixed: _check_merged_tail, _cut_alt)"),
    ("front", "cl100k_base", [(" ", 300), ("\n", 300)], [("p", "x"), ("t", 1), ("p", "!"), ("t", 1), ("t", 70)],
     "edits before newlines and spaces ending the text (fixed: tail part, _check_merged_tail)"),
    ("front", "o200k_base", [("x", 1), ("\n/", 300)], [("p", "\u20ac?" * 100)],
     "punctuation before \"\\n/\" * k, behind the piece \"\\n\" (fixed: _check_merged_run)"),
    ("front", "o200k_base", [("x", 1), ("a", 300), ("\n", 300)], [("t", 300), ("p", "\n" * 300), ("p", "!" * 80), ("t", 80)],
     "a long punctuation prepend before a newline run, cut away (fixed: a record of the newline piece)"),
    ("front", "o200k_base", [("/x", 1), ("\n", 300), ("\r", 300)], [("p", "!"), ("t", 1), ("t", 70)],
     "\"!\" before a newline run with a short rest (fixed: _check_merged_tail)"),
    ("front", "o200k_base", [("\n", 1), (" ", 300), ("\n", 300)], [("p", "x"), ("t", 1), ("p", "!"), ("t", 1)],
     "edits before newlines, spaces and a newline, one piece (fixed: tail part)"),
    ("front", "cl100k_base", [(["\n/!\u0301", "'Ve", "'re"], 78), (["'VE", "'t", "/"], 192),
                              (["\r//\u0301", "'re", "a"], 83),
                              ({"parts": ["\n/'\u0301", "\n//\u0301", "'VE"], "weights": [9, 9, 4], "burst": 16}, 40)],
     [("p", "'dA"), ("p", "'S'D\r/'\u0301"), ("p", "\n/'\u0301"), ("t", 391), ("p", "\n/'\u0301"), ("p", "'ll" * 42),
      ("t", 341), ("t", 5), ("t", 385), ("t", 3), ("p", " "), ("p", "\n//\u0301" * 62), ("t", 2),
      ("p", "'ve\xbd\n/!\u0301"), ("p", "\n//\u0301" * 96), ("t", 369), ("t", 2), ("t", 5), ("t", 3), ("p", "x\xbd")],
     "many short stretches of one period, cut (fixed: a period's record keeps its size, _cut_periods)"),
    ("front", "o200k_base", [("x", 1), ("'Re", 300), ("\r\n", 300)],
     [("t", 5), ("p", "'" + "\u20ac" * 300), ("t", 313), ("t", 283)],
     "a cut through punctuation into the newline run it took as its tail (fixed: the run's record)"),
    ("front", "cl100k_base", [(" ", 300), ("\r", 300)], [("p", "'" + "\u20ac" * 100)],
     "a punctuation run behind \"'\" put in front of a newline run (fixed: _check_merged_run)"),
    ("front", "o200k_base", [("a", 300), ("A", 300), ("\u4e2d", 300)],
     [("p", "a" * 70), ("t", 70), ("t", 5), ("p", "a" * 70), ("t", 82), ("t", 283)],
     "lower-case letters before a word whose long Lo run ends at upper-case letters (fixed: _rest_of_saved_word)"),
    ("front", "o200k_base", [("!", 267)],
     [("p", "\u0301" + "\r/!\u0301\u0301" * 59 + "\r/!\u0301"), ("t", 184), ("t", 238)],
     "a punctuation chain before a run whose state took its last part in another phase (fixed: _adopt_saved from above)"),
    ("front", "o200k_base", [("\n", 399)], [("p", "\n/!\u0301\u0301" * 20), ("t", 311), ("t", 127)],
     "a cut into a newline run that a phase shift gave back its own piece (fixed: _cut_into_known_whitespace)"),
]


def time_pass(side: str, enc, runs, ops, scale: int) -> float:
    # (restore: a pass that cut into the text built puts the part back; the other rows never cut into it)
    _, _, one_pass = edit_pass(enc, runs, ops, scale, side, restore=True)
    one_pass()
    one_pass()
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        one_pass()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", default="1,16,64")
    ap.add_argument("--out")
    args = ap.parse_args()
    scales = [int(x) for x in args.scales.split(",")]
    load = os.getloadavg()
    lines = [
        "# Timed edit sequences on texts built in several steps",
        "",
        f"Command: `python benchmarks/bench_edit_sequences.py --scales {args.scales}`; load average at start: "
        + ", ".join(f"{x:.2f}" for x in load) + ".",
        "",
        "Median µs of one pass (the sequence, then the truncation back), the text built from the "
        "runs (each `unit * count`, or `count` strings drawn from a list, added in order) at each scale.",
        "",
        "| side | encoding | runs | edits | " + " | ".join(f"{s}x" for s in scales) + " | what |",
        "|---|---|---|---|" + "---|" * len(scales) + "---|",
    ]
    for side, name, runs, ops, what in SEQUENCES:
        enc = bpe_stream.get_encoding(name)
        cells = [f"{time_pass(side, enc, runs, ops, s):.0f}" for s in scales]
        lines.append(f"| {side} | {name} | {runs!r} | {ops!r} | " + " | ".join(cells) + f" | {what} |")
        print(lines[-1], flush=True)
    report = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(report)
    else:
        print(report)


if __name__ == "__main__":
    main()
