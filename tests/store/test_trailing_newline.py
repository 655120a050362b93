"""Ids and stored times are matched whole: Python's ``$`` also matches before a final line
break, so ``"alice\\n"`` passed as a user id and ``"...000Z\\n"`` as a time in the stored form
(stored as given: a second "alice" that looks the same, a time 25 characters wide that no
longer sorts as a time). Refused (ids) or rewritten (times) on every path; doctor finds them."""

from __future__ import annotations

import json

import pytest

from memtui.engine.api import Engine
from memtui.engine.validation import check_id, check_record_id
from memtui.errors import InvalidInput
from memtui.store.database import Store
from memtui.store.timeutil import normalize_time

T = "2026-01-01T00:00:00.000Z"
HEADER = json.dumps({"format": "memtui-export", "version": 1, "schema_version": 1})


@pytest.mark.parametrize("check", [check_id, check_record_id])
@pytest.mark.parametrize("value", ["alice\n", "alice\r\n", "mem_1\n"])
def test_ids_with_a_final_line_break_are_refused(check, value: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInput, match="not a valid id"):
        check(value, "id")


def test_a_time_with_a_final_line_break_is_not_in_the_stored_form() -> None:
    assert normalize_time(T + "\n") == T


def test_cli_user_with_a_line_break_is_invalid(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("--user", "alice\n", "memory", "list")
    assert result.code == 5, (result.out, result.err)


def test_import_refuses_an_id_with_a_line_break(store: Store) -> None:
    engine = Engine(store, "alice")
    row = {"id": "alice\n", "display_name": "A", "created_at": T}
    with pytest.raises(InvalidInput, match="line 2"):
        engine.maintenance.import_lines([HEADER, json.dumps({"table": "users", "row": row})])


def test_import_stores_a_time_with_a_line_break_in_the_stored_form(store: Store) -> None:
    engine = Engine(store, "alice")
    row = {"id": "alice", "display_name": "A", "created_at": T + "\n"}
    engine.maintenance.import_lines([HEADER, json.dumps({"table": "users", "row": row})])
    assert store.execute("SELECT created_at FROM users").fetchone()[0] == T


def test_doctor_finds_and_repairs_a_time_with_a_line_break(store: Store) -> None:
    engine = Engine(store, "alice")
    engine.identity.update_profile(display_name="Alice")  # creates the user
    with store.transaction():
        store.execute("UPDATE users SET created_at = ? WHERE id = 'alice'", (T + "\n",))
    problems = engine.maintenance.check()
    assert any("users row alice: created_at" in p for p in problems), problems
    assert engine.maintenance.doctor(repair=True).healthy
    assert store.execute("SELECT created_at FROM users").fetchone()[0] == T
