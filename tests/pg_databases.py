"""Fresh PostgreSQL databases for tests: one per test, copied from a migrated template.

``MEMTUI_TEST_PG`` is a libpq URL of a server where the tests may ``CREATE DATABASE``. The
first database a test process asks for makes a template (the schema migrated once);
each test's database is ``CREATE DATABASE ... TEMPLATE`` of it (a file copy: fast), and is
dropped after the test.
"""

from __future__ import annotations

import os
import threading
import uuid
from urllib.parse import urlsplit, urlunsplit

import pytest

PG_ENV = "MEMTUI_TEST_PG"
"""The server the PostgreSQL tests use (unset: they are skipped, except in CI)."""
_lock = threading.Lock()
_template: str | None = None


def server_url() -> str | None:
    """``$MEMTUI_TEST_PG``, or None."""
    return os.environ.get(PG_ENV) or None


def require_server() -> str:
    """The server URL; skips the test when none is set, fails it in CI (``$CI``)."""
    url = server_url()
    if url is None:
        if os.environ.get("CI"):
            pytest.fail(f"{PG_ENV} is not set: the PostgreSQL tests must run in CI")
        pytest.skip(f"{PG_ENV} is not set (no PostgreSQL server to test against)")
    return url


def with_database(url: str, name: str) -> str:
    """``url`` pointing at database ``name`` (the query, e.g. a socket folder, is kept)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def _admin(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)  # type: ignore[arg-type]


def _ensure_template(url: str) -> str:
    global _template
    with _lock:
        if _template is not None:
            return _template
        from memtui.store.postgres.store import open_postgres_store

        name = f"memtui_tpl_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        _admin(url, f'CREATE DATABASE "{name}" TEMPLATE template0 ENCODING \'UTF8\'')
        open_postgres_store(with_database(url, name)).close()
        _template = name
        return name


def new_database() -> tuple[str, str]:
    """A fresh migrated database: (its URL, its name)."""
    url = require_server()
    template = _ensure_template(url)
    name = f"memtui_t_{uuid.uuid4().hex[:16]}"
    _admin(url, f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return with_database(url, name), name


def new_empty_database() -> tuple[str, str]:
    """A fresh database with no schema at all: (its URL, its name)."""
    url = require_server()
    name = f"memtui_e_{uuid.uuid4().hex[:16]}"
    _admin(url, f'CREATE DATABASE "{name}" TEMPLATE template0 ENCODING \'UTF8\'')
    return with_database(url, name), name


def drop_database(name: str) -> None:
    """Drop a test's database (its connections are ended first)."""
    url = server_url()
    if url is not None:
        _admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def drop_template() -> None:
    """Drop this process's template (at the end of the session)."""
    global _template
    with _lock:
        if _template is not None:
            drop_database(_template)
            _template = None
