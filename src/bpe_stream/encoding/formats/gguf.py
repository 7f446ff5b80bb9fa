"""llama.cpp ``.gguf`` files: the vocabulary from the metadata, never the weights.

A GGUF file is a header (magic ``GGUF``, version, tensor count, key-value count), the
key-value pairs (the metadata: ``tokenizer.ggml.model``, ``.tokens``, ``.merges``,
``.token_type``, ``.pre``, ...), then tensor descriptions and the tensor data.  This
reader parses the header and the key-value pairs with :mod:`struct` and stops there: a
model file of many gigabytes costs what its vocabulary costs (no dependency needed; the
``gguf`` package writes the files the tests use).

Only ``tokenizer.ggml.model == "gpt2"`` (byte-level BPE) is read.  ``tokenizer.ggml.pre``
names the pre-tokenizer llama.cpp applies; each known name stands for the regexes of
llama.cpp's ``llama-vocab.cpp`` (in HF's reading, the model tokenizer llama.cpp follows),
and an unknown one is refused naming it.  Control and user-defined tokens are special
tokens.  Cost: one pass over the metadata; with the compiled core the token and merge
strings are decoded from byte level as they are read (``_native/gguf_byte_level.c``),
with the same results as reading them and decoding them after.
"""

from __future__ import annotations

import re
import struct
import sys
from array import array
from typing import NamedTuple

from ...bpe.merges import PackedMerges
from ...bpe.native import gguf_byte_level, load_strings
from ...bpe.vocabulary import _without_positions
from ...pretokenize.family import GPT2_BYTE_LEVEL, chain, get_pretokenizer
from ..spec import EncodingSpec
from .hf_json import byte_encoder, decode_byte_level

__all__ = ["read_gguf", "GGUF_PRE", "read_gguf_metadata"]

_MAGIC = b"GGUF"
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
# token types of llama.cpp's vocabulary
_CONTROL, _USER_DEFINED, _UNUSED = 3, 4, 5

#: byte -> the character that stands for it in a byte-level string
_BYTE_CHAR = [byte_encoder()[b] for b in range(256)]

_CJK_RUNS = "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+"
#: tokenizer.ggml.pre -> a member name, or the list of regexes (HF's reading) llama.cpp applies
GGUF_PRE: dict[str, str | list[str]] = {
    "llama-bpe": "llama3", "llama3": "llama3", "llama-v3": "llama3", "falcon3": "llama3", "pixtral": "llama3",
    "dbrx": "llama3", "smaug-bpe": "llama3",
    "qwen2": "qwen2", "deepseek-r1-qwen": "qwen2", "stablelm2": "qwen2",
    "qwen35": "qwen3.5",
    "gpt-2": "gpt2", "mpt": "gpt2", "olmo": "gpt2", "phi-2": "gpt2", "roberta-bpe": "gpt2", "jais": "gpt2",
    "starcoder": "starcoder", "refact": "starcoder", "command-r": "starcoder", "smollm": "starcoder",
    "codeshell": "starcoder",
    "deepseek-v3": "deepseek_v3",
    "tekken": "tekken",
    "gpt-4o": "o200k_base", "llama4": "o200k_base",
    "deepseek-llm": [
        "[\r\n]",
        "\\s?[A-Za-z\u00b5\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u01ba\u01bc-\u01bf\u01c4-\u0293\u0295-\u02af\u0370-\u0373"
        "\u0376\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a\u038c\u038e-\u03a1\u03a3-\u03f5\u03f7-\u0481"
        "\u048a-\u052f\u0531-\u0556\u10a0-\u10c5\u13a0-\u13f5\u13f8-\u13fd\u1c90-\u1cba\u1cbd-\u1cbf"
        "\u1d00-\u1d2b\u1d6b-\u1d77\u1d79-\u1d9a\u1e00-\u1f15\u1f18-\u1f1d\u1f20-\u1f45\u1f48-\u1f4d"
        "\u1f50-\u1f57\u1f59\u1f5b\u1f5d\u1f5f-\u1f7d\u1f80-\u1fb4\u1fb6-\u1fbc\u1fbe\u1fc2-\u1fc4"
        "\u1fc6-\u1fcc\u1fd0-\u1fd3\u1fd6-\u1fdb\u1fe0-\u1fec\u1ff2-\u1ff4\u1ff6-\u1ffc\u2102\u2107"
        "\u210a-\u2113\u2115\u2119-\u211d\u2124\u2126\u2128\u212a-\u212d\u212f-\u2134\u2139\u213c-\u213f"
        "\u2145-\u2149\u214e\u2183\u2184\u2c00-\u2c7b\u2c7e-\u2ce4\u2ceb-\u2cee\u2cf2\u2cf3\ua640-\ua66d"
        "\ua680-\ua69b\ua722-\ua76f\ua771-\ua787\ua78b-\ua78e\uab70-\uabbf\ufb00-\ufb06\ufb13-\ufb17"
        "\uff21-\uff3a\uff41-\uff5a\U00010400-\U0001044f\U000104b0-\U000104d3\U000104d8-\U000104fb"
        "\U00010c80-\U00010cb2\U00010cc0-\U00010cf2\U000118a0-\U000118df\U0001e900-\U0001e943]+",
        "\\s?[!-/:-~\uff01-\uff0f\uff1a-\uff5e\u2018-\u201f\u3000-\u3002]+",
        "\\s+$",
        _CJK_RUNS,
        "\\p{N}+",
    ],
    "deepseek-coder": ["[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", _CJK_RUNS, "\\p{N}"],
    # no tokenizer.ggml.pre (files converted before llama.cpp recorded it)
    "default": ["[\\p{P}\\$\\+<=>\\^~\\|]+", GPT2_BYTE_LEVEL, "\\p{N}+", "[0-9][0-9][0-9]"],
    "falcon": ["[\\p{P}\\$\\+<=>\\^~\\|`]+", GPT2_BYTE_LEVEL, "[0-9][0-9][0-9]"],
}


class _Window:
    """Sequential reads of a file through a window of a few MiB, so that reading the
    hundreds of thousands of strings of a vocabulary costs slicing, not file calls; only
    the bytes up to the end of what is parsed are ever read."""

    __slots__ = ("f", "path", "data", "pos")
    _BLOCK = 1 << 22

    def __init__(self, f, path):
        self.f, self.path, self.data, self.pos = f, path, b"", 0

    def need(self, n: int) -> None:
        if self.pos + n > len(self.data):
            more = self.f.read(max(n - (len(self.data) - self.pos), self._BLOCK))
            self.data = self.data[self.pos :] + more
            self.pos = 0
            if n > len(self.data):
                raise ValueError(f"{self.path}: the GGUF metadata ends early")

    def unpack(self, fmt: str, size: int):
        self.need(size)
        value = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return value

    def take(self, n: int) -> bytes:
        self.need(n)
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out


# integer array types read as one array (no Python object per item but the result list's)
_INT_ARRAYS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 10: "Q", 11: "q"}


class ByteLevelStrings(NamedTuple):
    """A string array read with ``byte_level``: ``items`` the bytes each byte-level string
    stands for (merges: a :class:`~bpe_stream.bpe.merges.PackedMerges` of their two
    sides' bytes), except at ``raw_at`` (positions, increasing), where a token's string is
    not byte level and the item is its UTF-8 bytes."""

    items: list
    raw_at: list[int]


def read_gguf_metadata(path, keys_prefix: str | tuple[str, ...] = "", *, raw_strings: bool = False,
                       byte_level: tuple[str | None, str | None] = (None, None)) -> dict:
    """The key-value metadata of a GGUF file (only keys starting with ``keys_prefix`` are
    kept; the others are read past).  The tensor data is never read.  With
    ``raw_strings``, the items of string arrays are their UTF-8 bytes (as stored), not
    decoded.  ``byte_level``: the keys of a token array and a merge array whose strings
    are decoded from byte level as they are read (with the compiled core; a
    :class:`ByteLevelStrings` each, raw where a token is not byte level; a merge that is
    not two byte-level strings is refused naming it)."""
    with open(path, "rb") as f:
        w = _Window(f, path)
        if w.take(4) != _MAGIC:
            raise ValueError(f"{path}: not a GGUF file")
        (version,) = w.unpack("<I", 4)
        if version == 1:
            n_tensors, n_kv = w.unpack("<II", 8)
            count_fmt = "<I"
        elif version in (2, 3):
            n_tensors, n_kv = w.unpack("<QQ", 16)
            count_fmt = "<Q"
        else:
            raise ValueError(f"{path}: GGUF version {version} is not supported (1-3 are)")
        count_size = struct.calcsize(count_fmt)

        def read_string(keep=True):
            (n,) = w.unpack(count_fmt, count_size)
            if n > 1 << 31:
                raise ValueError(f"{path}: a GGUF string of {n} bytes")
            data = w.take(n)
            return data.decode("utf-8", "replace") if keep else None

        unpack_count = struct.Struct(count_fmt).unpack_from

        native = load_strings()

        decoders = gguf_byte_level() if byte_level != (None, None) else None

        def hold_next_string() -> None:
            # the next string runs past the window: grow the window to hold all of it
            w.need(count_size)
            (k,) = unpack_count(w.data, w.pos)
            if k > 1 << 31:
                raise ValueError(f"{path}: a GGUF string of {k} bytes")
            w.need(count_size + k)

        def read_byte_level(n: int, merges: bool) -> ByteLevelStrings:
            # the token or merge strings decoded in C as they are read, window by window (the
            # merges packed: their bytes and ends, PackedMerges)
            items: list = []
            raw_at: list[int] = []
            blobs: list[bytes] = []
            ends: list[bytes] = []
            done = blob_len = 0
            while done < n:
                if merges:
                    blob, more, w.pos, found = decoders[1](w.data, w.pos, n - done, count_size, blob_len)
                    blobs.append(blob)
                    ends.append(more)
                    blob_len += len(blob)
                    got = len(more) // 8
                else:
                    items_got, w.pos, found = decoders[0](w.data, w.pos, n - done, count_size)
                    raw_at += [done + i for i in found]
                    items += items_got
                    got = len(items_got)
                done += got
                if merges and found:  # not a merge of two byte-level strings: worded as decoding words it
                    (k,) = unpack_count(w.data, w.pos)
                    bad = w.data[w.pos + count_size : w.pos + count_size + k]
                    try:
                        decode_byte_level([bad], pairs=True, tuples=True)
                    except ValueError as e:
                        raise ValueError(f"{path}: {e}" if str(e).startswith("merge ") else f"{path}: merge {e}") \
                            from None
                    raise ValueError(f"{path}: merge {bad!r} is not two byte-level tokens")
                if done < n:
                    hold_next_string()
            if merges:
                return ByteLevelStrings(PackedMerges(b"".join(blobs), b"".join(ends)), [])
            return ByteLevelStrings(items, raw_at)

        def read_strings(n: int, keep: bool) -> list[str] | list[bytes] | None:
            # the token and merge lists: slices of the window (compiled: gguf_strings; else
            # one tight loop), decoded from UTF-8 all at once (joined by a newline, when no
            # string holds one) unless raw_strings
            items: list[bytes] = []
            append = items.append
            done = 0
            while done < n:
                if native is not None:
                    got, w.pos = native[1](w.data, w.pos, n - done, count_size)
                    items += got
                    done += len(got)
                else:
                    data, pos = w.data, w.pos
                    size = len(data)
                    while done < n and pos + count_size <= size:
                        (k,) = unpack_count(data, pos)
                        end = pos + count_size + k
                        if end > size:
                            break
                        append(data[pos + count_size : end])
                        pos = end
                        done += 1
                    w.pos = pos
                if done < n:
                    hold_next_string()
            if not keep:
                return None
            if raw_strings:
                return items
            joined = b"\n".join(items)
            if joined.count(b"\n") == len(items) - 1:
                return joined.decode("utf-8", "replace").split("\n") if items else []
            return [b.decode("utf-8", "replace") for b in items]

        def read_value(kind, keep=True, key=None):
            if kind == _STRING:
                return read_string(keep)
            if kind == _ARRAY:
                (sub,) = w.unpack("<I", 4)
                (n,) = w.unpack(count_fmt, count_size)
                if sub == _STRING and keep and decoders is not None and key is not None and key in byte_level:
                    return read_byte_level(n, merges=key == byte_level[1])
                if sub == _STRING:
                    return read_strings(n, keep)
                if sub in _SCALARS:
                    fmt = _SCALARS[sub]
                    size = struct.calcsize(fmt)
                    if n > 1 << 40:
                        raise ValueError(f"{path}: a GGUF array of {n} values")
                    data = w.take(size * n)
                    if not keep:
                        return None
                    code = _INT_ARRAYS.get(sub)
                    if code is not None and array(code).itemsize == size:
                        values = array(code, data)
                        if sys.byteorder != "little":
                            values.byteswap()
                        return values.tolist()
                    return [v[0] for v in struct.iter_unpack(fmt, data)]
                return [read_value(sub, keep) for _ in range(n)]
            fmt = _SCALARS.get(kind)
            if fmt is None:
                raise ValueError(f"{path}: unknown GGUF value type {kind}")
            return w.unpack(fmt, struct.calcsize(fmt))[0]

        out = {}
        for _ in range(n_kv):
            key = read_string()
            (kind,) = w.unpack("<I", 4)
            keep = key.startswith(keys_prefix)
            value = read_value(kind, keep, key)
            if keep:
                out[key] = value
        del n_tensors
        return out


def _odd_positions(types) -> list[int]:
    """The positions of the control, user-defined and unused tokens (a few hundred of a
    vocabulary's types): found at C speed in the types as bytes where every one fits."""
    try:
        raw = bytes(types)
    except (ValueError, TypeError):
        return [i for i, kind in enumerate(types) if kind in (_CONTROL, _USER_DEFINED, _UNUSED)]
    return [m.start() for m in re.finditer(b"[\x03\x04\x05]", raw)]


def read_gguf(path, name: str | None = None) -> EncodingSpec:
    """The :class:`EncodingSpec` of a GGUF file's vocabulary."""
    # the token and merge strings stay UTF-8 bytes: decoded from byte level in one step
    # (compiled: as they are read, ByteLevelStrings)
    meta = read_gguf_metadata(path, ("tokenizer.", "general.name"), raw_strings=True,
                              byte_level=("tokenizer.ggml.tokens", "tokenizer.ggml.merges"))
    general = meta
    model = meta.get("tokenizer.ggml.model")
    if model != "gpt2":
        raise ValueError(f"{path}: tokenizer.ggml.model is {model!r}; only 'gpt2' (byte-level BPE) is "
                         "supported ('llama' is SentencePiece, 'bert' WordPiece, 't5' Unigram)")
    tokens = meta.get("tokenizer.ggml.tokens")
    decoded = isinstance(tokens, ByteLevelStrings)
    raw_at: list[int] = []
    if decoded:
        tokens, raw_at = tokens
    if not tokens or not isinstance(tokens, list) or not isinstance(tokens[0], bytes):
        raise ValueError(f"{path}: no tokenizer.ggml.tokens")
    types = meta.get("tokenizer.ggml.token_type") or [1] * len(tokens)
    pre = meta.get("tokenizer.ggml.pre", "default")
    what = GGUF_PRE.get(pre)
    if what is None:
        raise ValueError(f"{path}: tokenizer.ggml.pre {pre!r} is not known; known: {', '.join(sorted(GGUF_PRE))}")
    pretokenizer = get_pretokenizer(what) if isinstance(what, str) else chain(pre, what, dialect="hf", known=True)
    if len(types) != len(tokens):
        raise ValueError(f"{path}: {len(types)} token types for {len(tokens)} tokens")
    special_kinds = (_CONTROL, _USER_DEFINED)
    odd = _odd_positions(types)
    if decoded:
        # a special token's name is its string: its bytes encoded back to byte level (raw
        # where it is not byte level); any other token that is not is refused as below
        raw = set(raw_at)
        specials = {(tokens[i].decode("utf-8", "replace") if i in raw else "".join(map(_BYTE_CHAR.__getitem__,
                                                                                        tokens[i]))): i
                    for i in odd if types[i] in special_kinds}
        stray = sorted(raw.difference(odd))
        if stray:
            try:
                decode_byte_level([tokens[stray[0]]])
            except ValueError as e:
                raise ValueError(f"{path}: {e}") from None
            raise ValueError(f"{path}: token {tokens[stray[0]]!r} is not a byte-level token")
    else:
        specials = {tokens[i].decode("utf-8", "replace"): i for i in odd if types[i] in special_kinds}
    if not odd:
        ids: list[int] | range = range(len(tokens))
        strings = tokens
    else:
        ids = _without_positions(list(range(len(tokens))), odd)
        strings = _without_positions(tokens, odd)
    try:
        ranks = dict(zip(strings if decoded else decode_byte_level(strings), ids))
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    listed = meta.get("tokenizer.ggml.merges") or []
    if isinstance(listed, ByteLevelStrings):
        merges = listed.items
    else:
        try:
            merges = decode_byte_level(listed, pairs=True, tuples=True)  # "a b" strings
        except ValueError as e:
            raise ValueError(f"{path}: {e}" if str(e).startswith("merge ") else f"{path}: merge {e}") from None
    # llama.cpp emits a piece that is a token whole for these (its ignore_merges)
    whole = pre in ("llama-bpe", "llama3", "llama-v3", "falcon3", "pixtral", "tekken", "dbrx", "smaug-bpe")
    label = name or general.get("general.name") or "gguf"
    return EncodingSpec(label, ranks, specials, pretokenizer, merges=merges, whole_pieces=whole, source="gguf")
