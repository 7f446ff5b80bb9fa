"""Chunking to an exact token budget: the chunker, its window counts, boundary levels.

Layer 6: imports :mod:`bpe_stream.stream` and below.
"""
