"""On-disk cache of built vocabulary tables.

Building the tables of a 100k-token vocabulary takes about a second in Python;
unpickling them takes a few hundredths.  Entries are keyed by the SHA-256 of the
token list and the library version, and carry the CRC-32 of their own payload:
a missing, stale, truncated or otherwise corrupt entry is rebuilt silently, and
a cache directory that cannot be written is simply not used.  (The checksum is
there to catch accidental damage: truncation, a torn write, bit rot.  It is no
defence against someone who can write the cache directory, and neither would a
SHA-256 stored beside the payload be; CRC-32 reads 11 MB in under 2 ms where
SHA-256 took 5.5 ms, a share of the load time that tiktoken's load is measured
against.)

The directory is ``$BPE_STREAM_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/bpe-stream``
or ``~/.cache/bpe-stream``.  Set ``BPE_STREAM_CACHE_DIR`` to an empty string to
disable the cache.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
import threading
import zlib
from pathlib import Path

from .._version import __version__
from ..bpe.ranks import sorted_ranks
from ..bpe.vocabulary import BytePairEncoding

__all__ = ["cache_dir", "tokens_digest", "load_or_build", "bpe_from_ranks", "bpe_from_tokens"]

_MAGIC = b"bpe-stream-cache\n"
# Bumped whenever the set or layout of built tables (or of the entry) changes.
_TABLES_FORMAT = 4
_CHECKSUM_HEX = 8  # CRC-32 of the payload, as 8 hex digits


def _checksum(payload: bytes) -> str:
    return f"{zlib.crc32(payload):08x}"


_lock = threading.Lock()
# In-process memo: building is done once per process per vocabulary.
_built: dict[str, BytePairEncoding] = {}


def cache_dir() -> Path | None:
    configured = os.environ.get("BPE_STREAM_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bpe-stream"


def tokens_digest(tokens: list[bytes]) -> str:
    h = hashlib.sha256()
    h.update(len(tokens).to_bytes(8, "little"))
    h.update(b"".join(len(t).to_bytes(8, "little") + t for t in tokens))
    return h.hexdigest()


def _entry_path(key: str) -> Path | None:
    d = cache_dir()
    if d is None:
        return None
    return d / f"{key}-v{__version__}-t{_TABLES_FORMAT}.pickle"


def _read(path: Path, key: str) -> BytePairEncoding | None:
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    header_len = len(_MAGIC) + _CHECKSUM_HEX + 1
    if len(raw) < header_len or not raw.startswith(_MAGIC):
        return None
    digest = raw[len(_MAGIC) : len(_MAGIC) + _CHECKSUM_HEX].decode("ascii", "replace")
    payload = raw[header_len:]
    if _checksum(payload) != digest:
        return None
    try:
        stored_key, bpe = pickle.loads(payload)
    except Exception:
        return None
    if stored_key != key or not isinstance(bpe, BytePairEncoding):
        return None
    return bpe


def _write(path: Path, key: str, bpe: BytePairEncoding) -> None:
    payload = pickle.dumps((key, bpe), protocol=pickle.HIGHEST_PROTOCOL)
    blob = _MAGIC + _checksum(payload).encode("ascii") + b"\n" + payload
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError:
        pass  # a read-only or full cache directory only costs speed


def load_or_build(key: str, build) -> BytePairEncoding:
    """The vocabulary for ``key``: from memory, from disk, or ``build()`` (and stored)."""
    with _lock:
        bpe = _built.get(key)
        if bpe is not None:
            return bpe
        path = _entry_path(key)
        bpe = _read(path, key) if path is not None else None
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
    tokens, ids = sorted_ranks(mergeable_ranks)
    if ids == list(range(len(ids))):
        key = "tokens-" + tokens_digest(tokens)
    else:
        key = "ranks-" + tokens_digest(tokens + [b"ids"] + [str(ids).encode()])
    return load_or_build(key, lambda: BytePairEncoding.from_rank_table(mergeable_ranks))


def bpe_from_ordered(tokens: list[bytes], ids: list[int]) -> BytePairEncoding:
    """The vocabulary of tokens in rank order with their ids
    (:meth:`BytePairEncoding.from_ordered`), cached."""
    key = "ordered-" + tokens_digest(list(tokens) + [b"ids"] + [str(list(ids)).encode()])
    return load_or_build(key, lambda: BytePairEncoding.from_ordered(tokens, ids))
