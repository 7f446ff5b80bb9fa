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
Cost: linear in the file.  With the compiled core, :func:`read_sections` reads the two
bulky values, ``model.vocab`` and ``model.merges``, from the file's bytes in C (decoded
from byte level in the same pass) and ``json.loads`` the rest; it gives what
``json.loads`` of the whole file and :func:`decode_byte_level` give, and leaves any file it
does not read exactly so to them.
"""

from __future__ import annotations

import json
from itertools import accumulate

from ...bpe.native import json_sections_compiled, load_strings
from ...pretokenize.family import GPT2_BYTE_LEVEL, chain
from ..spec import EncodingSpec

__all__ = ["byte_decoder", "byte_encoder", "decode_byte_level", "read_sections", "read_tokenizer_json"]


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


# what read_sections puts in place of the two values before json.loads reads the rest
_PLACEHOLDER = "bpe-stream: read from the bytes"


def read_sections(raw: bytes):
    """``(data, (tokens, ids, merges))`` for a tokenizer.json's bytes, or None (then
    ``json.loads(raw)`` reads it): ``data`` is ``json.loads(raw)`` with ``model.vocab``
    and ``model.merges`` left as placeholders, ``tokens`` and ``ids`` the vocab's keys
    (decoded from byte level) and values in file order, ``merges`` one ``(a, b)`` tuple
    of bytes per merge.

    The compiled scan (``_native/json_sections.c``) finds the two values and reads them;
    ``json.loads`` reads the text with placeholders in their place, which checks that the
    whole file is valid JSON and that the placeholders are the model's vocab and merges
    (a key given twice keeps its last value in both readings; a file that holds the
    placeholder text itself is not read here)."""
    scan = json_sections_compiled()
    if scan is None:
        return None
    found = scan(raw)
    if found is None or _PLACEHOLDER.encode() in raw:
        return None
    vocab_start, vocab_end, merges_start, merges_end, tokens, ids, merges = found
    vocab_mark, merges_mark = _PLACEHOLDER + " (vocab)", _PLACEHOLDER + " (merges)"
    spans = sorted([(vocab_start, vocab_end, vocab_mark), (merges_start, merges_end, merges_mark)])
    parts, at = [], 0
    for start, end, mark in spans:
        parts += (raw[at:start], json.dumps(mark).encode("ascii"))
        at = end
    parts.append(raw[at:])
    try:
        data = json.loads(b"".join(parts))
    except (ValueError, RecursionError):
        return None  # json.loads(raw) words the error
    model = data.get("model") if isinstance(data, dict) else None
    if not isinstance(model, dict) or model.get("vocab") != vocab_mark or model.get("merges") != merges_mark:
        return None
    return data, (tokens, ids, merges)


def _refuse(what: str) -> ValueError:
    return ValueError(f"tokenizer.json: {what}")


def read_tokenizer_json(data: dict | str, name: str = "tokenizer", sections=None) -> EncodingSpec:
    """The :class:`EncodingSpec` of a tokenizer.json (its parsed JSON or its text; or, with
    ``sections``, what :func:`read_sections` gives)."""
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
    added_tokens = data.get("added_tokens") or []
    if not isinstance(added_tokens, list):
        raise _refuse("added_tokens is not a list")
    for tok in added_tokens:
        if not (isinstance(tok, dict) and isinstance(tok.get("content"), str)
                and isinstance(tok.get("id"), int) and not isinstance(tok.get("id"), bool)):
            raise _refuse(f"an added_tokens entry needs a str content and an int id, got {tok!r:.80}")
        added[tok["content"]] = tok["id"]
    added_ids = set(added.values())
    if sections is not None:
        # the keys already decoded: byte level maps strings to bytes one to one, so the
        # dict of the bytes holds what the dict of the strings holds (a repeated key keeps
        # its first place and last id), and an added token is a key only if byte level
        tokens, listed_ids, merges = sections
        ranks = dict(zip(tokens, listed_ids))
        added_keys = {_byte_level_or_none(t) for t in added} - {None}
        if not added_ids.isdisjoint(ranks.values()) or not added_keys.isdisjoint(ranks):
            ranks = {t: i for t, i in ranks.items() if i not in added_ids and t not in added_keys}
    else:
        vocab = model.get("vocab") or {}
        if not isinstance(vocab, dict):
            raise _refuse("model.vocab is not an object of token: id")
        strings, ids = list(vocab), list(vocab.values())
        if not added_ids.isdisjoint(ids) or any(t in vocab for t in added):
            kept = [(t, i) for t, i in vocab.items() if i not in added_ids and t not in added]
            strings, ids = [t for t, _ in kept], [i for _, i in kept]
        ranks = dict(zip(to_bytes(strings), ids))
        merges = _listed_merges(model.get("merges") or [], to_bytes)
    steps, byte_level = _pre_tokenizer(data.get("pre_tokenizer"))
    if not byte_level and not _decoder_is_byte_level(data.get("decoder")):
        raise _refuse("no ByteLevel pre-tokenizer or decoder: the vocabulary is not byte-level BPE")
    normalizer = _normalizer(data.get("normalizer"))
    pretokenizer = chain(name, steps, dialect="hf", normalizer=normalizer) if steps else None
    return EncodingSpec(name, ranks, added, pretokenizer, merges=merges,
                        whole_pieces=bool(model.get("ignore_merges", False)), source="tokenizer.json")


def _listed_merges(raw_merges, to_bytes) -> list[tuple[bytes, bytes]]:
    """model.merges as (a, b) tuples of bytes."""
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
    return merges


def _byte_level_or_none(text) -> bytes | None:
    """The bytes a byte-level string stands for, or None where it is not one."""
    if not isinstance(text, str) or not _ALPHABET.issuperset(text):
        return None
    return text.translate(_TO_LATIN1).encode("latin-1")


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
