"""Named encodings: the bundled OpenAI vocabularies, and model names.

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

# Each bundled encoding: the file its ranks come from (``lines``: only that many of its
# first lines), the SHA-256 tiktoken publishes for those ranks, the family member that
# pre-splits it, and its special tokens.  r50k_base's file is the first 50,256 lines of
# p50k_base's, so only the latter ships.
_O200K_SPECIAL = {ENDOFTEXT: 199999, ENDOFPROMPT: 200018}
_R50K = {
    "file": "p50k_base.tiktoken.gz",
    "lines": 50256,
    "sha256": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    "pretokenizer": "gpt2",
    "special_tokens": {ENDOFTEXT: 50256},
    "explicit_n_vocab": 50257,
}
_P50K = {
    "file": "p50k_base.tiktoken.gz",
    "sha256": "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    "pretokenizer": "gpt2",
    "special_tokens": {ENDOFTEXT: 50256},
    "explicit_n_vocab": 50281,
}
_CL100K = {
    "file": "cl100k_base.tiktoken.gz",
    "sha256": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "pretokenizer": "cl100k_base",
    "special_tokens": {
        ENDOFTEXT: 100257,
        FIM_PREFIX: 100258,
        FIM_MIDDLE: 100259,
        FIM_SUFFIX: 100260,
        ENDOFPROMPT: 100276,
    },
}
_O200K = {
    "file": "o200k_base.tiktoken.gz",
    "sha256": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "pretokenizer": "o200k_base",
    "special_tokens": _O200K_SPECIAL,
}
# gpt-oss's chat format; as in tiktoken, <|endofprompt|> and <|reserved_200018|> share
# id 200018 (decoding it gives the latter).
_O200K_HARMONY_SPECIAL = {
    **_O200K_SPECIAL,
    "<|startoftext|>": 199998,
    ENDOFTEXT: 199999,
    "<|reserved_200000|>": 200000,
    "<|reserved_200001|>": 200001,
    "<|return|>": 200002,
    "<|constrain|>": 200003,
    "<|reserved_200004|>": 200004,
    "<|channel|>": 200005,
    "<|start|>": 200006,
    "<|end|>": 200007,
    "<|message|>": 200008,
    "<|reserved_200009|>": 200009,
    "<|reserved_200010|>": 200010,
    "<|reserved_200011|>": 200011,
    "<|call|>": 200012,
    **{f"<|reserved_{i}|>": i for i in range(200013, 201088)},
}

_BUNDLED: dict[str, dict] = {
    "cl100k_base": _CL100K,
    "o200k_base": _O200K,
    "o200k_harmony": {**_O200K, "special_tokens": _O200K_HARMONY_SPECIAL},
    "p50k_base": _P50K,
    "p50k_edit": {
        **_P50K,
        "special_tokens": {ENDOFTEXT: 50256, FIM_PREFIX: 50281, FIM_MIDDLE: 50282, FIM_SUFFIX: 50283},
        "explicit_n_vocab": None,
    },
    "r50k_base": _R50K,
    "gpt2": _R50K,  # GPT-2's encoder.json and vocab.bpe hold these ranks
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
    # older OpenAI models
    "text-davinci-003": "p50k_base",
    "text-davinci-002": "p50k_base",
    "text-davinci-001": "r50k_base",
    "text-curie-001": "r50k_base",
    "text-babbage-001": "r50k_base",
    "text-ada-001": "r50k_base",
    "davinci": "r50k_base",
    "curie": "r50k_base",
    "babbage": "r50k_base",
    "ada": "r50k_base",
    "code-davinci-002": "p50k_base",
    "code-davinci-001": "p50k_base",
    "code-cushman-002": "p50k_base",
    "code-cushman-001": "p50k_base",
    "davinci-codex": "p50k_base",
    "cushman-codex": "p50k_base",
    "text-davinci-edit-001": "p50k_edit",
    "code-davinci-edit-001": "p50k_edit",
    "text-similarity-davinci-001": "r50k_base",
    "text-similarity-curie-001": "r50k_base",
    "text-similarity-babbage-001": "r50k_base",
    "text-similarity-ada-001": "r50k_base",
    "text-search-davinci-doc-001": "r50k_base",
    "text-search-curie-doc-001": "r50k_base",
    "text-search-babbage-doc-001": "r50k_base",
    "text-search-ada-doc-001": "r50k_base",
    "code-search-babbage-code-001": "r50k_base",
    "code-search-ada-code-001": "r50k_base",
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
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
    "gpt-oss-": "o200k_harmony",
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
    if info.get("lines") is not None:
        cut = -1
        for _ in range(info["lines"]):
            cut = raw.index(b"\n", cut + 1)
        raw = raw[: cut + 1]
    actual = hashlib.sha256(raw).hexdigest()
    if actual != info["sha256"]:
        raise RuntimeError(
            f"bundled {info['file']} is corrupt: SHA-256 {actual}, expected {info['sha256']}"
        )
    return raw


def encoding_name_for_model(model_name: str) -> str:
    if not isinstance(model_name, str):
        raise TypeError(f"model name must be a str, got {type(model_name).__name__}")
    if model_name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[model_name]
    for prefix, name in MODEL_PREFIX_TO_ENCODING.items():
        if model_name.startswith(prefix):
            return name
    raise KeyError(
        f"no bundled encoding is known for model {model_name!r}; "
        f"use get_encoding() with one of {', '.join(list_encoding_names())}"
    )
