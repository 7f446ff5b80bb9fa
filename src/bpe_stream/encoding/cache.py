"""On-disk cache of built vocabulary tables: plain arrays, no code.

Building the split tables is the one costly step of loading a vocabulary (C: about
0.3 s for o200k, pure Python several seconds); every other table is rebuilt from them
in a fraction of that.  An entry holds only data, read with :mod:`struct` and
:mod:`array` (never unpickled, so a crafted file cannot run code):

    header   magic b"BPESTRM\\0", format (u32), number of tokens n (u32),
             blob length (u64), CRC-32 of everything after the header (u32),
             key length (u32)                                   [32 bytes]
    key      the entry's key, ASCII
    offsets  (n + 1) x u32: token r is blob[offsets[r]:offsets[r + 1]]
    left     n x i32, right n x i32: the split tables
    blob     the token bytes

all little-endian.  An entry is read only if it is a regular file (opened without
following a symlink, without blocking on a FIFO) whose size is exactly what its
header says; a missing, stale, truncated or otherwise corrupt entry is rebuilt
silently, and a cache directory that cannot be written is simply not used.  The
stored tables are checked before use (offsets increasing, every split two
lower-ranked tokens whose bytes make the token: ``Core.from_parts`` in C,
:func:`~bpe_stream.bpe.tables.check_splits` in Python), so even a crafted entry can
at worst give wrong counts, never crash or loop.  The CRC-32 catches accidental
damage (truncation, a torn write, bit rot); it is no defence against someone who can
write the cache directory, and neither would a SHA-256 stored beside the payload be.

The directory is ``$BPE_STREAM_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/bpe-stream``
or ``~/.cache/bpe-stream``.  Set ``BPE_STREAM_CACHE_DIR`` to an empty string to
disable the cache.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import sys
import threading
import zlib
from array import array
from pathlib import Path

from .._version import __version__
from ..bpe.cache_dir import cache_dir, write_atomically
from ..bpe.native import Core, compiled_available
from ..bpe.ranks import tokens_from_ranks
from ..bpe.vocabulary import BytePairEncoding

__all__ = ["cache_dir", "tokens_digest", "load_or_build", "bpe_from_ranks", "bpe_from_tokens"]

_MAGIC = b"BPESTRM\0"
# Bumped whenever the set or layout of stored tables (or of the entry) changes.
_TABLES_FORMAT = 4
_HEADER = struct.Struct("<8sIIQII")  # magic, format, n, blob length, crc32, key length

_lock = threading.Lock()
# In-process memo: building is done once per process per vocabulary.
_built: dict[str, BytePairEncoding] = {}


def tokens_digest(tokens: list[bytes]) -> str:
    h = hashlib.sha256()
    h.update(len(tokens).to_bytes(8, "little"))
    h.update(b"".join(len(t).to_bytes(2, "little") + t for t in tokens))
    return h.hexdigest()


def _entry_path(key: str) -> Path | None:
    d = cache_dir()
    if d is None:
        return None
    return d / f"{key}-v{__version__}-t{_TABLES_FORMAT}.bin"


def _le_array(code: str, raw: bytes) -> array:
    a = array(code)
    a.frombytes(raw)
    if sys.byteorder != "little":
        a.byteswap()
    return a


def _le_bytes(a: array) -> bytes:
    if sys.byteorder != "little":
        a = array(a.typecode, a)
        a.byteswap()
    return a.tobytes()


def _read_entry(path: Path, key: str):
    """``(n, blob, offsets, left, right)`` of a well-formed entry for ``key``, else None."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size < _HEADER.size:
            return None
        with os.fdopen(os.dup(fd), "rb") as f:
            header = f.read(_HEADER.size)
            magic, fmt, n, blob_len, crc, key_len = _HEADER.unpack(header)
            if magic != _MAGIC or fmt != _TABLES_FORMAT:
                return None
            expected = _HEADER.size + key_len + 4 * (n + 1) + 8 * n + blob_len
            if st.st_size != expected:
                return None
            payload = f.read(expected - _HEADER.size)
    except (OSError, struct.error, ValueError):
        return None
    finally:
        os.close(fd)
    if len(payload) != expected - _HEADER.size or zlib.crc32(payload) != crc:
        return None
    if payload[:key_len] != key.encode("ascii"):
        return None
    at = key_len
    offsets = payload[at : at + 4 * (n + 1)]
    at += 4 * (n + 1)
    left = payload[at : at + 4 * n]
    at += 4 * n
    right = payload[at : at + 4 * n]
    at += 4 * n
    return n, payload[at:], offsets, left, right


def _read(path: Path, key: str) -> BytePairEncoding | None:
    entry = _read_entry(path, key)
    if entry is None:
        return None
    n, blob, offsets, left, right = entry
    if compiled_available() and sys.byteorder == "little":
        try:
            core = Core.from_parts(blob, offsets, left, right)
        except ValueError:
            return None
        try:
            return BytePairEncoding._from_core(core)
        except ValueError:
            return None
    offs = _le_array("I", offsets)
    if len(offs) != n + 1 or offs[0] != 0 or offs[-1] != len(blob):
        return None
    if any(offs[r] >= offs[r + 1] for r in range(n)):
        return None
    tokens = [blob[offs[r] : offs[r + 1]] for r in range(n)]
    tables = {"split_left": _le_array("i", left).tolist(), "split_right": _le_array("i", right).tolist()}
    try:
        # the Python path checks the splits (check_splits) and rebuilds them if wrong
        return BytePairEncoding(tokens, _tables=tables)
    except (ValueError, TypeError):
        return None


def _write(path: Path, key: str, bpe: BytePairEncoding) -> None:
    core = bpe._core
    if core is not None and sys.byteorder == "little":
        blob, offsets, left, right = core.parts()
    else:
        blob = b"".join(bpe.tokens)
        offs = array("I", [0])
        for length in bpe.token_lens:
            offs.append(offs[-1] + length)
        offsets = _le_bytes(offs)
        left = _le_bytes(array("i", bpe.split_left))
        right = _le_bytes(array("i", bpe.split_right))
    key_bytes = key.encode("ascii")
    payload = b"".join([key_bytes, offsets, left, right, blob])
    header = _HEADER.pack(_MAGIC, _TABLES_FORMAT, len(bpe), len(blob), zlib.crc32(payload), len(key_bytes))
    write_atomically(path, [header, payload])  # a read-only or full directory only costs speed


def load_or_build(key: str, tokens_factory, tiktoken_contents: bytes | None = None) -> BytePairEncoding:
    """The tables for ``key``: from memory, from disk, or built from ``tokens_factory()``
    (or, with the compiled core, straight from ``tiktoken_contents`` when given: the
    file is parsed in C, about 3x faster than in Python)."""
    with _lock:
        bpe = _built.get(key)
        if bpe is not None:
            return bpe
        path = _entry_path(key)
        bpe = _read(path, key) if path is not None else None
        if bpe is None:
            core = None
            if tiktoken_contents is not None and compiled_available():
                core = Core.from_tiktoken(tiktoken_contents)
            if core is not None:
                bpe = BytePairEncoding._from_core(core)
            else:
                bpe = BytePairEncoding.from_tokens(tokens_factory())
            if path is not None:
                _write(path, key, bpe)
        _built[key] = bpe
        return bpe


def bpe_from_tokens(tokens: list[bytes]) -> BytePairEncoding:
    tokens = [bytes(t) for t in tokens]
    return load_or_build("tokens-" + tokens_digest(tokens), lambda: tokens)


def bpe_from_ranks(mergeable_ranks: dict[bytes, int]) -> BytePairEncoding:
    if not isinstance(mergeable_ranks, dict):
        raise TypeError(f"mergeable_ranks must be a dict, got {type(mergeable_ranks).__name__}")
    return bpe_from_tokens(tokens_from_ranks(mergeable_ranks))
