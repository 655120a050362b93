"""The service's engine API (``engine.recall``): interactions, recall, transitions,
consolidation records and bundles."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from backends import interaction_count

from memtui.engine import recall as recall_mod
from memtui.engine.api import Engine
from memtui.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from memtui.store import recall as recall_data
from memtui.store.database import Store

SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
STARTED, FINISHED = "2026-11-30T10:00:00Z", "2026-11-30T10:20:00Z"


@pytest.fixture
def team(engine_for: Callable[[str], Engine]) -> dict[str, Engine]:
    """alice owns ``web``; bob is a member; carol a reader; dave a stranger. bob owns
    ``secret`` (alice is not in it)."""
    alice, bob = engine_for("alice"), engine_for("bob")
    alice.identity.create_project("web")
    alice.identity.set_member("web", "bob", "member")
    alice.identity.set_member("web", "carol", "reader")
    bob.identity.create_project("secret")
    return {name: engine_for(name) for name in ("alice", "bob", "carol", "dave")}


def _task(engine: Engine, goal: str, result: str, project: str = "web") -> str:
    return engine.tasks.add_task(project, goal, goal, result, STARTED, FINISHED).id


# ---- interactions -------------------------------------------------------------------------

def test_remember_interaction_is_idempotent_and_redacted(team: dict[str, Engine],
                                                         store: Store) -> None:
    api = team["alice"].recall
    first = api.remember_interaction("q-1", "how did the deploy go?", f"fine, key {SECRET}",
                                     project="web", source="deskpaw")
    assert first.created and first.to_json() == {"interaction_id": "q-1", "created": True}
    assert SECRET not in first.interaction.answer and "[REDACTED]" in first.interaction.answer
    again = api.remember_interaction("q-1", "other question", "other answer")
    assert not again.created and again.interaction.question == "how did the deploy go?"
    assert interaction_count(store, "alice") == 1
    # the same id is another user's own interaction
    assert team["bob"].recall.remember_interaction("q-1", "bob asks", "bob answers").created


@pytest.mark.parametrize(("args", "error"), [
    (("bad id!", "q", "a"), InvalidInput),
    (("q", "", "a"), InvalidInput),
    (("q", "question", "   "), InvalidInput),
    (("q", "question", "a\x00b"), InvalidInput),
    (("q", "question", "x" * (70 * 1024)), InvalidInput),
])
def test_remember_interaction_refuses_bad_input(team: dict[str, Engine], store: Store,
                                                args: tuple, error: type) -> None:
    with pytest.raises(error):
        team["alice"].recall.remember_interaction(*args)
    assert interaction_count(store, "alice") == 0


def test_remember_interaction_needs_a_readable_project(team: dict[str, Engine],
                                                       store: Store) -> None:
    with pytest.raises(NotFound):
        team["alice"].recall.remember_interaction("q", "question", "answer", project="secret")
    assert interaction_count(store, "alice") == 0


# ---- recall -------------------------------------------------------------------------------

def test_recall_ranks_related_and_respects_visibility(team: dict[str, Engine]) -> None:
    alice, bob = team["alice"], team["bob"]
    relevant = alice.identity.add_memory("The payments webhook retries three times with "
                                         "backoff", "fact", "web")
    alice.identity.add_memory("Lunch is at noon", "fact", "web")
    alice.identity.add_memory("I like payments code reviewed twice", "preference")
    bob.identity.add_memory("bob's private payments webhook note", "fact")
    bob.identity.add_memory("payments webhook in the secret project", "fact", "secret")
    old = alice.identity.add_memory("payments webhook used to retry once", "fact", "web")
    alice.identity.supersede(old.id, "Lunch moved to one")
    _task(alice, "Fix payments webhook retries", "Added exponential backoff to the webhook")
    _task(bob, "Fix secret payments webhook", "secret", project="secret")
    alice.recall.remember_interaction("i1", "why does the webhook retry?", "backoff policy")

    result = alice.recall.recall("payments webhook", limit=5)
    related = [m.id for m in result.related_memories]
    assert related[0] == relevant.id
    contents = " ".join(m.content for m in (*result.related_memories, *result.recent_memories))
    assert "bob" not in contents and "secret" not in contents and "retry once" not in contents
    assert [t.goal for t in result.related_task_cards] == ["Fix payments webhook retries"]
    assert [i.id for i in result.related_interactions] == ["i1"]
    assert team["bob"].recall.recall("webhook").related_interactions == ()
    as_json = result.to_json()
    for key in ("related_memories", "recent_memories", "related_task_cards",
                "recent_task_cards", "related_interactions", "recent_interactions", "bundles"):
        assert isinstance(as_json[key], list)
    json.dumps(as_json)


def test_recall_lists_are_bounded_by_limit(team: dict[str, Engine]) -> None:
    alice = team["alice"]
    for i in range(12):
        alice.identity.add_memory(f"deploy note number {i}", "fact", "web")
        alice.identity.add_memory(f"deploy preference {i}", "preference")
        _task(alice, f"deploy task {i}", "deployed")
        alice.recall.remember_interaction(f"i{i}", f"deploy question {i}", "answer")
        alice.recall.put_document(f"schedule:s{i}", "INDEX.md", "deploy index", 0)
    result = alice.recall.recall("deploy", limit=4)
    for items in (result.related_memories, result.recent_memories, result.related_task_cards,
                  result.recent_task_cards, result.related_interactions,
                  result.recent_interactions):
        assert len(items) == 4
    assert len(result.bundles) == recall_mod.MAX_RECALL_BUNDLES
    newest = result.recent_memories
    assert [m.created_at for m in newest] == sorted((m.created_at for m in newest), reverse=True)
    assert alice.recall.recall("deploy", limit=10_000).limit == recall_mod.MAX_RECALL_LIMIT


@pytest.mark.parametrize("limit", [0, -1, True, 2.5, "3"])
def test_recall_refuses_a_bad_limit(team: dict[str, Engine], limit: object) -> None:
    with pytest.raises(InvalidInput):
        team["alice"].recall.recall("x", limit=limit)  # type: ignore[arg-type]


def test_recall_with_a_project_keeps_to_it(team: dict[str, Engine]) -> None:
    alice = team["alice"]
    alice.identity.create_project("other")
    alice.identity.add_memory("deploy web", "fact", "web")
    alice.identity.add_memory("deploy other", "fact", "other")
    alice.identity.add_memory("deploy mine", "fact")
    found = {m.content for m in alice.recall.recall("deploy", project="web").related_memories}
    assert found == {"deploy web", "deploy mine"}
    with pytest.raises(NotFound):
        alice.recall.recall("deploy", project="secret")
    with pytest.raises(NotFound):
        team["dave"].recall.recall("deploy", project="web")


def test_recall_of_words_too_common_to_rank(team: dict[str, Engine],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recall_data, "RANK_BUDGET", 2)
    alice = team["alice"]
    for i in range(6):
        alice.identity.add_memory(f"common words here {i}", "fact", "web")
    alice.identity.add_memory("rare zebra words", "fact", "web")
    # "zebra" is selective: ranked; "words" alone is too common: the newest holders come back
    assert [m.content for m in alice.recall.recall("zebra words").related_memories] == \
        ["rare zebra words"]
    newest = [m.content for m in alice.recall.recall("common words", limit=3).related_memories]
    assert newest == ["common words here 5", "common words here 4", "common words here 3"]
    assert alice.recall.recall("?!").related_memories == ()
    assert alice.recall.recall("").related_memories == ()


def test_recall_bundles_put_the_named_project_first(team: dict[str, Engine]) -> None:
    alice = team["alice"]
    alice.identity.create_project("other")
    alice.recall.put_document("project:web", "INDEX.md", "# Web\nthe web bundle", 0)
    for name in ("alpha", "beta", "gamma"):
        alice.recall.put_document(f"schedule:{name}", "lessons.md", "x", 0)
    bundles = alice.recall.recall("anything", project="web").bundles
    assert bundles[0].bundle == "project:web" and bundles[0].index.startswith("# Web")
    assert len(bundles) == 3
    assert alice.recall.recall("beta").bundles[0].bundle == "schedule:beta"


# ---- transitions --------------------------------------------------------------------------

def test_transition_by_relatedness(team: dict[str, Engine]) -> None:
    alice = team["alice"]
    task_id = _task(alice, "Add retries to the payments webhook", "Backoff added; tests pass")
    api = alice.recall
    cont = api.transition_assess(task_id, "now also cover the payments webhook backoff in tests")
    assert cont.decision == "continue" and cont.score >= recall_mod.CONTINUE_THRESHOLD
    assert "webhook" in cont.shared_terms and "continue" in cont.reason
    new = api.transition_assess(task_id, "what is the weather in Berlin tomorrow")
    assert new.decision == "new" and new.score < recall_mod.CONTINUE_THRESHOLD
    assert api.transition_assess(None, "anything").decision == "new"
    inline = api.transition_assess({"goal": "整理日程资料", "result": "done"}, "日程资料怎么样了")
    assert inline.decision == "continue"
    assert api.transition_assess({"goal": "x"}, "the a of").reason.startswith("the request")


def test_transition_refuses_bad_current_tasks(team: dict[str, Engine]) -> None:
    api = team["alice"].recall
    with pytest.raises(NotFound):
        api.transition_assess("task_9999", "anything")
    secret_task = _task(team["bob"], "secret goal", "secret", project="secret")
    with pytest.raises(NotFound):
        api.transition_assess(secret_task, "secret goal")
    with pytest.raises(InvalidInput):
        api.transition_assess({"goal": "x", "user": "bob"}, "x")
    with pytest.raises(InvalidInput):
        api.transition_assess(["x"], "x")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        api.transition_assess(None, "")


# ---- consolidation records ----------------------------------------------------------------

def test_consolidation_records(team: dict[str, Engine], store: Store) -> None:
    api = team["alice"].recall
    record = api.record_consolidation("context_compaction", "ok",
                                      {"tokens": 1200, "note": f"key {SECRET}"})
    assert record.detail["tokens"] == 1200 and SECRET not in json.dumps(record.detail)
    assert [r.id for r in api.consolidations()] == [record.id]
    assert team["bob"].recall.consolidations() == []
    audit = store.audit.list_for("alice", 5)
    assert audit[0].action == "consolidation_recorded" and SECRET not in json.dumps(
        audit[0].detail)
    for bad in ({"kind": "bad kind", "outcome": "ok"}, {"kind": "k", "outcome": ""},
                {"kind": "k", "outcome": "ok", "detail": [1]},
                {"kind": "k", "outcome": "ok", "detail": {"x": "y" * 20_000}}):
        with pytest.raises(InvalidInput):
            api.record_consolidation(**bad)
    deep: dict = {}
    for _ in range(40):
        deep = {"d": deep}
    with pytest.raises(InvalidInput):
        api.record_consolidation("k", "ok", deep)
    assert len(api.consolidations()) == 1


# ---- bundles ------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["INDEX.md", "requirements.md", "preferences.md",
                                  "lessons.md", "state.json", "runs/run-1/summary.md"])
def test_document_paths_allowed(path: str) -> None:
    assert recall_mod.check_document_path(path) == path


@pytest.mark.parametrize("path", ["notes.md", "../INDEX.md", "/INDEX.md", "runs/../summary.md",
                                  "runs/a/b/summary.md", "runs/a/other.md", "runs//summary.md",
                                  "runs/a..b/summary.md", "index.md", "INDEX.md/", 7, None,
                                  "runs/a\\b/summary.md", "state.json\x00"])
def test_document_paths_refused(path: object) -> None:
    with pytest.raises(InvalidInput):
        recall_mod.check_document_path(path)


def test_bundle_documents_compare_and_set(team: dict[str, Engine], store: Store) -> None:
    api = team["alice"].recall
    assert api.put_document("project:web", "INDEX.md", "v1", 0).revision == 1
    assert api.put_document("project:web", "INDEX.md", "v2", 1).revision == 2
    for stale in (0, 1, 3):
        with pytest.raises(Conflict) as caught:
            api.put_document("project:web", "INDEX.md", "lost", stale)
        assert caught.value.detail == {"current_revision": 2}
    with pytest.raises(Conflict) as caught:
        api.put_document("project:web", "lessons.md", "never written", 4)
    assert caught.value.to_json()["current_revision"] == 0
    docs = api.get_bundle("project:web").documents
    assert [(d.path, d.revision, d.content) for d in docs] == [("INDEX.md", 2, "v2")]
    audit = [e for e in store.audit.list_for("alice", 20) if e.action == "bundle_document_written"]
    assert len(audit) == 2 and "v2" not in json.dumps([e.detail for e in audit])


def test_bundle_writes_are_redacted_and_checked(team: dict[str, Engine]) -> None:
    api = team["alice"].recall
    api.put_document("project:web", "lessons.md", f"never paste {SECRET}", 0)
    api.put_document("project:web", "state.json", json.dumps({"token": SECRET, "n": 1}), 0)
    docs = {d.path: d.content for d in api.get_bundle("project:web").documents}
    assert SECRET not in json.dumps(docs)
    assert json.loads(docs["state.json"])["n"] == 1
    for content in ("{not json", "[" * 100 + "]" * 100, "[" * 100_000):
        with pytest.raises(InvalidInput):
            api.put_document("project:web", "state.json", content, 1)
    for bad in (("web", "INDEX.md", "x", 0), ("project:", "INDEX.md", "x", 0),
                ("project:web", "INDEX.md", "x", -1), ("project:web", "INDEX.md", "x", True),
                ("project:web", "INDEX.md", 5, 0), ("other:web", "INDEX.md", "x", 0),
                ("project:web", "INDEX.md", "x" * (300 * 1024), 0)):
        with pytest.raises(InvalidInput):
            api.put_document(*bad)
    assert {d.path for d in api.get_bundle("project:web").documents} == {"lessons.md",
                                                                          "state.json"}


def test_bundle_permissions(team: dict[str, Engine]) -> None:
    team["alice"].recall.put_document("project:web", "INDEX.md", "web", 0)
    assert team["bob"].recall.put_document("project:web", "INDEX.md", "bob", 1).revision == 2
    assert team["carol"].recall.get_bundle("project:web").documents[0].content == "bob"
    with pytest.raises(PermissionDenied):
        team["carol"].recall.put_document("project:web", "INDEX.md", "carol", 2)
    for call in (lambda api: api.get_bundle("project:web"),
                 lambda api: api.put_document("project:web", "INDEX.md", "dave", 2),
                 lambda api: api.list_bundles("web")):
        with pytest.raises(NotFound):
            call(team["dave"].recall)
    assert team["dave"].recall.list_bundles() == []
    assert team["alice"].recall.get_bundle("project:web").documents[0].revision == 2


def test_schedule_bundles_are_private_to_their_user(team: dict[str, Engine]) -> None:
    alice, bob = team["alice"].recall, team["bob"].recall
    with pytest.raises(NotFound):
        alice.get_bundle("schedule:daily")
    alice.put_document("schedule:daily", "runs/r1/summary.md", "alice's run", 0)
    with pytest.raises(NotFound):
        bob.get_bundle("schedule:daily")
    assert bob.put_document("schedule:daily", "runs/r1/summary.md", "bob's run", 0).revision == 1
    assert alice.get_bundle("schedule:daily").documents[0].content == "alice's run"
    listed = [b.to_json() for b in alice.list_bundles()]
    assert [b["bundle"] for b in listed] == ["schedule:daily"]
    assert listed[0]["documents"] == [{"path": "runs/r1/summary.md", "revision": 1}]
    assert [b.bundle for b in bob.list_bundles()] == ["schedule:daily"]


def test_a_bundle_holds_a_bounded_number_of_documents(team: dict[str, Engine],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recall_mod, "MAX_BUNDLE_DOCUMENTS", 2)
    api = team["alice"].recall
    api.put_document("schedule:s", "runs/1/summary.md", "x", 0)
    api.put_document("schedule:s", "runs/2/summary.md", "x", 0)
    with pytest.raises(InvalidInput):
        api.put_document("schedule:s", "runs/3/summary.md", "x", 0)
    assert api.put_document("schedule:s", "runs/2/summary.md", "y", 1).revision == 2
