"""Tasks, follow-ups, per-task flags and quota through the engine (the identity rules)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from fixtures_auto import LONG_RESULT, Team, add_done, make_team

from memtui.engine.api import Engine
from memtui.engine.tasks import DEFAULT_QUOTA_USD, MAX_TASK_TEXT_BYTES, QuotaUnreadable
from memtui.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from memtui.store.database import Store
from memtui.store.timeutil import FixedClock

SECRET = "api_key=ZXhhbXBsZS1rZXktMTIzNDU2Nzg5"
T0, T1 = "2026-12-01T08:00:00Z", "2026-12-01T08:10:00Z"


@pytest.fixture
def team(store: Store, clock: FixedClock, engine_for: Callable[[str], Engine]) -> Team:
    """alice owns web and api; bob member, carol reader of web; dave a stranger."""
    return make_team(store, clock, engine_for)


def test_add_task_stores_redacted_text_and_creates_the_user(team: Team) -> None:
    task = team.bob.tasks.add_task("web", f"Goal {SECRET}", f"Prompt {SECRET}",
                                   f"Result {SECRET} {LONG_RESULT}", T0, "2026-12-01T09:10:00+01:00",
                                   cost_usd=0.25)
    for text in (task.goal, task.prompt, task.result):
        assert "ZXhhbXBsZS1rZXkt" not in text and "[REDACTED]" in text
    assert task.user == "bob" and task.status == "completed"
    assert task.started_at == "2026-12-01T08:00:00.000Z"
    assert task.finished_at == "2026-12-01T08:10:00.000Z"
    assert team.bob.tasks.get_task(task.id) == task
    assert team.store.identity.get_user("bob") is not None
    assert task.to_json().keys() >= {"id", "project", "user", "goal", "prompt", "status",
                                     "parent", "started_at", "finished_at", "cost_usd",
                                     "continuation"}


def test_new_user_is_created_on_first_task(team: Team) -> None:
    team.alice.identity.set_member("web", "erin", "member")
    erin = Engine(team.store, "erin")
    erin.tasks.add_task("web", "g", "p", "r", T0, T1)
    assert team.store.identity.get_user("erin") is not None


def test_add_task_permissions(team: Team) -> None:
    with pytest.raises(PermissionDenied):
        team.carol.tasks.add_task("web", "g", "p", "r", T0, T1)
    with pytest.raises(NotFound) as stranger:
        team.dave.tasks.add_task("web", "g", "p", "r", T0, T1)
    with pytest.raises(NotFound) as missing:
        team.dave.tasks.add_task("nope", "g", "p", "r", T0, T1)
    assert str(stranger.value).replace("web", "X") == str(missing.value).replace("nope", "X")


@pytest.mark.parametrize("kwargs, match", [
    ({"started_at": None}, "start and finish"),
    ({"finished_at": None}, "start and finish"),
    ({"finished_at": "2026-12-01T07:00:00Z"}, "before it started"),
    ({"finished_at": "yesterday"}, "ISO-8601"),
    ({"goal": "", "prompt": "  "}, "goal or a prompt"),
    ({"result": "x" * (10 * 1024 * 1024)}, "too long"),
    ({"result": "bad\x00byte"}, "NUL"),
    ({"cost_usd": -3}, "non-negative"),
    ({"cost_usd": float("nan")}, "non-negative"),
    ({"cost_usd": True}, "number"),
    ({"status": "done"}, "unknown task status"),
    ({"status": "queued", "finished_at": T1}, "queued"),
])
def test_bad_tasks_are_refused(team: Team, kwargs: dict, match: str) -> None:
    args = {"project": "web", "goal": "g", "prompt": "p", "result": "r", "started_at": T0,
            "finished_at": T1} | kwargs
    with pytest.raises(InvalidInput, match=match):
        team.alice.tasks.add_task(**args)
    assert team.store.execute("SELECT count(*) FROM tasks").fetchone()[0] == 0


def test_text_limit_is_one_mebibyte(team: Team) -> None:
    at_limit = "y" * MAX_TASK_TEXT_BYTES
    assert team.alice.tasks.add_task("web", "g", "p", at_limit, T0, T1).result == at_limit
    with pytest.raises(InvalidInput):
        team.alice.tasks.add_task("web", "g", "p", at_limit + "y", T0, T1)


def test_missing_times_allowed_for_importers_only(team: Team) -> None:
    task = team.alice.tasks.add_task("web", "g", "p", "r", T0, None, source="codex",
                                     source_ref="rollout-1", allow_missing_times=True)
    assert task.finished_at is None
    queued = team.alice.tasks.add_task("web", "g", "p", "", None, None, status="queued")
    assert queued.started_at is None


def test_parent_must_exist_and_be_visible(team: Team) -> None:
    with pytest.raises(NotFound):
        team.alice.tasks.add_task("web", "g", "p", "r", T0, T1, parent="task_9999")
    hidden = team.alice.tasks.add_task("api", "g", "p", "r", T0, T1)
    with pytest.raises(NotFound):
        team.bob.tasks.add_task("web", "g", "p", "r", T0, T1, parent=hidden.id)
    coordinator = team.alice.tasks.add_task("web", "coordinate", "p", "r", T0, T1)
    sub = team.bob.tasks.add_task("web", "part", "p", "r", T0, T1, parent=coordinator.id)
    assert sub.parent == coordinator.id
    assert [t.id for t in team.store.tasks.children(coordinator.id)] == [sub.id]


def test_source_ref_makes_imports_idempotent(team: Team) -> None:
    first = team.alice.tasks.add_task("web", "g", "p", "r", T0, T1, source="codex",
                                      source_ref="thread-1")
    assert team.alice.tasks.find_by_source_ref("codex", "thread-1") == first
    assert team.alice.tasks.find_by_source_ref("codex", "thread-2") is None
    assert team.dave.tasks.find_by_source_ref("codex", "thread-1") is None
    with pytest.raises(Conflict, match=first.id):
        team.alice.tasks.add_task("web", "g", "p", "r", T0, T1, source="codex",
                                  source_ref="thread-1")
    other_source = team.alice.tasks.add_task("web", "g", "p", "r", T0, T1, source="manual",
                                             source_ref="thread-1")
    assert other_source.id != first.id


def test_source_ref_is_per_user(team: Team) -> None:
    """bob recording a reference alice already used gets his own task, not her id."""
    alices = team.alice.tasks.add_task("web", "g", "p", "r", T0, T1, source="codex",
                                       source_ref="thread-9")
    bobs = team.bob.tasks.add_task("web", "g", "p", "r", T0, T1, source="codex",
                                   source_ref="thread-9")
    assert bobs.id != alices.id and bobs.user == "bob"
    assert team.bob.tasks.find_by_source_ref("codex", "thread-9") == bobs
    assert team.alice.tasks.find_by_source_ref("codex", "thread-9") == alices
    with pytest.raises(Conflict) as info:
        team.bob.tasks.add_task("web", "g", "p", "r", T0, T1, source="codex",
                                source_ref="thread-9")
    assert bobs.id in info.value.message and alices.id not in info.value.message


def test_task_visibility(team: Team) -> None:
    web = team.alice.tasks.add_task("web", "web task", "p", "r", T0, T1)
    api = team.alice.tasks.add_task("api", "api task", "p", "r", T0, T1)
    team.clock.advance(1)
    bobs = team.bob.tasks.add_task("web", "bob's", "p", "r", T0, T1)
    assert team.carol.tasks.get_task(web.id) == web
    for engine in (team.bob, team.carol, team.dave):
        with pytest.raises(NotFound):
            engine.tasks.get_task(api.id)
    with pytest.raises(NotFound):
        team.dave.tasks.get_task(web.id)
    assert [t.id for t in team.alice.tasks.list_tasks()] == [bobs.id, api.id, web.id]
    assert [t.id for t in team.carol.tasks.list_tasks()] == [bobs.id, web.id]
    assert [t.id for t in team.alice.tasks.list_tasks(mine=True)] == [api.id, web.id]
    assert [t.id for t in team.alice.tasks.list_tasks("api")] == [api.id]
    assert team.dave.tasks.list_tasks() == []
    with pytest.raises(NotFound):
        team.dave.tasks.list_tasks("web")
    with pytest.raises(InvalidInput):
        team.alice.tasks.list_tasks(limit=0)
    # A user keeps seeing their own task after losing the project.
    team.alice.identity.set_member("web", "bob", "reader")
    team.store.execute("DELETE FROM project_members WHERE project_id = ? AND user_id = ?",
                      ("web", "bob"))
    assert team.bob.tasks.get_task(bobs.id) == bobs


def test_followups(team: Team) -> None:
    a = team.alice.tasks.add_task("web", "a", "p", "r", T0, T1)
    b = team.bob.tasks.add_task("web", "b", "p", "r", T0, T1)
    followup = team.alice.tasks.add_followup(b.id, a.id, f"look here {SECRET}")
    assert "[REDACTED]" in followup.message and "ZXhhbXBs" not in followup.message
    assert [f.seq for f in team.store.tasks.followups_for(b.id)] == [followup.seq]
    with pytest.raises(NotFound):
        team.alice.tasks.add_followup("task_9999", a.id, "m")
    with pytest.raises(NotFound):
        team.alice.tasks.add_followup(a.id, "task_9999", "m")
    with pytest.raises(InvalidInput):
        team.alice.tasks.add_followup(a.id, a.id, "m")
    with pytest.raises(InvalidInput):
        team.alice.tasks.add_followup(a.id, b.id, "")
    with pytest.raises(PermissionDenied):
        team.carol.tasks.add_followup(a.id, b.id, "m")
    with pytest.raises(NotFound):
        team.dave.tasks.add_followup(a.id, b.id, "m")


def test_flags(team: Team) -> None:
    task = team.alice.tasks.add_task("web", "g", "p", "r", T0, T1)
    updated = team.bob.tasks.set_flags(task.id, use="on", generate=0)
    assert (updated.use_memories, updated.generate_memories) == (1, 0)
    updated = team.alice.tasks.set_flags(task.id, generate="follow")
    assert (updated.use_memories, updated.generate_memories) == (1, None)
    updated = team.alice.tasks.set_flags(task.id, use=False)
    assert updated.use_memories == 0
    entry = next(e for e in team.bob.identity.audit() if e.action == "task_flags_set")
    assert entry.target == task.id and entry.detail == {"use_memories": 1,
                                                        "generate_memories": 0}
    with pytest.raises(PermissionDenied):
        team.carol.tasks.set_flags(task.id, use="on")
    with pytest.raises(NotFound):
        team.dave.tasks.set_flags(task.id, use="on")
    for bad in ("yes", 2, 1.0):
        with pytest.raises(InvalidInput):
            team.alice.tasks.set_flags(task.id, use=bad)
    with pytest.raises(InvalidInput):
        team.alice.tasks.set_flags(task.id)


def test_quota_default_unlimited_and_refusals(team: Team) -> None:
    status = team.alice.tasks.quota_status()
    assert status.limit_usd == DEFAULT_QUOTA_USD and status.is_default
    assert status.remaining_percent == 100
    add_done(team.alice, team.clock, cost_usd=2.5)
    assert team.alice.tasks.quota_status().remaining_percent == pytest.approx(75)
    status = team.alice.tasks.set_quota(unlimited=True)
    assert status.unlimited and not status.is_default and status.remaining_percent == 100
    assert status.to_json() == {"limit": None, "spent": 2.5, "remaining_percent": 100.0,
                                "unlimited": True, "default": False}
    status = team.alice.tasks.set_quota(5)
    assert status.remaining_percent == pytest.approx(50)
    for bad in ({"limit_usd": -3}, {"limit_usd": float("inf")}, {"limit_usd": True},
                {"limit_usd": "5"}, {}, {"limit_usd": 5, "unlimited": True}):
        with pytest.raises(InvalidInput):
            team.alice.tasks.set_quota(**bad)
    assert team.alice.tasks.quota_status().limit_usd == 5
    assert team.bob.tasks.quota_status().is_default


def test_quota_counts_this_month_only(team: Team) -> None:
    add_done(team.alice, team.clock, cost_usd=3)
    team.clock.advance(31 * 24 * 3600)
    add_done(team.alice, team.clock, cost_usd=1)
    assert team.alice.tasks.quota_status().spent_usd == pytest.approx(1)
    team.bob.tasks.add_task("web", "g", "p", "r", T0, T1, cost_usd=4)
    assert team.alice.tasks.quota_status().spent_usd == pytest.approx(1)


def test_zero_limit_leaves_nothing(team: Team) -> None:
    assert team.alice.tasks.set_quota(0).remaining_percent == 0


@pytest.mark.sqlite_only  # text in a REAL column: PostgreSQL refuses to store it
def test_unreadable_quota_raises(team: Team) -> None:
    team.alice.tasks.set_quota(10)
    team.store.execute("UPDATE quotas SET limit_usd = 'ten dollars' WHERE user_id = 'alice'")
    with pytest.raises(QuotaUnreadable):
        team.alice.tasks.quota_status()


def test_times_accept_datetimes(team: Team) -> None:
    now = team.clock()
    task = team.alice.tasks.add_task("web", "g", "p", "r", now - timedelta(minutes=5), now)
    assert task.finished_at == "2026-12-01T09:00:00.000Z"


def test_a_task_and_its_followups_are_written_together_or_not_at_all(team: Team) -> None:
    a = team.alice.tasks.add_task("web", "a", "p", "r", T0, T1)
    done = team.bob.tasks.add_task("web", "b", "p", "r", T0, T1,
                                   followups=[(a.id, f"see {SECRET}"), (a.id, "and this")])
    messages = [f.message for f in team.store.tasks.followups_for(done.id)]
    assert len(messages) == 2 and "[REDACTED]" in messages[0] and messages[1] == "and this"
    before = team.bob.tasks.list_tasks("web")
    for bad, error in (((a.id, ""), InvalidInput), (("task_9999", "m"), NotFound)):
        with pytest.raises(error):
            team.bob.tasks.add_task("web", "c", "p", "r", T0, T1,
                                    followups=[(a.id, "fine"), bad])
        assert team.bob.tasks.list_tasks("web") == before  # the task was rolled back too
