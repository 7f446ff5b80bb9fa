"""Saving and loading encodings: tiktoken's ``.tiktoken`` ranks plus a small header.

File format (UTF-8 text, ``\n`` line ends, every header value is JSON written
with ASCII escapes, so the file is pure ASCII)::

    #bpe-stream-encoding 2
    #name "trained"
    #pretokenizer {"member": "llama3"}     (or {"fields": {...}} for another one, or null)
    #special_tokens {"<|endoftext|>": 10000}
    #order "ranks"
    IQ== 0
    Ig== 1
    ...

After the header come the lines of a ``.tiktoken`` file, ``base64(token) id``.  Base64
never starts with ``#``, so the header is unambiguous.  With ``#order "ranks"`` the
lines are in id order and the ids are the ranks (tiktoken's rule): the lines that do not
start with ``#`` (``grep -v '^#' FILE``) form a file that
``tiktoken.load.load_tiktoken_bpe`` reads as is.  A vocabulary read with merges
(tokenizer.json, GGUF) keeps HF's rules: with ``#order "merges"`` the lines are in the
order BPE ranks the tokens (the merge order) and ``#whole`` lists the tokens only a
whole piece becomes (with ``#whole_pieces true``, HF's ``ignore_merges``); where HF's
merge loop serves the vocabulary, ``#merges`` lists the merges themselves.

Version 1 files (``#pat_str`` instead of ``#pretokenizer``, no ``#order``) still load.
``read_saved`` also reads a plain (optionally gzip-compressed) ``.tiktoken`` file: the
encoding is then named after the file, has no pattern and no special tokens.

Invariant: ``load(p)`` after ``save_encoding(enc, p)`` encodes every text as ``enc``
does, with the same name, pre-tokenizer and special tokens.  Saving and reading are
linear in the vocabulary size.
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
from pathlib import Path

from ..bpe.ranks import parse_tiktoken, read_tiktoken_bytes
from ..pretokenize.family import MEMBERS, PreTokenizer, custom
from .spec import EncodingSpec

__all__ = ["save_encoding", "read_saved", "FORMAT_VERSION"]


MAGIC = "#bpe-stream-encoding"
FORMAT_VERSION = 2
_HEADER_KEYS_V1 = ("name", "pat_str", "special_tokens")
_REQUIRED = ("name", "pretokenizer", "special_tokens", "order")
_OPTIONAL = ("whole", "whole_pieces", "merges")


def _b64(token: bytes) -> str:
    return base64.b64encode(token).decode("ascii")


def describe_pretokenizer(pre: PreTokenizer | None):
    """JSON for a pre-tokenizer: a member by name, any other by its fields."""
    if pre is None:
        return None
    if pre.known and MEMBERS.get(pre.name) == pre:
        return {"member": pre.name}
    return {"fields": pre._fields()}


def pretokenizer_from(description) -> PreTokenizer | None:
    """The pre-tokenizer :func:`describe_pretokenizer` describes (ValueError if malformed)."""
    if description is None:
        return None
    if not isinstance(description, dict) or len(description) != 1:
        raise ValueError("pretokenizer must be null, {\"member\": name} or {\"fields\": {...}}")
    if "member" in description:
        from ..pretokenize.family import get_pretokenizer

        return get_pretokenizer(description["member"])
    fields = description.get("fields")
    if not isinstance(fields, dict):
        raise ValueError("pretokenizer fields must be an object")
    fields = dict(fields)
    fields["pre_splits"] = tuple(fields.get("pre_splits", ()))
    fields["spellings"] = tuple(tuple(s) for s in fields.get("spellings", ()))
    try:
        return PreTokenizer(**fields)
    except TypeError as e:
        raise ValueError(f"pretokenizer fields: {e}") from None


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
    >>> open(path).readline()
    '#bpe-stream-encoding 2\\n'

    """
    header: dict[str, object] = {
        "name": enc.name,
        "pretokenizer": describe_pretokenizer(enc.pretokenizer),
        "special_tokens": dict(enc.special_tokens),
    }
    rules = getattr(enc, "_merge_rules", None)
    engine = getattr(enc, "_merges_engine", None)
    bpe = enc.bpe
    if rules is None:
        header["order"] = "ranks"
        body = sorted(_mergeable_ranks(enc).items(), key=lambda item: item[1])
    elif engine is not None:
        # HF's merge loop serves it: the merges themselves, in their order
        header["order"] = "ranks"
        header["whole_pieces"] = rules[2]
        header["merges"] = [[_b64(a), _b64(b)] for (a, b), _ in sorted(engine.pairs.items(), key=lambda kv: kv[1])]
        body = sorted(_mergeable_ranks(enc).items(), key=lambda item: item[1])
    else:
        # rank order follows the merges: the tokens in that order, and those only a whole
        # piece becomes (BPE never builds them, or no merge makes them)
        header["order"] = "merges"
        header["whole_pieces"] = rules[2]
        header["whole"] = {_b64(t): i for t, i in {**bpe.unreachable, **rules[1]}.items()}
        ids = range(len(bpe)) if bpe.ids is None else bpe.ids
        body = list(zip(bpe.tokens, ids))
    lines = [f"{MAGIC} {FORMAT_VERSION}"]
    for key in (*_REQUIRED, *_OPTIONAL):
        if key in header:
            lines.append(f"#{key} {json.dumps(header[key], ensure_ascii=True)}")
    lines += [f"{_b64(token)} {rank}" for token, rank in body]
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
    body_start = len(lines)
    version = 0
    where = os.fspath(path)
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
                if value.strip() not in ("1", "2"):
                    raise ValueError(f"unsupported format version {value.strip()!r}")
                version = int(value)
                continue
            known = _HEADER_KEYS_V1 if version == 1 else (*_REQUIRED, *_OPTIONAL)
            if key not in known:
                raise ValueError(f"unknown header key {key!r}")
            header[key] = json.loads(value)
        except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
            raise ValueError(f"{where}: line {lineno}: {exc}") from None

    required = _HEADER_KEYS_V1 if version == 1 else _REQUIRED
    missing = [key for key in required if key not in header]
    if missing:
        raise ValueError(f"{where}: header lacks {', '.join(missing)}")
    enc_name, special_tokens = header["name"], header["special_tokens"]
    if not isinstance(enc_name, str):
        raise ValueError(f"{where}: name must be a string")
    if not isinstance(special_tokens, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in special_tokens.values()
    ):
        raise ValueError(f"{where}: special_tokens must map strings to ids")
    try:
        if version == 1:
            pat_str = header["pat_str"]
            if pat_str is not None and not isinstance(pat_str, str):
                raise ValueError("pat_str must be a string or null")
            pretokenizer = None if pat_str is None else custom(pat_str, "tiktoken")
        else:
            pretokenizer = pretokenizer_from(header["pretokenizer"])
        body = b"\n".join(lines[body_start:])
        order = header.get("order", "ranks")
        if order not in ("ranks", "merges"):
            raise ValueError(f"order must be 'ranks' or 'merges', got {order!r}")
        whole_pieces = header.get("whole_pieces", True)
        if not isinstance(whole_pieces, bool):
            raise ValueError("whole_pieces must be true or false")
        if order == "ranks":
            ranks = parse_tiktoken(body)
            merges = header.get("merges")
            if merges is not None:
                merges = [(base64.b64decode(a, validate=True), base64.b64decode(b, validate=True))
                          for a, b in merges]
            return EncodingSpec(enc_name, ranks, special_tokens, pretokenizer, merges=merges,
                                whole_pieces=whole_pieces, source="saved encoding")
        tokens, ids = [], []
        for k, line in enumerate(body.split(b"\n"), body_start + 1):
            if not line.strip():
                continue
            token, _, rank = line.partition(b" ")
            try:
                tokens.append(base64.b64decode(token, validate=True))
                ids.append(int(rank))
            except ValueError:
                raise ValueError(f"line {k}: not 'base64 id'") from None
        whole = {base64.b64decode(t, validate=True): i for t, i in (header.get("whole") or {}).items()}
        return EncodingSpec(enc_name, {**dict(zip(tokens, ids)), **whole}, special_tokens, pretokenizer,
                            ordered=(tokens, ids, whole), whole_pieces=whole_pieces, source="saved encoding")
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{where}: {exc}") from None
