"""PostgreSQL for the tests: the server named by ``$MEMTUI_TEST_PG`` and a fresh database per test.

``$MEMTUI_TEST_PG`` is a libpq URL of a server where the tests may ``CREATE DATABASE``
(``scripts/with-postgres`` starts a throwaway cluster and sets it; ``.ci/run`` runs the suite
that way). Without it a test that asks for PostgreSQL skips -- except under ``$CI``, where
it fails: CI runs the PostgreSQL tests every time. A URL that is set but does not answer
always fails (someone said there is a server).

Fixtures (registered in ``conftest.py``):

- ``pg_server_url`` (session): the checked server URL, as given.
- ``pg_url`` (function): the URL of a new, empty database made for this test alone (a unique
  name, so ``pytest -n`` workers never share one), dropped with ``FORCE`` after the test even
  if it left connections open.

``BACKENDS`` parametrizes a test over both kinds of store; ``store_location`` turns the
parameter into a location ``open_store`` takes (a new SQLite path, or ``pg_url``).
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

import pytest

if TYPE_CHECKING:
    import psycopg

TEST_PG_ENV = "MEMTUI_TEST_PG"
CONNECT_TIMEOUT_S = 10
"""How long a test waits for the server to answer before calling it unreachable."""
DATABASE_PREFIX = "memtui_t_"
"""Every database the tests make starts with this (left-overs of a killed run are easy to find)."""
URL_SCHEMES = ("postgresql", "postgres")
_DATABASE_NAME = re.compile(r"^[a-z0-9_]{1,63}$")

BACKENDS = [pytest.param("sqlite", id="sqlite"),
            pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres)]
"""``@pytest.mark.parametrize("backend", BACKENDS)``: a test run on each kind of store."""


def configured_url() -> str | None:
    """``$MEMTUI_TEST_PG``, or None when it is unset or empty."""
    return os.environ.get(TEST_PG_ENV) or None


def required() -> bool:
    """Whether a missing server fails the test instead of skipping it (under ``$CI``)."""
    return bool(os.environ.get("CI"))


def database_url(server_url: str, name: str) -> str:
    """``server_url`` naming database ``name`` instead of its own (host, port, user,
    password and every query parameter kept)."""
    if not _DATABASE_NAME.match(name):
        raise ValueError(f"not a plain database name: {name!r}")
    parts = urlsplit(server_url)
    if parts.scheme not in URL_SCHEMES:
        raise ValueError(f"{TEST_PG_ENV} must be a postgresql:// URL")
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def shown(url: str) -> str:
    """A URL with its password (if any) replaced by ``***``, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(":" + parts.password + "@", ":***@", 1)
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _connect(url: str) -> psycopg.Connection[tuple[object, ...]]:
    """An autocommit connection (psycopg is imported only when a test uses PostgreSQL)."""
    import psycopg

    return psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)


def check_server(url: str) -> None:
    """Fail (``pytest.fail``) unless ``url`` is a postgresql:// URL of a server that answers
    and lets this role create databases."""
    import psycopg

    try:
        database_url(url, "postgres")
    except ValueError as error:
        pytest.fail(str(error), pytrace=False)
    try:
        with _connect(url) as conn:
            row = conn.execute("SELECT rolcreatedb OR rolsuper FROM pg_roles "
                               "WHERE rolname = current_user").fetchone()
    except psycopg.Error as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        pytest.fail(f"{TEST_PG_ENV}={shown(url)}: the server does not answer ({first})",
                    pytrace=False)
    if not row or not row[0]:
        pytest.fail(f"{TEST_PG_ENV}={shown(url)}: this role may not CREATE DATABASE",
                    pytrace=False)


def server_url() -> str:
    """The checked server URL; skips (fails under ``$CI``) when none is configured."""
    url = configured_url()
    if url is None:
        message = (f"no PostgreSQL server: set {TEST_PG_ENV} to a libpq URL, or run the tests "
                   "through scripts/with-postgres")
        if required():
            pytest.fail(f"{message} (CI runs the PostgreSQL tests)", pytrace=False)
        pytest.skip(message)
    check_server(url)
    return url


def create_database(server: str) -> str:
    """Make a new, empty database with a unique name; returns its name."""
    from psycopg import sql

    name = f"{DATABASE_PREFIX}{uuid.uuid4().hex[:20]}"
    with _connect(server) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return name


def drop_database(server: str, name: str) -> None:
    """Drop a database the tests made, closing any connection still on it (PostgreSQL 13+)."""
    from psycopg import sql

    with _connect(server) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
            sql.Identifier(name)))


def database_exists(server: str, name: str) -> bool:
    """Whether the server has a database of that name."""
    with _connect(server) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                            (name,)).fetchone() is not None


@pytest.fixture(scope="session")
def pg_server_url() -> str:
    """The PostgreSQL server of ``$MEMTUI_TEST_PG`` (checked once per worker)."""
    return server_url()


def _dropped_after(server: str, name: str) -> Iterator[str]:
    """The URL of the database ``name``, dropped once the caller is done."""
    try:
        yield database_url(server, name)
    finally:
        drop_database(server, name)


@pytest.fixture
def pg_url(pg_server_url: str) -> Iterator[str]:
    """The URL of a new, empty database for this test alone; dropped after it."""
    yield from _dropped_after(pg_server_url, create_database(pg_server_url))


@pytest.fixture
def pg_store_url(pg_server_url: str) -> Iterator[str]:
    """The URL of a new database holding a new store (``migrated_database``) for this test
    alone; dropped after it."""
    yield from _dropped_after(pg_server_url, migrated_database(pg_server_url))


def store_location(backend: str, request: pytest.FixtureRequest, tmp_path: Path,
                   name: str = "memtui.db") -> str:
    """Where a test's store of kind ``backend`` (a ``BACKENDS`` value) goes: a new SQLite
    file ``tmp_path/name`` (not created), or the URL of a new PostgreSQL database like
    ``pg_url``'s (each call its own database, dropped after the test)."""
    if backend == "sqlite":
        return str(tmp_path / name)
    if backend != "postgresql":
        raise ValueError(f"unknown backend {backend!r}")
    server: str = request.getfixturevalue("pg_server_url")
    database = create_database(server)
    request.addfinalizer(lambda: drop_database(server, database))
    return database_url(server, database)


TEMPLATE_PREFIX = "memtui_tpl_"
"""A template database the tests copy (one per test process, dropped at its end)."""
_templates: dict[str, str] = {}


def migrated_database(server: str) -> str:
    """Make a new database holding a new memtui store (the schema migrated, no rows); returns
    its name. The first call of a process migrates a template once; each call copies it
    (``CREATE DATABASE ... TEMPLATE``: a file copy, faster than migrating every time)."""
    from psycopg import sql

    template = _templates.get(server)
    if template is None:
        from memtui.store.postgres.store import open_postgres_store

        template = f"{TEMPLATE_PREFIX}{uuid.uuid4().hex[:20]}"
        with _connect(server) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(template)))
        open_postgres_store(database_url(server, template)).close()
        _templates[server] = template
    name = f"{DATABASE_PREFIX}{uuid.uuid4().hex[:20]}"
    with _connect(server) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
            sql.Identifier(name), sql.Identifier(template)))
    return name


def drop_templates() -> None:
    """Drop the templates this process made (at the end of the test session)."""
    while _templates:
        server, template = _templates.popitem()
        drop_database(server, template)
