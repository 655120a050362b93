"""The auto-memory commands: JSON shapes, exit codes, safe human output."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from backends import plant_legacy_text
from fixtures_auto import LONG_RESULT

AS_ALICE = ("--user", "alice")
STARTED, FINISHED = "2026-12-01T07:00:00Z", "2026-12-01T07:30:00Z"

Cli = Callable[..., Any]


@pytest.fixture
def ready(cli: Cli) -> Cli:
    """alice owns web (bob member, carol reader) with generate and use on."""
    assert cli(*AS_ALICE, "project", "add", "web").code == 0
    assert cli(*AS_ALICE, "project", "member", "web", "bob", "--role", "member").code == 0
    assert cli(*AS_ALICE, "project", "member", "web", "carol", "--role", "reader").code == 0
    assert cli(*AS_ALICE, "settings", "set", "generate_memories=on", "use_memories=1").code == 0
    return cli


def _add(cli: Cli, *extra: str, user: str = "alice", goal: str = "Fix the build") -> Any:
    return cli("--user", user, "--json", "task", "add", "--project", "web", "--goal", goal,
               "--prompt", "please", "--result", LONG_RESULT, "--started", STARTED,
               "--finished", FINISHED, *extra)


def test_settings_show_and_set(cli: Cli) -> None:
    shown = cli(*AS_ALICE, "--json", "settings", "show")
    assert shown.code == 0 and shown.json["generate_memories"] == 0
    changed = cli(*AS_ALICE, "--json", "settings", "set", "idle_seconds=60", "use_memories=on")
    assert changed.json["idle_seconds"] == 60 and changed.json["use_memories"] == 1
    human = cli(*AS_ALICE, "settings", "show")
    assert "idle_seconds" in human.out and "extraction_mode" in human.out
    for bad in ("generate_memories=yes", "idle_seconds=1.5", "min_rate_limit_remaining_percent=101",
                "nope=1"):
        result = cli(*AS_ALICE, "--json", "settings", "set", "use_memories=0", bad)
        assert result.code == 5 and result.json["error"]["code"] == "invalid_input"
    assert cli(*AS_ALICE, "--json", "settings", "show").json["use_memories"] == 1


def test_task_add_show_list(ready: Cli) -> None:
    added = _add(ready, "--cost", "0.5")
    assert added.code == 0
    task = added.json
    assert {"id", "project", "user", "goal", "prompt", "status", "parent", "started_at",
            "finished_at", "cost_usd", "continuation"} <= task.keys()
    assert (task["user"], task["cost_usd"], task["finished_at"]) == (
        "alice", 0.5, "2026-12-01T07:30:00.000Z")
    plain = ready(*AS_ALICE, "task", "add", "--project", "web", "--goal", "g", "--prompt", "p",
                  "--result", "r", "--started", STARTED, "--finished", FINISHED)
    assert plain.code == 0 and plain.out.strip().startswith("task_")
    shown = ready(*AS_ALICE, "--json", "task", "show", task["id"])
    assert shown.json["id"] == task["id"]
    listed = ready("--user", "carol", "--json", "task", "list")
    assert listed.json["count"] == 2
    assert ready("--user", "dave", "--json", "task", "show", task["id"]).code == 3
    assert "Fix the build" in ready(*AS_ALICE, "task", "list").out


@pytest.mark.parametrize("extra, code", [
    (("--finished", "2026-12-01T06:00:00Z"), 5),
    (("--cost", "-3"), 5),
    (("--status", "finished"), 5),
    (("--parent", "task_9999"), 3),
])
def test_task_add_refusals(ready: Cli, extra: tuple[str, ...], code: int) -> None:
    result = _add(ready, *extra)
    assert result.code == code, result.err
    assert result.err.count("\n") == 1 and "error" in result.json


def test_task_add_exit_codes_for_access(ready: Cli) -> None:
    assert _add(ready, user="carol").code == 4
    assert _add(ready, user="dave").code == 3
    missing = ready(*AS_ALICE, "--json", "task", "add", "--project", "web", "--goal", "g",
                    "--result", "r", "--started", STARTED)
    assert missing.code == 5


def test_followup_and_flags(ready: Cli) -> None:
    a, b = _add(ready).json["id"], _add(ready, goal="other").json["id"]
    ok = ready(*AS_ALICE, "--json", "task", "followup", b, "--from", a, "--message", "hi")
    assert ok.code == 0 and ok.json["to_task"] == b
    assert ready(*AS_ALICE, "task", "followup", "task_9999", "--from", a,
                 "--message", "hi").code == 3
    flags = ready(*AS_ALICE, "--json", "task", "flags", a, "--use", "off", "--generate", "on")
    assert flags.json == {"id": a, "use_memories": 0, "generate_memories": 1}
    assert ready("--user", "carol", "task", "flags", a, "--use", "on").code == 4
    human = ready(*AS_ALICE, "task", "flags", a, "--use", "follow")
    assert "use follow, generate on" in human.out


def test_quota(ready: Cli) -> None:
    shown = ready(*AS_ALICE, "--json", "quota", "show")
    assert shown.json["limit"] == 10.0 and shown.json["default"] is True
    assert ready(*AS_ALICE, "--json", "quota", "set", "--unlimited").json["unlimited"] is True
    assert ready(*AS_ALICE, "--json", "quota", "set", "--limit", "25").json["limit"] == 25.0
    assert ready(*AS_ALICE, "quota", "set", "--limit", "-3").code == 5
    assert ready(*AS_ALICE, "quota", "set").code == 5
    assert ready(*AS_ALICE, "quota", "set", "--limit", "5", "--unlimited").code == 2
    assert "25.00 USD" in ready(*AS_ALICE, "quota", "show").out


def test_run_log_inject(ready: Cli) -> None:
    task = _add(ready).json["id"]
    short = ready(*AS_ALICE, "--json", "task", "add", "--project", "web", "--goal", "tiny",
                  "--result", "ok", "--started", STARTED, "--finished", FINISHED).json["id"]
    run = ready(*AS_ALICE, "--json", "run")
    assert run.json == {"scanned": 2, "extracted": 1, "superseded": 0,
                        "skipped": {"result_too_short": 1}, "errors": 0}
    log = ready(*AS_ALICE, "--json", "log", "--limit", "10")
    assert log.json["count"] == 2
    rows = {row["task_id"]: row for row in log.json["items"]}
    assert rows[task]["outcome"] == "extracted" and rows[task]["memory_id"]
    assert rows[short]["reason"] == "result_too_short"
    assert set(rows[task]) == {"task_id", "project", "outcome", "reason", "memory_id", "forced",
                               "at"}
    forced = ready(*AS_ALICE, "--json", "run", "--force")
    assert forced.json["extracted"] == 1
    assert "result too short" not in ready(*AS_ALICE, "log").out  # now extracted
    human_run = ready(*AS_ALICE, "run")
    assert "scanned" in human_run.out
    queued = ready(*AS_ALICE, "--json", "task", "add", "--project", "web", "--goal", "next",
                   "--prompt", "do the next thing", "--status", "queued").json["id"]
    preview = ready(*AS_ALICE, "--json", "inject", queued)
    assert preview.json["injected"] is True and preview.json["prompt"].endswith(
        "do the next thing")
    assert set(preview.json) == {"task_id", "injected", "reason", "prompt", "goal", "memory_ids"}
    applied = ready(*AS_ALICE, "--json", "inject", queued, "--apply")
    assert applied.json["memory_ids"] == preview.json["memory_ids"]
    assert ready(*AS_ALICE, "inject", "task_9999").code == 3
    assert ready("--user", "bob", "inject", queued).code == 4
    assert "injected" in ready(*AS_ALICE, "inject", queued).out


def test_human_output_is_safe_text(ready: Cli, db_path: Path) -> None:
    task = _add(ready, goal="hostile-mark").json["id"]
    plant_legacy_text(db_path, "hostile-mark", "\x1b]52;c;ZXZpbA==\x07[bold]boom[/bold]")
    for args in (("task", "show", task), ("task", "list")):
        out = ready(*AS_ALICE, *args).out
        assert "\x1b" not in out and "\x07" not in out and "[bold]" in out


def test_backfill_flag(ready: Cli) -> None:
    for i in range(3):
        _add(ready, goal=f"goal {i}")
    assert ready(*AS_ALICE, "--json", "run", "--backfill").json["extracted"] == 3
