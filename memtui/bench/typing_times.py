"""The reference rows' measuring loop: the bare full-text query for every prefix of the texts
typed, the same on every backend (``runner.bare_fts_times`` for SQLite,
``postgres.bare_search_times`` for PostgreSQL)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_prefix_times(typed: tuple[str, ...], query_for: Callable[[str], str | None],
                      run: Callable[[str], object], reps: int) -> list[float]:
    """For every prefix of every text in ``typed`` that makes a query (``query_for``), the
    best of ``reps`` timings, in seconds, of ``run(query)``."""
    times: list[float] = []
    for text in typed:
        for i in range(1, len(text) + 1):
            query = query_for(text[:i])
            if query is None:
                continue
            runs = []
            for _ in range(reps):
                start = time.perf_counter()
                run(query)
                runs.append(time.perf_counter() - start)
            times.append(min(runs))
    return times
