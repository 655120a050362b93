"""The benchmark's PostgreSQL databases on the ``--pg`` server: each generated store is one
database named by its size, seed, schema and generator versions, loaded into a scratch
database and renamed when complete; the timed rows run on a working copy
(``CREATE DATABASE ... TEMPLATE``), dropped at the end."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

from memtui.bench.generate import GENERATOR_VERSION, generate_pg_store
from memtui.bench.timing import best_prefix_times
from memtui.store.postgres.adapter import redact_url
from memtui.store.postgres.schema import PG_LATEST_VERSION
from memtui.store.search_terms import pg_tsquery

BENCH_PG_ENV = "MEMTUI_BENCH_PG"
"""The server the PostgreSQL rows use when ``--pg`` is not given."""
DATABASE_PREFIX = "memtui_bench_"
CONNECT_TIMEOUT_S = 10
FILE_COPY_VERSION = 150_000
"""From PostgreSQL 15 on, ``CREATE DATABASE ... STRATEGY FILE_COPY`` copies the files at
once instead of writing every block through the write-ahead log (much faster for a big
template)."""


class BenchServerError(RuntimeError):
    """The benchmark's PostgreSQL server cannot be used (message without the password)."""


def database_url(server_url: str, name: str) -> str:
    """``server_url`` naming database ``name`` (host, user, password, parameters kept)."""
    parts = urlsplit(server_url.strip())
    if parts.scheme not in ("postgresql", "postgres"):
        raise BenchServerError(f"{redact_url(server_url)}: not a postgresql:// URL")
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def admin(server_url: str) -> psycopg.Connection[Any]:
    """An autocommit connection to the server's own database of ``server_url``."""
    database_url(server_url, "postgres")  # refuses anything but a postgresql:// URL
    try:
        return psycopg.connect(server_url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.Error as error:
        first = " ".join(str(error).split()) or type(error).__name__
        raise BenchServerError(f"{redact_url(server_url)}: cannot connect ({first[:200]})") \
            from None


def cached_database_name(n: int, seed: int) -> str:
    """The database that holds the generated store of ``(n, seed)`` for this schema and
    generator version."""
    return f"{DATABASE_PREFIX}n{n}_s{seed}_v{PG_LATEST_VERSION}_g{GENERATOR_VERSION}"


def _drop(conn: psycopg.Connection[Any], name: str) -> None:
    conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def cached_pg_store(server_url: str, n: int, seed: int,
                    progress: Callable[[int, int], None] | None = None) -> tuple[str, bool]:
    """The URL of the database holding the generated store of ``(n, seed)``, generating it
    first when the server has none: (url, was_cached). Another benchmark generating the
    same store at the same time is waited for (a session advisory lock on its name)."""
    name = cached_database_name(n, seed)
    url = database_url(server_url, name)
    with admin(server_url) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtext(%s))", (name,))
        try:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                            (name,)).fetchone() is not None:
                return url, True
            scratch = f"{name}_load"
            _drop(conn, scratch)
            conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8'")
                         .format(sql.Identifier(scratch)))
            try:
                generate_pg_store(database_url(server_url, scratch), n, seed,
                                  progress=progress)
                conn.execute(sql.SQL("ALTER DATABASE {} RENAME TO {}").format(
                    sql.Identifier(scratch), sql.Identifier(name)))
            except BaseException:
                with contextlib.suppress(psycopg.Error):
                    _drop(conn, scratch)
                raise
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (name,))
    return url, False


def make_database(server_url: str, prefix: str, template: str | None = None) -> str:
    """A new database, empty (no schema yet) or copied from ``template`` (which nobody may
    be connected to); returns its name."""
    name = f"{DATABASE_PREFIX}{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    with admin(server_url) as conn:
        if template is None:
            create = sql.SQL("CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8'").format(
                sql.Identifier(name))
        else:
            create = sql.SQL("CREATE DATABASE {} TEMPLATE {}" + (
                " STRATEGY FILE_COPY" if conn.info.server_version >= FILE_COPY_VERSION else "")
            ).format(sql.Identifier(name), sql.Identifier(template))
        conn.execute(create)
    return name


def drop_database(server_url: str, name: str) -> None:
    """Drop a database the benchmark made (its connections are ended first)."""
    with admin(server_url) as conn:
        _drop(conn, name)


@contextlib.contextmanager
def working_copy(server_url: str, template: str) -> Iterator[str]:
    """The URL of a copy of database ``template``, dropped after the block."""
    name = make_database(server_url, "work", template)
    try:
        yield database_url(server_url, name)
    finally:
        drop_database(server_url, name)


def bare_search_times(url: str, typed: tuple[str, ...], page_rows: int,
                      reps: int = 5) -> list[float]:
    """The reference of the search row on PostgreSQL: the bare full-text query in psycopg
    for every prefix typed (a page of row numbers from the GIN index, the ``tsquery`` the
    store builds), best of ``reps`` seconds per prefix."""
    with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
        return best_prefix_times(typed, pg_tsquery, lambda query: conn.execute(
            "SELECT seq FROM memories WHERE fts @@ to_tsquery('simple', %s) LIMIT %s",
            (query, page_rows)).fetchall(), reps)


def server_summary(server_url: str) -> dict[str, Any]:
    """What the rows ran on: the server's version and a few settings that matter."""
    with admin(server_url) as conn:
        settings = dict(conn.execute(
            "SELECT name, setting FROM pg_settings WHERE name IN ('shared_buffers', "
            "'work_mem', 'fsync', 'synchronous_commit', 'max_connections')").fetchall())
        return {"server": redact_url(server_url), "version": conn.info.server_version,
                "settings": settings}
