"""First-turn injection: when, what text, untouched store, apply, fail open, preview."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable

import pytest
from fixtures_auto import Team, make_team

from memtui.engine.api import Engine
from memtui.engine.identity import INJECTION_HEADER
from memtui.errors import NotFound, PermissionDenied
from memtui.store.database import Store
from memtui.store.models import Task
from memtui.store.timeutil import FixedClock


@pytest.fixture
def team(store: Store, clock: FixedClock, engine_for: Callable[[str], Engine]) -> Team:
    """alice owns web and api (generate and use on); bob member, carol reader of web."""
    return make_team(store, clock, engine_for)


def _queued(engine: Engine, project: str = "web", goal: str = "Add pagination",
            prompt: str = "Paginate the order history", **extra: object) -> Task:
    return engine.tasks.add_task(project, goal, prompt, "", None, None, status="queued",
                                 **extra)  # type: ignore[arg-type]


def _memories(team: Team, users: int = 6, projects: int = 6) -> None:
    for i in range(users):
        team.clock.advance(1)
        team.alice.identity.add_memory(f"user memory {i}", "preference")
    for i in range(projects):
        team.clock.advance(1)
        team.bob.identity.add_memory(f"web memory {i}", "fact", "web")
    team.bob.identity.add_memory("bob's own note", "fact")  # never reaches alice's task


def test_first_turn_text_and_untouched_store(team: Team) -> None:
    _memories(team)
    task = _queued(team.alice)
    result = team.alice.injection.prepare_first_turn(task.id)
    assert result.injected and result.reason == "injected"
    assert result.prompt.startswith(INJECTION_HEADER + "\nUser memories:\n- (preference) "
                                                       "user memory 5\n")
    assert result.prompt.endswith("\n\nPaginate the order history")
    assert "web memory 5" in result.prompt and "web memory 0" not in result.prompt
    assert "user memory 0" not in result.prompt and "bob's own note" not in result.prompt
    assert result.goal.startswith(INJECTION_HEADER) and result.goal.endswith("\n\nAdd pagination")
    assert len(result.memory_ids) == 10
    assert team.alice.tasks.get_task(task.id) == task  # stored text untouched
    assert result.to_json().keys() == {"task_id", "injected", "reason", "prompt", "goal",
                                       "memory_ids"}


def test_preview_has_no_side_effects_apply_audits_and_bumps(team: Team) -> None:
    _memories(team, users=1, projects=1)
    task = _queued(team.alice)
    preview = team.alice.injection.prepare_first_turn(task.id)
    memories = [team.store.memories.get(m) for m in preview.memory_ids]
    assert all(m.usage_count == 0 and m.last_used_at is None for m in memories)
    assert not any(e.action == "worker_memory_injected" for e in team.alice.identity.audit())
    team.clock.advance(5)
    applied = team.alice.injection.prepare_first_turn(task.id, apply=True)
    assert applied.prompt == preview.prompt
    for memory_id in applied.memory_ids:
        memory = team.store.memories.get(memory_id)
        assert memory.usage_count == 1 and memory.last_used_at == "2026-12-01T09:00:07.000Z"
    entry = next(e for e in team.alice.identity.audit() if e.action == "worker_memory_injected")
    assert entry.target == task.id and entry.detail["memory_ids"] == list(applied.memory_ids)
    assert "web memory" not in str(entry.detail)


def test_goal_is_left_alone_when_empty(team: Team) -> None:
    _memories(team, users=1, projects=0)
    result = team.alice.injection.prepare_first_turn(_queued(team.alice, goal="").id)
    assert result.injected and result.goal == ""


@pytest.mark.parametrize("case, reason", [
    ("continuation", "not_first_turn"),
    ("coordinator", "coordinator"),
    ("use_off_setting", "use_off"),
    ("use_off_task", "use_off"),
])
def test_nothing_is_injected(team: Team, case: str, reason: str) -> None:
    _memories(team, users=1, projects=1)
    task = _queued(team.alice, continuation=case == "continuation")
    if case == "coordinator":
        _queued(team.alice, goal="part", parent=task.id)
    if case == "use_off_setting":
        team.alice.settings.update(use_memories=0)
    if case == "use_off_task":
        team.alice.tasks.set_flags(task.id, use="off")
    result = team.alice.injection.prepare_first_turn(task.id, apply=True)
    assert (result.injected, result.reason) == (False, reason)
    assert (result.prompt, result.goal, result.memory_ids) == (task.prompt, task.goal, ())
    assert not any(e.action == "worker_memory_injected" for e in team.alice.identity.audit())


def test_sub_task_and_task_override_on(team: Team) -> None:
    _memories(team, users=1, projects=0)
    coordinator = _queued(team.alice)
    sub = _queued(team.alice, goal="part", parent=coordinator.id)
    assert team.alice.injection.prepare_first_turn(sub.id).injected
    team.alice.settings.update(use_memories=0)
    team.alice.tasks.set_flags(sub.id, use="on")
    assert team.alice.injection.prepare_first_turn(sub.id).injected


def test_no_memories(team: Team) -> None:
    result = team.alice.injection.prepare_first_turn(_queued(team.alice).id)
    assert (result.injected, result.reason) == (False, "no_memories")


def test_only_the_tasks_user_prepares_it(team: Team) -> None:
    task = _queued(team.alice)
    with pytest.raises(PermissionDenied):
        team.bob.injection.prepare_first_turn(task.id)
    with pytest.raises(NotFound):
        team.dave.injection.prepare_first_turn(task.id)
    with pytest.raises(NotFound):
        team.alice.injection.prepare_first_turn("task_9999")


def test_project_memories_need_read_access(team: Team) -> None:
    _memories(team, users=1, projects=2)
    task = _queued(team.bob)
    team.bob.settings.update(use_memories=1)
    team.bob.identity.add_memory("bob prefers go", "preference")
    team.alice.identity.set_member("web", "bob", "reader")
    team.store.execute("DELETE FROM project_members WHERE project_id = ? AND user_id = ?",
                      ("web", "bob"))
    result = team.bob.injection.prepare_first_turn(task.id)
    assert result.injected and "web memory" not in result.prompt
    assert "bob prefers go" in result.prompt


def test_any_failure_fails_open(team: Team, monkeypatch: pytest.MonkeyPatch,
                                caplog: pytest.LogCaptureFixture) -> None:
    _memories(team, users=1, projects=1)
    task = _queued(team.alice)

    def broken(*_args: object) -> object:
        raise sqlite3.OperationalError("database disk image is malformed")

    monkeypatch.setattr(team.store.memories, "latest_active_user", broken)
    with caplog.at_level(logging.WARNING, logger="memtui.engine.injection"):
        result = team.alice.injection.prepare_first_turn(task.id, apply=True)
    assert (result.injected, result.reason) == (False, "failed_open")
    assert (result.prompt, result.goal) == (task.prompt, task.goal)
    assert "failed open" in caplog.text


def test_failure_while_applying_rolls_back_and_fails_open(
        team: Team, monkeypatch: pytest.MonkeyPatch) -> None:
    _memories(team, users=1, projects=1)
    task = _queued(team.alice)
    real_bump = team.store.memories.bump_usage

    def half_bump(ids: list[str], at: str) -> None:
        real_bump(ids[:1], at)
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(team.store.memories, "bump_usage", half_bump)
    result = team.alice.injection.prepare_first_turn(task.id, apply=True)
    assert result.reason == "failed_open"
    total = team.store.execute("SELECT sum(usage_count) FROM memories").fetchone()[0]
    assert total == 0


def test_preview_for_project(team: Team) -> None:
    _memories(team, users=1, projects=1)
    preview = team.alice.injection.preview_for_project("web", prompt="Do it", goal="Goal")
    assert preview.injected and preview.task_id is None
    assert preview.prompt.endswith("\n\nDo it") and preview.goal.endswith("\n\nGoal")
    assert team.store.execute("SELECT sum(usage_count) FROM memories").fetchone()[0] == 0
    team.alice.settings.update(use_memories=0)
    off = team.alice.injection.preview_for_project("web", prompt="Do it")
    assert (off.injected, off.reason, off.prompt) == (False, "use_off", "Do it")
    with pytest.raises(NotFound):
        team.dave.injection.preview_for_project("web")
    assert team.carol.injection.preview_for_project("web").reason == "use_off"
    team.carol.settings.update(use_memories=1)
    carol_view = team.carol.injection.preview_for_project("web")
    assert carol_view.injected and "user memory" not in carol_view.prompt
