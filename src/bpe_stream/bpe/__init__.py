"""Raw byte-level BPE: a vocabulary and everything that encodes bytes with it.

The vocabulary model and its tables (:mod:`.vocabulary`, :mod:`.tables`), the token-pair
test (:mod:`.pairs`), one module per encoder (:mod:`.backtracking`, :mod:`.table`,
:mod:`.heap`, :mod:`.greedy`, :mod:`.merge_loop`), and the byte engines that the text
layers build on: counts while bytes are appended (:mod:`.appendable`) or prepended
(:mod:`.prependable`), counts of any substring (:mod:`.intervals`), exact cuts
(:mod:`.cuts`).  The ``.tiktoken`` rank format is :mod:`.ranks`.  :mod:`.native` says
whether the compiled core (``_native/_core``: the same tables and encoders in C) is
used; every module here is also its pure-Python reference.

Layer 1: imports only :mod:`bpe_stream._native` and :mod:`bpe_stream._version`.
"""

from .vocabulary import METHODS, BytePairEncoding

__all__ = ["BytePairEncoding", "METHODS"]
