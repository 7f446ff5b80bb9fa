"""The regex pre-split: patterns, Unicode classes, the splitter and its streaming rules.

:mod:`.unicode` (classes as the reference engines see them), :mod:`.patterns`
(tiktoken's patterns, compiling), :mod:`.splitter` (the split, with an ASCII fast path),
:mod:`.fast_split` (one appended character without the regex), :mod:`.stability`
(stability margin, hard boundaries), :mod:`.hard_boundaries` (every member's
hard-boundary rule, from its choices), :mod:`.long_pieces` (where a long piece can be
cut out of a re-split).

Layer 2: imports :mod:`bpe_stream.bpe` and below.
"""
