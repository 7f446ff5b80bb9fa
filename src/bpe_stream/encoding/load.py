"""Loading an :class:`~bpe_stream.Encoding` from a file.

>>> import bpe_stream, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "tiny.bpe")
>>> bpe_stream.train("abcabcabd", 258).save(path)
>>> bpe_stream.load(path).encode("abcabd")
[256, 257, 100]
"""

from __future__ import annotations

import base64
import gc
import hashlib
import json
import os
import stat
import time

from .._version import __version__
from .cache import cache_dir, content_entry_deferred, read_file_entry, write_file_entry
from .encoding import Encoding
from .formats import read_vocabulary
from .persist import describe_pretokenizer, pretokenizer_from

__all__ = ["load"]


def load(path: str | os.PathLike[str], *, pattern=None, name: str | None = None,
         special_tokens: dict[str, int] | None = None) -> Encoding:
    """The encoding of a vocabulary file, recognized from its content: an HF
    ``tokenizer.json``, a llama.cpp ``.gguf``, a Mistral Tekken ``.json``, a file saved by
    :meth:`Encoding.save`, or a ``.tiktoken`` file (which needs ``pattern=``: a member of
    :mod:`bpe_stream.pretokenize.family` by name, a regex string read as tiktoken reads
    it, or ``""`` for no pre-splitting).

    ``special_tokens`` adds special tokens to a ``.tiktoken`` file's ranks; ``name``
    names the encoding (default: from the file).

    A file is parsed once: its built tables and the rest of its encoding are kept in the
    table cache (:mod:`bpe_stream.encoding.cache`), keyed by the file's path, inode, size
    and times, so a later load of the same unchanged file reads only that entry.
    """
    # A file's reading makes about a million container objects at once (its JSON, the
    # token and merge lists) that all outlive it: the cyclic collector would scan them
    # again and again while they grow (a third of a cold tokenizer.json's parse) and can
    # free none of them, so it is paused for the load.
    paused = gc.isenabled()
    gc.disable()
    try:
        key, settled = _file_key(path, pattern, name, special_tokens)
        if key is not None:
            enc = _from_entry(key)
            if enc is not None:
                return enc
        if key is None or not settled or key in _not_stored or cache_dir() is None:
            return Encoding.from_spec(read_vocabulary(path, pattern=pattern, name=name,
                                                      special_tokens=special_tokens))
        # the file's entry holds the tables: the content entry is written only where it is not
        with content_entry_deferred() as pending:
            enc = Encoding.from_spec(read_vocabulary(path, pattern=pattern, name=name, special_tokens=special_tokens))
        if not _store(key, enc):
            _not_stored.add(key)
            for store in pending:
                store()
        return enc
    finally:
        if paused:
            gc.enable()


# A file changed less than this long ago is not stored: a second write within the
# filesystem's clock tick could leave its size and times as they were (git's "racily
# clean" entries); once this has passed, any write changes the ctime.
_SETTLE_NS = 2_000_000_000
# Part of every loaded file's key: raised whenever what a file reads as changes (a new
# family member recognized, another rule), so that no entry of the older reading is used.
_READING = 2


def _file_key(path, pattern, name, special_tokens) -> tuple[str | None, bool]:
    """``(key, settled)``: the cache key of loading ``path`` with these arguments (None
    where the load is not cached: a pre-tokenizer object, odd arguments, a path that is
    no regular file, so that the reader says what is wrong), and whether the file is old
    enough to be stored (:data:`_SETTLE_NS`)."""
    none = (None, False)
    if not (pattern is None or isinstance(pattern, str)) or not (name is None or isinstance(name, str)):
        return none
    if special_tokens is not None:
        if not isinstance(special_tokens, dict) or not all(
            isinstance(k, str) and type(v) is int for k, v in special_tokens.items()
        ):
            return none
        special_tokens = sorted(special_tokens.items())
    try:
        real = os.path.realpath(os.fspath(path))
        st = os.stat(real)
    except (OSError, TypeError, ValueError):
        return none
    if not stat.S_ISREG(st.st_mode):
        return none
    identity = [__version__, _READING, real, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns,
                pattern, name, special_tokens]
    try:
        blob = json.dumps(identity, ensure_ascii=True).encode("ascii")
    except (TypeError, ValueError):
        return none
    settled = time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > _SETTLE_NS
    return "file-" + hashlib.sha256(blob).hexdigest(), settled


def _b64(token: bytes) -> str:
    return base64.b64encode(token).decode("ascii")


# Keys of files whose encoding has no file entry (HF's merge loop serves it): their later
# loads in this process take the content entry as before.
_not_stored: set[str] = set()


def _store(key: str, enc: Encoding) -> bool:
    """Write the file's entry; False where the encoding cannot have one."""
    rules = getattr(enc, "_merge_rules", None)
    if enc._merges_engine is not None or (rules is not None and rules[0] is not None):
        return False  # HF's merge loop serves it: its merges would have to be stored too
    meta = {
        "name": enc.name,
        "pretokenizer": describe_pretokenizer(enc.pretokenizer),
        "special_tokens": enc._special_tokens,
        "rules": None if rules is None else {
            "unlisted": [[_b64(t), i] for t, i in rules[1].items()],
            "whole_pieces": bool(rules[2]),
        },
    }
    write_file_entry(key, enc.bpe, json.dumps(meta).encode("utf-8"))
    return True


def _from_entry(key: str) -> Encoding | None:
    found = read_file_entry(key)
    if found is None:
        return None
    bpe, raw = found
    try:
        meta = json.loads(raw.decode("utf-8"))
        enc = Encoding(meta["name"], pretokenizer=pretokenizer_from(meta["pretokenizer"]), bpe=bpe,
                       special_tokens=meta["special_tokens"])
        rules = meta["rules"]
        if rules is not None:
            unlisted = {base64.b64decode(t, validate=True): i for t, i in rules["unlisted"]}
            enc._set_merge_rules(None, unlisted, bool(rules["whole_pieces"]), None)
    except (ValueError, TypeError, KeyError, AttributeError, UnicodeDecodeError):
        return None  # a damaged entry: the file is read again
    return enc
