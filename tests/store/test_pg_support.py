"""The tests' PostgreSQL support: skip or fail without a server, a fresh database per test
that is gone afterwards, no password in a message."""

from __future__ import annotations

from pathlib import Path

import pg_support
import pytest
from pg_support import (
    create_database,
    database_exists,
    database_url,
    drop_database,
    server_url,
    shown,
)

UNREACHABLE = "postgresql://someone:hunter2-secret@/postgres?host=/nonexistent-memtui-socket&port=5"


def test_database_url_names_another_database_and_keeps_everything_else() -> None:
    url = "postgresql://u:p%40ss@db.example:6543/team?sslmode=require&host=/run/pg"
    assert database_url(url, "memtui_t_ab12") == (
        "postgresql://u:p%40ss@db.example:6543/memtui_t_ab12?sslmode=require&host=/run/pg")
    assert database_url("postgres://@/x?host=/s", "other") == "postgres://@/other?host=/s"


@pytest.mark.parametrize("url", ["host=/run/pg dbname=x", "mysql://x/y", "/tmp/memtui.db"])
def test_database_url_refuses_what_is_not_a_postgresql_url(url: str) -> None:
    with pytest.raises(ValueError, match="postgresql:// URL"):
        database_url(url, "memtui_t_1")


@pytest.mark.parametrize("name", ["Robert'); DROP TABLE x", "a b", "", "x" * 64])
def test_database_url_refuses_names_that_are_not_plain(name: str) -> None:
    with pytest.raises(ValueError, match="not a plain database name"):
        database_url("postgresql://@/postgres", name)


def test_shown_hides_the_password_only() -> None:
    assert shown("postgresql://alice:s3cret@db:5432/team") == "postgresql://alice:***@db:5432/team"
    assert shown("postgresql://alice@db/team") == "postgresql://alice@db/team"


def test_no_server_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(pg_support.TEST_PG_ENV, raising=False)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="MEMTUI_TEST_PG"):
        server_url()


def test_no_server_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(pg_support.TEST_PG_ENV, raising=False)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI runs the PostgreSQL tests"):
        server_url()


@pytest.mark.parametrize("ci", ["", "1"])
def test_a_server_that_does_not_answer_fails_without_printing_its_password(
        monkeypatch: pytest.MonkeyPatch, ci: str) -> None:
    monkeypatch.setenv(pg_support.TEST_PG_ENV, UNREACHABLE)
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.fail.Exception) as failure:
        server_url()
    message = str(failure.value)
    assert "does not answer" in message and "someone:***@" in message
    assert "hunter2" not in message and "\n" not in message


def test_a_setting_that_is_not_a_url_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pg_support.TEST_PG_ENV, "host=/run/postgresql dbname=postgres")
    with pytest.raises(pytest.fail.Exception, match="postgresql:// URL"):
        server_url()


@pytest.mark.postgres
def test_pg_url_is_a_new_empty_database_of_its_own(pg_url: str, pg_server_url: str) -> None:
    import psycopg

    name = pg_url.split("?")[0].rsplit("/", 1)[1]
    assert name.startswith(pg_support.DATABASE_PREFIX)
    assert pg_url != pg_server_url and database_exists(pg_server_url, name)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT current_database()").fetchone() == (name,)
        tables = conn.execute("SELECT count(*) FROM information_schema.tables "
                              "WHERE table_schema = 'public'").fetchone()
    assert tables == (0,)


@pytest.mark.postgres
def test_a_dropped_database_is_gone_even_with_a_connection_left_open(
        pg_server_url: str) -> None:
    import psycopg

    first, second = create_database(pg_server_url), create_database(pg_server_url)
    assert first != second
    left_open = psycopg.connect(database_url(pg_server_url, first))
    try:
        drop_database(pg_server_url, first)
        drop_database(pg_server_url, second)
        assert not database_exists(pg_server_url, first)
        assert not database_exists(pg_server_url, second)
    finally:
        left_open.close()


@pytest.mark.postgres
def test_store_location_gives_each_call_its_own_database(
        request: pytest.FixtureRequest, tmp_path: Path, pg_server_url: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    one = pg_support.store_location("postgresql", request, tmp_path)
    two = pg_support.store_location("postgresql", request, tmp_path)
    assert one != two
    for url in (one, two):
        assert database_exists(pg_server_url, url.split("?")[0].rsplit("/", 1)[1])
    assert pg_support.store_location("sqlite", request, tmp_path, "a.db") == str(tmp_path / "a.db")
