"""On-disk cache of built vocabulary tables: plain arrays, no code.

Building the split tables is the one costly step of loading a vocabulary (C: about
0.3 s for o200k, pure Python several seconds); every other table is rebuilt from them
in a fraction of that.  An entry holds only data, read with :mod:`struct` and
:mod:`array` (never unpickled, so a crafted file cannot run code):

    header   magic b"BPESTRM\\0", format (u32), number of tokens n (u32),
             blob length (u64), CRC-32 of everything after the header (u32),
             key length (u32), flags (u32: 1 = ids present), number of
             unreachable tokens m (u32), their blob length (u64), metadata
             length (u64)   [56 bytes]
    key      the entry's key, ASCII
    offsets  (n + 1) x u32: token r is blob[offsets[r]:offsets[r + 1]]
    left     n x i32, right n x i32: the split tables
    blob     the token bytes
    exc      n x u8: the exceptional tokens (bpe/pairs.py)
    ids      n x u32, with flag 1: the vocabulary's id of each token
    unreachable  (m + 1) x u32 offsets, m x u32 ids, then their bytes: the tokens
             BPE never builds, kept for whole pieces
    meta     UTF-8 JSON, for an entry of a loaded file: what the encoding holds
             beside the tables (name, pre-tokenizer, special tokens, HF's rules)

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
from contextlib import contextmanager
from pathlib import Path

from .._version import __version__
from ..bpe.cache_dir import cache_dir, write_atomically
from ..bpe.native import Core, compiled_available
from ..bpe.ranks import sorted_ranks
from ..bpe.tables import UnreachableTokens
from ..bpe.vocabulary import BytePairEncoding

__all__ = ["bpe_from_ordered", "bpe_from_ranks", "bpe_from_tokens", "cache_dir", "content_entry_deferred",
           "load_or_build", "tokens_digest"]

_MAGIC = b"BPESTRM\0"
# Bumped whenever the set or layout of stored tables (or of the entry) changes.
_TABLES_FORMAT = 6
# magic, format, n, blob length, crc32, key length, flags, m, unreachable blob length, meta length
_HEADER = struct.Struct("<8sIIQIIIIQQ")
_HAS_IDS = 1

_lock = threading.Lock()
# In-process memo: building is done once per process per vocabulary.
_built: dict[str, BytePairEncoding] = {}


def tokens_digest(tokens: list[bytes]) -> str:
    h = hashlib.sha256()
    h.update(len(tokens).to_bytes(8, "little"))
    # every length (8 bytes: a token may be longer than 64 KiB), then every token's bytes:
    # as unambiguous as lengths and bytes interleaved, without a Python object per token
    h.update(_le_bytes(array("Q", map(len, tokens))))
    h.update(b"".join(tokens))
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
    """The sections of a well-formed entry for ``key`` (a dict of bytes), else None."""
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
            magic, fmt, n, blob_len, crc, key_len, entry_flags, m, ublob_len, meta_len = _HEADER.unpack(header)
            if magic != _MAGIC or fmt != _TABLES_FORMAT:
                return None
            sizes = {
                "key": key_len, "offsets": 4 * (n + 1), "left": 4 * n, "right": 4 * n, "blob": blob_len,
                "exc": n, "ids": 4 * n if entry_flags & _HAS_IDS else 0,
                "u_offsets": 4 * (m + 1), "u_ids": 4 * m, "u_blob": ublob_len, "meta": meta_len,
            }
            expected = _HEADER.size + sum(sizes.values())
            if st.st_size != expected:
                return None
            payload = f.read(expected - _HEADER.size)
    except (OSError, struct.error, ValueError):
        return None
    finally:
        os.close(fd)
    if len(payload) != expected - _HEADER.size or zlib.crc32(payload) != crc:
        return None
    sections = {}
    at = 0
    for name, size in sizes.items():
        sections[name] = payload[at : at + size]
        at += size
    if sections["key"] != key.encode("ascii"):
        return None
    sections["n"] = n
    sections["has_ids"] = bool(entry_flags & _HAS_IDS)
    sections["m"] = m
    return sections


def _slices(blob: bytes, offsets: array, count: int) -> list[bytes] | None:
    if len(offsets) != count + 1 or offsets[0] != 0 or offsets[-1] != len(blob):
        return None
    if any(offsets[r] >= offsets[r + 1] for r in range(count)):
        return None
    return [blob[offsets[r] : offsets[r + 1]] for r in range(count)]


def _read(path: Path, key: str, with_meta: bool = False):
    """The vocabulary of the entry (with ``with_meta``: ``(vocabulary, meta bytes)``), or
    None."""
    s = _read_entry(path, key)
    if s is None:
        return None
    bpe = _bpe_of(s)
    if with_meta:
        return None if bpe is None else (bpe, s["meta"])
    return bpe


def _bpe_of(s: dict) -> BytePairEncoding | None:
    n, m = s["n"], s["m"]
    ids = _le_array("I", s["ids"]).tolist() if s["has_ids"] else None
    u_tokens = _slices(s["u_blob"], _le_array("I", s["u_offsets"]), m)
    if u_tokens is None:
        return None
    unreachable = dict(zip(u_tokens, _le_array("I", s["u_ids"]).tolist()))
    exc = s["exc"]
    exceptional = frozenset(_flagged(exc))
    try:
        if compiled_available() and sys.byteorder == "little":
            core = Core.from_parts(s["blob"], s["offsets"], s["left"], s["right"], exc if exceptional else None)
            return BytePairEncoding._from_core(core, ids=ids, unreachable=unreachable, exceptional=exceptional)
        tokens = _slices(s["blob"], _le_array("I", s["offsets"]), n)
        if tokens is None:
            return None
        tables = {"split_left": _le_array("i", s["left"]).tolist(), "split_right": _le_array("i", s["right"]).tolist(),
                  "exceptional": exceptional}
        # the Python path checks the splits (check_splits) and rebuilds them if wrong
        return BytePairEncoding(tokens, ids=ids, unreachable=unreachable, _tables=tables)
    except (ValueError, TypeError, OverflowError):
        return None


def _flagged(flags: bytes) -> list[int]:
    """The positions of the non-zero bytes of ``flags`` (a few among a vocabulary's
    tokens: found with ``bytes.find``/``translate``, not a Python step per token)."""
    nonzero = flags.translate(_NONZERO)
    out = []
    at = nonzero.find(1)
    while at >= 0:
        out.append(at)
        at = nonzero.find(1, at + 1)
    return out


_NONZERO = bytes([0] + [1] * 255)


def _write(path: Path, key: str, bpe: BytePairEncoding, meta: bytes = b"") -> None:
    core = bpe._core
    n = len(bpe)
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
    flags = bytearray(n)
    for r in bpe.exceptional:
        flags[r] = 1
    ids = b"" if bpe.ids is None else _le_bytes(array("I", bpe.ids))
    u_tokens = list(bpe.unreachable)
    u_offs = array("I", [0])
    for t in u_tokens:
        u_offs.append(u_offs[-1] + len(t))
    u_blob = b"".join(u_tokens)
    key_bytes = key.encode("ascii")
    payload = b"".join([key_bytes, offsets, left, right, blob, bytes(flags), ids, _le_bytes(u_offs),
                        _le_bytes(array("I", list(bpe.unreachable.values()))), u_blob, meta])
    header = _HEADER.pack(_MAGIC, _TABLES_FORMAT, n, len(blob), zlib.crc32(payload), len(key_bytes),
                          _HAS_IDS if bpe.ids is not None else 0, len(u_tokens), len(u_blob), len(meta))
    write_atomically(path, [header, payload])  # a read-only or full directory only costs speed


def load_or_build(key: str, build, tiktoken_contents: bytes | None = None) -> BytePairEncoding:
    """The tables for ``key``: from memory, from disk, or ``build()`` (with the compiled
    core, straight from ``tiktoken_contents`` when given and it holds ranks 0..n-1 that
    all build: the file is parsed in C, about 3x faster than in Python)."""
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
                try:
                    bpe = BytePairEncoding._from_core(core)
                except UnreachableTokens:
                    bpe = None
            if bpe is None:
                bpe = build()
            if path is not None:
                _write(path, key, bpe)
        _built[key] = bpe
        return bpe


def bpe_from_tokens(tokens: list[bytes]) -> BytePairEncoding:
    tokens = [bytes(t) for t in tokens]
    return load_or_build("tokens-" + tokens_digest(tokens), lambda: BytePairEncoding.from_tokens(tokens))


def bpe_from_ranks(mergeable_ranks: dict[bytes, int]) -> BytePairEncoding:
    """The vocabulary of a rank table (:meth:`BytePairEncoding.from_rank_table`), cached."""
    if not isinstance(mergeable_ranks, dict):
        raise TypeError(f"mergeable_ranks must be a dict, got {type(mergeable_ranks).__name__}")
    tokens, ids = sorted_ranks(mergeable_ranks)
    if ids == list(range(len(ids))):
        key = "tokens-" + tokens_digest(tokens)
    else:
        key = "ranks-" + tokens_digest(tokens + [b"ids"] + [str(ids).encode()])
    return load_or_build(key, lambda: BytePairEncoding.from_ordered(tokens, ids))


def bpe_from_ordered(tokens: list[bytes], ids: list[int]) -> BytePairEncoding:
    """The vocabulary of tokens in rank order with their ids
    (:meth:`BytePairEncoding.from_ordered`), cached (see :func:`content_entry_deferred`)."""
    def key() -> str:
        return "ordered-" + tokens_digest(list(tokens) + [b"ids"] + [str(list(ids)).encode()])

    pending = getattr(_deferred, "pending", None)
    if pending is not None:
        bpe = BytePairEncoding.from_ordered(tokens, ids)
        pending.append(lambda: load_or_build(key(), lambda: bpe))
        return bpe
    return load_or_build(key(), lambda: BytePairEncoding.from_ordered(tokens, ids))


# A loaded file's tables are stored once, in the file's entry (below): while a file is
# read, bpe_from_ordered builds without its content entry (no digest of the tokens, no
# second copy of the tables on disk) and hands the loader the storing of it, which the
# loader does only where the file's entry is not stored.
_deferred = threading.local()


@contextmanager
def content_entry_deferred():
    """Within the block, :func:`bpe_from_ordered` neither reads nor writes its content
    entry; the list yielded gathers a call per build that stores it."""
    outer = getattr(_deferred, "pending", None)
    _deferred.pending = []
    try:
        yield _deferred.pending
    finally:
        _deferred.pending = outer


# ----------------------------------------------------------------- loaded files
# A vocabulary file (tokenizer.json, GGUF, Tekken, .tiktoken) is parsed once: the entry
# of a loaded file holds its built tables and, as JSON, the rest of the encoding, keyed
# by the file's identity and state (path, device, inode, size, modification and change
# times: any write to the file changes its ctime, which no tool can set back).


def read_file_entry(key: str):
    """``(vocabulary, meta bytes)`` stored for ``key``, or None."""
    with _lock:
        path = _entry_path(key)
        return _read(path, key, with_meta=True) if path is not None else None


def write_file_entry(key: str, bpe: BytePairEncoding, meta: bytes) -> None:
    """Store the tables of a loaded file with ``meta`` (a cache that cannot be written
    only costs speed)."""
    with _lock:
        path = _entry_path(key)
        if path is not None:
            _write(path, key, bpe, meta)
