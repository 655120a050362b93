"""Extraction rounds: gates and reason codes, force, quota, once per task, supersede
per goal, project level only, the log, errors, bounded rounds, backfill, consolidation."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import pytest
from fixtures_auto import LONG_RESULT, Team, add_done, make_team

from memtui.engine.api import Engine
from memtui.engine.extraction import BATCH_SIZE, REASONS, RESULT_CHARS
from memtui.errors import TransactionLost
from memtui.store.database import Store
from memtui.store.models import Memory, Task
from memtui.store.timeutil import FixedClock

SECRET = "api_key=ZXhhbXBsZS1rZXktMTIzNDU2Nzg5"


@pytest.fixture
def team(store: Store, clock: FixedClock, engine_for: Callable[[str], Engine]) -> Team:
    """alice owns web and api (generate and use on); bob member, carol reader of web."""
    return make_team(store, clock, engine_for)


def _reason(team: Team, task: Task, force: bool = False) -> str | None:
    """Run a round and return the task's logged reason (or outcome when it wrote a memory)."""
    team.alice.extraction.run_round(force=force)
    entry = team.store.tasks.get_log(task.id)
    assert entry is not None
    return entry.reason if entry.outcome in ("skipped", "error") else entry.outcome


def _memory_of(team: Team, task: Task) -> Memory:
    entry = team.store.tasks.get_log(task.id)
    assert entry is not None and entry.memory_id
    memory = team.store.memories.get(entry.memory_id)
    assert memory is not None
    return memory


def test_extracts_one_project_fact(team: Team) -> None:
    task = add_done(team.alice, team.clock, goal="\n  Fix the   retry loop\nmore detail")
    summary = team.alice.extraction.run_round()
    assert summary.to_json() == {"scanned": 1, "extracted": 1, "superseded": 0, "skipped": {},
                                 "errors": 0}
    memory = _memory_of(team, task)
    assert (memory.scope, memory.project, memory.owner, memory.kind, memory.source,
            memory.source_thread_id, memory.status) == (
        "project", "web", "alice", "fact", "auto", task.id, "active")
    assert memory.content == "Fix the   retry loop\n" + LONG_RESULT
    assert team.store.memories.goal_key(memory.id) == "fix the retry loop"
    entry = team.alice.extraction.log()[0]
    assert entry.to_json() == {"task_id": task.id, "project": "web", "outcome": "extracted",
                               "reason": None, "memory_id": memory.id, "forced": False,
                               "at": "2026-12-01T09:00:00.000Z"}
    audit = next(e for e in team.alice.identity.audit() if e.action == "auto_memory_run")
    assert audit.detail["extracted"] == 1 and LONG_RESULT[:20] not in str(audit.detail)
    assert team.alice.identity.list_memories() == []  # project level only


def test_content_uses_prompt_without_goal_and_cuts_the_result(team: Team) -> None:
    long_result = "x" * (RESULT_CHARS + 500)
    task = add_done(team.alice, team.clock, goal="", prompt="Tidy the docs\nplease",
                    result=long_result)
    team.alice.extraction.run_round()
    memory = _memory_of(team, task)
    assert memory.content == "Tidy the docs\n" + "x" * RESULT_CHARS
    assert team.store.memories.goal_key(memory.id) == "tidy the docs"


def test_content_is_redacted_even_when_the_task_was_not(team: Team) -> None:
    task = add_done(team.alice, team.clock)
    team.store.execute("UPDATE tasks SET goal = ?, result = ? WHERE id = ?",
                       (f"Deploy with {SECRET}", f"Used {SECRET}. " + LONG_RESULT, task.id))
    team.alice.extraction.run_round()
    memory = _memory_of(team, task)
    assert "ZXhhbXBs" not in memory.content and "[REDACTED]" in memory.content
    assert "ZXhhbXBs" not in (team.store.memories.goal_key(memory.id) or "")


# ---- gates -----------------------------------------------------------------------------------

def test_generate_switch_and_task_override(team: Team) -> None:
    task = add_done(team.alice, team.clock)
    team.alice.settings.update(generate_memories=0)
    assert _reason(team, task) == "generate_off"
    team.alice.tasks.set_flags(task.id, generate="on")
    assert _reason(team, task) == "extracted"
    other = add_done(team.alice, team.clock, goal="Another goal")
    team.alice.settings.update(generate_memories=1)
    team.alice.tasks.set_flags(other.id, generate="off")
    assert _reason(team, other) == "generate_off"
    assert _reason(team, other, force=True) == "generate_off"


def test_idle_gate(team: Team) -> None:
    task = add_done(team.alice, team.clock, finished_ago=100)
    assert _reason(team, task) == "not_idle"
    team.clock.advance(800)
    assert _reason(team, task) == "extracted"


def test_shape_gates(team: Team) -> None:
    missing = team.alice.tasks.add_task("web", "imported", "p", LONG_RESULT,
                                        "2026-12-01T07:00:00Z", None, source="codex",
                                        source_ref="r1", allow_missing_times=True)
    short = add_done(team.alice, team.clock, goal="short run", duration_s=10)
    terse = add_done(team.alice, team.clock, goal="terse", result="Done. " * 10)
    assert _reason(team, missing) == "missing_times"
    assert _reason(team, short) == "too_short"
    assert _reason(team, terse) == "result_too_short"


def test_external_context_gate(team: Team) -> None:
    coordinator = add_done(team.alice, team.clock, goal="coordinate")
    sub = add_done(team.alice, team.clock, goal="sub", parent=coordinator.id)
    receiver = add_done(team.alice, team.clock, goal="receiver")
    team.alice.tasks.add_followup(receiver.id, coordinator.id, "fyi")
    web = add_done(team.alice, team.clock, goal="searched the web", external_context=True)
    team.alice.extraction.run_round(force=True)
    reasons = {t.id: team.store.tasks.get_log(t.id).reason for t in (sub, receiver, web)}
    assert set(reasons.values()) == {"external_context"}
    assert team.store.tasks.get_log(coordinator.id).outcome == "extracted"
    team.alice.settings.update(disable_on_external_context=0)
    summary = team.alice.extraction.run_round()
    assert summary.extracted == 3


def test_quota_gate_default_ten_dollars_versus_explicit_unlimited(team: Team) -> None:
    add_done(team.alice, team.clock, goal="expensive", cost_usd=9.5, generate="off")
    task = add_done(team.alice, team.clock, goal="cheap")
    assert _reason(team, task) == "quota_low"  # no row: $10, 5% left < 20%
    assert _reason(team, task, force=True) == "quota_low"
    team.alice.tasks.set_quota(unlimited=True)
    assert _reason(team, task) == "extracted"


def test_quota_threshold_is_inclusive(team: Team) -> None:
    add_done(team.alice, team.clock, goal="spend", cost_usd=8, generate="off")
    task = add_done(team.alice, team.clock, goal="at the line")
    assert _reason(team, task) == "extracted"  # exactly 20% left


@pytest.mark.sqlite_only  # text in a REAL column: PostgreSQL refuses to store it
def test_quota_read_failure_fails_closed(team: Team, monkeypatch: pytest.MonkeyPatch) -> None:
    task = add_done(team.alice, team.clock)
    team.alice.tasks.set_quota(100)
    team.store.execute("UPDATE quotas SET limit_usd = 'lots' WHERE user_id = 'alice'")
    assert _reason(team, task) == "quota_check_failed"
    assert _reason(team, task, force=True) == "quota_check_failed"
    team.alice.tasks.set_quota(100)

    def broken(*_args: object) -> object:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(team.store.tasks, "spend_between", broken)
    assert _reason(team, task) == "quota_check_failed"
    monkeypatch.undo()
    assert _reason(team, task) == "extracted"


def test_gates_are_checked_in_spec_order(team: Team) -> None:
    cases = [
        ({"finished_ago": 10, "generate": "off"}, "generate_off"),
        ({"finished_ago": 10, "duration_s": 1}, "not_idle"),
        ({"duration_s": 1, "external_context": True}, "too_short"),
        ({"result": "tiny", "external_context": True}, "result_too_short"),
        ({"external_context": True}, "external_context"),
    ]
    tasks = []
    for i, (kwargs, _reason_code) in enumerate(cases):
        tasks.append(add_done(team.alice, team.clock, goal=f"case {i}", **kwargs))
    team.alice.tasks.set_quota(0)
    team.alice.extraction.run_round()
    for task, (_kwargs, expected) in zip(tasks, cases, strict=True):
        assert team.store.tasks.get_log(task.id).reason == expected


def test_force_skips_exactly_idle_and_shape(team: Team) -> None:
    passable = [
        add_done(team.alice, team.clock, goal="not idle", finished_ago=5),
        add_done(team.alice, team.clock, goal="too short", duration_s=2),
        add_done(team.alice, team.clock, goal="terse", result="ok"),
        team.alice.tasks.add_task("web", "no finish", "p", LONG_RESULT, "2026-12-01T07:00:00Z",
                                  None, source="codex", source_ref="r2",
                                  allow_missing_times=True),
    ]
    blocked = [add_done(team.alice, team.clock, goal="external", external_context=True)]
    blocked.append(add_done(team.alice, team.clock, goal="off", generate="off"))
    summary = team.alice.extraction.run_round(force=True)
    assert summary.extracted == 4
    for task in passable:
        entry = team.store.tasks.get_log(task.id)
        assert entry.outcome == "extracted" and entry.forced
    assert {team.store.tasks.get_log(t.id).reason for t in blocked} == {"external_context",
                                                                      "generate_off"}


def test_every_reason_code_is_covered_here() -> None:
    assert set(REASONS) == {"generate_off", "not_idle", "missing_times", "too_short",
                            "result_too_short", "external_context", "quota_low",
                            "quota_check_failed", "already_extracted", "forgotten"}


# ---- once per task, supersede, scope ---------------------------------------------------------

def test_once_per_task_even_after_forget(team: Team) -> None:
    task = add_done(team.alice, team.clock)
    team.alice.extraction.run_round()
    memory = _memory_of(team, task)
    assert team.alice.extraction.run_round().scanned == 0  # not due any more
    team.alice.identity.forget(memory.id)
    assert _reason(team, task) == "forgotten"
    assert team.alice.extraction.run_round(force=True).scanned == 0  # permanent: not rescanned
    assert team.store.memories.ids_for_thread(task.id) == []


def test_forget_of_a_superseding_version_still_tombstones(team: Team) -> None:
    task = add_done(team.alice, team.clock)
    team.alice.extraction.run_round()
    newer = team.alice.identity.supersede(_memory_of(team, task).id, "corrected by hand")
    team.alice.identity.forget(newer.id)
    assert _reason(team, task) == "forgotten"


def test_already_extracted_when_a_memory_exists_in_any_status(team: Team) -> None:
    task = add_done(team.alice, team.clock)
    pinned = team.alice.identity.add_memory("pinned by hand", "decision", "web",
                                            source_thread_id=task.id)
    team.alice.identity.supersede(pinned.id, "pinned, corrected")
    assert _reason(team, task) == "already_extracted"
    assert team.store.tasks.get_log(task.id).memory_id == pinned.id
    assert team.alice.extraction.run_round().scanned == 0


def test_imported_thread_counts_as_already_extracted(team: Team) -> None:
    task = team.alice.tasks.add_task("web", "imported", "p", LONG_RESULT, "2026-12-01T07:00:00Z",
                                     "2026-12-01T07:30:00Z", source="codex",
                                     source_ref="thread-42")
    team.alice.identity.add_memory("from codex", "fact", "web", source="import",
                                   source_thread_id="thread-42")
    assert _reason(team, task) == "already_extracted"


def test_another_users_private_memory_of_the_same_reference_is_no_oracle(team: Team) -> None:
    """alice's user-level memory from thread-77 neither blocks bob's task from thread-77 nor
    shows its id in bob's extraction log: references are per user."""
    private = team.alice.identity.add_memory("alice's private note", "fact", None,
                                             source="import", source_thread_id="thread-77")
    team.bob.settings.update(generate_memories=1)
    task = add_done(team.bob, team.clock, source="codex", source_ref="thread-77")
    team.bob.extraction.run_round()
    entry = team.store.tasks.get_log(task.id)
    assert entry is not None and entry.outcome == "extracted"
    assert entry.memory_id != private.id


def test_stale_candidate_extracted_by_another_round_is_not_redone(
        team: Team, monkeypatch: pytest.MonkeyPatch) -> None:
    task = add_done(team.alice, team.clock)
    stale = team.store.tasks.round_candidates("alice", 10)
    team.alice.extraction.run_round()
    before = team.store.tasks.get_log(task.id)
    monkeypatch.setattr(team.store.tasks, "round_candidates", lambda *_a: stale)
    summary = team.alice.extraction.run_round()
    # the claim leaves out a task that is no longer due (the round that scanned it reports
    # it): the same summary on both backends
    assert summary.to_json() == {"scanned": 0, "extracted": 0, "superseded": 0,
                                 "skipped": {}, "errors": 0}
    assert summary.extracted == 0
    assert team.store.tasks.get_log(task.id) == before
    assert len(team.store.memories.ids_for_thread(task.id)) == 1


def test_same_goal_supersedes_within_a_project_only(team: Team) -> None:
    first = add_done(team.alice, team.clock, goal="Speed up the build")
    team.alice.extraction.run_round()
    team.clock.advance(60)
    second = add_done(team.alice, team.clock, goal="  speed UP the   build\nagain")
    third = add_done(team.alice, team.clock, project="api", goal="Speed up the build")
    summary = team.alice.extraction.run_round()
    assert (summary.extracted, summary.superseded) == (1, 1)
    old, new = _memory_of(team, first), _memory_of(team, second)
    assert old.status == "superseded" and old.superseded_by == new.id
    assert team.store.tasks.get_log(second.id).outcome == "superseded_previous"
    assert _memory_of(team, third).status == "active"
    assert team.store.tasks.get_log(third.id).outcome == "extracted"


def test_manual_memory_with_same_words_is_not_superseded(team: Team) -> None:
    manual = team.alice.identity.add_memory("Speed up the build", "fact", "web")
    add_done(team.alice, team.clock, goal="Speed up the build")
    assert team.alice.extraction.run_round().extracted == 1
    assert team.store.memories.get(manual.id).status == "active"


def test_only_completed_tasks_of_the_actor_are_scanned(team: Team) -> None:
    for status in ("failed", "interrupted", "merged", "running"):
        add_done(team.alice, team.clock, goal=status, status=status)
    team.alice.tasks.add_task("web", "queued", "p", "", None, None, status="queued")
    add_done(team.bob, team.clock, goal="bob's")
    assert team.alice.extraction.run_round().scanned == 0
    assert team.alice.extraction.log() == []


def test_log_is_per_user_and_overwritten(team: Team) -> None:
    task = add_done(team.alice, team.clock, finished_ago=10)
    team.alice.extraction.run_round()
    team.clock.advance(1000)
    team.alice.extraction.run_round()
    rows = team.alice.extraction.log()
    assert [(r.task_id, r.outcome) for r in rows] == [(task.id, "extracted")]
    team.bob.settings.update(generate_memories=1)
    bobs = add_done(team.bob, team.clock, goal="bob's")
    team.bob.extraction.run_round()
    assert [r.task_id for r in team.bob.extraction.log()] == [bobs.id]
    assert [r.task_id for r in team.alice.extraction.log()] == [task.id]
    assert team.alice.extraction.log_counts() == {"extracted": 1}


def test_a_failing_task_is_logged_as_error_and_the_round_goes_on(
        team: Team, monkeypatch: pytest.MonkeyPatch) -> None:
    good = add_done(team.alice, team.clock, goal="good one")
    bad = add_done(team.alice, team.clock, goal="bad one")
    real_insert = team.store.memories.insert

    def insert(memory: Memory, key: str | None = None, replaces: str | None = None) -> None:
        real_insert(memory, key, replaces)
        if memory.source_thread_id == bad.id:
            raise RuntimeError("boom")

    monkeypatch.setattr(team.store.memories, "insert", insert)
    summary = team.alice.extraction.run_round()
    assert (summary.extracted, summary.errors) == (1, 1)
    entry = team.store.tasks.get_log(bad.id)
    assert (entry.outcome, entry.reason, entry.memory_id) == ("error", "RuntimeError", None)
    assert team.store.memories.ids_for_thread(bad.id) == []  # rolled back
    assert team.store.tasks.get_log(good.id).outcome == "extracted"
    monkeypatch.undo()
    assert _reason(team, bad) == "extracted"  # errors are retried


@pytest.mark.sqlite_only  # SQLite's own rollback of a whole transaction
def test_a_batch_that_sqlite_rolled_back_is_kept_in_no_part(team: Team) -> None:
    """A statement that makes SQLite roll the whole batch back (here a trigger's
    RAISE(ROLLBACK); in the field a damaged full-text index) fails the round, and nothing
    of the batch is kept: before, the task's savepoint error was logged as the task's
    error and the rest of the batch was written outside any transaction (the first task's
    memory lost, the later ones kept), then the batch's COMMIT failed."""
    tasks = [add_done(team.alice, team.clock, goal=f"goal {i}") for i in range(3)]
    team.store.execute(
        "CREATE TEMP TRIGGER doom AFTER INSERT ON main.memories WHEN new.source_thread_id = "
        f"'{tasks[1].id}' BEGIN SELECT RAISE(ROLLBACK, 'provoked rollback'); END")
    with pytest.raises(TransactionLost):
        team.alice.extraction.run_round()
    for task in tasks:
        assert team.store.tasks.get_log(task.id) is None
        assert team.store.memories.ids_for_thread(task.id) == []
    team.store.execute("DROP TRIGGER temp.doom")
    assert team.alice.extraction.run_round().extracted == 3  # all due again


def test_lost_write_access_is_an_error(team: Team) -> None:
    task = add_done(team.bob, team.clock)
    team.bob.settings.update(generate_memories=1)
    team.alice.identity.set_member("web", "bob", "reader")
    team.bob.extraction.run_round()
    entry = team.store.tasks.get_log(task.id)
    assert (entry.outcome, entry.reason) == ("error", "PermissionDenied")


# ---- bounded rounds, backfill ----------------------------------------------------------------

def test_rounds_are_bounded_and_rotate(team: Team) -> None:
    team.alice.settings.update(generate_memories=0)
    tasks = [add_done(team.alice, team.clock, goal=f"t{i}", finished_ago=5000 - i)
             for i in range(7)]
    first = team.alice.extraction.run_round(limit=3)
    assert first.scanned == 3
    team.clock.advance(1)
    team.alice.extraction.run_round(limit=3)
    team.clock.advance(1)
    team.alice.extraction.run_round(limit=3)
    scanned_at = {t.id: team.store.tasks.get_log(t.id).at for t in tasks}
    assert len(scanned_at) == 7
    assert scanned_at[tasks[6].id] == "2026-12-01T09:00:02.000Z"
    assert scanned_at[tasks[0].id] == "2026-12-01T09:00:02.000Z"  # oldest scan comes back
    assert scanned_at[tasks[3].id] == "2026-12-01T09:00:01.000Z"
    assert team.alice.extraction.pending() == 7


def test_backfill_visits_every_due_task_once(team: Team) -> None:
    tasks = [add_done(team.alice, team.clock, goal=f"goal {i}", finished_ago=5000 - i,
                      result=LONG_RESULT if i % 3 else "short") for i in range(120)]
    seen: list[tuple[int, int]] = []
    summary = team.alice.extraction.backfill(progress=lambda d, t: seen.append((d, t)),
                                       batch_limit=50)
    assert summary.scanned == 120 and summary.extracted == 80
    assert summary.skipped == {"result_too_short": 40}
    assert seen[-1] == (120, 120) and [d for d, _t in seen] == sorted(d for d, _t in seen)
    assert len(team.alice.extraction.log(500)) == len(tasks)
    assert team.alice.extraction.pending() == 40  # skipped ones stay due for later rounds


def test_backfill_stops_between_transactions(team: Team) -> None:
    for i in range(BATCH_SIZE * 2 + 30):
        add_done(team.alice, team.clock, goal=f"goal {i}")
    calls = iter([False, True])
    summary = team.alice.extraction.backfill(should_stop=lambda: next(calls, True))
    assert summary.stopped and summary.scanned == BATCH_SIZE
    assert team.store.execute("SELECT count(*) FROM memories").fetchone()[0] == BATCH_SIZE


def test_round_without_work_writes_no_audit(team: Team) -> None:
    assert team.alice.extraction.run_round().scanned == 0
    assert not any(e.action == "auto_memory_run" for e in team.alice.identity.audit())


def test_bad_limits(team: Team) -> None:
    from memtui.errors import InvalidInput

    for bad in (0, -1, True, "5"):
        with pytest.raises(InvalidInput):
            team.alice.extraction.run_round(limit=bad)
        with pytest.raises(InvalidInput):
            team.alice.extraction.log(bad)


# ---- consolidation ---------------------------------------------------------------------------

def test_consolidate_supersedes_duplicates_newest_survives(team: Team) -> None:
    a = team.alice.identity.add_memory("Prefers  tabs", "preference")
    team.clock.advance(1)
    b = team.alice.identity.add_memory("prefers tabs", "preference")
    team.clock.advance(1)
    unique = team.alice.identity.add_memory("Uses zsh", "fact")
    first = add_done(team.alice, team.clock, goal="Build the cache")
    team.alice.extraction.run_round()
    team.clock.advance(1)
    second = add_done(team.alice, team.clock, goal="build the cache", result=LONG_RESULT + "!")
    team.store.execute("UPDATE memories SET status = 'active', superseded_by = NULL")
    team.alice.extraction.run_round()
    team.store.execute("UPDATE memories SET status = 'active', superseded_by = NULL")
    bob_dupe = team.bob.identity.add_memory("same text", "fact")
    team.clock.advance(1)
    team.bob.identity.add_memory("same text", "fact")
    result = team.alice.extraction.consolidate()
    pairs = dict(result.superseded)
    assert pairs[a.id] == b.id
    assert pairs[_memory_of(team, first).id] == _memory_of(team, second).id
    assert unique.id not in pairs and bob_dupe.id not in pairs
    assert team.store.memories.get(a.id).superseded_by == b.id
    row = team.store.execute("SELECT user_id, kind, outcome FROM consolidations").fetchone()
    assert row == ("alice", "dedupe", "superseded")
    assert team.alice.extraction.consolidate().count == 0


def test_consolidate_leaves_read_only_projects_alone(team: Team) -> None:
    team.bob.identity.add_memory("dup", "fact", "web")
    team.clock.advance(1)
    team.bob.identity.add_memory("dup", "fact", "web")
    assert team.carol.extraction.consolidate().count == 0
    assert team.bob.extraction.consolidate().count == 1


# ---- the demo store --------------------------------------------------------------------------

def test_demo_log_shows_every_outcome_and_reason(tmp_path) -> None:
    from memtui.engine.demo import build_demo_store

    store = build_demo_store(tmp_path / "demo.db")
    try:
        alice = Engine(store, "alice")
        rows = alice.extraction.log(500)
        assert {r.outcome for r in rows} == {"extracted", "superseded_previous", "skipped",
                                             "error"}
        assert {r.reason for r in rows if r.outcome == "skipped"} == set(REASONS)
        assert any(r.forced for r in rows)
        tasks = alice.tasks.list_tasks(limit=500)
        assert any(t.parent for t in tasks) and any(t.continuation for t in tasks)
        assert {t.status for t in tasks} >= {"completed", "failed", "interrupted", "merged",
                                             "queued"}
        assert all("Q3v9XkPz7LmN2rT8" not in t.result for t in tasks)
        assert store.execute("SELECT count(*) FROM task_followups").fetchone()[0] >= 1
        assert store.execute("SELECT count(*) FROM forgotten_sources").fetchone()[0] >= 1
        assert not alice.tasks.quota_status().is_default
        assert any(e.action == "worker_memory_injected" for e in alice.identity.audit(200))
    finally:
        store.close()
