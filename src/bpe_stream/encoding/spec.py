"""What a vocabulary file says: the arguments of an :class:`~bpe_stream.Encoding`.

Readers of file formats return an :class:`EncodingSpec` and know nothing of the
:class:`~bpe_stream.Encoding` class, which :func:`bpe_stream.load` builds from it."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..pretokenize.family import PreTokenizer

__all__ = ["EncodingSpec"]


@dataclass
class EncodingSpec:
    """A vocabulary as a file gives it.

    ``mergeable_ranks`` maps token bytes to the model's ids.  Without ``merges`` (tiktoken
    files, Tekken, saved encodings) the ids are the ranks: BPE merges the adjacent pair
    whose concatenation has the lowest id.  With ``merges`` (tokenizer.json, GGUF) BPE
    merges the listed pair that comes first in ``merges``, and only listed pairs;
    ``whole_pieces`` is HF's ``ignore_merges`` (a pre-split piece that is a token is that
    token), which tiktoken always does.
    """

    name: str
    mergeable_ranks: dict[bytes, int]
    special_tokens: dict[str, int] = field(default_factory=dict)
    pretokenizer: PreTokenizer | None = None
    merges: list[tuple[bytes, bytes]] | None = None
    #: (tokens in BPE's rank order, their ids, the tokens only a whole piece becomes): a
    #: saved encoding that was read with merges which rank order follows
    ordered: tuple[list[bytes], list[int], dict[bytes, int]] | None = None
    whole_pieces: bool = True
    source: str = ""

    @property
    def pat_str(self) -> str | None:
        return None if self.pretokenizer is None else self.pretokenizer.pattern
