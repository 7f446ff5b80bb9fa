"""Named encodings: the bundled cl100k_base and o200k_base, and model names.

The vocabularies ship inside the package as the official ``.tiktoken`` files,
gzip-compressed, and are checked against the SHA-256 that tiktoken publishes for
them every time they are loaded.  Loading and registry live here; encoding lives
in :mod:`bpe_stream.encoding`.
"""

from __future__ import annotations

import threading
from importlib import resources

from .cache import load_or_build
from .encoding import Encoding
from .loading import parse_tiktoken, tokens_from_ranks
from .pretokenize import PATTERNS

__all__ = ["get_encoding", "encoding_for_model", "encoding_name_for_model", "list_encoding_names"]

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

_BUNDLED = {
    "cl100k_base": {
        "file": "cl100k_base.tiktoken.gz",
        "sha256": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "special_tokens": {
            ENDOFTEXT: 100257,
            FIM_PREFIX: 100258,
            FIM_MIDDLE: 100259,
            FIM_SUFFIX: 100260,
            ENDOFPROMPT: 100276,
        },
    },
    "o200k_base": {
        "file": "o200k_base.tiktoken.gz",
        "sha256": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "special_tokens": {ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
    },
}

MODEL_TO_ENCODING = {
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4-mini": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",
    "davinci-002": "cl100k_base",
    "babbage-002": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
}

MODEL_PREFIX_TO_ENCODING = {
    "o1-": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini-": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "chatgpt-4o-": "o200k_base",
    "gpt-4o-": "o200k_base",
    "gpt-4-": "cl100k_base",
    "gpt-3.5-turbo-": "cl100k_base",
    "gpt-35-turbo-": "cl100k_base",
    "ft:gpt-4o": "o200k_base",
    "ft:gpt-4": "cl100k_base",
    "ft:gpt-3.5-turbo": "cl100k_base",
    "ft:davinci-002": "cl100k_base",
    "ft:babbage-002": "cl100k_base",
}

_lock = threading.Lock()
_encodings: dict[str, Encoding] = {}


def list_encoding_names() -> list[str]:
    return list(_BUNDLED)


def bundled_tiktoken_bytes(name: str) -> bytes:
    """The official ``.tiktoken`` file of a bundled encoding, verified by SHA-256."""
    import gzip
    import hashlib

    info = _BUNDLED[name]
    raw = gzip.decompress(resources.files(__package__).joinpath("data", info["file"]).read_bytes())
    actual = hashlib.sha256(raw).hexdigest()
    if actual != info["sha256"]:
        raise RuntimeError(
            f"bundled {info['file']} is corrupt: SHA-256 {actual}, expected {info['sha256']}"
        )
    return raw


def get_encoding(name: str) -> Encoding:
    """A bundled encoding by name; works offline.

    >>> get_encoding("o200k_base").encode("hello world")
    [24912, 2375]
    """
    if not isinstance(name, str):
        raise TypeError(f"encoding name must be a str, got {type(name).__name__}")
    enc = _encodings.get(name)
    if enc is not None:
        return enc
    if name not in _BUNDLED:
        raise ValueError(
            f"unknown encoding {name!r}; available: {', '.join(list_encoding_names())} "
            "(or build one with bpe_stream.Encoding / load one with bpe_stream.load)"
        )
    with _lock:
        enc = _encodings.get(name)
        if enc is not None:
            return enc
        info = _BUNDLED[name]
        raw = bundled_tiktoken_bytes(name)  # verified on every load, cache hit or not
        bpe = load_or_build("sha256-" + info["sha256"], lambda: tokens_from_ranks(parse_tiktoken(raw)))
        enc = Encoding(name, pat_str=PATTERNS[name], bpe=bpe, special_tokens=info["special_tokens"])
        _encodings[name] = enc
        return enc


def _is_registered(enc: Encoding) -> bool:
    return _encodings.get(enc.name) is enc


def encoding_name_for_model(model_name: str) -> str:
    if model_name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[model_name]
    for prefix, name in MODEL_PREFIX_TO_ENCODING.items():
        if model_name.startswith(prefix):
            return name
    raise KeyError(
        f"no bundled encoding is known for model {model_name!r}; "
        f"use get_encoding() with one of {', '.join(list_encoding_names())}"
    )


def encoding_for_model(model_name: str) -> Encoding:
    return get_encoding(encoding_name_for_model(model_name))
