"""Shared strategies and brute-force helpers for the streaming tests (adversarial alphabets)."""

from hypothesis import strategies as st

ATOMS = [" ", "  ", "\n", "\r", "\r\n", "\t", "a", "b", "S", "l", "'", "'ll", "'s", "1", "23", "456",
         "!", "/", "é", "É", "中", "文", "😀", "👍🏽", "ʰ", "\u0301", "x" * 12, " " * 12, "\n" * 6,
         "A" * 9, " the", " word", "Hello", "\u3000", "\x1c", "\x1f\n",
         # the classes the atoms above lack (as in bench_work_growth.CLASSES): title case, a
         # spacing and an enclosing mark, letter and other numbers, a 4-byte letter, NEL
         # (whitespace), contractions in upper and mixed case and with the long s (an "s"
         # ignoring case)
         "\u01c5", "\u0903", "\u20dd", "\u216b", "\u00bd", "\U00020000", "\x85", "'\u017f", "'D", "'Ve"]
text_st = st.lists(st.sampled_from(ATOMS), max_size=25).map("".join)

# Long runs: exercise long pieces (raw records, interval indexes over pieces, periodic runs).
LONG_ATOMS = ATOMS + ["x" * 80, " " * 70, "\n" * 66, " \n" * 40, "\n " * 35, "1" * 70, "12" * 40,
                      "中" * 70, "!" * 70, "!?" * 40, "aB" * 40, "A" * 70, "é" * 70, "'" * 66,
                      "!'/?'" * 20, "!!\n/'" * 15, "." * 40 + "\n//" + "'" * 30]
long_text_st = st.lists(st.sampled_from(LONG_ATOMS), max_size=8).map("".join)

# One character per class of bpe_stream.pretokenize.fast_split (cl100k and o200k), contraction
# letters, and characters the fast path must hand to the regex (apostrophe, mark, surrogate-free
# non-ASCII letters and whitespace).
CLASS_ALPHABET = "aB1 \n\r\t!/'s\u0301中ʰ\u3000"
LETTER_ALPHABET = "aB中ʰ\u0301 !'"  # o200k's letter sets, marks and prefixes
SMALL_ALPHABET = "aB1 \n\t!'s"
# marks after every kind of last piece (o200k: words, prefixes, punctuation runs, digits,
# newlines, marks) and what follows a mark
MARK_ALPHABET = "a!/\u0301 \t1\n'B"


def all_strings(alphabet: str, max_len: int):
    """Every string over ``alphabet`` of length 1..max_len, depth first (parents before children)."""
    stack = [""]
    while stack:
        s = stack.pop()
        if len(s) < max_len:
            for ch in alphabet:
                yield s + ch
                if len(s) + 1 < max_len:
                    stack.append(s + ch)


def cross_class_encoding(pattern_name: str):
    """An Encoding with a bundled pre-split pattern over a small vocabulary whose tokens
    cross the pattern's piece boundaries (lower/upper case, marks, newline + space, letter +
    space).  The bundled vocabularies never hold such tokens (they were learned inside
    pieces), so a shortcut that is exact for them only by that accident fails here."""
    from bpe_stream import Encoding
    from bpe_stream.pretokenize.patterns import PATTERNS

    tokens = [bytes([i]) for i in range(256)]
    for t in [b"aB", b"xx", b"xxxx", b"\xcc\x81", b"\xcc\x81x", b"Ba", b"a\xcc\x81", b"\n ", b"\n \n", b"x ",
              b" x", b"  ", b"    ", b"\n\n", b"1 ", b"11", b"111", b"!\n", b"!!", b"e\xcc\x81",
              b"\xca\xb0", b"\xca\xb0A", b"\xe4\xb8", b"\xe4\xb8\xad", b"B\xe4\xb8\xad", b"\xe4\xb8\xadA"]:
        tokens.append(t)
    return Encoding("cross-" + pattern_name, pat_str=PATTERNS[pattern_name],
                    mergeable_ranks={t: i for i, t in enumerate(tokens)})


#: The bundled encodings plus each bundled pattern over the cross-boundary vocabulary.
ENCODINGS_WITH_CROSS = ["cl100k_base", "o200k_base", "cross-cl100k_base", "cross-o200k_base"]


def encoding_by_name(name: str):
    """A bundled encoding, or ``cross-<pattern>``: that pattern over the vocabulary of
    :func:`cross_class_encoding` (every shortcut must follow from the pattern alone)."""
    import bpe_stream

    if name.startswith("cross-"):
        return cross_class_encoding(name[len("cross-") :])
    return bpe_stream.get_encoding(name)


def python_lines(action) -> int:
    """Python lines executed by ``action()``: a measure of Python work, not of time.

    The garbage collector is off meanwhile: a collection would run the finalizers of
    whatever earlier work left behind, lines that are not the action's."""
    import gc
    import sys

    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    old = sys.gettrace()
    enabled = gc.isenabled()
    gc.disable()
    sys.settrace(tracer)
    try:
        action()
    finally:
        sys.settrace(old)
        if enabled:
            gc.enable()
    return count


def append_records_violations(impl) -> list:
    """What breaks the invariant of ``TextAppendable.records`` (empty when it holds): its keys
    are the starts of the current pieces longer than ``piece_stream._LONG``, each record ending
    where its piece ends.  The truncation finds the records to cut through the pieces."""
    from bpe_stream.text import appendable as piece_stream

    if impl.pattern is None:
        return []
    ends = impl.stable_ends
    spans = [(ends[i], ends[i + 1]) for i in range(len(ends) - 1)] + [(a, b) for a, b, _ in impl.tail]
    long = {a: b for a, b in spans if b - a > piece_stream._LONG}
    out = [("not a long piece", a, r.end) for a, r in impl.records.items() if a not in long]
    out += [("wrong end", a, r.end, long[a]) for a, r in impl.records.items() if a in long and r.end != long[a]]
    out += [("no record", a) for a in long if a not in impl.records]
    return out


def edit_sequence_lines(enc, at_front: bool, make, ops, sizes=(300, 4_800), measure=None) -> list[int]:
    """Python lines (or ``measure``, such as :func:`characters_read`) of one pass of the edit
    sequence ``ops`` over texts built from ``make(k)`` for each k in ``sizes`` (the sequence
    search of bench_work_growth.py --sequences).

    The text is built by adding ``make(k)``'s parts one by one (prepending for
    ``at_front``, appending otherwise).  An op ``("p", s)`` adds ``s`` at that side, ``("t",
    j)`` removes ``j`` characters from it, and each pass ends with a truncation back to the
    built text.  Two passes run first (checked against ``enc.count`` after every op): a pass
    may build records once; the third, counted, shows the work that comes back every time."""
    from bpe_stream import AppendableEncoder, PrependableEncoder

    lines = []
    for k in sizes:
        stream = PrependableEncoder(enc) if at_front else AppendableEncoder(enc)
        add = stream.prepend if at_front else stream.append
        now = ""
        for part in make(k):
            add(part)
            now = part + now if at_front else now + part
        size = len(stream)

        def one_pass(check=False):
            nonlocal now
            for op, arg in ops:
                if op == "p":
                    add(arg)
                    now = arg + now if at_front else now + arg
                else:
                    stream.truncate(len(stream) - arg)
                    now = now[arg:] if at_front else now[: len(now) - arg]
                assert not check or stream.token_count == enc.count(now), (op, arg)
            stream.truncate(size)
            now = now[len(now) - size:] if at_front else now[:size]

        one_pass(True)
        one_pass(True)
        lines.append((measure or python_lines)(one_pass))
        assert stream.token_count == enc.count(now)
    return lines


def characters_read(action) -> int:
    """Characters of the streamed text read by ``action()``: those fetched from the front
    (``TextPrependable._front``/``_window``) and sliced from the back (``_Rope``).  Python
    lines do not show work done at C speed (a regex over a fetch that grows to the whole
    text, 4x per round, adds only a few lines per round); this does."""
    from bpe_stream.stream.front.text_prependable import TextPrependable
    from bpe_stream.text.appendable import _Rope

    count = 0
    originals = {(TextPrependable, "_front"): TextPrependable._front,
                 (TextPrependable, "_window"): TextPrependable._window,
                 (_Rope, "__getitem__"): _Rope.__getitem__}

    def counting(method):
        def read(*args):
            nonlocal count
            out = method(*args)
            count += len(out)
            return out
        return read

    for (cls, name), method in originals.items():
        setattr(cls, name, counting(method))
    try:
        action()
    finally:
        for (cls, name), method in originals.items():
            setattr(cls, name, method)
    return count


def deep_edit_work(enc, at_front: bool, unit: str, counts, depth: int, edits, measure=None) -> list[int]:
    """Python lines (or ``measure``) of one pass that truncates ``depth`` characters off the
    growing end of ``unit * count`` (the front for ``at_front``), adds each of ``edits`` and
    truncates it again, then puts the removed part back, for each count, after two checked
    passes; the count must equal ``enc.count`` after every step of those.  Edits longer than
    a few dozen characters take other paths than short ones (a part of the text is put back
    in one addition)."""
    from bpe_stream import AppendableEncoder, PrependableEncoder

    out = []
    for count in counts:
        base = unit * count
        stream = PrependableEncoder(enc) if at_front else AppendableEncoder(enc)
        add = stream.prepend if at_front else stream.append
        add(base)
        size = len(base)
        removed = base[:depth] if at_front else base[size - depth :]
        kept = base[depth:] if at_front else base[: size - depth]

        def one_pass(check=False):
            stream.truncate(size - depth)
            assert not check or stream.token_count == enc.count(kept)
            for edit in edits:
                add(edit)
                assert not check or stream.token_count == enc.count(edit + kept if at_front else kept + edit)
                stream.truncate(size - depth)
            add(removed)
            assert not check or stream.token_count == enc.count(base)

        one_pass(True)
        one_pass(True)
        out.append((measure or python_lines)(one_pass))
        assert stream.token_count == enc.count(base)
    return out


def characters_split(stream, action) -> int:
    """Characters of the strings that the pre-split pattern of ``stream`` (a PrependableEncoder
    or AppendableEncoder) is run over by ``action()``: the re-split work done at C speed on
    strings a stream keeps (a proxy's stored tail part), which :func:`characters_read` does
    not see."""
    impl = stream._impl
    pattern = impl.pattern
    count = 0

    class Counting:
        def __getattr__(self, name):
            method = getattr(pattern, name)

            def call(string, *args, **kwargs):
                nonlocal count
                count += len(string)
                return method(string, *args, **kwargs)

            return call

    impl.pattern = Counting()
    try:
        action()
    finally:
        impl.pattern = pattern
    return count


def exhaustive_appends(enc, alphabet: str, depth: int, pattern) -> int:
    """Append every string over ``alphabet`` up to ``depth`` characters one at a time (the
    state copied at every node, so that the regex-free path runs from every reachable
    state): after each append the pieces equal ``pattern``'s split and the count equals
    ``enc.count``.  Returns how many appends took the regex-free path."""
    from bpe_stream.text.appendable import TextAppendable

    fast_hits = 0
    stack = [(TextAppendable(enc), "")]
    while stack:
        ta, text = stack.pop()
        for ch in alphabet:
            child = ta.copy()
            kind_before = child.kind
            child.append(ch)
            s = text + ch
            assert child.token_count == enc.count(s), repr(s)
            # the pieces themselves, not only their counts
            ends = list(child.stable_ends[1:]) + [b for _, b, _ in child.tail]
            assert ends == [m.end() for m in pattern.finditer(s)], repr(s)
            fast_hits += child.kind != 0 or kind_before != 0
            if len(s) < depth:
                stack.append((child, s))
    return fast_hits
