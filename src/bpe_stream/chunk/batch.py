"""Chunking many texts at once: :meth:`Chunker.chunk_batch`.

The chunker is Python code that holds the GIL, so on a standard interpreter a batch is
spread over worker *processes* (each receives the chunker once, then texts); on a
free-threaded build (``sys._is_gil_enabled()`` false) threads run it in parallel and
share the chunker, which is safe to share for reading.  Either way each text's chunks
are exactly ``chunker.chunks(text)`` and come back in input order; ``progress(done,
total)`` is called in the calling thread after each text finishes.

Processes start with the ``forkserver`` method where there is one (else ``spawn``): a
forked copy of a process that runs threads can deadlock.  Starting them costs a fraction
of a second, so a batch is worth it for many texts or long ones; ``workers=1`` runs in
the calling thread.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from typing import Any

__all__ = ["chunk_batch", "gil_enabled"]

# the chunker of this worker process (set once by the pool's initializer)
_worker_chunker: Any = None


def gil_enabled() -> bool:
    """Whether this interpreter runs one thread of Python at a time."""
    is_enabled = getattr(sys, "_is_gil_enabled", None)
    return True if is_enabled is None else bool(is_enabled())


def _init_worker(chunker) -> None:
    global _worker_chunker
    _worker_chunker = chunker


def _chunks_in_worker(text):
    return _worker_chunker.chunks(text)


def _executor(chunker, workers: int) -> Executor:
    if not gil_enabled():
        return ThreadPoolExecutor(workers)
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    return ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker, initargs=(chunker,))


def chunk_batch(chunker, texts: Iterable, *, workers: int | None = None,
                progress: Callable[[int, int], Any] | None = None) -> list:
    """``[chunker.chunks(t) for t in texts]``, spread over ``workers`` (default: the
    machine's CPU count)."""
    if isinstance(texts, (str, bytes, bytearray)):
        raise TypeError("chunk_batch takes an iterable of texts, not a single text")
    texts = list(texts)
    for i, text in enumerate(texts):
        try:
            chunker._check_input(text)  # refused here, naming its index, before any work
        except TypeError as e:
            raise TypeError(f"text {i}: {e}") from None
    if workers is None:
        workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int):
        raise TypeError(f"workers must be an int, got {type(workers).__name__}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if progress is not None and not callable(progress):
        raise TypeError("progress must be callable as progress(done, total)")
    total = len(texts)
    results: list = [None] * total
    workers = min(workers, total)
    if workers <= 1:
        for i, text in enumerate(texts):
            results[i] = chunker.chunks(text)
            if progress is not None:
                progress(i + 1, total)
        return results
    with _executor(chunker, workers) as pool:
        if isinstance(pool, ThreadPoolExecutor):
            futures = {pool.submit(chunker.chunks, text): i for i, text in enumerate(texts)}
        else:
            futures = {pool.submit(_chunks_in_worker, text): i for i, text in enumerate(texts)}
        for done, future in enumerate(as_completed(futures), 1):
            results[futures[future]] = future.result()
            if progress is not None:
                progress(done, total)
    return results
