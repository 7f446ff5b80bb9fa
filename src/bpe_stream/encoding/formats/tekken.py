"""Mistral's Tekken files (``tekken*.json``, as ``mistral-common`` ships them).

The file holds ``config`` (``pattern``, ``default_vocab_size``,
``default_num_special_tokens``) and ``vocab``, a list of ``{"rank", "token_bytes"
(base64), ...}``.  Mistral's tokenizer uses the first ``default_vocab_size -
default_num_special_tokens`` ranks, and the model's ids are the rank plus the number of
special tokens, which take the ids below (named in the file's ``special_tokens`` when it
has them, else Mistral's default names).  The pattern is read as tiktoken reads it
(Mistral's tokenizer runs on tiktoken).  Cost: linear in the file.
"""

from __future__ import annotations

import base64
import json

from ...pretokenize.family import custom
from ..spec import EncodingSpec

__all__ = ["read_tekken"]

# the special tokens of Tekken files that do not list them (mistral-common's defaults)
_DEFAULT_SPECIALS = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
                     "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]",
                     "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]",
                     "[TOOL_CONTENT]"]


def is_tekken(data) -> bool:
    return isinstance(data, dict) and "vocab" in data and isinstance(data.get("config"), dict) \
        and "pattern" in data["config"]


def read_tekken(data: dict | str, name: str = "tekken") -> EncodingSpec:
    if isinstance(data, (str, bytes)):
        data = json.loads(data)
    if not is_tekken(data):
        raise ValueError("not a Tekken file (no config.pattern and vocab)")
    config = data["config"]
    n_special = int(config.get("default_num_special_tokens", 0))
    n_vocab = int(config.get("default_vocab_size", len(data["vocab"]) + n_special))
    inner = n_vocab - n_special
    ranks = {}
    for entry in data["vocab"][:inner]:
        ranks[base64.b64decode(entry["token_bytes"])] = int(entry["rank"]) + n_special
    specials = {}
    listed = data.get("special_tokens")
    if listed:
        for entry in listed:
            specials[entry["token_str"]] = int(entry["rank"])
    else:
        for i in range(n_special):
            specials[_DEFAULT_SPECIALS[i] if i < len(_DEFAULT_SPECIALS) else f"<SPECIAL_{i}>"] = i
    return EncodingSpec(name, ranks, specials, custom(config["pattern"], "tiktoken"), source="tekken")
