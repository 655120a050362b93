"""The review inbox through the engine: which writes land pending, what pending
never reaches, approve (edited), reject, corrections as diffs, bulk, races, the upgrade."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from backends import elsewhere
from fixtures_auto import Team, add_done, make_team

import memtui.store.database as database
from memtui.engine.api import Engine
from memtui.engine.review import ADDED, REMOVED, SAME, word_diff
from memtui.engine.review_rules import AGENT_SOURCES, USER_SOURCES, status_for_new
from memtui.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from memtui.store.database import Store, open_store
from memtui.store.ids import SequentialIds
from memtui.store.models import SOURCES
from memtui.store.schema import MIGRATIONS
from memtui.store.timeutil import FixedClock

EngineFor = Callable[[str], Engine]
MARKER = "zebracorn"
"""A word only pending memories hold: it must never come out of a read path."""


@pytest.fixture
def team(store: Store, clock: FixedClock, engine_for: EngineFor) -> Team:
    """alice owns web (bob member, carol reader); review is on for alice and bob."""
    made = make_team(store, clock, engine_for)
    made.alice.settings.update(review_new_memories=1)
    made.bob.settings.update(review_new_memories=1)
    return made


# ---- which writes wait --------------------------------------------------------------------

def test_sources_split_into_the_users_and_the_agents() -> None:
    assert USER_SOURCES | AGENT_SOURCES == set(SOURCES)
    assert not USER_SOURCES & AGENT_SOURCES
    assert "mcp" in AGENT_SOURCES and "service" in AGENT_SOURCES


@pytest.mark.parametrize("source", sorted(AGENT_SOURCES))
def test_agent_writes_wait_only_while_review_is_on(team: Team, source: str) -> None:
    pending = team.alice.identity.add_memory("from an agent", "fact", "web", source=source)
    assert pending.status == "pending"
    team.alice.settings.update(review_new_memories=0)
    active = team.alice.identity.add_memory("from an agent", "fact", "web", source=source)
    assert active.status == "active"


@pytest.mark.parametrize("source", sorted(USER_SOURCES))
def test_the_users_own_writes_are_active_at_once(team: Team, source: str) -> None:
    assert team.alice.identity.add_memory("mine", "fact", source=source).status == "active"
    old = team.alice.identity.add_memory("mine", "fact", "web")
    assert team.alice.identity.supersede(old.id, "mine, corrected").status == "active"


def test_review_is_off_by_default_and_per_user(store: Store, engine_for: EngineFor) -> None:
    alice, bob = engine_for("alice"), engine_for("bob")
    assert alice.settings.get()["review_new_memories"] == 0
    assert status_for_new(store, "alice", "mcp") == "active"
    alice.settings.update(review_new_memories=True)
    assert status_for_new(store, "alice", "mcp") == "pending"
    assert status_for_new(store, "bob", "mcp") == "active"
    assert bob.identity.add_memory("bob's agent", source="mcp").status == "active"


def test_unknown_sources_are_refused(team: Team) -> None:
    with pytest.raises(InvalidInput):
        team.alice.identity.add_memory("x", source="telepathy")
    with pytest.raises(InvalidInput):
        status_for_new(team.store, "alice", "telepathy")
    with pytest.raises(InvalidInput):
        team.alice.review.items(source="telepathy")


def test_an_agents_correction_waits_and_the_old_text_stays_in_use(team: Team) -> None:
    old = team.alice.identity.add_memory("Postgres 16 is the primary database.", "decision", "web")
    pending = team.alice.identity.supersede(old.id, "Postgres 17 is the primary database.",
                                            source="mcp")
    assert pending.status == "pending"
    assert team.alice.identity.get_memory(old.id).status == "active"
    [item] = team.alice.review.items()
    assert item.replaces == old.id and item.target is not None and item.target.id == old.id
    assert [(p.op, p.text) for p in item.diff] == [
        (SAME, "Postgres "), (REMOVED, "16"), (ADDED, "17"),
        (SAME, " is the primary database.")]


def test_the_extractor_proposes_and_a_repeated_goal_is_a_pending_correction(team: Team) -> None:
    team.alice.settings.update(review_new_memories=0)
    add_done(team.alice, team.clock, goal="Fix the retry loop")
    team.alice.extraction.run_round()
    [first] = team.alice.identity.list_memories("web", source="auto")
    team.alice.settings.update(review_new_memories=1)
    add_done(team.alice, team.clock, goal="Fix the retry loop",
             result="The retry loop now uses tenacity. " * 8)
    summary = team.alice.extraction.run_round()
    assert summary.extracted == 1 and summary.superseded == 0
    [item] = team.alice.review.items(source="auto")
    assert item.replaces == first.id and item.memory.status == "pending"
    assert team.alice.identity.get_memory(first.id).status == "active"
    result = team.alice.review.approve(item.id)
    assert result.superseded == first.id
    history = team.alice.identity.history(item.id)
    assert [(m.id, m.status) for m in history] == [(first.id, "superseded"),
                                                   (item.id, "active")]
    assert team.alice.maintenance.check() == []


# ---- what pending never reaches ------------------------------------------------------------

def test_no_pending_text_reaches_a_read_path(team: Team) -> None:
    alice = team.alice
    alice.identity.add_memory("Deploys go through the blue pipeline.", "fact", "web")
    target = alice.identity.add_memory("The cache is Redis.", "fact")
    alice.identity.add_memory(f"{MARKER} project memory from MCP", "fact", "web", source="mcp")
    alice.identity.add_memory(f"{MARKER} user memory from an import", "fact", source="import")
    alice.identity.add_memory(f"{MARKER} from the service", "fact", "web", source="service")
    alice.identity.supersede(target.id, f"The cache is {MARKER}.", source="mcp")
    assert alice.review.count() == 4
    task = alice.tasks.add_task("web", "Add a page", "Add a page", "", None, None,
                                status="queued")
    outputs = [
        alice.identity.context("web").to_json(),
        alice.injection.prepare_first_turn(task.id).prompt,
        alice.injection.prepare_first_turn(task.id, apply=True).prompt,
        alice.injection.preview_for_project("web", prompt="go").prompt,
        alice.recall.recall(MARKER, project="web").to_json() | {"query": ""},
        alice.recall.recall("", project="web").to_json(),
        [m.to_json() for m in alice.identity.list_memories("web")],
        [m.to_json() for m in alice.identity.list_memories()],
        [m.to_json() for m in alice.identity.list_memories("web", search=MARKER)],
        alice.codex.plan_export().files,
    ]
    for output in outputs:
        assert MARKER not in json.dumps(output)
    assert alice.identity.count_memories(alice.identity.memory_filter("web")) == 1
    assert alice.extraction.consolidate().count == 0
    pending = alice.identity.list_memories("web", status="pending")
    assert {m.status for m in pending} == {"pending"} and len(pending) == 2
    assert all(m.usage_count == 0 for m in pending)


# ---- approve and reject -------------------------------------------------------------------

def test_approve_edited_goes_through_validation_and_redaction(team: Team) -> None:
    pending = team.alice.identity.add_memory("draft", "fact", "web", source="mcp")
    with pytest.raises(InvalidInput):
        team.alice.review.approve(pending.id, content="   ")
    assert team.alice.identity.get_memory(pending.id).status == "pending"
    result = team.alice.review.approve(
        pending.id, content="Deploy key: password=hunter2secret", kind="decision")
    assert result.edited and result.memory.status == "active"
    assert "hunter2secret" not in result.memory.content
    assert "[REDACTED]" in result.memory.content and result.memory.kind == "decision"
    assert result.memory.source == "mcp"  # provenance kept


def test_reject_is_physical_and_stops_re_extraction(team: Team) -> None:
    add_done(team.alice, team.clock, goal="Tune the connection pool")
    team.alice.extraction.run_round()
    [item] = team.alice.review.items()
    team.alice.review.reject(item.id)
    with pytest.raises(NotFound):
        team.alice.identity.get_memory(item.id)
    assert team.alice.identity.list_memories("web", status="all", search="connection") == []
    forced = team.alice.extraction.run_round(force=True)
    assert forced.extracted == 0 and forced.skipped.get("forgotten") == 1
    [entry] = [e for e in team.alice.identity.audit(10) if e.action == "memory_rejected"]
    assert entry.target == item.id and "connection" not in json.dumps(entry.detail)
    assert team.alice.maintenance.check() == []


def test_reject_refuses_what_is_not_pending(team: Team) -> None:
    active = team.alice.identity.add_memory("kept", "fact", "web")
    with pytest.raises(Conflict, match="already approved"):
        team.alice.review.reject(active.id)
    assert team.alice.identity.get_memory(active.id).status == "active"


def test_bulk_decisions_report_each_failure_and_do_the_rest(team: Team) -> None:
    ids = [team.alice.identity.add_memory(f"agent note {n}", "fact", "web", source="mcp").id
           for n in range(3)]
    result = team.alice.review.reject_many([ids[0], "mem_missing", ids[1], ids[0]])
    assert [done.to_json()["id"] for done in result.done] == [ids[0], ids[1]]
    assert [(memory_id, error.code) for memory_id, error in result.errors] == [
        ("mem_missing", "not_found")]
    rejected = team.alice.review.reject_many(team.alice.review.actionable_ids())
    assert [done.to_json()["id"] for done in rejected.done] == [ids[2]]
    assert team.alice.review.count() == 0


def test_source_filter_and_visibility(team: Team) -> None:
    team.alice.identity.add_memory("alice's own, from an import", source="import")
    team.alice.identity.add_memory("web, from MCP", "fact", "web", source="mcp")
    team.alice.identity.add_memory("api, from MCP", "fact", "api", source="mcp")
    assert team.alice.review.count() == 3
    assert [i.memory.content for i in team.alice.review.items(source="import")] == [
        "alice's own, from an import"]
    assert [i.memory.content for i in team.bob.review.items()] == ["web, from MCP"]
    [carols] = team.carol.review.items()
    assert not carols.can_act and team.carol.review.actionable_ids() == []
    assert team.dave.review.count() == 0


# ---- races and bad input ------------------------------------------------------------------

def test_a_reader_may_not_approve_or_reject(team: Team) -> None:
    pending = team.alice.identity.add_memory("web, from MCP", "fact", "web", source="mcp")
    with pytest.raises(PermissionDenied):
        team.carol.review.approve(pending.id)
    with pytest.raises(PermissionDenied):
        team.carol.review.reject(pending.id)
    with pytest.raises(NotFound):
        team.dave.review.approve(pending.id)  # not a member: the same answer as missing
    assert team.alice.identity.get_memory(pending.id).status == "pending"


def test_approving_what_another_process_rejected(team: Team, store_target: str,
                                                 clock: FixedClock) -> None:
    pending = team.alice.identity.add_memory("web, from MCP", "fact", "web", source="mcp")
    [shown] = team.alice.review.items()
    elsewhere(store_target, "bob", lambda bob: bob.review.reject(pending.id), clock=clock)
    with pytest.raises(NotFound, match="rejected or forgotten since it was shown"):
        team.alice.review.approve(pending.id, expected=shown.version)
    assert team.alice.maintenance.check() == []


def test_two_users_approving_the_same_correction(team: Team, store_target: str,
                                                 clock: FixedClock) -> None:
    old = team.alice.identity.add_memory("Static files come from WhiteNoise.", "fact", "web")
    pending = team.bob.identity.supersede(old.id, "Static files come from the CDN.",
                                          source="mcp")
    [as_alice_saw] = team.alice.review.items()
    elsewhere(store_target, "bob", lambda bob: bob.review.approve(pending.id), clock=clock)
    with pytest.raises(Conflict, match="already approved"):
        team.alice.review.approve(pending.id, expected=as_alice_saw.version)
    history = team.alice.identity.history(old.id)
    assert [(m.id, m.status) for m in history] == [(old.id, "superseded"),
                                                   (pending.id, "active")]
    assert team.alice.maintenance.check() == []


def test_a_change_since_shown_is_refused(team: Team) -> None:
    old = team.alice.identity.add_memory("The cache is Redis 6.", "fact", "web")
    pending = team.alice.identity.supersede(old.id, "The cache is Redis 7.", source="mcp")
    [shown] = team.alice.review.items()
    newer = team.bob.identity.supersede(old.id, "The cache is Redis 6 in a cluster.")
    with pytest.raises(Conflict, match="changed since it was shown"):
        team.alice.review.approve(pending.id, expected=shown.version)
    [fresh] = team.alice.review.items()
    assert fresh.target is not None and fresh.target.id == newer.id
    assert team.alice.review.approve(pending.id, expected=fresh.version).superseded == newer.id
    # an agent revising its pending memory changes it too
    second = team.alice.identity.add_memory("draft one", "fact", "web", source="mcp")
    [shown] = team.alice.review.items()
    revised = team.alice.identity.supersede(second.id, "draft two", source="mcp")
    assert revised.id == second.id and revised.status == "pending"
    with pytest.raises(Conflict):
        team.alice.review.reject(second.id, expected=shown.version)
    with pytest.raises(InvalidInput, match="waiting for review"):
        team.alice.identity.supersede(second.id, "my own fix")


def test_forgetting_the_target_takes_its_pending_corrections(team: Team) -> None:
    old = team.alice.identity.add_memory("The token lives in vault path A.", "fact", "web")
    pending = team.alice.identity.supersede(old.id, "The token lives in vault path B.",
                                            source="mcp")
    result = team.alice.identity.forget(old.id)
    assert pending.id in result.removed_ids
    with pytest.raises(NotFound, match="rejected or forgotten"):
        team.alice.review.approve(pending.id)
    assert team.alice.maintenance.check() == []


def test_a_correction_whose_target_vanished_is_refused_not_applied(team: Team) -> None:
    old = team.alice.identity.add_memory("Old text.", "fact", "web")
    pending = team.alice.identity.supersede(old.id, "New text.", source="mcp")
    with team.store.transaction():  # as a store restored without the target would be
        team.store.memories.delete_many([old.id])
    [item] = team.alice.review.items()
    assert item.target_state == "forgotten"
    assert team.alice.maintenance.check() == [
        f"memory {pending.id} waits for review as a correction of a memory that does not "
        "exist (reject it)"]
    with pytest.raises(Conflict, match="forgotten"):
        team.alice.review.approve(pending.id)
    assert team.alice.identity.get_memory(pending.id).status == "pending"
    team.alice.review.reject(pending.id)
    assert team.alice.maintenance.check() == []


# ---- the diff -----------------------------------------------------------------------------

@pytest.mark.parametrize(("old", "new"), [
    ("", "new text"), ("old text", ""), ("same", "same"),
    ("Use tabs,  not spaces.\nAlways.", "Use spaces, not tabs.\n\nAlways!"),
    ("ünïcode wörds ok", "ünïcode words ok"),
])
def test_word_diff_rebuilds_both_texts(old: str, new: str) -> None:
    parts = word_diff(old, new)
    assert "".join(p.text for p in parts if p.op != ADDED) == old
    assert "".join(p.text for p in parts if p.op != REMOVED) == new
    assert all(a.op != b.op for a, b in zip(parts, parts[1:], strict=False))


# ---- the upgrade --------------------------------------------------------------------------

@pytest.mark.parametrize("made_by", ["schema 2", "every migration but 4"])
def test_a_store_of_the_previous_schema_opens_and_upgrades(
        tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch, made_by: str) -> None:
    """A store of the schema before review (2), and one made by code that had the later
    migrations but not this one (numbers are reserved per piece of work, so a file can have
    a gap): both open, run migration 4, and keep every row and the full-text index."""
    path = tmp_path / "old.db"
    previous = tuple(m for m in MIGRATIONS if (m[0] < 4 if made_by == "schema 2" else m[0] != 4))
    monkeypatch.setattr(database, "MIGRATIONS", previous)
    monkeypatch.setattr(database, "LATEST_VERSION", previous[-1][0])
    old_store = open_store(path, clock=clock, ids=SequentialIds())
    Engine(old_store, "alice").identity.create_project("web")
    # the rows as the code of that schema wrote them (its INSERT had no ``replaces``)
    columns = ("id, scope, owner, project, kind, content, status, superseded_by, source, "
               "created_at, updated_at")
    at = "2026-12-01T09:00:00.000Z"
    rows = [("m1", "project", "alice", "web", "fact", "Deploys use the blue pipeline.",
             "superseded", "m2", "manual", at, at),
            ("m2", "project", "alice", "web", "fact", "Deploys use the green pipeline.",
             "active", None, "manual", at, at),
            ("m3", "user", "alice", None, "fact", "a note of mine", "active", None, "note",
             at, at)]
    with old_store.transaction():
        for row in rows:
            old_store.execute(f"INSERT INTO memories({columns}) VALUES "
                              "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
    assert old_store.schema_version() == previous[-1][0]
    with pytest.raises(Exception, match="CHECK"), old_store.transaction():
        old_store.execute("UPDATE memories SET status = 'pending' WHERE id = 'm3'")
    old_store.close()
    monkeypatch.undo()

    upgraded = open_store(path, clock=clock, ids=SequentialIds())
    try:
        assert upgraded.schema_version() == MIGRATIONS[-1][0]
        recorded = [row[0] for row in upgraded.execute(
            "SELECT version FROM schema_migrations ORDER BY version")]
        assert recorded == [version for version, _script in MIGRATIONS]
        alice = Engine(upgraded, "alice")
        assert alice.maintenance.check() == []
        assert [(m.id, m.status) for m in alice.identity.history("m2")] == [
            ("m1", "superseded"), ("m2", "active")]
        assert [m.id for m in alice.identity.list_memories("web", search="green")] == ["m2"]
        assert alice.identity.get_memory("m3").content == "a note of mine"
        alice.settings.update(review_new_memories=1)
        pending = alice.identity.supersede("m2", "Deploys use the red pipeline.",
                                           source="mcp")
        assert alice.review.approve(pending.id).superseded == "m2"
        assert [m.id for m in alice.identity.list_memories("web", search="red")] == [pending.id]
        assert alice.maintenance.check() == []
    finally:
        upgraded.close()


# ---- the service writes as an agent -------------------------------------------------------

def test_the_service_writes_wait_for_review(team: Team, db_path: Path) -> None:
    from memtui.service.methods import ServiceContext, dispatch

    ctx = ServiceContext(engine=team.alice, store_path=str(db_path))
    added = dispatch(ctx, "memory.add", {"content": f"{MARKER} via the socket",
                                         "project": "web"})
    assert (added["status"], added["source"]) == ("pending", "service")
    active = team.alice.identity.add_memory("The queue is SQS.", "fact", "web")
    corrected = dispatch(ctx, "memory.correct", {"id": active.id, "content": "The queue is SNS."})
    assert corrected["status"] == "pending"
    recalled = dispatch(ctx, "memory.recall", {"query": MARKER, "project": "web"})
    assert MARKER not in json.dumps(recalled | {"query": ""})
    context = dispatch(ctx, "context.prepare", {"project": "web", "prompt": "go"})
    assert "SNS" not in context["prompt"] and "SQS" in context["prompt"]
    with pytest.raises(InvalidInput):
        dispatch(ctx, "memory.add", {"content": "  "})
    team.alice.settings.update(review_new_memories=0)
    assert dispatch(ctx, "memory.add", {"content": "now active"})["status"] == "active"


def test_backup_and_restore_keep_pending_corrections(team: Team, tmp_path: Path,
                                                     clock: FixedClock) -> None:
    old = team.alice.identity.add_memory("The queue is SQS.", "fact", "web")
    pending = team.alice.identity.supersede(old.id, "The queue is SNS.", source="mcp")
    lines = list(team.alice.maintenance.export_lines())
    restored = open_store(tmp_path / "restored.db", clock=clock)
    try:
        alice = Engine(restored, "alice")
        alice.maintenance.import_lines(lines)
        [item] = alice.review.items()
        assert (item.id, item.replaces, item.memory.status) == (pending.id, old.id, "pending")
        assert alice.review.approve(item.id).superseded == old.id
        assert alice.maintenance.check() == []
    finally:
        restored.close()


# ---- MCP: agents' writes wait; answers never carry pending text ------------------

def test_mcp_writes_wait_and_its_answers_never_carry_pending_text(team: Team,
                                                                 tmp_path: Path) -> None:
    from memtui.mcp.tools import USER_URI, McpSession, call_tool, read_resource

    session = McpSession(store=team.store, user="alice", cwd=str(tmp_path), client="test")
    team.alice.identity.add_memory("Deploys go through the blue pipeline.", "fact", "web")
    target = team.alice.identity.add_memory("The cache is Redis.", "fact")
    team.alice.settings.update(use_memories=1)
    added = call_tool(session, "memory_add", {"content": f"{MARKER} from the agent",
                                              "project": "web"})
    assert added["status"] == "pending" and added["memory"]["status"] == "pending"
    corrected = call_tool(session, "memory_correct", {"id": target.id,
                                                      "content": f"The cache is {MARKER}."})
    assert corrected["status"] == "pending"
    answers = [
        call_tool(session, "memory_recall", {"query": MARKER, "project": "web"}),
        call_tool(session, "memory_recall", {"query": "cache"}),
        call_tool(session, "memory_context", {"project": "web"}),
        read_resource(session, USER_URI),
        read_resource(session, "memtui://memories/project/web"),
    ]
    for answer in answers:
        assert MARKER not in json.dumps(answer)
    assert "The cache is Redis." in read_resource(session, USER_URI)
    assert {item.memory.source for item in team.alice.review.items()} == {"mcp"}
    team.alice.review.approve(corrected["memory"]["id"])
    assert MARKER in json.dumps(call_tool(session, "memory_recall", {"query": "cache"}))
