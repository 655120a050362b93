"""Extraction throughput: ``backfill()`` of N eligible tasks beside a read-only loop over the
same rows; on PostgreSQL (``measure_pg_workers``) two worker processes beside one; and a model
round against the fake endpoint beside the deterministic round of the same tasks
(``measure_model_extraction``: the bar is correctness, not speed)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memtui.bench.fake_model import FakeModel
from memtui.bench.timing import timed
from memtui.engine.api import Engine
from memtui.engine.extraction import ROUND_LIMIT
from memtui.engine.model_extraction import INPUT_BUDGET_CHARS
from memtui.store.backend import StoreBackend
from memtui.store.database import Store
from memtui.store.database import open_store as open_any_store
from memtui.store.models import Task
from memtui.store.timeutil import FixedClock, format_time

BAR_TASKS_PER_S = 2000.0
WORKERS_BAR = 1.6
"""Two workers extract at least this many times the tasks/s of one."""
WORKER_SYNC_TIMEOUT_S = 120.0
"""How long the workers wait for each other to be ready (imports, connections)."""
WORKER_DB_ENV = "MEMTUI_BENCH_WORKER_DB"
"""How a worker process is told its database (a URL may hold a password: never in argv)."""
WORKER_RUN_TIMEOUT_S = 1800.0
"""How long one timed run may take before it counts as hung."""
NO_CAP = 10**9
"""The model round's token caps: high enough that they never stop the round."""
BENCH_USER = "bench"
BENCH_PROJECTS = ("shop", "pipeline", "infra")
BENCH_NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
_RESULT_LINES = (
    "Replaced the hand-rolled retry loop with tenacity, five attempts with jittered backoff.",
    "The flaky integration test now passes 500 runs in a row on the CI runners.",
    "Timeouts are logged with the request id; see docs/ops/timeouts.md for the triage steps.",
    "The migration adds an index on orders(customer_id, created_at) and runs in 40 seconds.",
    "Configuration moved to settings.FEATURES; the old environment variables are ignored now.",
    "Benchmarks: p95 latency went from 340 ms to 190 ms on yesterday's traffic replay.",
    "Left a TODO for the cache warm-up job; it needs the new queue before it can move.",
    "The deploy used the token from the vault; api_key=redactme0123456789abcdef was rotated.",
)


def _bench_tasks(n_tasks: int, now: datetime) -> list[tuple[Task, str | None]]:
    created = format_time(now - timedelta(days=1))
    rows: list[tuple[Task, str | None]] = []
    for i in range(n_tasks):
        finished = now - timedelta(hours=2, seconds=i)
        result = " ".join(_RESULT_LINES[(i + k) % len(_RESULT_LINES)] for k in range(9))
        rows.append((Task(
            id=f"task_{i:07d}", project=BENCH_PROJECTS[i % len(BENCH_PROJECTS)], user=BENCH_USER,
            goal=f"Task {i}: tidy module {i % 97} and fix issue #{i}\nwith notes",
            prompt=f"Please handle issue #{i}", status="completed", parent=None,
            started_at=format_time(finished - timedelta(minutes=12)),
            finished_at=format_time(finished), result=f"Run {i}: {result}", cost_usd=0.0,
            continuation=False, external_context=False, source="bench", created_at=created),
            None))
    return rows


def build_bench_store(path: Path | str, n_tasks: int) -> StoreBackend:
    """A new store at ``path`` (a file, or an empty PostgreSQL database's URL) with
    ``n_tasks`` eligible tasks of BENCH_USER."""
    store = open_any_store(path, clock=FixedClock(BENCH_NOW))
    engine = Engine(store, BENCH_USER)
    for project in BENCH_PROJECTS:
        engine.identity.create_project(project)
    engine.settings.update(generate_memories=1)
    with store.transaction():
        store.tasks.insert_many(_bench_tasks(n_tasks, BENCH_NOW))
    if isinstance(store, Store):
        store.checkpoint()
    return store


def read_only_pass(store: StoreBackend, user: str) -> int:
    """The reference: walk the same due tasks and read each row through the store."""
    count, after = 0, None
    with store.snapshot():
        while True:
            rows = store.tasks.sweep_candidates(user, after, ROUND_LIMIT)
            if not rows:
                return count
            after = rows[-1][0]
            for _seq, task_id in rows:
                if store.tasks.scan_row(task_id) is not None:
                    count += 1


def measure_extraction(n_tasks: int) -> dict[str, Any]:
    """Time one full extraction of ``n_tasks`` eligible tasks against the read-only loop."""
    with tempfile.TemporaryDirectory(prefix="memtui-bench-") as folder:
        store = build_bench_store(Path(folder) / "bench.db", n_tasks)
        try:
            read_s, read = timed(lambda: read_only_pass(store, BENCH_USER))
            extract_s, summary = timed(Engine(store, BENCH_USER).extraction.backfill)
        finally:
            store.close()
    written = summary.extracted + summary.superseded
    if read != n_tasks or written != n_tasks:
        raise RuntimeError(f"bench store is off: read {read}, wrote {written}, "
                           f"expected {n_tasks} ({summary.to_json()})")
    extract_rate = n_tasks / extract_s
    return {
        "tasks": n_tasks,
        "read_only_s": round(read_s, 3),
        "read_only_tasks_per_s": round(n_tasks / read_s, 1),
        "extraction_s": round(extract_s, 3),
        "extraction_tasks_per_s": round(extract_rate, 1),
        "extraction_vs_read_time": round(extract_s / read_s, 2),
        "bar_tasks_per_s": BAR_TASKS_PER_S,
        "meets_bar": extract_rate >= BAR_TASKS_PER_S,
        "summary": summary.to_json(),
    }


def _round(path: Path, n_tasks: int) -> tuple[float, Any]:
    with contextlib.closing(open_any_store(path, clock=FixedClock(BENCH_NOW))) as store:
        engine = Engine(store, BENCH_USER)
        took, summary = timed(lambda: engine.extraction.run_round(force=True, limit=n_tasks))
        return took, (summary, engine.extraction.cost(1))


def measure_model_extraction(n_tasks: int) -> dict[str, Any]:
    """The deterministic round and the model round over the same ``n_tasks`` tasks."""
    with tempfile.TemporaryDirectory(prefix="memtui-bench-model-") as folder:
        base = Path(folder) / "deterministic.db"
        build_bench_store(base, n_tasks).close()
        model_db = Path(folder) / "model.db"
        shutil.copyfile(base, model_db)
        reference_s, (reference, _ledger) = _round(base, n_tasks)
        with FakeModel().running() as fake:
            store = open_any_store(model_db, clock=FixedClock(BENCH_NOW))
            Engine(store, BENCH_USER).settings.update(
                extraction_mode="model", model_base_url=fake.url, extract_model="fake",
                model_daily_token_cap=NO_CAP, model_monthly_token_cap=NO_CAP)
            store.close()
            model_s, (summary, ledger) = _round(model_db, n_tasks)
            sent = [len(str(r.body["messages"][-1]["content"])) for r in fake.requests
                    if r.body is not None]
    today = ledger["today"]
    return {"tasks": n_tasks, "reference_s": round(reference_s, 3),
            "reference_extracted": reference.extracted, "model_s": round(model_s, 3),
            "model_extracted": summary.extracted, "requests": len(sent),
            "tokens_in": today["tokens_in"], "tokens_out": today["tokens_out"],
            "longest_text_sent": max(sent, default=0), "budget": INPUT_BUDGET_CHARS,
            "errors": summary.errors}


def worker(url: str, sync: Path, index: int) -> dict[str, Any]:
    """One worker process of ``measure_pg_workers``: open the store, say ready, wait for the
    go, extract every due task of BENCH_USER (``backfill``: batches claimed with ``FOR
    UPDATE SKIP LOCKED``, so a batch another worker holds is left to it); returns when it
    began and ended (``time.time()``) and its summary."""
    with contextlib.closing(open_any_store(url, clock=FixedClock(BENCH_NOW))) as store:
        engine = Engine(store, BENCH_USER)
        store.tasks.count_candidates(BENCH_USER)  # the pool's first connection, warm
        (sync / f"ready-{index}").touch()
        go = sync / "go"
        deadline = time.monotonic() + WORKER_SYNC_TIMEOUT_S
        while not go.exists():
            if time.monotonic() > deadline:
                raise RuntimeError("no go from the benchmark")
            time.sleep(0.001)
        began, cpu = time.time(), time.process_time()
        summary = engine.extraction.backfill()
        ended, cpu = time.time(), time.process_time() - cpu
    return {"began": began, "ended": ended, "cpu_s": cpu, "summary": summary.to_json()}


def _run_workers(url: str, count: int) -> dict[str, Any]:
    """``count`` worker processes extracting the round in database ``url`` at once."""
    with tempfile.TemporaryDirectory(prefix="memtui-bench-workers-") as folder:
        sync = Path(folder)
        env = {**os.environ, WORKER_DB_ENV: url}
        procs = [subprocess.Popen(
            [sys.executable, "-m", "memtui.bench.extraction", str(sync), str(index)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for index in range(count)]
        try:
            deadline = time.monotonic() + WORKER_SYNC_TIMEOUT_S
            while len(list(sync.glob("ready-*"))) < count:
                if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                    raise RuntimeError("a worker did not start: " + "; ".join(
                        (p.stderr.read() if p.stderr and p.poll() is not None else "")[-500:]
                        for p in procs))
                time.sleep(0.005)
            (sync / "go").touch()
            outputs = [p.communicate(timeout=WORKER_RUN_TIMEOUT_S) for p in procs]
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    results = []
    for p, (out, err) in zip(procs, outputs, strict=True):
        if p.returncode != 0:
            raise RuntimeError(f"a worker failed ({p.returncode}): {err[-2000:]}")
        results.append(json.loads(out.strip().splitlines()[-1]))
    began = min(r["began"] for r in results)
    ended = max(r["ended"] for r in results)
    return {"workers": count, "seconds": ended - began, "per_worker": results}


def _check_round(url: str, n_tasks: int) -> dict[str, int]:
    """After a round: every task extracted once (one memory and one log row each)."""
    with contextlib.closing(open_any_store(url)) as store:
        memories, tasks = store.execute(
            "SELECT count(*), count(DISTINCT source_thread_id) FROM memories").fetchone()
        logged = store.execute("SELECT count(*) FROM extraction_log WHERE outcome = ?",
                               ("extracted",)).fetchone()[0]
    counts = {"memories": int(memories), "tasks_with_memory": int(tasks), "logged": int(logged)}
    if set(counts.values()) != {n_tasks}:
        raise RuntimeError(f"the round is off (expected {n_tasks} of each): {counts}")
    return counts


def measure_pg_workers(server_url: str, n_tasks: int, runs: int) -> dict[str, Any]:
    """Tasks/s of one worker process and of two at once extracting one round of ``n_tasks``
    tasks on the PostgreSQL server ``server_url``: ``runs`` of each, interleaved, each on a
    fresh copy of one built database; medians and their ratio (two over one)."""
    from memtui.bench.postgres import database_url, drop_database, make_database

    template = make_database(server_url, "extract")
    samples: dict[int, list[float]] = {1: [], 2: []}
    details: list[dict[str, Any]] = []
    try:
        build_bench_store(database_url(server_url, template), n_tasks).close()
        for _ in range(runs):
            for count in (1, 2):
                name = make_database(server_url, "extract_run", template)
                try:
                    url = database_url(server_url, name)
                    result = _run_workers(url, count)
                    result["check"] = _check_round(url, n_tasks)
                finally:
                    drop_database(server_url, name)
                samples[count].append(n_tasks / result["seconds"])
                details.append({
                    "workers": count, "seconds": round(result["seconds"], 3),
                    "extracted": [r["summary"]["extracted"] for r in result["per_worker"]],
                    "rescanned": [r["summary"]["skipped"].get("already_extracted", 0)
                                  for r in result["per_worker"]],
                    "client_cpu_ms_per_task": round(
                        sum(r["cpu_s"] for r in result["per_worker"]) * 1000 / n_tasks, 3)})
    finally:
        drop_database(server_url, template)
    one, two = statistics.median(samples[1]), statistics.median(samples[2])
    ratio = two / one
    return {"tasks": n_tasks, "runs": runs,
            "one_worker_tasks_per_s": round(one, 1), "two_workers_tasks_per_s": round(two, 1),
            "ratio": round(ratio, 3), "bar": WORKERS_BAR, "meets_bar": ratio >= WORKERS_BAR,
            "samples": {str(k): [round(v, 1) for v in vs] for k, vs in samples.items()},
            "runs_detail": details, "cpus": os.cpu_count(),
            "load_average": list(os.getloadavg())}


if __name__ == "__main__":  # one worker process of measure_pg_workers: its result, as JSON
    print(json.dumps(worker(os.environ[WORKER_DB_ENV], Path(sys.argv[1]), int(sys.argv[2]))))
