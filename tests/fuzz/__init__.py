"""Differential fuzzer: random texts of every generator family, every public object, every
invariant, against tiktoken (cl100k_base and o200k_base) and against HF tokenizers (the
real vocabularies' tokenizer.json files: Llama 3, Qwen2, GPT-2, DeepSeek-V3's layout).

    python -m tests.fuzz --cases 100000 --seed 1          # a long run (from the repository root)
    python -m tests.fuzz --cases 2000 --seed 7 --family runs
    python -m tests.fuzz --cases 2000 --encodings '' --vocabularies qwen2/tokenizer.json

``tests/test_fuzz.py`` runs a fixed number of cases in the slow tier (``python -m pytest
--full``).  A failure names the seed, the case number and the text (``repr``), so that
``run_case(seed, case)`` reproduces it alone.

What is checked for each text ``t`` and encoding (``enc`` ours, ``tk`` tiktoken's):

* ``Encoding``: ``encode_ordinary``/``count`` equal tiktoken's; ``decode`` of the tokens
  equals tiktoken's decode; ``encode`` with every special token allowed equals
  tiktoken's, and with the default rules both raise or neither does.
* Cuts: ``split_at``/``truncate``/``truncate_start`` fit, are maximal (brute force over
  every prefix and suffix for short surrogate-free texts) and are slices of ``t``.
* ``AppendableEncoder``: fed ``t`` in random pieces, its count after each equals
  tiktoken's on the prefix; its tokens at the end equal tiktoken's; a pickled copy counts
  the same; a truncation counts the prefix.
* ``IntervalCounter``: random intervals count as tiktoken counts the slice.
* ``Chunker``: for random budgets, overlaps and both boundary modes, every chunk is the
  caller's slice ``t[start:end]`` with tiktoken's count within the budget; chunks cover
  ``t`` in order (and join back to it without overlap); exact chunks without overlap are
  maximal (brute force for short texts, one more character for long ones);
  ``chunk_stream`` over random pieces yields the same chunks as ``chunks``; chunks pickle
  equal.

With HF tokenizers as the oracle (``check_text_hf``), the same checks but the special
token rules and decode (HF's encode with ``add_special_tokens=False`` and its decode),
on the text with lone surrogates replaced (HF takes none).
"""

from __future__ import annotations

import functools
import pickle
import random
import sys
import unicodedata
from pathlib import Path

_TESTS = Path(__file__).resolve().parents[1]
if str(_TESTS) not in sys.path:
    sys.path.insert(0, str(_TESTS))

import bpe_stream  # noqa: E402
from bpe_stream import AppendableEncoder, Chunker, IntervalCounter  # noqa: E402
from bpe_stream.chunk.chunker import CharacterOverBudget  # noqa: E402

ENCODING_NAMES = ("cl100k_base", "o200k_base")
BRUTE_MAX = 90  # texts up to this many characters get the brute-force maximality checks


# ------------------------------------------------------------------ generators
@functools.lru_cache(maxsize=1)
def _by_category() -> dict[str, list[str]]:
    """A sample of code points for every Unicode general category (all scripts)."""
    cats: dict[str, list[str]] = {}
    rng = random.Random(0)
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        cat = unicodedata.category(chr(cp))
        bucket = cats.setdefault(cat, [])
        if len(bucket) < 400:
            bucket.append(chr(cp))
        elif rng.random() < 0.01:
            bucket[rng.randrange(400)] = chr(cp)
    return cats


_EMOJI = ["\U0001F600", "\U0001F44D\U0001F3FD", "\u2764\ufe0f", "\U0001F469\u200d\U0001F4BB",
          "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466", "\U0001F1FA\U0001F1F8", "1\ufe0f\u20e3",
          "\U0001F3F3\ufe0f\u200d\U0001F308"]
_MARKS = ["\u0301", "\u0308", "\u0903", "\u20dd", "\u0e31", "\u302a", "\ufe0f", "\u200d", "\u200c"]
_CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "n't", "I'm", "'", "''"]
_SPECIALS = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>",
             "<|endof", "|>", "<|"]
_CLASS_UNITS = [" ", "  ", "\t", "\n", "\r\n", "\r", "\u00a0", "\u3000", "a", "Z", "é", "中", "ʰ", "ǅ",
                "1", "٣", "!", "/", ".", "'", "\x00", "\x1c", "😀", "\u0301", "ab", "AB", "12345"]


def _pick_category_char(rng: random.Random) -> str:
    cats = _by_category()
    cat = rng.choice(sorted(cats))
    return rng.choice(cats[cat])


def gen_unicode(rng: random.Random) -> str:
    """Characters of every general category and script, with spaces and newlines."""
    out = []
    for _ in range(rng.randint(1, 60)):
        r = rng.random()
        out.append(" " if r < 0.15 else "\n" if r < 0.2 else _pick_category_char(rng))
    return "".join(out)


def gen_marks(rng: random.Random) -> str:
    """Letters with combining marks, ZWJ/ZWNJ and emoji sequences."""
    out = []
    for _ in range(rng.randint(1, 30)):
        r = rng.random()
        if r < 0.3:
            out.append(rng.choice("aBéz中ʰǅ!/ 1"))
        elif r < 0.7:
            out.append(rng.choice(_MARKS) * rng.randint(1, 3))
        else:
            out.append(rng.choice(_EMOJI))
    return "".join(out)


def gen_crlf(rng: random.Random) -> str:
    """Mixes of CR, LF, CRLF, blanks and a few other characters."""
    return "".join(rng.choice(["\r\n", "\r", "\n", " ", "\t", "x", "/", "!", "\u2028", "\x0b"])
                   for _ in range(rng.randint(1, 60)))


def gen_digits_contractions(rng: random.Random) -> str:
    """Digit runs (ASCII and other scripts) and contractions next to words."""
    out = []
    for _ in range(rng.randint(1, 25)):
        r = rng.random()
        if r < 0.35:
            out.append("".join(rng.choice("0123456789٣๓") for _ in range(rng.randint(1, 9))))
        elif r < 0.7:
            out.append(rng.choice(_CONTRACTIONS))
        else:
            out.append(rng.choice(["we", "DON", " it", "x", " ", "\n", "."]))
    return "".join(out)


def gen_surrogates(rng: random.Random) -> str:
    """Lone surrogates (and pairs split across characters) among other text."""
    out = []
    for _ in range(rng.randint(1, 20)):
        r = rng.random()
        if r < 0.3:
            out.append(chr(rng.randint(0xD800, 0xDFFF)))
        elif r < 0.4:
            out.append("\ud83d\ude00")  # a pair: tiktoken joins it
        else:
            out.append(rng.choice(_CLASS_UNITS))
    return "".join(out)


def gen_specials(rng: random.Random) -> str:
    """Special-token strings and parts of them in text."""
    return "".join(rng.choice(_SPECIALS + ["hello", " ", "\n", "x"]) for _ in range(rng.randint(1, 12)))


def gen_runs(rng: random.Random) -> str:
    """Long runs of one class (one unit repeated), sometimes between other text."""
    unit = rng.choice(_CLASS_UNITS + ["a\u0301", "!\u0301/", "\u3000 ", "/\n", "中文"])
    run = unit * rng.randint(20, 700 // len(unit))
    r = rng.random()
    if r < 0.3:
        return run
    head = rng.choice(_CLASS_UNITS)
    tail = rng.choice(_CLASS_UNITS)
    return head + run + tail if r < 0.7 else run + rng.choice(_CLASS_UNITS) + unit * rng.randint(1, 200)


def gen_mix(rng: random.Random) -> str:
    """Units of every class in random order."""
    return "".join(rng.choice(_CLASS_UNITS) for _ in range(rng.randint(1, 50)))


FAMILIES = {
    "unicode": gen_unicode,
    "marks": gen_marks,
    "crlf": gen_crlf,
    "digits": gen_digits_contractions,
    "surrogates": gen_surrogates,
    "specials": gen_specials,
    "runs": gen_runs,
    "mix": gen_mix,
}


# ------------------------------------------------------------------ the oracle
@functools.lru_cache(maxsize=None)
def oracle(name: str):
    """tiktoken's encoding ``name``, loaded offline from the bundled files."""
    from conftest import tiktoken_oracle

    return tiktoken_oracle(name)


@functools.lru_cache(maxsize=None)
def encoding(name: str):
    return bpe_stream.get_encoding(name)


class FuzzFailure(AssertionError):
    pass


def _has_surrogate(t: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in t)


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise FuzzFailure(what)


# ------------------------------------------------------------------ the checks
def check_text(t: str, name: str, rng: random.Random) -> None:
    """Every invariant of every public object on ``t`` with encoding ``name``."""
    enc = encoding(name)
    tk = oracle(name)
    tk_count = functools.lru_cache(maxsize=None)(lambda s: len(tk.encode_ordinary(s)))
    clean = not _has_surrogate(t)

    # Encoding
    tokens = enc.encode_ordinary(t)
    _check(tokens == tk.encode_ordinary(t), "encode_ordinary differs from tiktoken")
    _check(enc.count(t) == len(tokens), "count differs from len(encode_ordinary)")
    _check(enc.decode(tokens) == tk.decode(tokens), "decode differs from tiktoken")
    _check(enc.encode(t, allowed_special="all") == tk.encode(t, allowed_special="all"),
           "encode(allowed_special='all') differs from tiktoken")
    ours = theirs = None
    try:
        ours = enc.encode(t)
    except ValueError:
        ours = "raised"
    try:
        theirs = tk.encode(t)
    except ValueError:
        theirs = "raised"
    _check(ours == theirs, f"encode with the default special rules: {ours!r} vs {theirs!r}")

    check_objects(t, enc, tokens, tk_count, clean, rng)


def check_objects(t: str, enc, tokens: list[int], count_of, clean: bool, rng: random.Random,
                  pickles: bool = True) -> None:
    """The invariants of the cuts, streaming objects and chunker on ``t`` with ``enc``,
    whose tokens of ``t`` are ``tokens``; ``count_of(s)``: the oracle's count of ``s``.
    ``clean``: ``t`` holds no lone surrogate (the brute-force checks need that).  With a
    normalizing pre-tokenizer (Qwen's NFC) the chunks are of ``normalize(t)``, their
    offsets into it (chunker.py: the text the model sees).  ``pickles``: check that the
    objects pickle (an encoding loaded from a file pickles its whole vocabulary)."""
    form = enc.pretokenizer.normalizer if enc.pretokenizer is not None else None
    chunked = t if form is None else unicodedata.normalize(form, t)

    @functools.lru_cache(maxsize=1)
    def cut_points() -> tuple[set[int], list[int]]:
        # (where a cut may fall, where it surely may): anywhere without normalization;
        # with it, only where normalizing the two sides apart gives the normalized text,
        # and surely before a starter there (a grapheme cluster normalization changes is
        # never cut: text/normalized.py; inside one it leaves alone it may be); the two
        # ends always may, even next to a mark
        if form is None:
            every = list(range(len(t) + 1))
            return set(every), every
        may = [j for j in range(len(t) + 1)
               if unicodedata.normalize(form, t[:j]) + unicodedata.normalize(form, t[j:]) == chunked]
        return set(may), [j for j in may if j in (0, len(t)) or unicodedata.combining(t[j]) == 0]

    # Cuts
    for k in {0, 1, rng.randint(1, 8), rng.randint(1, 40)}:
        i = enc.split_at(t, k)
        _check(0 <= i <= len(t) and count_of(t[:i]) <= k, f"split_at({k}) = {i} does not fit")
        _check(enc.truncate(t, k) == t[:i], f"truncate({k}) is not t[:split_at]")
        suffix = enc.truncate_start(t, k)
        _check(t.endswith(suffix) and count_of(suffix) <= k, f"truncate_start({k}) does not fit")
        if clean and len(t) <= BRUTE_MAX:
            may, sure = cut_points()
            best = max(j for j in sure if count_of(t[:j]) <= k)
            _check(i in may and i >= best, f"split_at({k}) = {i}, the longest fitting prefix ends at {best}")
            first = min(j for j in sure if count_of(t[j:]) <= k)
            _check(len(t) - len(suffix) in may and len(suffix) >= len(t) - first,
                   f"truncate_start({k}) is not the longest fitting suffix")

    # AppendableEncoder
    ae = AppendableEncoder(enc)
    pos = 0
    while pos < len(t):
        step = 1 if rng.random() < 0.5 else rng.randint(1, 12)
        ae.append(t[pos : pos + step])
        pos = min(len(t), pos + step)
        if clean or rng.random() < 0.2:
            _check(ae.token_count == count_of(t[:pos]), f"AppendableEncoder count after {pos} characters")
    _check(ae.token_count == len(tokens), "AppendableEncoder final count")
    if clean:
        _check(ae.tokens() == tokens, "AppendableEncoder tokens")
    if pickles:
        copy = pickle.loads(pickle.dumps(ae))
        _check(copy.token_count == ae.token_count, "AppendableEncoder pickle")
    if clean and t:
        n = rng.randint(0, len(t))
        ae.truncate(n)
        _check(ae.token_count == count_of(t[:n]), f"AppendableEncoder truncate({n})")

    # IntervalCounter
    if clean and t:
        ic = IntervalCounter(enc, t)
        for _ in range(8):
            i = rng.randint(0, len(t))
            j = rng.randint(i, len(t))
            _check(ic.count(i, j) == count_of(t[i:j]), f"IntervalCounter.count({i}, {j})")

    # Chunker
    for _ in range(2):
        budget = rng.choice([1, 2, 3, 5, 8, 16, 64])
        overlap = rng.choice([0, 0, budget // 4, budget // 2])
        mode = rng.choice(["exact", "semantic"])
        chunker = Chunker(enc, budget, overlap=overlap, boundaries=mode)
        try:
            chunks = chunker.chunks(t)
        except CharacterOverBudget:
            continue  # a character that needs more tokens than the budget
        _check_chunks(chunked, chunks, budget, overlap, mode, count_of, clean)
        pieces = []
        p = 0
        while p < len(t):
            q = min(len(t), p + rng.randint(1, 40))
            pieces.append(t[p:q])
            p = q
        streamed = list(chunker.chunk_stream(pieces))
        _check(streamed == chunks, "chunk_stream differs from chunks")
        _check(pickle.loads(pickle.dumps(chunks)) == chunks, "chunks do not pickle equal")


def _check_chunks(t, chunks, budget, overlap, mode, count_of, clean) -> None:
    where = f"Chunker(budget={budget}, overlap={overlap}, boundaries={mode!r})"
    if not t:
        _check(chunks == [], f"{where}: chunks of an empty text")
        return
    _check(bool(chunks) and chunks[0].start == 0 and chunks[-1].end == len(t), f"{where}: does not cover t")
    prev = None
    for c in chunks:
        _check(c.text == t[c.start : c.end] and c.text != "", f"{where}: chunk is not t[start:end]")
        _check(c.token_count == count_of(c.text) <= budget, f"{where}: chunk count {c.token_count}")
        if prev is not None:
            if overlap == 0:
                _check(c.start == prev.end, f"{where}: chunks do not join")
            else:
                _check(prev.start < c.start <= prev.end < c.end, f"{where}: overlapping chunks out of order")
        prev = c
    if overlap == 0:
        _check("".join(c.text for c in chunks) == t, f"{where}: chunks do not join back to t")
        if mode == "exact":
            for c in chunks[:-1]:
                if clean and len(t) <= BRUTE_MAX:
                    best = max(j for j in range(c.start, len(t) + 1) if count_of(t[c.start : j]) <= budget)
                    _check(c.end == best, f"{where}: chunk at {c.start} ends at {c.end}, not maximal ({best})")
                elif clean:
                    _check(count_of(t[c.start : c.end + 1]) > budget, f"{where}: one more character fits")


# ------------------------------------------------------------------ HF tokenizers as the oracle
# The real vocabularies tests/real_vocabularies.py writes as tokenizer.json files (into
# $BPE_STREAM_TEST_VOCABS): Llama 3 (whole-piece tokens), Qwen2 (NFC), GPT-2 and Llama 3
# under DeepSeek-V3's chain of Splits.
HF_VOCABULARIES = ("llama3/tokenizer.json", "qwen2/tokenizer.json", "gpt2/tokenizer.json",
                   "deepseek_v3_layout/tokenizer.json")


class VocabularyUnavailable(Exception):
    """A vocabulary the cache lacks (and cannot fetch), or HF tokenizers not installed."""


@functools.lru_cache(maxsize=None)
def hf_pair(path: str):
    """(our Encoding, HF's Tokenizer) of the cached real vocabulary ``path``; raises
    ``VocabularyUnavailable`` with the reason."""
    import real_vocabularies as rv

    try:
        import tokenizers
    except ImportError as e:
        raise VocabularyUnavailable(f"HF tokenizers is not installed: {e}") from e
    try:
        file = rv.built(path)
    except rv.Unavailable as e:
        raise VocabularyUnavailable(f"{path}: {e}") from e
    return bpe_stream.load(file), tokenizers.Tokenizer.from_file(str(file))


def check_text_hf(t: str, path: str, rng: random.Random) -> None:
    """Every invariant of every public object on ``t`` with the real vocabulary ``path``,
    against HF tokenizers' ``encode(text, add_special_tokens=False).ids``.  HF takes no
    lone surrogate, so ``t`` is taken with them replaced (as the library replaces them);
    HF matches its special tokens inside text, so a text holding one is compared with
    ``encode(allowed_special="all")`` and the objects (which count ordinary text) skip it."""
    from bpe_stream.text.input import fix_surrogates

    enc, tok = hf_pair(path)
    t = fix_surrogates(t)

    def ids(s: str) -> list[int]:
        return tok.encode(s, add_special_tokens=False).ids

    hf_count = functools.lru_cache(maxsize=None)(lambda s: len(ids(s)))
    expected = ids(t)
    tokens = enc.encode_ordinary(t)
    if any(s in t for s in enc.special_tokens):
        _check(enc.encode(t, allowed_special="all") == expected,
               "encode(allowed_special='all') differs from HF tokenizers")
        return
    _check(tokens == expected, "encode_ordinary differs from HF tokenizers")
    _check(enc.count(t) == len(tokens), "count differs from len(encode_ordinary)")
    _check(enc.decode(tokens) == tok.decode(tokens), "decode differs from HF tokenizers")
    # (one case in 20 pickles: each copy carries the whole vocabulary, ~0.3 s)
    check_objects(t, enc, tokens, hf_count, True, rng, pickles=rng.random() < 0.05)


# ------------------------------------------------------------------ running
def make_text(seed: int, case: int, family: str | None = None) -> tuple[str, str]:
    rng = random.Random(f"{seed}/{case}")
    fam = family or rng.choice(sorted(FAMILIES))
    return fam, FAMILIES[fam](rng)


def run_case(seed: int, case: int, family: str | None = None, encodings=ENCODING_NAMES,
             vocabularies=()) -> None:
    """Check one case against tiktoken for each of ``encodings`` and against HF tokenizers
    for each of ``vocabularies`` (paths in ``HF_VOCABULARIES``); raises ``FuzzFailure``
    naming the seed, case, family and text (``VocabularyUnavailable`` for a vocabulary
    the cache lacks)."""
    fam, t = make_text(seed, case, family)
    for name, check in [(n, check_text) for n in encodings] + [(v, check_text_hf) for v in vocabularies]:
        rng = random.Random(f"{seed}/{case}/{name}")
        if check is check_text_hf:
            hf_pair(name)  # VocabularyUnavailable passes through, not as a failure
        try:
            check(t, name, rng)
        except Exception as e:
            what = "encoding" if check is check_text else "vocabulary"
            raise FuzzFailure(
                f"seed={seed} case={case} family={fam} {what}={name}: {e}\n  text={t!r}\n"
                f"  reproduce: python -m tests.fuzz --seed {seed} --start {case} --cases 1"
                + ("" if check is check_text else f" --encodings '' --vocabularies {name}")
            ) from e


def run(cases: int, seed: int, start: int = 0, family: str | None = None, encodings=ENCODING_NAMES,
        progress=None, vocabularies=()) -> int:
    """Run cases ``start .. start + cases - 1``; returns how many ran.  Stops at the first failure."""
    for case in range(start, start + cases):
        run_case(seed, case, family, encodings, vocabularies)
        if progress is not None and (case - start + 1) % 500 == 0:
            progress(case - start + 1)
    return cases
