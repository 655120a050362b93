"""Identity rules through the engine API."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from backends import fulltext_count

from memtui.engine.api import Engine
from memtui.errors import InvalidInput, NotFound, PermissionDenied
from memtui.store.database import Store
from memtui.store.timeutil import FixedClock

EngineFor = Callable[[str], Engine]


@pytest.fixture
def team(engine_for: EngineFor) -> tuple[Engine, Engine, Engine, Engine]:
    """alice owns 'web'; bob is a member, carol a reader, dave a stranger."""
    alice, bob, carol, dave = (engine_for(n) for n in ("alice", "bob", "carol", "dave"))
    alice.identity.create_project("web", "Web", None)
    alice.identity.set_member("web", "bob", "member")
    alice.identity.set_member("web", "carol", "reader")
    return alice, bob, carol, dave


def test_user_memory_is_visible_to_its_owner_only(team) -> None:
    alice, bob, _carol, _dave = team
    memory = alice.identity.add_memory("Prefers tabs", "preference")
    assert memory.scope == "user" and memory.project is None and memory.owner == "alice"
    assert alice.identity.get_memory(memory.id) == memory
    with pytest.raises(NotFound) as hidden:
        bob.identity.get_memory(memory.id)
    with pytest.raises(NotFound) as missing:
        bob.identity.get_memory("mem_9999")
    assert str(hidden.value).replace(memory.id, "X") == str(missing.value).replace("mem_9999", "X")
    assert bob.identity.list_memories() == []
    for action in (lambda: bob.identity.supersede(memory.id, "x"),
                   lambda: bob.identity.forget(memory.id),
                   lambda: bob.identity.history(memory.id)):
        with pytest.raises(NotFound):
            action()


def test_memory_pages_read_only_lists_the_actor_may_read(team) -> None:
    alice, bob, carol, dave = team
    mine = [alice.identity.add_memory(f"Note {n}", "fact") for n in range(3)]
    web = bob.identity.add_memory("Use Postgres 16", "decision", "web")
    flt = alice.identity.memory_filter()
    newest_first = [m.id for m in reversed(mine)]
    assert [m.id for m in alice.identity.memory_page(flt, 2)] == newest_first[:2]
    assert [m.id for m in alice.identity.memories_at(flt, 1, 5)] == newest_first[1:]
    assert [m.id for m in alice.identity.memories_at(flt, 0, 1, from_end=True)] == \
        newest_first[-1:]
    web_flt = carol.identity.memory_filter("web")
    assert [m.id for m in carol.identity.memory_page(web_flt, 5)] == [web.id]
    assert carol.identity.count_memories(web_flt) == 1
    # A filter made for another actor reads nothing: NotFound, like an unknown list.
    for stranger, other in ((bob, flt), (dave, web_flt)):
        with pytest.raises(NotFound):
            stranger.identity.memory_page(other, 5)
        with pytest.raises(NotFound):
            stranger.identity.memories_at(other, 0, 5)
        with pytest.raises(NotFound):
            stranger.identity.count_memories(other)
        with pytest.raises(NotFound):
            stranger.identity.count_memories_at_most(other, 5)


def test_project_memories_follow_roles(team) -> None:
    alice, bob, carol, dave = team
    by_bob = bob.identity.add_memory("Use Postgres 16", "decision", "web")
    assert by_bob.scope == "project" and by_bob.project == "web"
    assert [m.id for m in carol.identity.list_memories("web")] == [by_bob.id]
    with pytest.raises(PermissionDenied):
        carol.identity.add_memory("reader write", "fact", "web")
    with pytest.raises(PermissionDenied):
        carol.identity.supersede(by_bob.id, "changed")
    with pytest.raises(PermissionDenied):
        carol.identity.forget(by_bob.id)
    with pytest.raises(NotFound):
        dave.identity.list_memories("web")
    with pytest.raises(NotFound):
        dave.identity.get_memory(by_bob.id)
    with pytest.raises(NotFound):
        dave.identity.add_memory("x", "fact", "web")
    with pytest.raises(NotFound):
        alice.identity.add_memory("x", "fact", "no-such-project")


def test_only_owners_manage_members(team) -> None:
    alice, bob, carol, dave = team
    with pytest.raises(PermissionDenied):
        bob.identity.set_member("web", "dave", "member")
    with pytest.raises(NotFound):
        dave.identity.set_member("web", "dave", "owner")
    with pytest.raises(InvalidInput):
        alice.identity.set_member("web", "dave", "admin")
    with pytest.raises(InvalidInput, match="at least one owner"):
        alice.identity.set_member("web", "alice", "reader")
    alice.identity.set_member("web", "dave", "reader")
    assert [p.id for p, role in dave.identity.list_projects()] == ["web"]


@pytest.mark.parametrize("content", ["", "   \n\t", "a\x00b", "x" * (64 * 1024 + 1)])
def test_bad_content_is_refused(team, content: str) -> None:
    alice = team[0]
    with pytest.raises(InvalidInput):
        alice.identity.add_memory(content, "fact")
    assert alice.identity.list_memories(status="all") == []


def test_unknown_kind_and_invalid_utf8_are_refused(team) -> None:
    alice = team[0]
    with pytest.raises(InvalidInput, match="unknown kind"):
        alice.identity.add_memory("x", "opinion")
    with pytest.raises(InvalidInput, match="UTF-8"):
        alice.identity.add_memory("bad \udcff surrogate", "fact")


def test_supersede_chain_and_history(team, clock: FixedClock) -> None:
    alice = team[0]
    first = alice.identity.add_memory("v1", "fact", "web")
    clock.advance(1)
    second = alice.identity.supersede(first.id, "v2")
    clock.advance(1)
    third = alice.identity.supersede(second.id, "v3", kind="decision")
    old = alice.identity.get_memory(first.id)
    assert old.status == "superseded" and old.superseded_by == second.id
    assert third.kind == "decision" and third.status == "active"
    assert [m.id for m in alice.identity.history(second.id)] == [first.id, second.id, third.id]
    with pytest.raises(InvalidInput, match=second.id):
        alice.identity.supersede(first.id, "again")
    assert [m.id for m in alice.identity.list_memories("web")] == [third.id]
    assert {m.id for m in alice.identity.list_memories("web", status="all")} == {
        first.id, second.id, third.id}


def test_forget_removes_every_version_and_search_rows(team, store: Store, db_path: Path) -> None:
    alice = team[0]
    first = alice.identity.add_memory("zebraphrase alpha version", "fact", "web")
    second = alice.identity.supersede(first.id, "zebraphrase beta version")
    keep = alice.identity.add_memory("unrelated keeper", "fact", "web")
    assert alice.identity.list_memories("web", search="zebraphrase", status="all")
    result = alice.identity.forget(first.id)
    assert set(result.removed_ids) == {first.id, second.id} and result.count == 2
    assert alice.identity.list_memories("web", search="zebraphrase", status="all") == []
    assert [m.id for m in alice.identity.list_memories("web")] == [keep.id]
    assert fulltext_count(store, "zebraphrase") == 0
    entry = alice.identity.audit(1)[0]
    assert entry.action == "memory_forgotten" and "zebraphrase" not in str(entry.detail)
    with pytest.raises(NotFound):
        alice.identity.get_memory(second.id)


@pytest.mark.sqlite_only  # the file and its WAL
def test_forgotten_text_is_gone_from_the_database_file(team, store: Store, db_path: Path) -> None:
    alice = team[0]
    secret_text = "Quokka-Marmalade-Protocol launches at dawn"
    memory = alice.identity.add_memory(secret_text, "fact")
    alice.identity.supersede(memory.id, secret_text + " and dusk")
    store.checkpoint()
    alice.identity.forget(memory.id)
    store.checkpoint()
    for path in (db_path, Path(str(db_path) + "-wal")):
        if path.exists():
            assert secret_text.encode() not in path.read_bytes()


def test_forget_of_an_extracted_memory_leaves_a_tombstone(team, store: Store) -> None:
    alice = team[0]
    memory = alice.identity.add_memory("from a task", "fact", "web", source="auto",
                                       source_thread_id="task_0042")
    alice.identity.forget(memory.id)
    assert store.memories.is_forgotten_source("task_0042")


def test_context_latest_five_newest_first_with_stable_ties(team, clock: FixedClock) -> None:
    alice = team[0]
    user_ids = []
    for i in range(7):
        user_ids.append(alice.identity.add_memory(f"user {i}", "fact").id)
        if i % 2:
            clock.advance(1)  # pairs share a timestamp: ties broken by id
    project_ids = [alice.identity.add_memory(f"proj {i}", "fact", "web").id for i in range(6)]
    superseded = alice.identity.supersede(project_ids[0], "proj 0 fixed")
    context = alice.identity.context("web")
    assert [m.id for m in context.user_memories] == sorted(user_ids, reverse=True)[:5]
    assert len(context.project_memories) == 5
    assert context.project_memories[0].id == superseded.id
    assert project_ids[0] not in [m.id for m in context.project_memories]
    assert "User memories:" in context.text and "Project memories:" in context.text
    assert context.profile.user_id == "alice"
    assert context.project_summary == ""


def test_profile_rules(team) -> None:
    alice, bob = team[0], team[1]
    profile = alice.identity.update_profile(display_name="Alice", timezone="Europe/Berlin",
                                            preferences={"editor": "vim"})
    assert profile.timezone == "Europe/Berlin" and profile.preferences == {"editor": "vim"}
    for bad in ({"nested": {"deep": [{"GitHub_Token": "x"}]}}, {"API-Key": 1},
                {"db": {"Password": "x"}}, {"credentials": []}, {"mySecret": 1}):
        with pytest.raises(InvalidInput, match="looks like a secret"):
            alice.identity.update_profile(preferences=bad)
    with pytest.raises(InvalidInput, match="time zone"):
        alice.identity.update_profile(timezone="Mars/Olympus")
    with pytest.raises(InvalidInput, match="JSON object"):
        alice.identity.update_profile(preferences=["not", "an", "object"])  # type: ignore[arg-type]
    nested: dict = {}
    cursor = nested
    for _ in range(100):
        cursor["a"] = {}
        cursor = cursor["a"]
    with pytest.raises(InvalidInput, match="deeper"):
        alice.identity.update_profile(preferences=nested)
    assert alice.identity.profile().preferences == {"editor": "vim"}
    assert bob.identity.profile().user_id == "bob"


def test_audit_is_append_only_and_holds_no_content(team, store: Store) -> None:
    alice = team[0]
    memory = alice.identity.add_memory("very private words", "fact")
    alice.identity.supersede(memory.id, "more private words")
    for (detail,) in store.execute("SELECT detail FROM audit").fetchall():
        assert "private" not in detail
    with pytest.raises(Exception, match="append-only"):
        store.execute("UPDATE audit SET actor = 'x'")


def test_project_for_path_picks_the_deepest_root(engine_for: EngineFor, tmp_path: Path) -> None:
    alice = engine_for("alice")
    alice.identity.create_project("outer", root=str(tmp_path))
    alice.identity.create_project("inner", root=str(tmp_path / "sub"))
    assert alice.identity.project_for_path(tmp_path / "sub" / "deep").id == "inner"
    assert alice.identity.project_for_path(tmp_path / "other").id == "outer"
    assert alice.identity.project_for_path("/") is None
    # Only projects the actor made or accepted count; the deepest of those wins.
    bob = engine_for("bob")
    alice.identity.set_member("outer", "bob", "reader")
    deep = tmp_path / "sub" / "deep"
    assert bob.identity.project_for_path(deep) is None
    assert bob.identity.accept_project("outer")
    assert bob.identity.project_for_path(deep).id == "outer"
    alice.identity.set_member("inner", "bob", "reader")
    assert bob.identity.project_for_path(deep).id == "outer"
    bob.identity.accept_project("inner")
    assert bob.identity.project_for_path(deep).id == "inner"
    assert engine_for("carol").identity.project_for_path(deep) is None


def test_accepting_a_membership(team, tmp_path: Path) -> None:
    alice, bob, carol, dave = team
    alice.identity.create_project("site", root=str(tmp_path))
    alice.identity.set_member("site", "bob", "member")
    assert [p.id for p in bob.identity.chosen_projects()] == []
    assert bob.identity.accept_project("site") is True
    assert bob.identity.accept_project("site") is False  # once is enough
    assert [e.action for e in bob.identity.audit(5)] == ["member_accepted"]
    alice.identity.set_member("site", "bob", "reader")  # a new role keeps the acceptance
    assert [p.id for p in bob.identity.chosen_projects()] == ["site"]
    assert bob.identity.project_for_path(tmp_path).id == "site"
    assert alice.identity.accept_project("site") is False  # a creator needs no acceptance
    assert alice.identity.audit(1)[0].action == "member_set"
    # a stranger, an unknown project and a bad id: the same "not found", nothing written
    for who, project in ((dave, "site"), (dave, "nope"), (carol, "nope"), (dave, "../x")):
        with pytest.raises(NotFound):
            who.identity.accept_project(project)
    assert dave.identity.audit(5) == [] and carol.identity.chosen_projects() == []


def test_an_agent_recalls_a_project_only_once_its_membership_is_accepted(team) -> None:
    alice, bob, _carol, _dave = team
    memory = alice.identity.add_memory("Releases go out on Thursdays", "fact", "web")
    for_agent = [m.id for m in bob.recall.recall("releases", for_agent=True).related_memories]
    assert for_agent == [] and bob.recall.recall_memories("releases", for_agent=True) == []
    assert [m.id for m in bob.recall.recall("releases").related_memories] == [memory.id]
    named = bob.recall.recall_memories("releases", project="web", for_agent=True)
    assert [m.id for m in named] == [memory.id]
    bob.identity.accept_project("web")
    assert [m.id for m in bob.recall.recall_memories("releases", for_agent=True)] == [memory.id]


def test_bulk_forget_is_all_or_nothing(team) -> None:
    alice = team[0]
    a = alice.identity.add_memory("a", "fact")
    b = alice.identity.add_memory("b", "fact")
    with pytest.raises(NotFound):
        alice.identity.forget_many([a.id, "mem_missing", b.id])
    assert len(alice.identity.list_memories()) == 2
    results = alice.identity.forget_many([a.id, b.id])
    assert sum(r.count for r in results) == 2 and alice.identity.list_memories() == []
