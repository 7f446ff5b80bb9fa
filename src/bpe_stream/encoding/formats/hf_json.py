"""HF ``tokenizer.json`` files: byte-level BPE with its pre-tokenizers and normalizers.

What is read: the model (``BPE``: ``vocab``, ``merges`` as ``"a b"`` strings or
``[a, b]`` pairs, ``ignore_merges``; ``byte_fallback``, ``dropout``, a subword prefix or
suffix are refused), the pre-tokenizer (``Split`` with a regex or string and behaviour
``isolated``, ``ByteLevel`` with or without its own regex, ``Digits``, a ``Sequence`` of
these), the normalizer (``NFC``, ``NFKC``, a ``Sequence`` of these, or none) and the added
tokens (kept as special tokens: ordinary text never becomes one).  Anything else is refused
with an error that names it.  Tokens are byte-level strings (GPT-2's byte-to-character
table); a vocabulary that is not byte-level (WordPiece, Unigram, SentencePiece BPE) is
refused naming its kind.

The regexes are read as Oniguruma reads them (:mod:`bpe_stream.pretokenize.family`); the
pre-tokenizer is one of the family's members where the steps are a member's spelling.
Cost: linear in the file.
"""

from __future__ import annotations

import json
from itertools import accumulate

from ...bpe.native import load_strings
from ...pretokenize.family import GPT2_BYTE_LEVEL, chain
from ..spec import EncodingSpec

__all__ = ["byte_decoder", "byte_encoder", "decode_byte_level", "read_tokenizer_json"]


def byte_encoder() -> dict[int, str]:
    """GPT-2's table from bytes to the printable characters byte-level vocabularies use."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) \
        + list(range(ord("\xae"), ord("\xff") + 1))
    table = {b: chr(b) for b in keep}
    n = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + n)
            n += 1
    return table


def byte_decoder() -> dict[str, int]:
    return {c: b for b, c in byte_encoder().items()}


_TO_LATIN1 = {ord(c): b for b, c in byte_encoder().items()}
_ALPHABET = frozenset(byte_encoder().values())


def decode_byte_level(strings: list[str] | list[bytes], *, pairs: bool = False, tuples: bool = False):
    """The bytes each byte-level string stands for (a str, or bytes holding its UTF-8, as a
    GGUF file stores it); with ``pairs``, each string is a merge ``"a b"`` (one space) and
    the result holds both sides, two per string (with ``tuples``, one ``(a, b)`` per
    string).  ValueError names the first string that is not byte level (or, with
    ``pairs``, not two tokens).

    Compiled (``_native/load_strings.c``): one pass, one bytes object per result.  Pure
    Python: every character stands for one byte, so the strings are translated to code
    points 0-255 at once, encoded as Latin-1 and cut at their lengths; a character outside
    the alphabet is refused first (it would pass through as itself)."""
    strings = strings if type(strings) is list else list(strings)
    native = load_strings()
    if native is not None:
        try:
            return native[0](strings, pairs=pairs, tuples=tuples)
        except ValueError as e:
            if len(e.args) != 2:
                raise
            # the pure-Python reading below words the error
    if not pairs:
        return _decode_byte_level_py([t.decode("utf-8", "replace") if isinstance(t, bytes) else t for t in strings])
    sides: list[str] = []
    for m in strings:
        if isinstance(m, (list, tuple)):
            if len(m) != 2 or not all(isinstance(x, str) for x in m):
                raise ValueError(f"merge {m!r} is not two tokens")
            sides += m
            continue
        text = m.decode("utf-8", "replace") if isinstance(m, bytes) else m
        if not isinstance(text, str) or text.count(" ") != 1:
            raise ValueError(f"merge {text!r} is not two tokens")
        sides += text.split(" ")
    both = _decode_byte_level_py(sides)
    return list(zip(both[0::2], both[1::2])) if tuples else both


def _decode_byte_level_py(strings: list[str]) -> list[bytes]:
    joined = "".join(strings)
    stray = set(joined).difference(_ALPHABET)
    if stray:
        bad = next(t for t in strings if not stray.isdisjoint(t))
        raise ValueError(f"token {bad!r} is not a byte-level token")
    data = joined.translate(_TO_LATIN1).encode("latin-1")
    ends = list(accumulate(map(len, strings)))
    return [data[a:b] for a, b in zip([0, *ends], ends)]


def _refuse(what: str) -> ValueError:
    return ValueError(f"tokenizer.json: {what}")


def read_tokenizer_json(data: dict | str, name: str = "tokenizer") -> EncodingSpec:
    """The :class:`EncodingSpec` of a tokenizer.json (its parsed JSON or its text)."""
    if isinstance(data, (str, bytes)):
        data = json.loads(data)
    if not isinstance(data, dict) or "model" not in data:
        raise _refuse("not a tokenizer file (no 'model')")
    model = data["model"]
    kind = model.get("type")
    if kind is None and "merges" in model and "vocab" in model:
        kind = "BPE"  # older files leave the type out
    if kind != "BPE":
        raise _refuse(f"the model is {kind}, not byte-level BPE (WordPiece, Unigram and WordLevel "
                      "vocabularies are not BPE over bytes)")
    if model.get("byte_fallback"):
        raise _refuse("the model is SentencePiece-style BPE with byte_fallback, not byte-level BPE")
    if model.get("dropout") not in (None, 0, 0.0):
        raise _refuse(f"BPE dropout {model['dropout']} is not supported (it makes encoding random)")
    for key in ("continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(key):
            raise _refuse(f"{key} {model[key]!r} is not supported (byte-level BPE has none)")
    def to_bytes(strings: list[str]) -> list[bytes]:
        try:
            return decode_byte_level(strings)
        except ValueError as e:
            raise _refuse(f"{e} (the vocabulary is not byte-level BPE; SentencePiece-style "
                          "vocabularies are not supported)") from None

    added = {}
    for tok in data.get("added_tokens") or []:
        added[tok["content"]] = tok["id"]
    added_ids = set(added.values())
    vocab = model.get("vocab") or {}
    if not isinstance(vocab, dict):
        raise _refuse("model.vocab is not an object of token: id")
    strings, ids = list(vocab), list(vocab.values())
    if not added_ids.isdisjoint(ids) or any(t in vocab for t in added):
        kept = [(t, i) for t, i in vocab.items() if i not in added_ids and t not in added]
        strings, ids = [t for t, _ in kept], [i for _, i in kept]
    ranks: dict[bytes, int] = dict(zip(to_bytes(strings), ids))
    raw_merges = model.get("merges") or []
    merges = None
    if isinstance(raw_merges, list):
        # every merge "a b" with one space (byte-level tokens hold none) or [a, b]: both
        # sides at once; a merge that is neither is worded by the loop below
        try:
            merges = decode_byte_level(raw_merges, pairs=True, tuples=True)
        except (ValueError, TypeError):
            merges = None
    if merges is None:
        sides: list[str] = []
        for m in raw_merges:
            if isinstance(m, str):
                a, sep, b = m.partition(" ")
                if not sep:
                    raise _refuse(f"merge {m!r} is not two tokens")
            else:
                a, b = m
            sides += (a, b)
        both = to_bytes(sides)
        merges = list(zip(both[0::2], both[1::2]))
    steps, byte_level = _pre_tokenizer(data.get("pre_tokenizer"))
    if not byte_level and not _decoder_is_byte_level(data.get("decoder")):
        raise _refuse("no ByteLevel pre-tokenizer or decoder: the vocabulary is not byte-level BPE")
    normalizer = _normalizer(data.get("normalizer"))
    pretokenizer = chain(name, steps, dialect="hf", normalizer=normalizer) if steps else None
    return EncodingSpec(name, ranks, added, pretokenizer, merges=merges,
                        whole_pieces=bool(model.get("ignore_merges", False)), source="tokenizer.json")


def _decoder_is_byte_level(decoder) -> bool:
    if not decoder:
        return False
    if decoder.get("type") == "ByteLevel":
        return True
    return decoder.get("type") == "Sequence" and any(_decoder_is_byte_level(d) for d in decoder.get("decoders", []))


def _normalizer(spec) -> str | None:
    if spec is None:
        return None
    kind = spec.get("type")
    if kind in ("NFC", "NFKC"):
        return kind
    if kind == "Sequence":
        forms = [_normalizer(s) for s in spec.get("normalizers", [])]
        forms = [f for f in forms if f is not None]
        if len(set(forms)) > 1:
            raise _refuse(f"normalizers {forms} in sequence are not supported")
        return forms[0] if forms else None
    raise _refuse(f"normalizer {kind} is not supported (NFC, NFKC or none are)")


def _pre_tokenizer(spec) -> tuple[list[str], bool]:
    """The chain of regexes (Oniguruma syntax) the pre-tokenizer stands for, and whether it
    holds a ByteLevel step."""
    if spec is None:
        return [], False
    kind = spec.get("type")
    if kind == "Sequence":
        steps: list[str] = []
        byte_level = False
        for i, s in enumerate(spec.get("pretokenizers", [])):
            sub, bl = _pre_tokenizer(s)
            if bl and i != len(spec["pretokenizers"]) - 1 and sub:
                raise _refuse("a ByteLevel step with its own regex before other steps is not supported")
            steps += sub
            byte_level = byte_level or bl
        return steps, byte_level
    if kind == "ByteLevel":
        if spec.get("add_prefix_space", True):
            raise _refuse("ByteLevel with add_prefix_space is not supported (it adds a space to "
                          "every piece, which the streaming counts cannot follow)")
        return ([GPT2_BYTE_LEVEL] if spec.get("use_regex", True) else []), True
    if kind == "Split":
        if spec.get("invert"):
            raise _refuse("Split with invert is not supported")
        behavior = str(spec.get("behavior", "")).lower()
        if behavior != "isolated":
            raise _refuse(f"Split with behavior {spec.get('behavior')} is not supported (isolated is)")
        pattern = spec.get("pattern") or {}
        if "Regex" in pattern:
            return [pattern["Regex"]], False
        if "String" in pattern:
            import regex

            return [regex.escape(pattern["String"])], False
        raise _refuse(f"Split pattern {pattern} is neither a Regex nor a String")
    if kind == "Digits":
        return ([r"\p{N}"] if spec.get("individual_digits") else [r"\p{N}+"]), False
    raise _refuse(f"pre-tokenizer {kind} is not supported (Split, ByteLevel, Digits and Sequence are)")
