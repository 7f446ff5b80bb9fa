"""Where bpe-stream keeps data it built once and reads back: one directory.

``$BPE_STREAM_CACHE_DIR`` if set (an empty string disables the cache), else
``$XDG_CACHE_HOME/bpe-stream`` or ``~/.cache/bpe-stream``.  Everything stored there is
plain data (arrays, JSON), rebuilt when missing or damaged; see
:mod:`bpe_stream.encoding.cache` (vocabulary tables) and
:mod:`bpe_stream.pretokenize.unicode` (the installed ``regex``'s Unicode classes).
It sits in the lowest layer so that both can use it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["cache_dir", "write_atomically"]


def cache_dir() -> Path | None:
    configured = os.environ.get("BPE_STREAM_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bpe-stream"


def write_atomically(path: Path, parts: list[bytes]) -> None:
    """Write ``parts`` to ``path`` through a temporary file and a rename (readers see
    the old file or the whole new one); a directory that cannot be written is ignored
    (the cache only saves time)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
        try:
            with os.fdopen(fd, "wb") as f:
                for part in parts:
                    f.write(part)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError:
        pass
