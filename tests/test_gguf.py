"""GGUF vocabularies: every ``tokenizer.ggml.pre`` the loader must know, written with
llama.cpp's own ``gguf`` package, against HF tokenizers running the regexes llama.cpp's
``src/llama-vocab.cpp`` lists for that name (chained as llama.cpp chains them: each regex
splits every piece the previous ones left, unmatched text kept, which is HF's ``Sequence``
of isolated ``Split``\\ s).  Where llama.cpp rewrote a regex for its engine, the original
(the model's tokenizer.json) is the reference, and so is the model's NFC normalization for
Qwen, which llama.cpp leaves out.  The vocabulary is r50k_base's.

Also: only the metadata is read (a file with a large tensor after it loads as fast and
the tensor is never read), and damaged or unsupported files are refused naming why.
"""

from __future__ import annotations

import functools
import struct

import pytest
import real_vocabularies as rv
from conftest import CORPUS_FILES, FULL, examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import bpe_stream

gguf = pytest.importorskip("gguf")
tokenizers = pytest.importorskip("tokenizers")

_GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"""
_LLAMA3 = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
_QWEN2 = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
_QWEN35 = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
           r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")
_CJK = "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+"
_DEEPSEEK_LLM_LETTERS = (
    "\\s?[A-Za-z\u00b5\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u01ba\u01bc-\u01bf\u01c4-\u0293\u0295-\u02af"
    "\u0370-\u0373\u0376\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a\u038c\u038e-\u03a1\u03a3-\u03f5"
    "\u03f7-\u0481\u048a-\u052f\u0531-\u0556\u10a0-\u10c5\u13a0-\u13f5\u13f8-\u13fd\u1c90-\u1cba"
    "\u1cbd-\u1cbf\u1d00-\u1d2b\u1d6b-\u1d77\u1d79-\u1d9a\u1e00-\u1f15\u1f18-\u1f1d\u1f20-\u1f45"
    "\u1f48-\u1f4d\u1f50-\u1f57\u1f59\u1f5b\u1f5d\u1f5f-\u1f7d\u1f80-\u1fb4\u1fb6-\u1fbc\u1fbe"
    "\u1fc2-\u1fc4\u1fc6-\u1fcc\u1fd0-\u1fd3\u1fd6-\u1fdb\u1fe0-\u1fec\u1ff2-\u1ff4\u1ff6-\u1ffc"
    "\u2102\u2107\u210a-\u2113\u2115\u2119-\u211d\u2124\u2126\u2128\u212a-\u212d\u212f-\u2134"
    "\u2139\u213c-\u213f\u2145-\u2149\u214e\u2183\u2184\u2c00-\u2c7b\u2c7e-\u2ce4\u2ceb-\u2cee"
    "\u2cf2\u2cf3\ua640-\ua66d\ua680-\ua69b\ua722-\ua76f\ua771-\ua787\ua78b-\ua78e\uab70-\uabbf"
    "\ufb00-\ufb06\ufb13-\ufb17\uff21-\uff3a\uff41-\uff5a\U00010400-\U0001044f\U000104b0-\U000104d3"
    "\U000104d8-\U000104fb\U00010c80-\U00010cb2\U00010cc0-\U00010cf2\U000118a0-\U000118df"
    "\U0001e900-\U0001e943]+"
)
# tokenizer.ggml.pre -> (the regexes in order, whether llama.cpp sets ignore_merges)
LLAMA_CPP = {
    "llama-bpe": ([_LLAMA3], True),
    "qwen2": ([_QWEN2], False),  # and NFC (_NFC)
    "qwen35": ([_QWEN35], False),
    "deepseek-llm": (["[\r\n]", _DEEPSEEK_LLM_LETTERS,
                      "\\s?[!-/:-~\uff01-\uff0f\uff1a-\uff5e\u2018-\u201f\u3000-\u3002]+", r"\s+$", _CJK,
                      r"\p{N}+"], False),
    "deepseek-coder": (["[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", _CJK, r"\p{N}"], False),
    "deepseek-v3": ([r"\p{N}{1,3}", "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
                     r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"""
                     r"""| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""], False),
    "gpt-2": ([_GPT2], False),
    "mpt": ([_GPT2], False),
    "falcon": ([r"[\p{P}\$\+<=>\^~\|`]+", _GPT2, "[0-9][0-9][0-9]"], False),
    "starcoder": ([r"\p{N}", _GPT2], False),
    "refact": ([r"\p{N}", _GPT2], False),
    "command-r": ([r"\p{N}", _GPT2], False),
    "default": ([r"[\p{P}\$\+<=>\^~\|]+", _GPT2, r"\p{N}+", "[0-9][0-9][0-9]"], False),
}


_NFC = {"qwen2", "qwen35"}


@functools.lru_cache(maxsize=None)
def _r50k():
    from bpe_stream.bpe.ranks import parse_tiktoken
    from bpe_stream.encoding.registry import bundled_tiktoken_bytes

    ranks = parse_tiktoken(bundled_tiktoken_bytes("r50k_base"))
    return ranks, rv.merges_from_ranks(ranks)


def _write(path, pre: str | None, *, tensor_bytes: int = 0, model: str = "gpt2"):
    ranks, merges = _r50k()
    tokens = [rv.to_byte_level(t) for t, _ in sorted(ranks.items(), key=lambda kv: kv[1])]
    w = gguf.GGUFWriter(str(path), "gpt2")
    w.add_name(f"r50k-{pre}")
    w.add_tokenizer_model(model)
    if pre is not None:
        w.add_tokenizer_pre(pre)
    w.add_token_list([*tokens, "<|endoftext|>"])
    w.add_token_merges([f"{rv.to_byte_level(a)} {rv.to_byte_level(b)}" for a, b in merges])
    w.add_token_types([int(gguf.TokenType.NORMAL)] * len(tokens) + [int(gguf.TokenType.CONTROL)])
    if tensor_bytes:
        import numpy as np

        w.add_tensor("weights", np.ones(tensor_bytes // 4, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("gguf")


@functools.lru_cache(maxsize=None)
def _pair(folder, pre: str):
    """(ours from the GGUF file, HF tokenizers with llama.cpp's regexes for ``pre``)."""
    from tokenizers import normalizers, pre_tokenizers

    path = _write(folder / f"{pre}.gguf", None if pre == "default" else pre)
    ours = bpe_stream.load(path)
    ranks, merges = _r50k()
    regexes, ignore_merges = LLAMA_CPP[pre]
    hf = rv._hf_tokenizer(ranks, merges, {"<|endoftext|>": 50256}, ignore_merges=ignore_merges,
                          normalizer=normalizers.NFC() if pre in _NFC else None,
                          pre_tokenizer=pre_tokenizers.Sequence([*map(rv._split, regexes),
                                                                 rv._byte_level_after_split()]))
    return ours, lambda text: hf.encode(text, add_special_tokens=False).ids


@pytest.mark.parametrize("pre", [p if p in ("llama-bpe", "qwen2", "deepseek-v3", "gpt-2") else
                                 pytest.param(p, marks=pytest.mark.slow) for p in LLAMA_CPP])
def test_each_pre_tokenizer_encodes_the_corpus_like_llama_cpps_regexes(folder, pre):
    ours, oracle = _pair(folder, pre)
    for path in CORPUS_FILES:
        text = path.read_text(encoding="utf-8")
        text = text if FULL else text[:20_000]
        assert ours.encode(text, allowed_special="all") == oracle(text), path.name


_ATOMS = list("aZ09 \t\n\r'sSdD.,!?/-_()\"#$%&*+:;<=>@\\^`|~") + [
    "\r\n", "\u00a0", "\u3000", "é", "e\u0301", "ǅ", "中文", "ひらがな", "カタカナ", "한국어", "ق", "Ω",
    "\U0001F600", "①", "٣", "１２", "，", "。", "「", "1234567", "   ", "'ll", "µ", "ﬀ", "\u2018"]


@pytest.mark.parametrize("pre", [p if p in ("llama-bpe", "qwen2", "deepseek-v3", "gpt-2") else
                                 pytest.param(p, marks=pytest.mark.slow) for p in LLAMA_CPP])
@given(text=st.lists(st.sampled_from(_ATOMS), max_size=40).map("".join))
@settings(max_examples=examples(100), deadline=None)
def test_each_pre_tokenizer_on_any_text(folder, pre, text):
    assume("<|endoftext|>" not in text)
    ours, oracle = _pair(folder, pre)
    assert ours.encode_ordinary(text) == oracle(text)


def test_only_the_metadata_is_read(folder, monkeypatch):
    path = _write(folder / "with-weights.gguf", "gpt-2", tensor_bytes=64 << 20)
    assert path.stat().st_size > 64 << 20
    reads = []
    real_open = open

    class Counting:
        def __init__(self, f):
            self._f = f

        def read(self, n=-1):
            data = self._f.read(n)
            reads.append(len(data))
            return data

        def __getattr__(self, name):
            return getattr(self._f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._f.close()

    def counting_open(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        return Counting(f) if str(file) == str(path) and "b" in mode else f

    import bpe_stream.encoding.formats as formats
    import bpe_stream.encoding.formats.gguf as gguf_format

    monkeypatch.setattr(gguf_format, "open", counting_open, raising=False)
    monkeypatch.setattr(formats, "open", counting_open, raising=False)
    enc = bpe_stream.load(path)
    assert enc.encode_ordinary("hello world") == [31373, 995]
    assert sum(reads) < 8 << 20  # the 64 MiB tensor was never read


def test_bad_files_are_refused_naming_why(folder):
    with pytest.raises(ValueError, match="tokenizer.ggml.model is 'llama'.*SentencePiece"):
        bpe_stream.load(_write(folder / "sp.gguf", "llama-bpe", model="llama"))
    with pytest.raises(ValueError, match="tokenizer.ggml.pre 'no-such-pre' is not known"):
        bpe_stream.load(_write(folder / "unknown.gguf", "no-such-pre"))
    good = (folder / "gpt-2.gguf")
    if not good.exists():
        _write(good, "gpt-2")
    data = good.read_bytes()
    cut = folder / "cut.gguf"
    cut.write_bytes(data[:50_000])
    with pytest.raises(ValueError, match="ends early"):
        bpe_stream.load(cut)
    version = folder / "v9.gguf"
    version.write_bytes(b"GGUF" + struct.pack("<I", 9) + data[8:64])
    with pytest.raises(ValueError, match="GGUF version 9"):
        bpe_stream.load(version)


def _write_strings(path, tokens: list[str], types: list[int], merges: list[str]):
    w = gguf.GGUFWriter(str(path), "gpt2")
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("gpt-2")
    w.add_token_list(tokens)
    w.add_token_merges(merges)
    w.add_token_types(types)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.close()
    return path


@pytest.mark.parametrize("case", ["good", "bad token", "bad merge", "merge without space"])
def test_strings_decoded_as_read_equal_the_reference(folder, case, monkeypatch):
    # the token and merge strings decoded in C as they are read (gguf_byte_level.c) give the
    # encoding, special tokens and errors of reading them and decoding them after (pure Python)
    singles = [rv.to_byte_level(bytes([b])) for b in range(256)]
    control, normal = int(gguf.TokenType.CONTROL), int(gguf.TokenType.NORMAL)
    # special tokens that are not byte level (a space, CJK) and one that is ("Ġ" stands for a space)
    tokens = [*singles, "ĠĠ", "<|end of text|>", "ab", "\u4e00\u4e8c", "<Ġx>"]
    types = [normal] * 257 + [control, normal, int(gguf.TokenType.USER_DEFINED), control]
    merges = ["Ġ Ġ", "a b"]
    if case == "bad token":
        tokens[258] = "a b"  # a normal token with a space
    elif case == "bad merge":
        merges.append("a \u4e00")
    elif case == "merge without space":
        merges.append("ab")
    path = _write_strings(folder / f"strings-{case.replace(' ', '-')}.gguf", tokens, types, merges)
    monkeypatch.setenv("BPE_STREAM_CACHE_DIR", "")

    def read():
        try:
            enc = bpe_stream.load(path)
        except ValueError as e:
            return str(e)
        return enc._special_tokens, enc.encode(" \u4e00ab  x"), enc.decode_bytes(range(260))

    compiled = read()
    monkeypatch.setenv("BPE_STREAM_PURE_PYTHON", "1")
    assert read() == compiled
    if case == "good":
        assert compiled[0] == {"<|end of text|>": 257, "\u4e00\u4e8c": 259, "<Ġx>": 260}
    else:
        assert "byte-level" in compiled or "not two tokens" in compiled
