"""The benchmark's PostgreSQL side: the generator's rows loaded with COPY are exactly the
SQLite store's rows; loaded stores are cached on the server by size and seed (an interrupted
load is never taken for one); the PostgreSQL rows are skipped with one line when no server
is given; two extraction workers on PostgreSQL share a round (no timing asserted here --
the benchmark measures -- only that the measurement's own checks hold)."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pg_support
import psycopg
import pytest

from memtui.bench.generate import generate_pg_store, generate_store
from memtui.bench.runner import Options, measure_postgres
from memtui.store.database import open_store
from memtui.store.postgres.bench_data import copy_rows

SIZE = 600
COMPARED = {  # table: (columns, order)
    "memories": ("id, scope, owner, project, kind, content, status, superseded_by, source, "
                 "source_thread_id, created_at, updated_at, usage_count, last_used_at, "
                 "goal_key", "id"),
    "tasks": ("id, project_id, user_id, goal, prompt, status, parent_id, started_at, "
              "finished_at, result, cost_usd, continuation, external_context, source, "
              "source_ref, created_at", "id"),
    "extraction_log": ("task_id, user_id, project_id, outcome, reason, memory_id, forced, at",
                       "task_id"),
    "users": ("id, display_name, created_at", "id"),
    "projects": ("id, name, root_path, summary, created_by, created_at", "id"),
    "project_members": ("project_id, user_id, role", "project_id, user_id"),
}


def _rows(target: str, table: str) -> list[tuple[Any, ...]]:
    columns, order = COMPARED[table]
    store = open_store(target)
    try:
        return [tuple(row) for row in
                store.execute(f"SELECT {columns} FROM {table} ORDER BY {order}").fetchall()]
    finally:
        store.close()


@pytest.mark.postgres
def test_copy_round_trips_awkward_text(pg_url: str) -> None:
    awkward = ["tab\there", "line\nbreak", "back\\slash", "\\N", "", "crlf\r\n", "ünïcødé ✓"]
    store = open_store(pg_url)
    try:
        conn = store.connect()
        conn.execute("CREATE TABLE awkward (n integer, t text, x double precision)")
        with conn.transaction():
            sent = copy_rows(conn, "awkward", [(i, text, i / 4) for i, text in enumerate(awkward)]
                             + [(99, None, None)], columns="n, t, x")
        assert sent == len(awkward) + 1
        back = conn.execute("SELECT n, t, x FROM awkward ORDER BY n").fetchall()
        assert back == [(i, text, i / 4) for i, text in enumerate(awkward)] + [(99, None, None)]
        with pytest.raises(psycopg.DataError), conn.transaction():
            copy_rows(conn, "awkward", [(1, "nul\x00", None)], columns="n, t, x")
    finally:
        store.close()


@pytest.mark.postgres
def test_the_loaded_store_holds_exactly_the_sqlite_stores_rows(pg_url: str,
                                                               tmp_path: Path) -> None:
    seed = 3
    sqlite = generate_store(tmp_path / "gen.db", SIZE, seed)
    loaded = generate_pg_store(pg_url, SIZE, seed)
    assert loaded.counts == sqlite.counts and loaded.counts["memories"] == SIZE
    assert str(loaded.path).startswith("postgresql://")
    for table in COMPARED:
        assert _rows(pg_url, table) == _rows(str(tmp_path / "gen.db"), table), table
    store = open_store(pg_url)
    try:  # the indexes dropped for the load are back, and the table was analysed
        names = {row[0] for row in store.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'memories'").fetchall()}
        assert {"memories_fts", "memories_user_list", "memories_thread"} <= names
        analysed = store.execute("SELECT last_analyze FROM pg_stat_user_tables "
                                 "WHERE relname = 'memories'").fetchone()[0]
        assert analysed is not None
        hits = store.execute("SELECT count(*) FROM memories WHERE fts @@ "
                             "to_tsquery('simple', 'the')").fetchone()[0]
        assert hits > 0
    finally:
        store.close()
    with pytest.raises(ValueError, match="already holds a store"):
        generate_pg_store(pg_url, SIZE, seed)


@pytest.fixture
def bench_seed(pg_server_url: str) -> Iterator[int]:
    """A seed no other run uses: the cached database it names is dropped afterwards."""
    from memtui.bench.postgres import cached_database_name

    seed = random.randrange(10**6, 10**9)
    yield seed
    for size in (SIZE, 1000):
        pg_support.drop_database(pg_server_url, cached_database_name(size, seed))
        pg_support.drop_database(pg_server_url, cached_database_name(size, seed) + "_load")


@pytest.mark.postgres
def test_a_loaded_store_is_cached_by_size_and_seed(pg_server_url: str, bench_seed: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import memtui.bench.postgres as bench_pg

    def interrupted(url: str, n: int, seed: int, **_: Any) -> None:
        generate_pg_store(url, 50, seed)
        raise KeyboardInterrupt

    monkeypatch.setattr(bench_pg, "generate_pg_store", interrupted)
    with pytest.raises(KeyboardInterrupt):
        bench_pg.cached_pg_store(pg_server_url, SIZE, bench_seed)
    name = bench_pg.cached_database_name(SIZE, bench_seed)
    assert not pg_support.database_exists(pg_server_url, name)  # never taken for a store
    assert not pg_support.database_exists(pg_server_url, name + "_load")
    monkeypatch.undo()

    url, cached = bench_pg.cached_pg_store(pg_server_url, SIZE, bench_seed)
    assert not cached and url == pg_support.database_url(pg_server_url, name)
    store = open_store(url)
    try:
        store.execute("INSERT INTO users(id, display_name, created_at) VALUES (?, ?, ?)",
                      ("marker", "Marker", store.now()))
    finally:
        store.close()
    again, cached = bench_pg.cached_pg_store(pg_server_url, SIZE, bench_seed)
    assert cached and again == url
    assert ("marker", "Marker") in [row[:2] for row in _rows(url, "users")]  # not rebuilt
    with bench_pg.working_copy(pg_server_url, name) as copy:
        assert _rows(copy, "memories") == _rows(url, "memories")
        copy_name = copy.split("?")[0].rsplit("/", 1)[-1]
        assert pg_support.database_exists(pg_server_url, copy_name)
    assert not pg_support.database_exists(pg_server_url, copy_name)


def test_without_a_server_the_postgres_rows_are_one_skipped_line() -> None:
    rows = measure_postgres(Options(size=SIZE), {"search", "pages"})
    assert len(rows) == 1 and rows[0].ok is None and rows[0].verdict == "n/a"
    assert "--pg URL" in rows[0].measured and "MEMTUI_BENCH_PG" in rows[0].measured
    assert measure_postgres(Options(size=SIZE), {"start", "codex"}) == []


def test_an_unusable_server_fails_the_postgres_rows_without_the_password(
        tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    secret = "n0t-Sh0wn"
    rows = measure_postgres(Options(size=SIZE, pg=f"postgresql://bench:{secret}@/x?host="
                                                  f"{tmp_path}&port=1&connect_timeout=5"),
                            {"pages"})
    assert len(rows) == 1 and rows[0].ok is False and rows[0].verdict == "FAIL"
    assert "cannot connect" in rows[0].measured and secret not in rows[0].measured


@pytest.mark.postgres
@pytest.mark.slow
def test_two_workers_share_a_round_on_postgres(pg_server_url: str) -> None:
    from memtui.bench.extraction import measure_pg_workers

    result = measure_pg_workers(pg_server_url, 300, runs=1)
    assert result["samples"]["1"] and result["samples"]["2"]
    two = next(run for run in result["runs_detail"] if run["workers"] == 2)
    assert sum(two["extracted"]) == 300 and len(two["extracted"]) == 2
    assert result["ratio"] > 0 and result["meets_bar"] == (result["ratio"] >= result["bar"])
    with pg_support._connect(pg_server_url) as conn:  # its databases are gone
        left = conn.execute("SELECT count(*) FROM pg_database WHERE datname LIKE %s",
                            (f"memtui_bench_extract%_{os.getpid()}_%",)).fetchone()
    assert left == (0,)
