"""Named encodings: the bundled cl100k_base and o200k_base, and model names.

The vocabularies ship inside the package as the official ``.tiktoken`` files,
gzip-compressed, and are checked against the SHA-256 that tiktoken publishes for
them every time they are loaded.  Loading and registry live here; encoding lives
in :mod:`bpe_stream.encoding`.
"""

from __future__ import annotations

from importlib import resources

__all__ = ["encoding_name_for_model", "list_encoding_names"]

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


def list_encoding_names() -> list[str]:
    return list(_BUNDLED)


def bundled_tiktoken_bytes(name: str) -> bytes:
    """The official ``.tiktoken`` file of a bundled encoding, verified by SHA-256."""
    import gzip
    import hashlib

    info = _BUNDLED[name]
    raw = gzip.decompress(resources.files("bpe_stream").joinpath("data", info["file"]).read_bytes())
    actual = hashlib.sha256(raw).hexdigest()
    if actual != info["sha256"]:
        raise RuntimeError(
            f"bundled {info['file']} is corrupt: SHA-256 {actual}, expected {info['sha256']}"
        )
    return raw


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
