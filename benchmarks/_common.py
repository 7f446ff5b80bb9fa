"""Small shared helpers for the benchmark scripts: corpora, timing, tables.

Conventions: sizes and speeds are in UTF-8 bytes, 1 KB = 1,000 bytes and
1 MB = 1,000,000 bytes; speeds are MB/s of input; timings keep the garbage
collector enabled (as in real use) and report the median of the repeats, with
the best (minimum) time kept alongside.

Clock: ``"cpu"`` (the calling thread's CPU time, ``time.thread_time``) by default,
because on a shared machine wall time also counts the time other processes hold
the CPU, which hits long calls harder than short ones; ``"wall"``
(``time.perf_counter``) is available.  CPU time only counts the calling thread:
fine for single-threaded code (all encoders compared here run in the caller's
thread).  Set the default with :func:`use_clock`.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

#: ``../shared/corpora`` relative to the repository root (read-only, not copied into the repo).
CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
KB = 1_000
MB = 1_000_000
CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}
_clock = "cpu"


def use_clock(name: str) -> None:
    """Make ``name`` ("cpu" or "wall") the clock :func:`measure` uses by default."""
    global _clock
    if name not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}")
    _clock = name


def clock_name() -> str:
    return _clock


def corpus(filename: str) -> str:
    """A corpus file from :data:`CORPORA` as text."""
    return (CORPORA / filename).read_text(encoding="utf-8")


def clear_piece_caches(enc) -> None:
    """Forget every piece ``enc`` has encoded, for a first call: its Python caches and the
    compiled core's piece cache, which the core keeps across calls and shares with every
    ``Encoding`` over the same tables."""
    enc._pieces.clear()
    enc._piece_counts.clear()
    core = getattr(enc.bpe, "_core", None)
    if core is not None and hasattr(core, "clear_piece_cache"):
        core.clear_piece_cache()


def head_bytes(text: str, n: int) -> str:
    """The longest prefix of ``text`` that is at most ``n`` bytes in UTF-8."""
    return text.encode("utf-8")[:n].decode("utf-8", "ignore")


@dataclass
class Timing:
    times: list[float]  # seconds per call

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def best(self) -> float:
        return min(self.times)

    def mbps(self, nbytes: int) -> float:
        """MB/s from the median time."""
        return nbytes / self.median / MB

    def best_mbps(self, nbytes: int) -> float:
        return nbytes / self.best / MB


def measure(
    fn, *, setup=None, repeat: int = 5, min_time: float = 0.0, max_calls: int = 2000, clock: str | None = None
) -> Timing:
    """Time ``fn()`` (or ``fn(setup())`` if ``setup`` is given; setup is not timed).

    Runs at least ``repeat`` calls, and more until ``min_time`` seconds of calls
    have been timed (at most ``max_calls``), so small inputs get enough samples.
    """
    times: list[float] = []
    total = 0.0
    perf = CLOCKS[clock or _clock]
    while len(times) < repeat or (total < min_time and len(times) < max_calls):
        if setup is None:
            t0 = perf()
            fn()
            dt = perf() - t0
        else:
            arg = setup()
            t0 = perf()
            fn(arg)
            dt = perf() - t0
        times.append(dt)
        total += dt
    return Timing(times)


def fmt(x: float | None, digits: int = 2) -> str:
    """A number for a table cell; ``None`` becomes an em dash."""
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    return f"{x:.{digits}f}"


def markdown_table(headers: list[str], rows: list[list]) -> str:
    """A GitHub Markdown table; cells are converted with ``str`` (floats with :func:`fmt`)."""
    cells = [[fmt(c) if isinstance(c, float) or c is None else str(c) for c in row] for row in rows]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in cells]
    return "\n".join(lines)


def ratio(a: float | None, b: float | None) -> str:
    """``a / b`` for a table cell (two decimals); an em dash when either is missing or b is 0."""
    if a is None or b is None or b == 0:
        return "—"
    return f"{a / b:.2f}"


class Report:
    """Collects Markdown; prints each part as soon as it is added."""

    def __init__(self):
        self.parts: list[str] = []

    def add(self, text: str = "") -> None:
        print(text, flush=True)
        self.parts.append(text)

    def text(self) -> str:
        return "\n".join(self.parts) + "\n"

    def head(self, title: str, command: str) -> None:
        """The report's title, the command that makes it and the state of the source."""
        for part in (f"# {title}", "", f"Command (from the repository root): `{command}`", "",
                     f"Source: {source_state()}.", ""):
            self.add(part)


def source_state() -> str:
    """The commit of the checkout and whether ``src/`` differs from it (read-only git calls)."""
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--", "src"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    modified = [line[3:] for line in status if not line.startswith("??")]
    untracked = [line[3:] for line in status if line.startswith("??")]
    state = f"commit {head}"
    state += f"; modified in src/: {', '.join(modified)}" if modified else "; tracked files in src/ unmodified"
    if untracked:
        state += f"; {len(untracked)} untracked paths in src/"
    return state


def machine_info() -> str:
    """One line describing the interpreter and machine."""
    return (
        f"Python {platform.python_version()} ({sys.implementation.name}), "
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs"
    )


def package_version(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _in_child_main(conn, target, cpu_limit, args) -> None:
    if cpu_limit is not None:
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 1))
    target(conn, *args)


def in_child(target, args, cpu_limit: int | None = None):
    """``target(conn, *args)`` in a forked process (limited to ``cpu_limit`` CPU seconds
    if given): what it sends through ``conn``, or None when it was killed (the CPU limit)
    before sending.  A fresh process per measurement: no cache or allocator state of one
    run reaches the next."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_in_child_main, args=(child, target, cpu_limit, args))
    p.start()
    child.close()
    try:
        result = parent.recv()
    except EOFError:
        result = None
    p.join()
    return result


def load_average() -> str:
    """The load averages over 1, 5 and 15 minutes, for a results file."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def results_head(title: str, description: str) -> list[str]:
    """The opening lines of a results file: the command that made it (the running script
    with its arguments), the title and the description."""
    command = " ".join(["python", "benchmarks/" + Path(sys.argv[0]).name, *sys.argv[1:]])
    return [f"Command (from the repository root): `{command}`", "", f"# {title}", "", description, ""]


def end_table(lines: list[str], out: str | None) -> None:
    """The load average at the end after the table's ``lines``, and all of it written to
    ``out`` (a Markdown file) if given."""
    lines += ["", f"Load average at end: {load_average()}.", ""]
    if out:
        Path(out).write_text("\n".join(lines), encoding="utf-8")
