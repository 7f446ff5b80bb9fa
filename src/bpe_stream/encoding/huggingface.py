"""Vocabularies of Hugging Face objects and model folders (:meth:`Encoding.from_huggingface`,
:meth:`Encoding.from_pretrained`).

:func:`spec_from_huggingface` reads the tokenizer of a ``tokenizers.Tokenizer`` or of a
``transformers`` fast tokenizer through its own JSON (the object's ``to_str()``), so the
encoding is exactly what the object describes; :func:`spec_from_pretrained` reads the
tokenizer file of a model folder, or of a Hub repository through ``huggingface_hub``
(the optional extra ``bpe-stream[hub]``).  Neither imports ``tokenizers`` or
``transformers`` itself.

In a model folder the first of these is read: ``tokenizer.json``, ``tekken.json``, one
``.gguf`` file.  A folder with only a SentencePiece ``tokenizer.model`` (Llama 2,
Mistral 7B v0.1, Gemma) is refused naming it: its BPE is over characters with byte
fallback, not over bytes.
"""

from __future__ import annotations

import os
from pathlib import Path

from .formats import read_vocabulary
from .formats.hf_json import read_tokenizer_json
from .spec import EncodingSpec

__all__ = ["spec_from_huggingface", "spec_from_pretrained"]

# the files a model folder's tokenizer is read from, in order
_TOKENIZER_FILES = ("tokenizer.json", "tekken.json")


def spec_from_huggingface(tokenizer, *, name: str | None = None) -> EncodingSpec:
    """The vocabulary of a ``tokenizers.Tokenizer`` or a ``transformers`` fast tokenizer.

    Its special and added tokens become special tokens (ordinary text never becomes
    one); the tokens a ``transformers`` tokenizer adds around a text (``<|begin_of_text|>``
    with ``add_special_tokens=True``) are not counted: counts are of the text.
    """
    backend = getattr(tokenizer, "backend_tokenizer", tokenizer)
    to_str = getattr(backend, "to_str", None)
    if not callable(to_str):
        kind = type(tokenizer).__name__
        hint = (" (a slow transformers tokenizer: load it with use_fast=True)"
                if hasattr(tokenizer, "convert_tokens_to_ids") else "")
        raise TypeError(f"expected a tokenizers.Tokenizer or a transformers fast tokenizer, got {kind}{hint}")
    if name is None:
        path = getattr(tokenizer, "name_or_path", None)
        name = Path(path).name if isinstance(path, str) and path else "huggingface"
    return read_tokenizer_json(to_str(), name)


def spec_from_pretrained(repo_id_or_path: str | os.PathLike[str], *, name: str | None = None,
                         **hub_kwargs) -> EncodingSpec:
    """The vocabulary of a model folder, or of a Hub repository (``huggingface_hub``
    downloads its ``tokenizer.json``; ``hub_kwargs`` such as ``revision`` or
    ``cache_dir`` go to ``hf_hub_download``).

    >>> import bpe_stream, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp(), "tiny-model")
    >>> folder.mkdir()
    >>> bpe_stream.get_encoding("r50k_base").save(folder / "vocab.bpe")
    >>> bpe_stream.Encoding.from_pretrained(folder)
    Traceback (most recent call last):
    ...
    FileNotFoundError: ...tiny-model holds no tokenizer.json, tekken.json or .gguf file
    """
    path = Path(os.fspath(repo_id_or_path))
    if path.is_dir():
        return _from_folder(path, name)
    if path.is_file():
        return (read_vocabulary(path, name=name))
    repo = os.fspath(repo_id_or_path)
    if repo.startswith((".", "/", "~")) or repo.count("/") > 1 or "\\" in repo:
        raise FileNotFoundError(f"{repo}: no such folder or file (and not a Hub repository id)")
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        raise ImportError(
            f"{repo!r} is not a local folder; loading from the Hugging Face Hub needs "
            "huggingface_hub (pip install 'bpe-stream[hub]')"
        ) from None
    local = hf_hub_download(repo, "tokenizer.json", **hub_kwargs)
    return (read_vocabulary(local, name=name or repo.rsplit("/", 1)[-1]))


def _from_folder(folder: Path, name: str | None) -> EncodingSpec:
    label = name or folder.resolve().name
    for file in _TOKENIZER_FILES:
        if (folder / file).is_file():
            return (read_vocabulary(folder / file, name=label))
    ggufs = sorted(folder.glob("*.gguf"))
    if len(ggufs) > 1:
        raise ValueError(f"{folder} holds {len(ggufs)} .gguf files; load one with bpe_stream.load(path)")
    if ggufs:
        return (read_vocabulary(ggufs[0], name=label))
    if (folder / "tokenizer.model").is_file():
        raise ValueError(
            f"{folder} holds only a SentencePiece tokenizer.model: its BPE works on characters with "
            "byte fallback, not on bytes, and is not supported"
        )
    raise FileNotFoundError(f"{folder} holds no tokenizer.json, tekken.json or .gguf file")
