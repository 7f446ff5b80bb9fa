"""Saving and loading encodings: tiktoken's ``.tiktoken`` ranks plus a small header.

File format (UTF-8 text, ``\n`` line ends, every header value is JSON written
with ASCII escapes, so the file is pure ASCII)::

    #bpe-stream-encoding 1
    #name "trained"
    #pat_str "'(?i:[sdmt]|ll|ve|re)|..."       (or: #pat_str null  -- no pre-splitting)
    #special_tokens {"<|endoftext|>": 10000}
    IQ== 0
    Ig== 1
    ...

After the header come the lines of a ``.tiktoken`` file, ``base64(token) rank``,
in rank order.  Base64 never starts with ``#``, so the header is unambiguous;
the lines that do not start with ``#`` (``grep -v '^#' FILE``) form a file that
``tiktoken.load.load_tiktoken_bpe`` reads as is.  Loading reproduces the name,
pattern, ranks and special tokens exactly.  ``read_saved`` also reads a plain
(optionally gzip-compressed) ``.tiktoken`` file: the encoding is then named
after the file, has no pattern and no special tokens.

Invariant: ``read_saved(p)`` after ``save_encoding(enc, p)`` gives the same
``name``, ``pat_str``, mergeable ranks and special tokens as ``enc``
(:func:`bpe_stream.load` makes the :class:`~bpe_stream.Encoding` of them).
Saving and reading are linear in the vocabulary size.
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
from pathlib import Path

from ..bpe.ranks import parse_tiktoken, read_tiktoken_bytes
from ..pretokenize.family import custom
from .spec import EncodingSpec

__all__ = ["save_encoding", "read_saved", "FORMAT_VERSION"]


MAGIC = "#bpe-stream-encoding"
FORMAT_VERSION = 1
_HEADER_KEYS = ("name", "pat_str", "special_tokens")


def _mergeable_ranks(enc) -> dict[bytes, int]:
    ranks = getattr(enc, "_mergeable_ranks", None)
    if ranks is None:
        ranks = {token: rank for rank, token in enumerate(enc.bpe.tokens)}
    return ranks


def save_encoding(enc, path: str | os.PathLike[str]) -> None:
    """Write the :class:`~bpe_stream.Encoding` ``enc`` to ``path`` (replaced atomically);
    read it back with :func:`bpe_stream.load`.

    >>> import bpe_stream, tempfile, os
    >>> enc = bpe_stream.train("abcabcabd", 258)
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.bpe")
    >>> save_encoding(enc, path)
    >>> back = bpe_stream.load(path)
    >>> (back.name, back.pat_str, back.encode("abcabd"))
    ('trained', None, [256, 257, 100])
    """
    ranks = _mergeable_ranks(enc)
    special_tokens = dict(enc.special_tokens)
    header = {
        "name": enc.name,
        "pat_str": enc.pat_str,
        "special_tokens": special_tokens,
    }
    lines = [f"{MAGIC} {FORMAT_VERSION}"]
    for key in _HEADER_KEYS:
        lines.append(f"#{key} {json.dumps(header[key], ensure_ascii=True)}")
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        lines.append(f"{base64.b64encode(token).decode('ascii')} {rank}")
    payload = ("\n".join(lines) + "\n").encode("ascii")

    target = Path(os.fspath(path))
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        raise


def read_saved(path: str | os.PathLike[str]) -> EncodingSpec:
    """Read an encoding written by :func:`save_encoding` (or a plain ``.tiktoken`` file).

    Raises ``ValueError`` naming the file and line for a malformed file.
    """
    contents = read_tiktoken_bytes(path)
    name = Path(os.fspath(path)).name.split(".")[0] or "encoding"
    if not contents.startswith(b"#"):
        return EncodingSpec(name, parse_tiktoken(contents), {}, None, source="tiktoken file")

    lines = contents.split(b"\n")
    header: dict[str, object] = {}
    body_start = 0
    for lineno, raw in enumerate(lines, 1):
        if not raw.startswith(b"#"):
            body_start = lineno - 1
            break
        try:
            text = raw.decode("ascii").rstrip("\r")
            key, _, value = text[1:].partition(" ")
            if lineno == 1:
                if f"#{key}" != MAGIC:
                    raise ValueError("not a bpe-stream encoding file")
                if value.strip() != str(FORMAT_VERSION):
                    raise ValueError(f"unsupported format version {value.strip()!r}")
                continue
            if key not in _HEADER_KEYS:
                raise ValueError(f"unknown header key {key!r}")
            header[key] = json.loads(value)
        except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
            raise ValueError(f"{os.fspath(path)}: line {lineno}: {exc}") from None
    else:
        body_start = len(lines)

    missing = [key for key in _HEADER_KEYS if key not in header]
    if missing:
        raise ValueError(f"{os.fspath(path)}: header lacks {', '.join(missing)}")
    enc_name, pat_str, special_tokens = (header[key] for key in _HEADER_KEYS)
    if not isinstance(enc_name, str):
        raise ValueError(f"{os.fspath(path)}: name must be a string")
    if pat_str is not None and not isinstance(pat_str, str):
        raise ValueError(f"{os.fspath(path)}: pat_str must be a string or null")
    if not isinstance(special_tokens, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in special_tokens.values()
    ):
        raise ValueError(f"{os.fspath(path)}: special_tokens must map strings to ids")
    try:
        ranks = parse_tiktoken(b"\n".join(lines[body_start:]))
    except ValueError as exc:
        raise ValueError(f"{os.fspath(path)}: {exc}") from None
    pretokenizer = None if pat_str is None else custom(pat_str, "tiktoken")
    return EncodingSpec(enc_name, ranks, special_tokens, pretokenizer, source="saved encoding")
