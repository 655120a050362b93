"""Recall of questions: the analysis (stems, stop and question words, questions about the
user), the ranking (tiers, what never appears) on both backends, the optional vectors'
blend and cache, and the labelled benchmark set."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from memtui.bench import recall_quality
from memtui.engine import recall as recall_module
from memtui.engine import recall_vectors, recall_window
from memtui.engine.api import Engine
from memtui.engine.recall_query import analyse, forms, stem, tool_names
from memtui.store.backend import StoreBackend
from memtui.store.models import Memory
from memtui.store.recall import recall_terms


@pytest.mark.parametrize("words", [
    ("linter", "linting", "lints", "lint", "linters"),
    ("formatting", "formatter", "formats", "format"),
    ("migration", "migrations", "migrate", "migrated"),
    ("running", "runs", "run", "runner"),
    ("dependency", "dependencies"),
    ("configure", "configured", "configuration", "configures"),
    ("deploy", "deployment", "deployments", "deployed", "deploys"),
    ("prefers", "preference", "preferences", "prefer"),
])
def test_each_form_of_a_word_finds_the_others(words: tuple[str, ...]) -> None:
    for word in words:
        assert word.startswith(stem(word))
        assert set(words) <= set(forms(word)), (word, set(words) - set(forms(word)))


def test_questions_lose_stop_and_question_words_and_name_the_user() -> None:
    question = analyse("What linter do we use?")
    assert question.match == " ".join(["|".join(forms("linter")), *tool_names(["linter"])])
    assert not question.about_user
    assert question.words == ("linter",)
    assert analyse("what do I prefer for indentation").about_user
    assert analyse("What is MY editor").about_user
    # nothing but stop words: the words themselves are searched
    assert analyse("what do we use").words == ("what", "do", "we", "use")
    # numbers, snake_case and other scripts are matched as written
    assert analyse("sync_layout 2026 日本語").match == "sync_layout 2026 日本語"
    assert analyse("").match == "" and analyse("?!").match == ""


def test_recall_terms_group_forms(store: StoreBackend) -> None:
    terms = recall_terms("lint|linter ruff LINT|linter", store.dialect)
    any_term = store.dialect.any_term
    assert terms == [f"({store.dialect.term('lint')}{any_term}{store.dialect.term('linter')})",
                     store.dialect.term("ruff")]


@pytest.fixture
def people(engine_for: Callable[[str], Engine]) -> dict[str, Engine]:
    """alice owns web and api; bob owns a project of his own."""
    alice, bob = engine_for("alice"), engine_for("bob")
    alice.identity.create_project("web")
    alice.identity.create_project("api")
    bob.identity.create_project("secret")
    return {"alice": alice, "bob": bob}


def _contents(memories: list[Memory]) -> list[str]:
    return [memory.content for memory in memories]


def test_a_question_finds_other_forms_and_ranks_by_the_words_that_matter(
        people: dict[str, Engine]) -> None:
    alice = people["alice"]
    alice.identity.add_memory("Uses ruff for linting and formatting; line length 100.",
                              "convention", "web")
    alice.identity.add_memory("The embedding cache is warmed by a job we use nightly.",
                              "fact", "web")
    found = alice.recall.recall_memories("what linter do we use", 3, "web",
                                         every_project=False)
    assert _contents(found)[:1] == ["Uses ruff for linting and formatting; line length 100."]
    # the service's recall ranks the same way
    result = alice.recall.recall("What linters do we use?", 1, "web")
    assert _contents(list(result.related_memories)) == _contents(found)[:1]


def test_current_project_first_and_the_users_own_first_when_asked_about_the_user(
        people: dict[str, Engine]) -> None:
    alice = people["alice"]
    alice.identity.add_memory("Deploys of api go through canary first.", "fact", "api")
    alice.identity.add_memory("Deploys of web go through canary first.", "fact", "web")
    alice.identity.add_memory("Alice deploys on Fridays and prefers canary first.",
                              "preference")
    every = alice.recall.recall_memories("how do deploys work with canary", 3, "web")
    assert every[0].project == "web"
    assert "api" not in {memory.project for memory in every}  # only web and her own
    mine = alice.recall.recall_memories("when do I deploy with canary", 3, "web")
    assert mine[0].scope == "user"
    # with no current project every readable project takes part
    found = alice.recall.recall_memories("canary deploys", 5)
    assert {memory.project for memory in found} == {"api", "web", None}


def test_pending_forgotten_superseded_and_other_users_text_never_appears(
        people: dict[str, Engine]) -> None:
    alice, bob = people["alice"], people["bob"]
    old = alice.identity.add_memory("The linter is flake8.", "fact", "web")
    alice.identity.supersede(old.id, "The linter is ruff.")
    gone = alice.identity.add_memory("The linter config lives in setup.cfg.", "fact", "web")
    alice.identity.forget(gone.id)
    alice.settings.update(review_new_memories=1)
    alice.identity.add_memory("The linter runs in pre-commit.", "fact", "web", source="mcp")
    bob.identity.add_memory("Bob's linter is pylint.", "fact", "secret")
    bob.identity.add_memory("Bob lints with pylint.", "preference")
    found = alice.recall.recall_memories("which linter", 10)
    assert _contents(found) == ["The linter is ruff."]


def test_bad_queries(people: dict[str, Engine]) -> None:
    alice = people["alice"]
    alice.identity.add_memory("quoted \"words\" and stars * stay text", "fact")
    for query in ('"', "*", "lint* OR NEAR(", "AND", "'--", "x" * 5000):
        alice.recall.recall_memories(query, 5)  # never a full-text syntax error
    assert _contents(alice.recall.recall_memories('stars "words"', 5)) == [
        "quoted \"words\" and stars * stay text"]


# ---- the vectors' blend, with a stand-in model --------------------------------------------

def _memory(memory_id: str, content: str, updated_at: str = "2026-12-01T10:00:00.000Z") -> Memory:
    return Memory(id=memory_id, scope="user", owner="alice", project=None, kind="fact",
                  content=content, status="active", superseded_by=None, source="manual",
                  source_thread_id=None, created_at=updated_at, updated_at=updated_at,
                  usage_count=0, last_used_at=None)


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """A two-dimensional stand-in model: texts about "database" point one way, the rest the
    other. Returns the batches it was asked to embed."""
    calls: list[list[str]] = []

    def embedder() -> Callable[[list[str]], list[list[float]]]:
        def embed(texts: list[str]) -> list[list[float]]:
            calls.append(list(texts))
            return [[1.0, 0.0] if "database" in text or "aurora" in text.lower()
                    else [0.0, 1.0] for text in texts]
        return embed

    monkeypatch.setattr(recall_vectors, "_embedder", embedder)
    monkeypatch.setattr(recall_vectors, "CACHE", recall_vectors.VectorCache())
    return calls


def test_blend_adds_memories_the_full_text_missed_and_keeps_strong_matches(
        fake_model: list[list[str]]) -> None:
    strong, weak = _memory("m1", "ruff lint"), _memory("m2", "Aurora 16 in production")
    cache = recall_vectors.VectorCache()
    blended = recall_vectors.blend("which database", [(strong, 10.0)], [weak], cache)
    assert [memory.id for memory, _score in blended] == ["m1", "m2"]
    assert blended[1][1] == pytest.approx(recall_vectors.VECTOR_WEIGHT)
    unlike = _memory("m3", "ruff formats")  # no shared word, not alike: left out
    assert [m.id for m, _s in recall_vectors.blend("which database", [], [unlike], cache)] == []
    assert recall_vectors.blend("which database", [], [], cache) == []


def test_the_cache_embeds_each_text_once_and_forgets_the_oldest(
        fake_model: list[list[str]]) -> None:
    cache = recall_vectors.VectorCache(size=2)
    first, second = _memory("m1", "a database"), _memory("m2", "other")
    same_text = _memory("m3", "other")
    assert cache.vectors([first, second, same_text]).tolist() == [[1, 0], [0, 1], [0, 1]]
    cache.vectors([first, second])
    assert fake_model == [["a database", "other"]]
    changed = _memory("m1", "now other", "2026-12-02T10:00:00.000Z")
    assert cache.vectors([changed]).tolist() == [[0, 1]]
    assert fake_model[-1] == ["now other"]
    cache.vectors([first])  # evicted by the change (size 2): embedded again
    assert fake_model[-1] == ["a database"]



def test_the_cache_keys_each_text_by_a_hash_not_the_text(
        fake_model: list[list[str]]) -> None:
    cache = recall_vectors.VectorCache()
    long_text = "database " * 7000
    assert cache.vectors([_memory("m1", long_text)]).tolist() == [[1, 0]]
    assert cache.vectors([_memory("m2", long_text)]).tolist() == [[1, 0]]
    assert fake_model == [[long_text]]
    assert [len(key) for key in cache._vectors] == [32]

def test_hybrid_recall_through_the_engine(people: dict[str, Engine],
                                          fake_model: list[list[str]]) -> None:
    alice = people["alice"]
    alice.identity.add_memory("Aurora 16 is primary.", "decision", "web")
    alice.identity.add_memory("Ruff formats the code.", "convention", "web")
    alice.recall.use_vectors = False
    assert alice.recall.recall_memories("which database", 5, "web") == []
    alice.recall.use_vectors = True
    found = alice.recall.recall_memories("which database", 5, "web")
    assert _contents(found)[0] == "Aurora 16 is primary."


def test_without_the_extra_vectors_are_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(recall_vectors.VECTORS_ENV, "1")
    assert recall_vectors.vectors_wanted() == recall_vectors.vectors_available()
    monkeypatch.setattr(recall_vectors, "MODULE", "memtui_no_such_module")
    assert not recall_vectors.vectors_available() and not recall_vectors.vectors_wanted()


def test_the_environment_turns_the_vectors_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recall_vectors, "vectors_available", lambda: True)
    monkeypatch.setenv(recall_vectors.VECTORS_ENV, "0")
    assert not recall_vectors.vectors_wanted()
    monkeypatch.setenv(recall_vectors.VECTORS_ENV, "1")
    assert recall_vectors.vectors_wanted()


# ---- the labelled set ---------------------------------------------------------------------

def test_the_labelled_set_is_whole() -> None:
    data = recall_quality.load_set()
    ids = {memory["id"] for memory in data["memories"]}
    assert len(ids) == len(data["memories"])
    assert len(data["questions"]) >= 200
    assert {item["memory"] for item in data["questions"]} == ids
    for item in data["questions"]:  # worded away from the memory: never its whole text
        content = next(m["content"] for m in data["memories"] if m["id"] == item["memory"])
        assert item["question"].casefold() not in content.casefold()


def test_quality_of_full_text_recall_on_the_labelled_set(tmp_path: Path) -> None:
    data = recall_quality.load_set()
    engine, ids = recall_quality.build_store(tmp_path, data, distractors=0)
    try:
        found = recall_quality.score(engine, data, ids, hybrid=False)
    finally:
        engine.store.close()
    halves = found["dev"]["questions"], found["held_out"]["questions"]
    assert sum(halves) == found["all"]["questions"] == len(data["questions"])
    assert abs(halves[0] - halves[1]) <= 1
    for name in recall_quality.HALVES:
        assert found[name]["recall_at_1"] <= found[name]["recall_at_5"]
    assert found["all"]["recall_at_5"] >= 0.75, json.dumps(found["dev_missed"][:20])


def test_the_halves_split_by_index_and_metrics_count_misses() -> None:
    assert [recall_quality.half(i) for i in range(4)] == ["dev", "held_out"] * 2
    assert recall_quality.metrics([1, 2, None, None]) == {
        "questions": 4, "recall_at_1": 0.25, "recall_at_5": 0.5, "mrr": 0.375}
    assert recall_quality.metrics([])["recall_at_5"] == 0


def test_abbreviations_ask_for_their_other_spelling_both_ways() -> None:
    from memtui.engine.recall_query import analyse, expansions

    assert expansions(["my", "prs"]) == ["pull", "request"]
    assert expansions(["prod", "deploys"]) == ["production"]
    assert expansions(["continuous", "integration"]) == ["ci"]
    assert expansions(["the", "kubernetes", "db"]) == ["k8s", "database"]
    assert expansions(["ruff", "prodigy"]) == []
    heads = [group.split("|")[0] for group in analyse("when are prod releases allowed").match.split()]
    assert heads == ["prod", "releases", "allowed", "production"]


@pytest.mark.skipif(not recall_vectors.vectors_available(), reason="the embeddings extra is not installed")
@pytest.mark.parametrize(("question", "meant", "unrelated"), [
    ("which programming language for the backend", "The server is written in Python.",
     "The stand-up is at 09:30 every morning."),
    ("how do we ship to production", "Deployments go out every Tuesday through the release "
     "pipeline.", "Prefers dark themes in the editor."),
])
def test_the_real_model_ranks_a_paraphrase_above_an_unrelated_memory(
        question: str, meant: str, unrelated: str) -> None:
    wanted, near, far = recall_vectors.embed([question, meant, unrelated])
    assert sum(a * b for a, b in zip(wanted, near, strict=True)) > sum(
        a * b for a, b in zip(wanted, far, strict=True))
    tied = [(_memory("far", unrelated), 1.0), (_memory("near", meant), 1.0)]
    blended = recall_vectors.blend(question, tied, [], recall_vectors.VectorCache())
    assert [memory.id for memory, _score in blended] == ["near", "far"]


def test_british_and_american_spellings_find_each_other() -> None:
    from memtui.engine.recall_query import forms, spellings

    assert spellings("catalogue") == ["catalog"] and spellings("catalog") == ["catalogue"]
    assert spellings("behaviour") == ["behavior"] and spellings("organise") == ["organize"]
    assert spellings("colour") == [] and spellings("for") == []  # too short to tell
    assert "catalogue" in forms("catalog")


# ---- the vector window and the planner's counts --------------------------------------------

def _count_window_reads(monkeypatch: pytest.MonkeyPatch, store: StoreBackend) -> list[int]:
    """A spy on the window reads of the vectors (``recent_memories`` of VECTOR_WINDOW)."""
    reads: list[int] = []
    repository = type(store.recall)
    real = repository.recent_memories

    def spy(self: object, owner: str, projects: list[str], limit: int) -> list[Memory]:
        if limit == recall_vectors.VECTOR_WINDOW:
            reads.append(limit)
        return real(self, owner, projects, limit)  # type: ignore[arg-type]

    monkeypatch.setattr(repository, "recent_memories", spy)
    return reads


def _written_elsewhere(engine: Engine, store_target: str, text: str) -> None:
    """A project memory of ``web`` written by another connection (and, on PostgreSQL, its
    notice waited for by ``engine``'s store)."""
    from memtui.store.database import open_store

    other = open_store(store_target)
    try:
        Engine(other, "alice").identity.add_memory(text, "fact", "web")
    finally:
        other.close()
    engine.store.wait_for_change(5.0)


def test_the_window_is_read_once_until_the_store_changes(
        people: dict[str, Engine], fake_model: list[list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    alice = people["alice"]
    alice.identity.add_memory("Aurora 16 is primary.", "decision", "web")
    alice.recall.use_vectors = True
    reads = _count_window_reads(monkeypatch, alice.store)
    for _ in range(3):
        assert _contents(alice.recall.recall_memories("which database", 5, "web")) == [
            "Aurora 16 is primary."]
    assert len(reads) == 1
    alice.identity.add_memory("Aurora replicas run in two zones.", "fact", "web")
    found = _contents(alice.recall.recall_memories("which database", 5, "web"))
    assert len(reads) == 2 and "Aurora replicas run in two zones." in found


@pytest.mark.sqlite_only
def test_a_write_by_another_connection_reads_the_window_again(
        people: dict[str, Engine], fake_model: list[list[str]], store_target: str,
        monkeypatch: pytest.MonkeyPatch) -> None:

    alice = people["alice"]
    alice.identity.add_memory("Aurora 16 is primary.", "decision", "web")
    alice.recall.use_vectors = True
    alice.recall.recall_memories("which database", 5, "web")
    _written_elsewhere(alice, store_target, "Aurora backups are nightly.")
    found = _contents(alice.recall.recall_memories("which database", 5, "web"))
    assert "Aurora backups are nightly." in found


def test_forgotten_text_never_comes_back_from_a_window_read_before(
        people: dict[str, Engine], fake_model: list[list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A window older than the store (another machine's write whose notice has not come)
    is checked: what only it supplied is read again by id before recall returns it."""
    alice = people["alice"]
    kept = alice.identity.add_memory("Aurora 16 is primary.", "decision", "web")
    gone = alice.identity.add_memory("Aurora 15 was the old primary.", "fact", "web")
    alice.recall.use_vectors = True
    monkeypatch.setattr(alice.store, "change_stamp", lambda: (0, 0))  # the notices are late
    assert len(alice.recall.recall_memories("which database", 5, "web")) == 2
    reads = _count_window_reads(monkeypatch, alice.store)
    alice.recall.recall_memories("which database", 5, "web")
    assert reads == []  # the window was reused
    alice.identity.forget(gone.id)
    found = alice.recall.recall_memories("which database", 5, "web")
    assert [memory.id for memory in found] == [kept.id] and len(reads) == 1


def test_only_a_kept_window_is_read_again_by_id(
        people: dict[str, Engine], fake_model: list[list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A window read in the recall's own snapshot needs no second read; a kept one does."""
    alice = people["alice"]
    alice.identity.add_memory("Aurora 16 is primary.", "decision", "web")
    alice.recall.use_vectors = True
    checked: list[int] = []
    real = recall_window.fresh

    def spy(store: StoreBackend, memories: list[Memory]) -> bool:
        checked.append(len(memories))
        return real(store, memories)

    monkeypatch.setattr(recall_module, "fresh", spy)
    alice.recall.recall_memories("which database", 5, "web")  # the window read now
    assert checked == []
    alice.recall.recall_memories("which database", 5, "web")  # the kept window
    assert len(checked) == 1


def test_a_word_new_to_the_store_is_found_at_once(people: dict[str, Engine]) -> None:
    alice = people["alice"]
    assert alice.recall.recall_memories("zeppelin", 5, "web") == []
    alice.identity.add_memory("The zeppelin queue drains hourly.", "fact", "web")
    assert _contents(alice.recall.recall_memories("zeppelin", 5, "web")) == [
        "The zeppelin queue drains hourly."]
    first = alice.identity.add_memory("Another zeppelin note.", "fact", "web")
    alice.identity.forget(first.id)  # a count kept from before never brings it back
    assert _contents(alice.recall.recall_memories("zeppelin", 5, "web")) == [
        "The zeppelin queue drains hourly."]


# ---- tool kinds ---------------------------------------------------------------------------

def test_a_kind_of_tool_asks_for_the_tools_of_that_kind() -> None:
    assert tool_names(["terminal", "multiplexer"]) == ["tmux", "zellij", "byobu"]
    assert "stripe" in tool_names(["payments"]) and "mypy" in tool_names(["checker"])
    assert tool_names(["lunch", "meeting"]) == []
    match = analyse("which terminal multiplexer do I run").match.split()
    assert "tmux" in match and "zellij" in match  # as written: a name has no other forms
    assert "tmuxes" not in analyse("which multiplexer").match


def test_recall_finds_a_tool_by_its_kind(people: dict[str, Engine]) -> None:
    alice = people["alice"]
    alice.identity.add_memory("Works over SSH, usually inside tmux.", "preference", None)
    alice.identity.add_memory("The terminal font is large.", "preference", None)
    found = _contents(alice.recall.recall_memories("which multiplexer do I run", 5, "web"))
    assert found[0] == "Works over SSH, usually inside tmux."


# ---- the packaged model -------------------------------------------------------------------

def test_without_the_model_files_vectors_are_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recall_vectors, "PACKAGED_FILES", ("weights/missing.safetensors",))
    assert not recall_vectors.vectors_available() and not recall_vectors.vectors_wanted()


@pytest.mark.skipif(not recall_vectors.vectors_available(),
                    reason="the embeddings extra is not installed")
def test_the_model_loads_from_the_package_without_its_code_or_the_network() -> None:
    """The model's two files are read; wordllama's Python code (which sets up the process's
    logging when imported) is not imported, and nothing is fetched (no proxy reachable)."""
    import subprocess
    import sys

    script = ("import logging, sys\n"
              "from memtui.engine import recall_vectors\n"
              "vectors = recall_vectors.embed(['which linter', ''])\n"
              "assert vectors.shape == (2, 256), vectors.shape\n"
              "assert abs(float((vectors[0] ** 2).sum()) - 1) < 1e-4\n"
              "assert float(abs(vectors[1]).sum()) == 0  # no words: no direction, no NaN\n"
              "assert 'wordllama' not in sys.modules, 'imported'\n"
              "assert logging.getLogger().handlers == [], logging.getLogger().handlers\n")
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "HTTPS_PROXY": "http://127.0.0.1:9",
           "HTTP_PROXY": "http://127.0.0.1:9", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, check=False)
    assert done.returncode == 0, done.stderr


def test_vectors_on_with_no_memories_to_compare(people: dict[str, Engine],
                                                fake_model: list[list[str]]) -> None:
    bob = people["bob"]
    bob.recall.use_vectors = True
    assert bob.recall.recall_memories("which database", 5, "secret") == []
    assert bob.recall.recall("which database", 5, "secret").related_memories == ()
    assert recall_vectors.VectorCache().vectors([]).shape[0] == 0


def test_a_window_read_in_a_snapshot_older_than_its_stamp_is_not_kept(
        people: dict[str, Engine], fake_model: list[list[str]], store_target: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another connection adds a memory after this recall's snapshot began, and (PostgreSQL)
    its notice is in before the window is read: the window without it is not reused."""

    alice = people["alice"]
    alice.identity.add_memory("Aurora 16 is primary.", "decision", "web")
    alice.recall.use_vectors = True
    real = type(alice.recall)._recall_projects
    done: list[bool] = []

    def projects_then_a_write_elsewhere(self: object, project: str | None,
                                        for_agent: bool = False) -> list[str]:
        found = real(self, project, for_agent)  # type: ignore[arg-type]
        if not done:
            done.append(True)
            _written_elsewhere(alice, store_target, "Aurora backups are nightly.")
        return found

    monkeypatch.setattr(type(alice.recall), "_recall_projects", projects_then_a_write_elsewhere)
    alice.recall.recall_memories("which database", 5, "web")
    found = _contents(alice.recall.recall_memories("which database", 5, "web"))
    assert "Aurora backups are nightly." in found


def test_each_thread_reads_its_own_window(people: dict[str, Engine],
                                          fake_model: list[list[str]],
                                          store_target: str) -> None:
    import threading


    alice = people["alice"]
    alice.identity.add_memory("Aurora 16 is primary.", "decision", "web")
    alice.recall.use_vectors = True
    results: list[list[str]] = []

    def recall() -> None:
        results.append(_contents(alice.recall.recall_memories("which database", 5, "web")))

    for step in range(2):
        thread = threading.Thread(target=recall)
        thread.start()
        thread.join()
        if step == 0:
            _written_elsewhere(alice, store_target, "Aurora backups are nightly.")
    assert "Aurora backups are nightly." not in results[0]
    assert "Aurora backups are nightly." in results[1]


def test_a_second_kind_of_tool_is_asked_for_too(people: dict[str, Engine]) -> None:
    alice = people["alice"]
    alice.identity.add_memory("Storage is Postgres 16 on the big host.", "fact", "web")
    for question in ("which database do we use", "which database do the tests use"):
        assert _contents(alice.recall.recall_memories(question, 5, "web")) == [
            "Storage is Postgres 16 on the big host."], question
    assert tool_names(["database", "tests"])[:4] == ["pytest", "postgres", "jest", "postgresql"]


def test_recall_survives_a_lost_listening_connection(
        people: dict[str, Engine], fake_model: list[list[str]], backend: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """When changes cannot be watched (PostgreSQL's listening connection lost), recall
    still answers, keeping nothing."""
    from memtui.errors import StoreError

    alice = people["alice"]
    alice.identity.add_memory("Aurora 16 is primary.", "decision", "web")
    alice.recall.use_vectors = True

    def lost() -> int:
        raise StoreError("lost the connection that watches for changes")

    monkeypatch.setattr(alice.store, "data_version", lost)
    assert alice.store.change_stamp() is None
    for _ in range(2):
        assert _contents(alice.recall.recall_memories("which database", 5, "web")) == [
            "Aurora 16 is primary."]


def test_postgresql_recall_after_its_listening_connection_was_cut(
        people: dict[str, Engine], fake_model: list[list[str]], store_target: str,
        backend: str) -> None:
    if backend != "postgresql":
        pytest.skip("PostgreSQL's listening connection")
    import psycopg

    alice = people["alice"]
    alice.identity.add_memory("Aurora 16 is primary.", "decision", "web")
    alice.recall.use_vectors = True
    assert alice.recall.recall_memories("which database", 5, "web")
    with psycopg.connect(store_target, autocommit=True) as conn:
        cut = conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                           "datname = current_database() AND query ILIKE 'LISTEN%' "
                           "AND pid <> pg_backend_pid()").fetchall()
    assert cut
    for _ in range(3):  # the first look may not notice yet
        assert _contents(alice.recall.recall_memories("which database", 5, "web")) == [
            "Aurora 16 is primary."]
