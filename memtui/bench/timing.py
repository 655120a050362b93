"""Timing helpers the benchmark's modules share."""

from __future__ import annotations

import compileall
import subprocess
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def timed(work: Callable[[], T]) -> tuple[float, T]:
    """(seconds ``work()`` took, what it returned)."""
    began = time.perf_counter()
    result = work()
    return time.perf_counter() - began, result


def seconds(work: Callable[[], object]) -> float:
    """The seconds ``work()`` took."""
    return timed(work)[0]


def interleaved(runs: int, sides: dict[str, Callable[[], T]]) -> dict[str, list[T]]:
    """``runs`` results of each side, the sides taking turns (so drift in machine load hits
    them alike)."""
    samples: dict[str, list[T]] = {name: [] for name in sides}
    for _ in range(runs):
        for name, side in sides.items():
            samples[name].append(side())
    return samples


def run_timed(command: list[str], stdin: bytes = b"", env: dict[str, str] | None = None,
              quiet: bool = False) -> tuple[float, bytes]:
    """(wall seconds, stdout) of one run of ``command``; it must succeed (and, ``quiet``,
    write nothing on stderr)."""
    elapsed, done = timed(lambda: subprocess.run(command, input=stdin, capture_output=True,
                                                 env=env, check=False))
    if done.returncode != 0 or (quiet and done.stderr):
        raise RuntimeError(f"{command[1:]} failed ({done.returncode}): "
                           f"{done.stderr.decode(errors='replace')[-2000:]}")
    return elapsed, done.stdout


def percentile(values: list[float], share: float) -> float:
    """The value ``share`` of the way up the sorted ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def compile_package() -> None:
    """Compile memtui to bytecode, as an installed wheel is (pip compiles on install):
    otherwise a checkout with PYTHONDONTWRITEBYTECODE set recompiles it on every start."""
    compileall.compile_dir(str(Path(__file__).resolve().parent.parent), quiet=1)


def best_prefix_times(typed: tuple[str, ...], query_for: Callable[[str], str | None],
                      run: Callable[[str], object], reps: int) -> list[float]:
    """For every prefix of every text in ``typed`` that makes a query (``query_for``), the
    best of ``reps`` timings, in seconds, of ``run(query)`` (the bare full-text query of the
    reference rows, on every backend)."""
    times: list[float] = []
    for text in typed:
        for i in range(1, len(text) + 1):
            query = query_for(text[:i])
            if query is not None:
                times.append(min(seconds(partial(run, query)) for _ in range(reps)))
    return times
