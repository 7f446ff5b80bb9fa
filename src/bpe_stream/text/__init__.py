"""BPE over pre-split text, and the engines that grow, index and cut such text.

:mod:`.input` (what text the encoders see), :mod:`.piece_encoder` (split, then BPE each
piece, cached), :mod:`.appendable` (exact counts while text is appended),
:mod:`.intervals` (counts of any substring), :mod:`.cuts` (longest prefix or suffix
within a budget), :mod:`.records` (records keyed by distance from the end, shared
with the front engine).

Layer 3: imports :mod:`bpe_stream.pretokenize` and below.
"""
