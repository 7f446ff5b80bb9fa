"""A tiktoken-compatible ``Encoding``, and the named (bundled) encodings.

Invariant: ``encode_ordinary(text)`` equals tiktoken's ``encode_ordinary`` for the
same ranks and pattern, token for token (the splitting, the piece cache and the
compiled paths are :class:`~bpe_stream.text.piece_encoder.PieceEncoder`'s).  This
class adds tiktoken's interface: a name, special tokens (tiktoken's rules for
``allowed_special`` / ``disallowed_special``), decoding, pickling by name for the
bundled encodings, and the exact cuts ``split_at`` / ``truncate`` /
``truncate_start`` (:mod:`bpe_stream.text.cuts`).

Text handling follows tiktoken: lone surrogates (which are not valid Unicode
scalar values and cannot be UTF-8 encoded) are replaced by U+FFFD before
encoding, after surrogate *pairs* are joined into the characters they stand for;
offsets that the cuts take and return are the caller's.

:func:`get_encoding` lives here, not in :mod:`bpe_stream.encoding.registry` (which
holds the bundled files and the model names): a bundled encoding pickles as a call
of it, so the class and the function must not import each other in a loop.
"""

from __future__ import annotations

import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Collection, Iterable
from typing import AbstractSet, Any, Literal

import regex

from ..bpe.checks import _check_limit
from ..bpe.merges import MergesBPE, merges_agree, order_by_merges
from ..bpe.ranks import parse_tiktoken
from ..bpe.vocabulary import BytePairEncoding
from ..pretokenize.family import PreTokenizer, custom, get_pretokenizer
from ..text.cuts import (
    normalized_split_at,
    normalized_split_at_start,
    text_split_at,
    text_split_at_start,
)
from ..text.input import caller_offsets, check_text
from ..text.piece_encoder import _NOT_BUILT, PieceEncoder
from .cache import bpe_from_ordered, bpe_from_ranks, load_or_build
from .huggingface import spec_from_huggingface, spec_from_pretrained
from .persist import save_encoding
from .registry import (
    _BUNDLED,
    bundled_tiktoken_bytes,
    encoding_name_for_model,
    list_encoding_names,
)
from .spec import EncodingSpec

__all__ = ["Encoding", "get_encoding", "encoding_for_model"]

_UNSET = object()


class Encoding(PieceEncoder):
    """Pre-splitting BPE with tiktoken's semantics.

    >>> import bpe_stream
    >>> enc = bpe_stream.get_encoding("cl100k_base")
    >>> enc.encode("hello world")
    [15339, 1917]
    >>> enc.decode([15339, 1917])
    'hello world'
    >>> enc.count("hello world")
    2
    >>> enc.encode("<|endoftext|>", allowed_special="all")
    [100257]
    """

    def __init__(
        self,
        name: str,
        *,
        pat_str: str | None = _UNSET,
        mergeable_ranks: dict[bytes, int] | None = None,
        special_tokens: dict[str, int] | None = None,
        explicit_n_vocab: int | None = None,
        bpe: BytePairEncoding | None = None,
        pretokenizer: PreTokenizer | str | None = _UNSET,
    ):
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        self.name = name
        pretokenizer = _pretokenizer_of(pat_str, pretokenizer)
        if bpe is None:
            if mergeable_ranks is None:
                raise TypeError("Encoding needs mergeable_ranks (or a BytePairEncoding as bpe=)")
            bpe = bpe_from_ranks(mergeable_ranks)
        self.bpe = bpe
        # the rank table as given (tiktoken's ``_mergeable_ranks``; made from bpe on first use
        # when not given: a count never needs it)
        self._given_ranks = mergeable_ranks
        # the vocabulary's ids (its ranks), and bytes by id for decoding where ids are not
        # ranks (made on first decode: see _decoder); _extra_ids: ids beside bpe's
        self._id_mapped = bpe.ids is not None or bool(bpe.unreachable)
        self._extra_ids: dict[int, bytes] = {}
        special_tokens = dict(special_tokens or {})
        if self._id_mapped:
            # the few special ids looked up among the vocabulary's (one pass in C, no dict of them)
            wanted = {t for t in special_tokens.values() if isinstance(t, int) and not isinstance(t, bool)}
            taken = wanted.intersection(range(len(bpe)) if bpe.ids is None else bpe.ids)
            taken.update(wanted.intersection(bpe.unreachable.values()))
        for text, token in special_tokens.items():
            if not isinstance(text, str) or not text:
                raise ValueError(f"special token {text!r} must be a non-empty str")
            if isinstance(token, bool) or not isinstance(token, int) or not 0 <= token < 1 << 32:
                # tiktoken's ids are 32-bit
                raise ValueError(f"special token {text!r} has invalid id {token!r} (ids are ints in 0..2**32-1)")
            if (token in taken if self._id_mapped else token < len(bpe)):
                raise ValueError(f"special token {text!r} id {token} collides with a mergeable token")
        self._special_tokens = special_tokens
        # two names may share an id (tiktoken's o200k_harmony does); the later one decodes
        self._special_decoder = {t: s.encode("utf-8") for s, t in special_tokens.items()}
        if self._id_mapped:
            top = max(max(bpe.ids, default=-1) if bpe.ids is not None else len(bpe) - 1,
                      max(bpe.unreachable.values(), default=-1))
        else:
            top = len(bpe) - 1
        self.max_token_value = max([top, *special_tokens.values()])
        if explicit_n_vocab is not None and explicit_n_vocab != self.max_token_value + 1:
            raise ValueError(
                f"explicit_n_vocab {explicit_n_vocab} != {self.max_token_value + 1} tokens"
            )
        super().__init__(bpe, pretokenizer)

    # ----------------------------------------------------------------- interop
    @classmethod
    def from_tiktoken(cls, encoding: Any) -> "Encoding":
        """Wrap the vocabulary of a ``tiktoken.Encoding`` (tiktoken itself is not needed after)."""
        try:
            ranks = encoding._mergeable_ranks
            pat_str = encoding._pat_str
            special = encoding._special_tokens
            name = encoding.name
        except AttributeError as e:
            raise TypeError(f"not a tiktoken Encoding: {encoding!r}") from e
        return cls(name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=special)

    @classmethod
    def from_huggingface(cls, tokenizer, *, name: str | None = None) -> "Encoding":
        """The encoding of a ``tokenizers.Tokenizer`` or a ``transformers`` fast tokenizer
        (see :mod:`bpe_stream.encoding.huggingface`)."""
        return cls.from_spec(spec_from_huggingface(tokenizer, name=name))

    @classmethod
    def from_pretrained(cls, repo_id_or_path, *, name: str | None = None, **hub_kwargs) -> "Encoding":
        """The encoding of a model folder or a Hub repository's ``tokenizer.json``
        (see :mod:`bpe_stream.encoding.huggingface`; the Hub needs ``bpe-stream[hub]``)."""
        return cls.from_spec(spec_from_pretrained(repo_id_or_path, name=name, **hub_kwargs))

    @classmethod
    def from_spec(cls, spec: EncodingSpec) -> "Encoding":
        """The encoding a vocabulary file describes (see :func:`bpe_stream.load`)."""
        if spec.ordered is not None:
            tokens, ids, whole = spec.ordered
            enc = cls(spec.name, pretokenizer=spec.pretokenizer, bpe=bpe_from_ordered(tokens, ids),
                      special_tokens=spec.special_tokens, mergeable_ranks=spec.mergeable_ranks)
            enc._set_merge_rules(None, whole, spec.whole_pieces, None)
            return enc
        if spec.merges is None:
            return cls(spec.name, pretokenizer=spec.pretokenizer, mergeable_ranks=spec.mergeable_ranks,
                       special_tokens=spec.special_tokens)
        # HF's rule (listed merges, in list order): rank order is merge order; where the
        # two disagree, HF's algorithm itself serves the pieces
        tokens, ids, unlisted, products = order_by_merges(spec.mergeable_ranks, spec.merges, products=True)
        bpe = bpe_from_ordered(tokens, ids)
        reason = merges_agree(bpe, spec.merges, ranks=spec.mergeable_ranks, products=products)
        enc = cls(spec.name, pretokenizer=spec.pretokenizer, bpe=bpe, special_tokens=spec.special_tokens,
                  mergeable_ranks=spec.mergeable_ranks)
        # the merges HF's loop serves (rare) kept as a list, whatever form they were read in
        enc._set_merge_rules(list(spec.merges) if reason is not None else None, unlisted, spec.whole_pieces, reason)
        return enc

    def _set_merge_rules(self, merges, unlisted: dict, whole_pieces: bool, reason: str | None) -> None:
        """HF's rules for a vocabulary read with its merges: tokens no merge makes (and
        those BPE never builds) are emitted only for a piece equal to one, and only with
        ``ignore_merges`` (``whole_pieces``); with merges that rank order cannot follow
        (``reason``), HF's merge loop encodes every piece."""
        self._merge_rules = (merges, unlisted, whole_pieces, reason)
        self._native = _NOT_BUILT  # decided again on first use (see PieceEncoder._native_split)
        self._whole = {**self.bpe.unreachable, **unlisted} if whole_pieces else {}
        if self._whole or merges is not None:
            self._scan_kind = 0  # the compiled ASCII scanner knows neither (see PieceEncoder)
        if unlisted:
            self._extra_ids = {**self._extra_ids, **{t: b for b, t in unlisted.items()}}
            self._id_mapped = True
            self.__dict__.pop("_decoder_made", None)
            self.max_token_value = max(self.max_token_value, max(unlisted.values()))
        if merges is not None:
            ranks = dict(self._mergeable_ranks)
            self._merges_engine = MergesBPE(ranks, merges)
            self._merges_reason = reason
            if whole_pieces:
                # HF's ignore_merges: a piece equal to any token is that token (under rank
                # order only the unreachable ones needed saying; HF's loop may not rebuild others)
                self._whole = ranks

    def __reduce__(self):
        if _is_registered(self):
            return (get_encoding, (self.name,))
        return (
            _rebuild,
            (self.name, self.pretokenizer, self.bpe, self._special_tokens, getattr(self, "_merge_rules", None)),
        )

    def __repr__(self) -> str:
        if self._merges_engine is not None:
            return f"<Encoding {self.name!r}, served by HF's merge loop: {self._merges_reason}>"
        return f"<Encoding {self.name!r}>"

    def save(self, path: str | os.PathLike[str]) -> None:
        """Save ranks (tiktoken format), pattern and special tokens; see :func:`bpe_stream.load`."""
        save_encoding(self, path)

    # ------------------------------------------------------------- properties
    @property
    def _mergeable_ranks(self) -> dict[bytes, int]:
        # tiktoken's attribute name; made on first use (a count never needs it)
        ranks = self.__dict__.get("_given_ranks")
        if ranks is None:
            bpe = self.bpe
            rules = self.__dict__.get("_merge_rules")
            unlisted = rules[1] if rules else {}
            if bpe.ids is None and not bpe.unreachable and not unlisted:
                return bpe.ranks
            ranks = {**dict(zip(bpe.tokens, bpe.ids if bpe.ids is not None else range(len(bpe)))),
                     **bpe.unreachable, **unlisted}
            self.__dict__["_given_ranks"] = ranks
        return ranks

    @property
    def n_vocab(self) -> int:
        return self.max_token_value + 1

    @property
    def special_tokens_set(self) -> set[str]:
        return set(self._special_tokens)

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._special_tokens)

    def vocabulary_info(self) -> dict:
        """What the vocabulary holds and what serves it.

        ``unreachable``: tokens BPE never builds from their parts; like tiktoken and HF
        (``ignore_merges``), a pre-split piece equal to one becomes that token, and only
        such a piece.  ``exceptional``: tokens ranked below one of their own parts (the
        pair test leaves them to BPE's merge loop).  ``engine``: ``"rank order"``, or HF's
        merge loop with the reason rank order cannot follow the file's merges.

        >>> info = get_encoding("cl100k_base").vocabulary_info()
        >>> info["tokens"], info["unreachable"], info["engine"]
        (100256, 0, 'rank order')
        """
        unlisted = self._merge_rules[1] if getattr(self, "_merge_rules", None) else {}
        return {
            "name": self.name,
            "tokens": len(self.bpe) + len(self.bpe.unreachable) + len(unlisted),
            "special_tokens": len(self._special_tokens),
            "n_vocab": self.n_vocab,
            "pretokenizer": None if self.pretokenizer is None else self.pretokenizer.name,
            "unreachable": len(self.bpe.unreachable) + sum(len(t) > 1 for t in unlisted),
            "exceptional": len(self.bpe.exceptional),
            "engine": "rank order" if self._merges_engine is None
            else f"HF's merge loop ({self._merges_reason})",
        }

    @property
    def eot_token(self) -> int:
        return self._special_tokens["<|endoftext|>"]

    # ---------------------------------------------------------------- encoding
    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = set(),  # noqa: B006
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[int]:
        """Encode ``text`` with tiktoken's special-token rules.

        Text matching a special token raises ``ValueError`` unless the token is in
        ``allowed_special`` (then it becomes that token) or excluded from
        ``disallowed_special`` (then it is ordinary text).
        """
        if not isinstance(text, str):
            check_text(text)  # raises the TypeError
        if allowed_special == "all":
            allowed_special = self.special_tokens_set
        else:
            # Like tiktoken, strings that are not special tokens are ignored here.
            allowed_special = set(allowed_special) & self.special_tokens_set
        if disallowed_special == "all":
            disallowed_special = self.special_tokens_set - allowed_special
        if disallowed_special:
            match = _special_token_regex(frozenset(disallowed_special)).search(text)
            if match is not None:
                raise ValueError(
                    f"Encountered text corresponding to disallowed special token {match.group()!r}.\n"
                    f"If you want this text to be encoded as a special token, pass it to "
                    f"`allowed_special`, e.g. `allowed_special={{{match.group()!r}, ...}}`.\n"
                    f"If you want this text to be encoded as normal text, disable the check for "
                    f"this token by passing `disallowed_special=(enc.special_tokens_set - "
                    f"{{{match.group()!r}}})`.\n"
                    f"To disable this check for all special tokens, pass `disallowed_special=()`.\n"
                )
        text = check_text(text)
        if not allowed_special:
            return self.encode_ordinary(text)
        out: list[int] = []
        start = 0
        for m in _special_token_regex(frozenset(allowed_special)).finditer(text):
            out.extend(self.encode_ordinary(text[start : m.start()]))
            out.append(self._special_tokens[m.group()])
            start = m.end()
        out.extend(self.encode_ordinary(text[start:]))
        return out

    # ------------------------------------------------------------ batches
    # tiktoken's names and semantics: results in input order, each equal to the call on
    # that text alone.  With the compiled core, the texts go to Core.text_batch: split
    # and encoded in C on num_threads threads without the GIL (ASCII texts of a bundled
    # pattern by the ASCII scanner, every other text by the compiled scanner of its
    # family member, after the member's normalization here).  A text C does not take
    # comes back as None and takes the Python path.  Without the compiled scanner
    # (a pattern outside the family, HF's merge loop) the non-ASCII texts run in this
    # thread while C takes the ASCII ones, or everything is spread over a thread pool.
    # Every object the threads share is read-only or a dict cache filled on a miss with
    # the value the miss computed (any thread's value is the same), so results stay exact.
    def encode_ordinary_batch(self, texts: Iterable[str], *, num_threads: int = 8) -> list[list[int]]:
        """``[encode_ordinary(t) for t in texts]``, on ``num_threads`` threads."""
        return self._batch(texts, num_threads, True, self.encode_ordinary)

    def encode_batch(
        self,
        texts: Iterable[str],
        *,
        num_threads: int = 8,
        allowed_special: Literal["all"] | AbstractSet[str] = set(),  # noqa: B006
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[list[int]]:
        """``[encode(t, allowed_special=..., disallowed_special=...) for t in texts]``,
        on ``num_threads`` threads."""
        encoder = functools.partial(
            self.encode, allowed_special=allowed_special, disallowed_special=disallowed_special
        )
        if allowed_special == "all" or set(allowed_special) & self.special_tokens_set:
            return _map_threads(encoder, texts, num_threads)
        # no special token allowed: the checks in order (the first text that fails
        # raises, as one by one), then the texts as ordinary text
        texts = _batch_list(texts, num_threads)
        if disallowed_special == "all":
            disallowed_special = self.special_tokens_set
        if disallowed_special:
            search = _special_token_regex(frozenset(disallowed_special)).search
            for text in texts:
                if not isinstance(text, str) or search(text) is not None:
                    encoder(text)  # raises the TypeError or the ValueError
        return self._batch(texts, num_threads, True, self.encode_ordinary)

    def count_batch(self, texts: Iterable[str], *, num_threads: int = 8) -> list[int]:
        """``[count(t) for t in texts]``, on ``num_threads`` threads."""
        return self._batch(texts, num_threads, False, self.count)

    def _batch(self, texts, num_threads: int, encode: bool, one) -> list:
        texts = _batch_list(texts, num_threads)
        core = self._compiled()
        native = self._native_split() if core is not None else None
        kind = self._scan_kind
        if core is None or (not kind and native is None) or len(texts) < 2 or \
                (native is None and encode and self._ids is not None):  # ASCII batches emit ranks
            return _map_threads(one, texts, num_threads)
        if native is not None:
            spec, whole, ids = native
            results = None
            if self._normalize is None:
                # C checks the texts itself, and gives a text with a surrogate back as
                # None (the Python path fixes it): no pass over the texts here
                fixed = texts
                try:
                    results = core.text_batch(fixed, kind, spec, whole, ids, num_threads, encode)
                except TypeError:
                    pass  # a text that is no str: the check below raises the clear error
            if results is None:
                fixed = list(map(self._text, texts))  # checked, surrogates fixed, normalized
                results = core.text_batch(fixed, kind, spec, whole, ids, num_threads, encode)
            for k, r in enumerate(results):
                if r is None:
                    # a text C did not take (a byte that is no token, a whole-piece
                    # token): the Python path encodes it (or raises its error)
                    results[k] = one(fixed[k])
            return results
        fixed = [check_text(t) for t in texts]
        at = [k for k, t in enumerate(fixed) if t.isascii()]
        rest = [k for k, t in enumerate(fixed) if not t.isascii()]
        results: list = [None] * len(texts)
        ascii_texts = [fixed[k] for k in at]
        if num_threads == 1 or not rest or not at:
            # one thread: everything here, in order; else only one kind of text
            ascii_results = core.ascii_batch(ascii_texts, kind, num_threads, encode)
            for k in rest:
                results[k] = one(fixed[k])
        else:
            # The ASCII texts in C on num_threads threads (started first, without the
            # GIL), the others meanwhile in this thread: their regex split holds the GIL,
            # so more Python threads would only queue for it.
            with ThreadPoolExecutor(1) as pool:
                done = pool.submit(core.ascii_batch, ascii_texts, kind, num_threads, encode)
                for k in rest:
                    results[k] = one(fixed[k])
                ascii_results = done.result()
        for k, r in zip(at, ascii_results):
            results[k] = one(fixed[k]) if r is None else r
        return results

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        if isinstance(text_or_bytes, str):
            if text_or_bytes in self._special_tokens:
                return self._special_tokens[text_or_bytes]
            text_or_bytes = text_or_bytes.encode("utf-8")
        data = bytes(text_or_bytes)
        token = self.bpe.ranks.get(data)
        if token is None:
            token = self.bpe.unreachable.get(data)
            if token is None:
                raise KeyError(text_or_bytes)
            return token
        return token if self.bpe.ids is None else self.bpe.ids[token]

    # ---------------------------------------------------------------- decoding
    @property
    def _decoder(self) -> dict[int, bytes] | None:
        """Bytes by id where ids are not the ranks (None where they are): made on first use,
        since a count never needs it (and the token list is not made from the compiled
        core until something reads it)."""
        if not self._id_mapped:
            return None
        made = self.__dict__.get("_decoder_made")
        if made is None:
            bpe = self.bpe
            ids = range(len(bpe)) if bpe.ids is None else bpe.ids
            made = {**dict(zip(ids, bpe.tokens)), **{t: b for b, t in bpe.unreachable.items()}, **self._extra_ids}
            made = self.__dict__.setdefault("_decoder_made", made)
        return made

    def decode_bytes(self, tokens: Iterable[int]) -> bytes:
        bpe_tokens = self.bpe.tokens
        n = len(bpe_tokens)
        special = self._special_decoder
        decoder = self._decoder
        out = []
        for t in tokens:
            if decoder is None and isinstance(t, int) and 0 <= t < n:
                out.append(bpe_tokens[t])
            elif decoder is not None and t in decoder and isinstance(t, int):
                out.append(decoder[t])
            elif t in special:
                out.append(special[t])
            else:
                raise ValueError(f"invalid token id {t!r} for encoding {self.name!r}")
        return b"".join(out)

    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token: int) -> bytes:
        return self.decode_bytes([token])

    def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]:
        return [self.decode_bytes([t]) for t in tokens]

    # ------------------------------------------------------------ exact cuts
    def split_at(self, text: str, max_tokens: int) -> int:
        """Largest ``i`` (a character index) such that ``count(text[:i]) <= max_tokens``.

        A str holding surrogate pairs is counted as tiktoken counts it (pairs joined);
        ``i`` is an index into ``text`` itself, never between the halves of a pair."""
        budget = _check_limit(max_tokens, "max_tokens")
        self._require_rank_order("split_at / truncate")
        fixed = check_text(text)
        cut = text_split_at if self._normalize is None else normalized_split_at
        i = cut(self, fixed, budget)
        offs = caller_offsets(text, fixed)
        return i if offs is None else offs[i]

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` with at most ``max_tokens`` tokens."""
        return text[: self.split_at(text, max_tokens)]

    def truncate_start(self, text: str, max_tokens: int) -> str:
        """The longest suffix of ``text`` with at most ``max_tokens`` tokens (a suffix of
        ``text`` itself, as for :meth:`split_at`)."""
        budget = _check_limit(max_tokens, "max_tokens")
        self._require_rank_order("truncate_start")
        fixed = check_text(text)
        cut = text_split_at_start if self._normalize is None else normalized_split_at_start
        i = cut(self, fixed, budget)
        offs = caller_offsets(text, fixed)
        return text[i if offs is None else offs[i] :]


def _batch_list(texts: Iterable[str], num_threads: int) -> list:
    """The texts of a batch as a list, after the checks of the batch arguments."""
    if isinstance(texts, str):
        raise TypeError("expected an iterable of str, got a single str")
    if isinstance(num_threads, bool) or not isinstance(num_threads, int):
        raise TypeError(f"num_threads must be an int, got {type(num_threads).__name__}")
    if num_threads < 1:
        raise ValueError(f"num_threads must be >= 1, got {num_threads}")
    return texts if type(texts) is list else list(texts)


def _map_threads(fn, texts: Iterable[str], num_threads: int) -> list:
    """``[fn(t) for t in texts]`` on up to ``num_threads`` threads.  Each thread takes one
    contiguous share of the texts (about equal in characters) and loops over it: one
    task per thread, so the pool's per-task cost (tens of microseconds under the GIL)
    does not eat the parallel part on short texts."""
    texts = _batch_list(texts, num_threads)
    threads = min(num_threads, len(texts))
    if threads <= 1:
        return [fn(t) for t in texts]
    sizes = [len(t) if isinstance(t, str) else 0 for t in texts]
    total = sum(sizes) or 1
    bounds = [0]
    acc = 0
    for k, size in enumerate(sizes):
        acc += size
        if len(bounds) < threads and acc * threads >= total * len(bounds) and k + 1 < len(texts):
            bounds.append(k + 1)
    bounds.append(len(texts))

    def share(a: int, b: int) -> list:
        return [fn(t) for t in texts[a:b]]

    with ThreadPoolExecutor(len(bounds) - 1) as pool:
        parts = list(pool.map(share, bounds[:-1], bounds[1:]))
    return [x for part in parts for x in part]


@functools.lru_cache(maxsize=128)
def _special_token_regex(tokens: frozenset[str]) -> "regex.Pattern[str]":
    # Longest first so that a special token that is a prefix of another loses.
    inner = "|".join(regex.escape(t) for t in sorted(tokens, key=lambda t: (-len(t), t)))
    return regex.compile(f"({inner})")


def _rebuild(name, pretokenizer, bpe, special_tokens, merge_rules=None) -> Encoding:
    # pickles of bpe-stream 0.1.0 hold the pattern string here: a str is read as tiktoken does
    if isinstance(pretokenizer, str) or pretokenizer is None:
        enc = Encoding(name, pat_str=pretokenizer, bpe=bpe, special_tokens=special_tokens)
    else:
        enc = Encoding(name, pretokenizer=pretokenizer, bpe=bpe, special_tokens=special_tokens)
    if merge_rules is not None:
        enc._set_merge_rules(*merge_rules)
    return enc


def _pretokenizer_of(pat_str, pretokenizer) -> PreTokenizer | None:
    """The pre-tokenizer an Encoding is given: a member (or its name) as ``pretokenizer=``,
    or a pattern string as ``pat_str=`` read as tiktoken reads it (a member when it is one
    of a member's tiktoken spellings, else compiled as given); None for no pre-splitting."""
    if pretokenizer is not _UNSET:
        if pat_str is not _UNSET:
            raise TypeError("give pat_str or pretokenizer, not both")
        if pretokenizer is None or isinstance(pretokenizer, PreTokenizer):
            return pretokenizer
        return get_pretokenizer(pretokenizer)
    if pat_str is _UNSET:
        raise TypeError("Encoding needs pat_str (a pattern string, or None for no pre-splitting) "
                        "or pretokenizer (a member of bpe_stream.pretokenize.family or its name)")
    if pat_str is None:
        return None
    if not isinstance(pat_str, str):
        raise TypeError(f"pat_str must be a str or None, got {type(pat_str).__name__}")
    return custom(pat_str, "tiktoken")


_lock = threading.Lock()
_encodings: dict[str, Encoding] = {}


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
        bpe = load_or_build(
            "sha256-" + info["sha256"], lambda: BytePairEncoding.from_rank_table(parse_tiktoken(raw)),
            tiktoken_contents=raw,
        )
        enc = Encoding(name, pretokenizer=info["pretokenizer"], bpe=bpe, special_tokens=info["special_tokens"],
                       explicit_n_vocab=info.get("explicit_n_vocab"))
        _encodings[name] = enc
        return enc


def _is_registered(enc: Encoding) -> bool:
    return _encodings.get(enc.name) is enc


def encoding_for_model(model_name: str) -> Encoding:
    return get_encoding(encoding_name_for_model(model_name))
