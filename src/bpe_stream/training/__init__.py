"""Training a byte-level BPE vocabulary.

Layer 7: imports :mod:`bpe_stream.encoding` and below.
"""
