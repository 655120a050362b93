"""JSON values a person or a file gives (preferences, audit and consolidation details) are
plain JSON: no NaN or Infinity (strict JSON readers and the service's encoder refuse them),
no lone surrogates (SQLite cannot store them). Refused with exit 5 / ``InvalidInput``, never a
traceback; ``doctor`` flags such a value already in a store."""

from __future__ import annotations

import json

import pytest

from memtui.engine.api import Engine
from memtui.engine.validation import check_preferences, clean_detail
from memtui.errors import InvalidInput
from memtui.store.database import Store

HEADER = json.dumps({"format": "memtui-export", "version": 1, "schema_version": 1})
USER = json.dumps({"table": "users", "row": {"id": "alice", "display_name": "A",
                                              "created_at": "2026-01-01T00:00:00.000Z"}})


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_preferences_refuse_non_finite_numbers(value: float) -> None:
    with pytest.raises(InvalidInput, match="plain JSON"):
        check_preferences({"a": value})


@pytest.mark.parametrize("prefs", [{"a": "\ud800"}, {"\udfff": 1}, {"a": ["x\ud800"]}])
def test_preferences_refuse_lone_surrogates(prefs: dict) -> None:
    with pytest.raises(InvalidInput, match="UTF-8"):
        check_preferences(prefs)


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_detail_refuses_non_finite_numbers(value: float) -> None:
    with pytest.raises(InvalidInput, match="plain JSON"):
        clean_detail({"a": [1, {"b": value}]})


def test_profile_update_refuses_bad_values_without_traceback(store: Store) -> None:
    engine = Engine(store, "alice")
    for prefs in ({"a": float("nan")}, {"a": "\ud800"}):
        with pytest.raises(InvalidInput):
            engine.identity.update_profile(preferences=prefs)
    assert engine.identity.profile().preferences == {}


def test_cli_profile_set_nan_is_invalid(cli) -> None:
    result = cli("--user", "alice", "profile", "set", "--pref", "a=NaN")
    assert result.code == 5, (result.out, result.err)
    assert "Traceback" not in result.err


@pytest.mark.parametrize("table, row", [
    ("audit", {"seq": 1, "at": "2026-01-01T00:00:00.000Z", "actor": "alice", "action": "x",
               "detail": '{"a": NaN}'}),
    ("audit", {"seq": 1, "at": "2026-01-01T00:00:00.000Z", "actor": "alice", "action": "x",
               "detail": '{"a": 1e999}'}),
    ("profiles", {"user_id": "alice", "display_name": "A", "timezone": "UTC",
                  "preferences": '{"a": Infinity}'}),
])
def test_import_refuses_non_finite_json(store: Store, table: str, row: dict) -> None:
    engine = Engine(store, "alice")
    lines = [HEADER, USER, json.dumps({"table": table, "row": row})]
    with pytest.raises(InvalidInput, match="line 3"):
        engine.maintenance.import_lines(lines)
    assert store.is_empty()


def test_doctor_flags_non_finite_json_in_a_store(store: Store) -> None:
    engine = Engine(store, "alice")
    engine.identity.profile()  # creates the user
    with store.transaction():
        store.execute("INSERT INTO audit(at, actor, action, target, detail) "
                      "VALUES ('2026-01-01T00:00:00.000Z', 'alice', 'x', NULL, '{\"a\": NaN}')")
    problems = engine.maintenance.check()
    assert any(p.startswith("audit row") and "plain JSON" in p for p in problems), problems
