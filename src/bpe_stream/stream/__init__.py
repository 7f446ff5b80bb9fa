"""The public streaming counters: appendable, prependable, interval.

:mod:`.appendable`, :mod:`.prependable` and :mod:`.interval` hold the public classes;
:mod:`.counter` their shared shell.  The prepend engine for text lives in
:mod:`.front` and is imported by :mod:`.prependable` only.

Layer 5: imports :mod:`bpe_stream.encoding` and below.
"""
