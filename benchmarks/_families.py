"""Input families for the worst-case benchmarks: each a text of about ``nbytes`` UTF-8 bytes.

The families are the kinds of text on which a chunker or a streaming counter could
leave its fast paths: corpora (prose, code, multilingual), one pre-split piece of a
megabyte (whitespace, NUL bytes, CJK or emoji without spaces, one endless word,
punctuation runs), pieces that pre-split differently in cl100k and o200k (letters
with combining marks, punctuation with marks, ideographic spaces, ``/`` before a
newline), digits and base64.  Random families are seeded, so every run sees the same
text.  Corpora come from ``../shared/corpora`` (beside the repository).
"""

from __future__ import annotations

import base64
import random

from _common import corpus, head_bytes

# Emoji as people type them: single code points, skin tones, variation selectors,
# ZWJ sequences (families, professions), flags and keycaps.
_EMOJI = [
    "\U0001F600", "\U0001F602", "\U0001F60D", "\U0001F44D", "\U0001F44D\U0001F3FD", "\u2764\ufe0f",
    "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466", "\U0001F469\u200d\U0001F4BB",
    "\U0001F3F3\ufe0f\u200d\U0001F308", "\U0001F1FA\U0001F1F8", "\U0001F1EF\U0001F1F5", "1\ufe0f\u20e3",
    "\U0001F9D1\U0001F3FF\u200d\U0001F9B0", "\U0001F525", "\u2728", "\U0001F389", "\U0001F64F\U0001F3FB",
]


def _fill(unit: str, nbytes: int) -> str:
    return head_bytes(unit * (nbytes // len(unit.encode("utf-8")) + 1), nbytes)


def _random(alphabet, nbytes: int, seed: int) -> str:
    rng = random.Random(seed)
    out = []
    size = 0
    while size < nbytes:
        u = rng.choice(alphabet)
        out.append(u)
        size += len(u.encode("utf-8"))
    return head_bytes("".join(out), nbytes)


def _corpus(name: str, nbytes: int) -> str:
    text = corpus(name)
    return head_bytes(text * (nbytes // len(text.encode("utf-8")) + 1), nbytes)


FAMILIES = {
    "prose": lambda n: _corpus("tinyshakespeare.txt", n),
    "code": lambda n: _corpus("code_python_black.py.txt", n),
    "multilingual": lambda n: _corpus("multilingual_sentences.txt", n),
    "spaces": lambda n: " " * n,
    "newlines": lambda n: "\n" * n,
    "tabs and mixed whitespace": lambda n: _random([" ", "\t", "\n", "\r\n", "  ", "\t\t", "\u00a0"], n, 1),
    "NUL bytes": lambda n: "\x00" * n,
    "CJK without spaces": lambda n: _random([chr(c) for c in range(0x4E00, 0x9FA6)], n, 2),
    "emoji with ZWJ sequences": lambda n: _random(_EMOJI, n, 3),
    "one random-letter word": lambda n: _random("abcdefghijklmnopqrstuvwxyz", n, 4),
    "'!' repeated": lambda n: "!" * n,
    "random ASCII punctuation": lambda n: _random("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", n, 5),
    "'a\\u0301' repeated": lambda n: _fill("a\u0301", n),
    "'!\\u0301/' repeated": lambda n: _fill("!\u0301/", n),
    "'\\u3000 ' repeated": lambda n: _fill("\u3000 ", n),
    "'/\\n' repeated": lambda n: _fill("/\n", n),
    "digits": lambda n: _random("0123456789", n, 6),
    "base64": lambda n: base64.b64encode(random.Random(7).randbytes(n * 3 // 4 + 3)).decode("ascii")[:n],
}


def family_text(name: str, nbytes: int) -> str:
    """The text of family ``name``, at most ``nbytes`` UTF-8 bytes (a few less where a
    character would not fit)."""
    return FAMILIES[name](nbytes)
