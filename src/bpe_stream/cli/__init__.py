"""The command line: ``bpe-stream count | chunk | train``.

Layer 8 (the top): imports any layer.
"""
