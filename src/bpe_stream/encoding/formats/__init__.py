"""Reading vocabulary files of every kind into an :class:`~bpe_stream.encoding.spec.EncodingSpec`.

The format is recognized from the content, not the name: GGUF by its magic, a JSON
object as a Tekken file (``config.pattern`` and ``vocab``) or an HF ``tokenizer.json``
(``model``), a file that starts with ``#bpe-stream-encoding`` as a saved encoding, and
anything else as ``.tiktoken`` rank lines (plain or gzip).  A file that is none of these,
a directory, or an empty file gets an error naming the problem.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import zlib
from pathlib import Path

from ..persist import MAGIC as SAVED_MAGIC
from ..persist import read_saved
from ..spec import EncodingSpec
from .gguf import read_gguf
from .hf_json import read_sections, read_tokenizer_json
from .tekken import is_tekken, read_tekken
from .tiktoken_file import read_tiktoken_ranks, resolve_pattern

__all__ = ["read_vocabulary", "resolve_pattern", "MAX_FILE_BYTES"]

_TIKTOKEN_LINE = re.compile(rb"[A-Za-z0-9+/=]+ +[0-9]+")
#: the largest vocabulary file (decompressed) read: a gzip file that expands past it is refused
MAX_FILE_BYTES = 1 << 30


def read_vocabulary(path, *, pattern=None, name: str | None = None, special_tokens=None) -> EncodingSpec:
    """The vocabulary in the file at ``path``, whatever its format (see the module doc)."""
    p = Path(os.fspath(path))
    if p.is_dir():
        raise ValueError(f"{p} is a directory, not a vocabulary file")
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such vocabulary file")
    stem = p.name.split(".")[0]
    # an HF model folder's tokenizer.json is named by its folder
    label = name or (p.resolve().parent.name if stem == "tokenizer" else stem) or "encoding"

    def own_pattern(kind: str) -> None:
        if pattern is not None or special_tokens is not None:
            raise ValueError(f"{p}: {kind} names its own pre-tokenizer and special tokens; "
                             "pattern= and special_tokens= are for .tiktoken files")

    with open(p, "rb") as f:
        head = f.read(4)
    if head == b"GGUF":
        own_pattern("a GGUF file")
        return read_gguf(p, name)
    raw = p.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = _gunzip(raw, p)
    if not raw.strip():
        raise ValueError(f"{p}: the file is empty")
    stripped = raw.lstrip()
    if stripped[:1] == b"{":
        found = read_sections(raw)
        if found is not None:  # a tokenizer.json whose vocab and merges were read in C
            data, sections = found
            if not is_tekken(data):
                own_pattern("a tokenizer.json")
                return read_tokenizer_json(data, label, sections)
        try:
            data = json.loads(raw)
        except RecursionError:
            raise ValueError(f"{p}: the JSON is nested too deeply to be a vocabulary") from None
        except ValueError as e:
            raise ValueError(f"{p}: not valid JSON ({e})") from None
        if is_tekken(data):
            own_pattern("a Tekken file")
            return read_tekken(data, label)
        if isinstance(data, dict) and "model" in data:
            own_pattern("a tokenizer.json")
            return read_tokenizer_json(data, label)
        raise ValueError(f"{p}: a JSON file that is neither a tokenizer.json nor a Tekken file")
    if raw.startswith(SAVED_MAGIC.encode()):
        own_pattern("a saved encoding")
        return read_saved(p)
    first = stripped.split(b"\n", 1)[0].strip()
    if _TIKTOKEN_LINE.fullmatch(first) is None:
        shown = first[:60].decode("utf-8", "replace")
        raise ValueError(f"{p}: not a vocabulary file (GGUF, tokenizer.json, Tekken JSON, a saved encoding "
                         f"or .tiktoken lines 'base64 rank'); it starts with {shown!r}")
    return read_tiktoken_ranks(raw, label, pattern, special_tokens)


def _gunzip(raw: bytes, path) -> bytes:
    """Decompress, refusing more than MAX_FILE_BYTES (a small file may expand a lot)."""
    d = gzip.GzipFile(fileobj=io.BytesIO(raw))
    try:
        out = d.read(MAX_FILE_BYTES + 1)
    except (OSError, EOFError, zlib.error) as e:
        raise ValueError(f"{path}: not a valid gzip file ({e})") from None
    if len(out) > MAX_FILE_BYTES:
        raise ValueError(f"{path}: decompresses to more than {MAX_FILE_BYTES} bytes")
    return out
