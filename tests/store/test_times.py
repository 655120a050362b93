"""Times: one parser, one range (1970..9999), one stored form; odd times are invalid input."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memtui.engine.codex.timefmt import normalize_time as codex_time
from memtui.engine.codex.timefmt import unix_to_iso
from memtui.errors import InvalidInput
from memtui.service.methods import ServiceContext, dispatch
from memtui.service.protocol import INVALID_PARAMS, error_from_exception
from memtui.store.timeutil import (
    MAX_TIME,
    MIN_TIME,
    format_time,
    normalize_time,
    parse_time,
)

ODD_TIMES = [
    "0001-01-01T00:00:00+14:00",  # OverflowError in astimezone before
    "9999-12-31T23:59:59-01:00",  # past year 9999 in UTC
    "0999-06-01T00:00:00Z",
    "1969-12-31T23:59:59.999Z",
    "yesterday",
    "2026-13-01T00:00:00Z",
    "2026-02-30T00:00:00Z",
    "2026-01-01T24:00:01Z",
    "",
    "   ",
    "2026-01-01T00:00:00Z" + " " * 100,
    "2026-01-01T00:00:00Z\x00",
]


@pytest.mark.parametrize("text", ODD_TIMES)
def test_odd_times_are_invalid_input(text: str) -> None:
    with pytest.raises(InvalidInput):
        parse_time(text)
    assert codex_time(text) is None


@pytest.mark.parametrize("value", [0, 1.5, None, True, ["2026-01-01"], {"t": 1}])
def test_a_time_that_is_not_text_is_invalid_input(value: object) -> None:
    with pytest.raises(InvalidInput, match="not an ISO-8601 time"):
        parse_time(value)


@pytest.mark.parametrize(("text", "stored"), [
    ("1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000Z"),
    ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
    ("2026-12-01T10:00:00+02:00", "2026-12-01T08:00:00.000Z"),
    ("2026-12-01T10:00:00.123456789Z", "2026-12-01T10:00:00.123Z"),
    ("2026-12-01T10:00:00.8Z", "2026-12-01T10:00:00.800Z"),
    ("2026-12-01", "2026-12-01T00:00:00.000Z"),
    ("2026-12-01 10:00", "2026-12-01T10:00:00.000Z"),
])
def test_accepted_times_are_stored_in_one_form(text: str, stored: str) -> None:
    assert normalize_time(text) == stored


def test_the_range_bounds_and_text_order() -> None:
    assert format_time(MIN_TIME) == "1970-01-01T00:00:00.000Z"
    assert format_time(MAX_TIME) == "9999-12-31T23:59:59.999Z"
    early = format_time(datetime(999, 1, 1, tzinfo=UTC))  # formatting pads the year
    assert early == "0999-01-01T00:00:00.000Z" and early < "1000-01-01T00:00:00.000Z"
    assert unix_to_iso(-1) is None and unix_to_iso(0) == "1970-01-01T00:00:00.000Z"


@pytest.mark.parametrize("started", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:00:00-05:00",
                                     "1900-01-01T00:00:00Z", "soon"])
def test_cli_task_add_with_an_odd_time_exits_5(cli, started: str) -> None:
    assert cli("--user", "alice", "project", "add", "web").code == 0
    result = cli("--user", "alice", "task", "add", "--project", "web", "--goal", "g",
                 "--prompt", "p", "--result", "r", "--started", started,
                 "--finished", "2026-11-01T10:00:00Z")
    assert result.code == 5, result.err
    assert result.err.count("\n") == 1 and "start time" in result.err


def test_service_task_complete_with_an_odd_time_is_invalid_params(engine_for,
                                                                  db_path: Path) -> None:
    alice = engine_for("alice")
    alice.identity.create_project("web")
    ctx = ServiceContext(engine=alice, store_path=str(db_path))
    with pytest.raises(InvalidInput) as caught:
        dispatch(ctx, "task.complete", {"project": "web", "goal": "g", "result": "r",
                                        "started_at": "0001-01-01T00:00:00+14:00",
                                        "finished_at": "2026-11-01T10:00:00Z"})
    assert error_from_exception(caught.value)[0] == INVALID_PARAMS
    assert alice.tasks.list_tasks() == []


def test_import_header_schema_version_as_text_is_one_line_invalid(cli, tmp_path: Path) -> None:
    backup = tmp_path / "b.jsonl"
    backup.write_text(json.dumps({"format": "memtui-export", "schema_version": "3"}) + "\n")
    result = cli("--user", "alice", "import", "--jsonl", str(backup))
    assert result.code == 5 and result.err.count("\n") == 1
    assert "schema_version must be a whole number" in result.err


def test_a_datetime_given_to_the_engine_meets_the_same_range(engine_for) -> None:
    from datetime import timedelta, timezone

    alice = engine_for("alice")
    alice.identity.create_project("web")
    far_east = timezone(timedelta(hours=14))
    with pytest.raises(InvalidInput, match="start time: time '0001-01-01T00:00:00\\+14:00'"):
        alice.tasks.add_task("web", "g", "p", "r", datetime(1, 1, 1, tzinfo=far_east),
                             "2026-11-01T10:00:00Z")
    task = alice.tasks.add_task("web", "g", "p", "r", datetime(2026, 1, 1, tzinfo=far_east),
                                "2026-11-01T10:00:00Z")
    assert task.started_at == "2025-12-31T10:00:00.000Z"
