"""Benchmark: ``memory.recall`` through the running service vs the same call through the
Python API, in the same run on the same store.

    python -m memtui.bench.recall --db PATH         # an existing (e.g. generated) store
    python -m memtui.bench.recall --n 1000000       # a generated store (cached)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from memtui.bench.timing import percentile, seconds, timed
from memtui.engine.api import Engine
from memtui.service.client import ServiceUnavailable, call
from memtui.service.server import MemoryService
from memtui.store.backend import StoreBackend
from memtui.store.database import open_store
from memtui.store.models import MemoryFilter, PageCursor
from memtui.store.postgres.adapter import is_postgres_url
from memtui.store.timeutil import format_time, parse_time

DEFAULT_RUNS = 5
"""Passes over the query set (each pass times every query both ways)."""
QUERY_COUNT = 50
"""Distinct queries per pass."""
RECALL_LIMIT = 8
"""``limit`` of every recall call (the source document's example uses 8)."""
BAR_MS = 5.0
"""Median recall through the service under this many milliseconds."""
DEFAULT_SEED = 11
DEFAULT_USER = "alice"
SAMPLE_TRIES = 1000
"""Random positions looked at to find the query set."""
START_TIMEOUT_S = 60.0
"""How long the benchmark waits for ``memtui serve`` to start (or to stop)."""


def make_queries(store: StoreBackend, user: str, count: int = QUERY_COUNT,
                 seed: int = DEFAULT_SEED) -> list[str]:
    """``count`` queries of 1-4 consecutive words from active memories ``user`` can see,
    picked at random times of each visible list (lists weighted by their size)."""
    engine = Engine(store, user)
    rng = random.Random(seed)
    lists = [MemoryFilter(scope="user", owner=user)] + [
        MemoryFilter(scope="project", project=p) for p in engine.recall.readable_projects()]
    spans: list[tuple[MemoryFilter, datetime, datetime, int]] = []
    for flt in lists:
        newest = store.memories.page(flt, 1)
        oldest = store.memories.list_at(flt, 0, 1, from_end=True)
        if newest and oldest:
            spans.append((flt, parse_time(oldest[0].created_at),
                          parse_time(newest[0].created_at), store.memories.count(flt)))
    queries: list[str] = []
    for _ in range(SAMPLE_TRIES):
        if len(queries) >= count or not spans:
            break
        flt, first, last, _size = rng.choices(spans, weights=[s[3] for s in spans])[0]
        moment = first + (last - first) * rng.random()
        found = store.memories.page(flt, 1, after=PageCursor(format_time(moment), "~"))
        if not found:
            continue
        words = found[0].content.split()
        size = rng.randint(1, 4)
        start = rng.randint(0, max(0, len(words) - size))
        queries.append(" ".join(words[start:start + size]))
    return queries or ["memory"]


@contextlib.contextmanager
def _running_service(path: str | os.PathLike[str], store: StoreBackend, user: str, sock: Path,
                     in_process: bool) -> Iterator[None]:
    """The service on ``sock``: a ``memtui serve`` process (default), or a thread here."""
    if in_process:
        with MemoryService(None, user, sock, store=store).running():
            yield
        return
    # the store through the environment: a database URL may hold a password, and a command
    # line is visible to every user of the machine
    command = [sys.executable, "-m", "memtui", "--user", user, "serve", "--socket", str(sock)]
    env = {**os.environ, "MEMTUI_DB": str(path)}
    log_path = sock.with_name("serve.log")
    with log_path.open("w") as log:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, env=env)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                call("health", {}, sock, timeout=5)
                break
            except ServiceUnavailable:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("memtui serve did not start: "
                                       f"{log_path.read_text().strip()}") from None
                time.sleep(0.05)
        yield
    finally:
        process.terminate()
        try:
            process.wait(START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def measure_recall(db: str | os.PathLike[str] | None = None, n: int | None = None, *,
                   runs: int = DEFAULT_RUNS, user: str = DEFAULT_USER,
                   limit: int = RECALL_LIMIT, seed: int = DEFAULT_SEED,
                   in_process: bool = False, bar_ms: float = BAR_MS) -> dict[str, Any]:
    """Median and p95 (ms) of recall through the service and through the Python API, on ``db``
    (a file or a PostgreSQL URL) or a generated store of ``n`` memories; the service is a
    ``memtui serve`` process (``in_process``: a thread) and its median must stay under
    ``bar_ms``."""
    if db is None:
        from memtui.bench.generate import DEFAULT_SIZE, cached_store

        db = cached_store(n or DEFAULT_SIZE)[0]
    with tempfile.TemporaryDirectory(prefix="mtb-", ignore_cleanup_errors=True) as folder, \
            contextlib.closing(open_store(db)) as store:
        sock = Path(folder) / "memtui.sock"
        memories = int(store.execute("SELECT count(*) FROM memories").fetchone()[0])
        queries = make_queries(store, user, seed=seed)
        engine = Engine(store, user)
        service_ms: list[float] = []
        api_ms: list[float] = []
        with _running_service(db, store, user, sock, in_process):
            for query in queries:  # warm both paths (page cache, statements)
                engine.recall.recall(query, limit)
                call("memory.recall", {"query": query, "limit": limit}, sock)
            for _ in range(runs):
                for query in queries:
                    params = {"query": query, "limit": limit}
                    api_ms.append(1000 * seconds(partial(engine.recall.recall, query, limit)))
                    took, response = timed(partial(call, "memory.recall", params, sock))
                    service_ms.append(1000 * took)
                    if not response.get("ok"):
                        raise RuntimeError(f"recall failed: {response.get('error')}")
        service_median = statistics.median(service_ms)
        api_median = statistics.median(api_ms)
        return {
            "store": store.location, "memories": memories, "user": user, "limit": limit,
            "service": "thread" if in_process else "process",
            "queries": len(queries), "runs": runs, "samples": len(service_ms),
            "service_median_ms": round(service_median, 3),
            "service_p95_ms": round(percentile(service_ms, 0.95), 3),
            "api_median_ms": round(api_median, 3),
            "api_p95_ms": round(percentile(api_ms, 0.95), 3),
            "ratio_service_to_api": round(service_median / api_median, 2) if api_median else None,
            "bar_ms": bar_ms, "meets_bar": service_median < bar_ms,
        }


def main(argv: list[str] | None = None) -> int:
    """``python -m memtui.bench.recall``: prints the numbers; exit 1 when the bar is missed."""
    parser = argparse.ArgumentParser(prog="python -m memtui.bench.recall",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", metavar="PATH",
                        help="an existing store to measure (a file or a postgresql:// URL)")
    parser.add_argument("--n", type=int, default=None,
                        help="memories of the generated store (without --db; default 1000000)")
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS)
    parser.add_argument("--user", default=DEFAULT_USER)
    parser.add_argument("--limit", type=int, default=RECALL_LIMIT)
    parser.add_argument("--in-process", action="store_true",
                        help="run the service in a thread of the benchmark (default: a "
                             "memtui serve process)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.db and not is_postgres_url(args.db) and not Path(args.db).is_file():
        parser.error(f"--db {args.db}: no such store")
    result = measure_recall(args.db, args.n, runs=args.runs, user=args.user, limit=args.limit,
                            in_process=args.in_process)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"store {result['store']}: {result['memories']:,} memories, user {result['user']}, "
              f"{result['queries']} queries x {result['runs']} runs, limit {result['limit']}")
        print(f"  service ({result['service']}, socket round trip): median {result['service_median_ms']:.3f} ms, "
              f"p95 {result['service_p95_ms']:.3f} ms")
        print(f"  python API (same calls):     median {result['api_median_ms']:.3f} ms, "
              f"p95 {result['api_p95_ms']:.3f} ms")
        print(f"  service / API median: {result['ratio_service_to_api']}x; bar: median under "
              f"{result['bar_ms']:g} ms through the service -> {'PASS' if result['meets_bar'] else 'FAIL'}")
    return 0 if result["meets_bar"] else 1


if __name__ == "__main__":
    sys.exit(main())
