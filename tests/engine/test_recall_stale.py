"""Stale memories: citations checked against the project's root (paths, symbols, commands;
outside paths, symlinks, huge files, a missing root), unused memories (max_unused_days),
keep, injection leaving stale memories out, and the CLI."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import CliResult

from memtui.engine import citations
from memtui.engine.api import Engine
from memtui.errors import InvalidInput
from memtui.store.timeutil import FixedClock, format_time


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A project folder with a source file, a Makefile and a package.json."""
    folder = tmp_path / "proj"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "app.py").write_text("def parse_config():\n    return {}\n")
    (folder / "Makefile").write_text("up:\n\tdocker compose up\n")
    (folder / "package.json").write_text(json.dumps({"scripts": {"build": "vite build"}}))
    return folder


def test_citations_found_in_text() -> None:
    found = citations.citations(
        "Config is parse_config() in `src/app.py` and pyproject.toml; see `services/checkout` "
        "and https://example.com/a.py, /etc/passwd.conf, ~/x.py, ../up.py; run make up and "
        "pnpm run build. Europe/Berlin and CI/CD are no paths, nor settings.FEATURES.")
    assert found.paths == ("src/app.py", "pyproject.toml", "services/checkout")
    assert found.symbols == ("parse_config",)
    assert found.commands == (("Makefile", "up"), ("package.json", "build"))


def test_missing_names_each_citation_that_is_gone(root: Path) -> None:
    assert citations.Checker().missing("parse_config() in src/app.py; make up; npm run build",
                             str(root)) == ()
    assert citations.Checker().missing("load_yaml() in src/loader.py; make deploy; npm run lint",
                             str(root)) == ("src/loader.py not found", "load_yaml() not found",
                                            "Makefile has no 'deploy'",
                                            "package.json has no 'lint'")


def test_no_root_or_a_missing_root_checks_nothing(tmp_path: Path) -> None:
    assert citations.Checker().missing("src/gone.py", None) == ()
    assert citations.Checker().missing("src/gone.py", str(tmp_path / "no-such-folder")) == ()
    (tmp_path / "file").write_text("x")
    assert citations.Checker().missing("src/gone.py", str(tmp_path / "file")) == ()


def test_paths_outside_the_root_are_never_looked_at(root: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.py").write_text("x")
    text = f"see {tmp_path / 'gone.py'} and ../gone.py and `../../etc/passwd.conf`"
    assert citations.Checker().missing(text, str(root)) == ()
    # a symlinked folder that leads out of the project is not looked into either
    (root / "linked").symlink_to(tmp_path, target_is_directory=True)
    assert citations.Checker().missing("linked/gone.py", str(root)) == ()


def test_a_dangling_symlink_counts_as_there_and_is_not_followed(root: Path) -> None:
    (root / "src" / "link.py").symlink_to(root / "nowhere.py")
    assert citations.Checker().missing("src/link.py", str(root)) == ()
    # a symlinked source file is not scanned for symbols, a symlinked Makefile not read
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "lib.py").write_text("def only_outside():\n    pass\n")
    (root / "src" / "lib.py").symlink_to(outside / "lib.py")
    assert citations.Checker().missing("only_outside()", str(root)) == ("only_outside() not found",)
    (root / "Makefile").unlink()
    (outside / "Makefile").write_text("deploy:\n\ttrue\n")
    (root / "Makefile").symlink_to(outside / "Makefile")
    assert citations.Checker().missing("make deploy", str(root)) == ("Makefile not found (cited for "
                                                            "'deploy')",)


def test_huge_files_are_never_read(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(citations, "MAX_SCAN_FILE_BYTES", 64)
    (root / "src" / "big.py").write_text("def in_a_big_file():\n" + "# pad\n" * 50)
    reads: list[str] = []
    real_open = open

    def counting_open(path: object, *args: object, **kwargs: object) -> object:
        reads.append(str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", counting_open)
    assert citations.Checker().missing("in_a_big_file()", str(root)) == ("in_a_big_file() not found",)
    assert not any(path.endswith("big.py") for path in reads)
    (root / "Makefile").write_text("up:\n" + "#" * 100)
    assert citations.Checker().missing("make up", str(root)) == ("Makefile not found (cited for 'up')",)


def test_a_scan_that_stops_early_reports_no_symbol(root: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(citations, "MAX_SCAN_FILES", 1)
    (root / "src" / "zz.py").write_text("x = 1\n")
    assert citations.Checker().missing("nowhere_to_be_found()", str(root)) == ()


def test_symbols_follow_file_changes(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(citations, "INDEX_TTL_SECONDS", 0.0)
    source = root / "src" / "app.py"
    assert citations.Checker().missing("parse_config()", str(root)) == ()
    source.write_text("def read_config():\n    return {}\n# longer, so the size changes\n")
    os.utime(source, ns=(source.stat().st_mtime_ns + 10**9,) * 2)
    assert citations.Checker().missing("parse_config()", str(root)) == ("parse_config() not found",)


def test_bad_package_json_and_makefile_text(root: Path) -> None:
    (root / "package.json").write_text("[1, 2")
    assert citations.Checker().missing("npm run build", str(root)) == ("package.json has no 'build'",)
    (root / "package.json").write_text("[1, 2]")
    assert citations.Checker().missing("npm run build", str(root)) == ("package.json has no 'build'",)
    (root / "Makefile").write_bytes(b"\xff\xfe up:\n")
    assert citations.Checker().missing("make up", str(root)) == ("Makefile has no 'up'",)


# ---- through the engine ------------------------------------------------------------------

@pytest.fixture
def alice(engine_for: Callable[[str], Engine], root: Path) -> Engine:
    """alice owns project shop, rooted at ``root``."""
    engine = engine_for("alice")
    engine.identity.create_project("shop", root=str(root))
    return engine


def test_stale_lists_code_gone_and_unused_memories(alice: Engine, clock: FixedClock) -> None:
    fine = alice.identity.add_memory("parse_config() reads src/app.py", "fact", "shop")
    gone = alice.identity.add_memory("load_yaml() reads src/loader.py", "fact", "shop")
    mine = alice.identity.add_memory("src/loader.py is mine", "fact")  # user: no folder
    assert [(s.memory.id, s.reasons) for s in alice.staleness.stale("shop")] == [
        (gone.id, ("src/loader.py not found", "load_yaml() not found"))]
    assert alice.staleness.stale() == []
    clock.advance(91 * 86400)
    stale = {s.memory.id: s.reasons for s in alice.staleness.stale("shop")}
    assert stale == {fine.id: ("unused for over 90 days",),
                     gone.id: ("src/loader.py not found", "load_yaml() not found",
                               "unused for over 90 days")}
    assert [s.memory.id for s in alice.staleness.stale()] == [mine.id]
    # keep: reviewed, stays, leaves the unused list; never deleted on its own
    assert alice.staleness.keep([fine.id, fine.id]) == 1
    assert {s.memory.id for s in alice.staleness.stale("shop")} == {gone.id}
    assert alice.identity.get_memory(fine.id).usage_count == 0
    alice.settings.update(max_unused_days=0)
    assert alice.staleness.stale() == []
    with pytest.raises(InvalidInput):
        alice.staleness.keep([])
    with pytest.raises(InvalidInput):
        alice.staleness.stale(limit=0)


def _flushed(engine: Engine) -> None:
    from memtui.engine.recall_use import recorder_for

    assert recorder_for(engine.store).flush(60.0)


def test_a_memory_recalled_by_an_agent_is_used(alice: Engine, clock: FixedClock,
                                               monkeypatch: pytest.MonkeyPatch,
                                               caplog: pytest.LogCaptureFixture) -> None:
    memory = alice.identity.add_memory("Deploys go out on Tuesdays.", "fact", "shop")
    clock.advance(91 * 86400)
    assert [s.memory.id for s in alice.staleness.stale("shop")] == [memory.id]
    alice.recall.recall_memories("when do deploys go out", 5, "shop", for_agent=True)
    _flushed(alice)
    used = alice.identity.get_memory(memory.id)
    assert alice.staleness.stale("shop") == []
    assert used.last_used_at == format_time(clock()) and used.usage_count == 0  # no injection
    clock.advance(86400)  # asked again at once: not written again
    alice.recall.recall_memories("deploys", 5, "shop", for_agent=True)
    _flushed(alice)
    assert alice.identity.get_memory(memory.id).last_used_at == used.last_used_at

    def failing(*_: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")  # a driver's error, not memtui's

    other = alice.identity.add_memory("Releases are tagged vX.Y.", "fact", "shop")
    monkeypatch.setattr(type(alice.store.memories), "touch", failing)
    assert alice.recall.recall_memories("releases tagged", 5, "shop", for_agent=True) == [
        other]  # the recall is not failed by it
    _flushed(alice)
    assert alice.identity.get_memory(other.id).last_used_at is None
    assert "could not mark 1 recalled memories used" in caplog.text


def test_only_a_recall_for_an_agent_marks_use(alice: Engine) -> None:
    """The user looking (``memtui memory recall``, a search in the app) is no use; an agent
    given memories (MCP's ``memory_recall``, the service's related memories) is."""
    deploys = alice.identity.add_memory("Deploys go out on Tuesdays.", "fact", "shop")
    lunch = alice.identity.add_memory("Lunch is at noon.", "fact", "shop")
    assert alice.recall.recall_memories("when do deploys go out", 5, "shop") == [deploys]
    assert alice.recall.recall("deploys", project="shop").related_memories == (deploys,)
    assert alice.identity.list_memories("shop", search="deploys") == [deploys]
    _flushed(alice)
    assert alice.identity.get_memory(deploys.id).last_used_at is None
    result = alice.recall.recall("deploys", project="shop", for_agent=True)
    assert result.related_memories == (deploys,) and lunch in result.recent_memories
    _flushed(alice)
    assert alice.identity.get_memory(deploys.id).last_used_at is not None
    assert alice.identity.get_memory(lunch.id).last_used_at is None  # only recent, not a match


CLOSE_RUNS_ON_S = 0.2
"""How long a close runs before the held mark may go on: a close that does not wait for the
marks is over by then; one that waits (up to ``CLOSE_FLUSH_S``) is not."""


@pytest.mark.sqlite_only
def test_closing_the_store_writes_the_recall_marks_first(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from memtui.store.database import open_store
    from memtui.store.memories import MemoryRepository

    store = open_store(tmp_path / "closing.db")
    engine = Engine(store, "alice")
    memory = engine.identity.add_memory("Deploys go out on Tuesdays.", "fact")
    writing, go_on = threading.Event(), threading.Event()
    touch = MemoryRepository.touch

    def held(repository: MemoryRepository, ids: list[str], at: str) -> None:
        writing.set()
        go_on.wait()
        touch(repository, ids, at)

    monkeypatch.setattr(MemoryRepository, "touch", held)
    assert engine.recall.recall_memories("deploys", for_agent=True) == [memory]
    assert writing.wait(60.0)
    closer = threading.Thread(target=store.close)
    closer.start()
    closer.join(CLOSE_RUNS_ON_S)
    go_on.set()
    closer.join()
    reopened = open_store(tmp_path / "closing.db")
    try:
        assert Engine(reopened, "alice").identity.get_memory(memory.id).last_used_at
    finally:
        reopened.close()


@pytest.mark.sqlite_only
def test_the_recorder_lets_a_closed_store_go(tmp_path: Path) -> None:
    import gc
    import weakref

    from memtui.engine.recall_use import recorder_for
    from memtui.store.database import open_store

    store = open_store(tmp_path / "gone.db")
    engine = Engine(store, "alice")
    memory = engine.identity.add_memory("Deploys go out on Tuesdays.", "fact")
    assert engine.recall.recall_memories("", for_agent=True) == [memory]
    assert recorder_for(store).flush(60.0)
    store.close()
    gone = weakref.ref(store)
    del store, engine
    gc.collect()
    assert gone() is None  # the registry and its recorder's thread keep no closed store


@pytest.mark.sqlite_only
def test_marking_used_never_waits_for_another_writer(alice: Engine, store_target: str) -> None:
    memory = alice.identity.add_memory("Deploys go out on Tuesdays.", "fact", "shop")
    writer = sqlite3.connect(store_target, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    try:
        # returns although the mark cannot be written yet
        assert alice.recall.recall_memories("", 5, "shop", for_agent=True) == [memory]
        assert writer.execute("SELECT last_used_at FROM memories WHERE id = ?",
                              (memory.id,)).fetchone() == (None,)
    finally:
        writer.execute("COMMIT")
        writer.close()
    _flushed(alice)
    assert alice.identity.get_memory(memory.id).last_used_at is not None


def test_stale_narrows_to_a_kind_and_a_source(alice: Engine) -> None:
    fact = alice.identity.add_memory("load_yaml() reads src/loader.py", "fact", "shop")
    decision = alice.identity.add_memory("We keep src/old.py for now", "decision", "shop")
    assert [s.memory.id for s in alice.staleness.stale("shop")] == [decision.id, fact.id]
    assert [s.memory.id for s in alice.staleness.stale("shop", kind="fact")] == [fact.id]
    assert alice.staleness.stale("shop", source="auto") == []
    assert [s.memory.id for s in alice.staleness.stale("shop", kind="decision",
                                                      source="manual")] == [decision.id]
    with pytest.raises(InvalidInput):
        alice.staleness.stale("shop", kind="nonsense")


def test_keep_needs_a_visible_memory(alice: Engine, engine_for: Callable[[str], Engine]) -> None:
    memory = alice.identity.add_memory("private", "fact")
    with pytest.raises(Exception, match="not found"):
        engine_for("bob").staleness.keep([memory.id])


def test_injection_leaves_stale_memories_out_when_asked(alice: Engine) -> None:
    alice.settings.update(use_memories=1)
    alice.identity.add_memory("parse_config() reads src/app.py", "fact", "shop")
    alice.identity.add_memory("load_yaml() reads src/loader.py", "fact", "shop")
    text = alice.injection.preview_for_project("shop").prompt
    assert "load_yaml" in text and "parse_config" in text
    alice.settings.update(skip_stale_memories=1)
    text = alice.injection.preview_for_project("shop").prompt
    assert "load_yaml" not in text and "parse_config" in text


def test_the_cli_lists_stale_memories_recalls_and_keeps(
        root: Path, cli: Callable[..., CliResult]) -> None:
    def run(*args: str) -> CliResult:
        result = cli("--user", "alice", *args)
        assert result.code == 0, result.err
        return result

    run("project", "add", "shop", "--root", str(root))
    run("memory", "add", "load_yaml() reads src/loader.py", "--kind", "fact",
        "--project", "shop")
    items = run("--json", "memory", "list", "--stale", "--project", "shop").json["items"]
    assert items[0]["stale"] == ["src/loader.py not found", "load_yaml() not found"]
    shown = run("memory", "list", "--stale", "--project", "shop").out
    assert "stale: src/loader.py not found" in shown
    found = run("--json", "memory", "recall", "where is the yaml loader", "--project",
                "shop").json["items"]
    assert found[0]["content"] == "load_yaml() reads src/loader.py" and found[0]["stale"]
    assert run("--json", "memory", "keep", found[0]["id"]).json == {"kept": 1}
    assert "No stale memories" in run("memory", "list", "--stale").out
    assert cli("--user", "alice", "memory", "keep", "mem_nope").code != 0


def test_a_role_that_may_only_read_still_recalls(store_target: str, backend: str,
                                                 engine_for: Callable[[str], Engine],
                                                 caplog: pytest.LogCaptureFixture) -> None:
    """PostgreSQL: a member whose database role may only read recalls as before; marking
    what it was given used fails in the background, logged."""
    if backend != "postgresql":
        pytest.skip("roles are PostgreSQL's")
    import uuid
    from urllib.parse import quote

    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    from memtui.store.database import open_store

    alice = engine_for("alice")
    alice.identity.create_project("web")
    memory = alice.identity.add_memory("Aurora 16 is primary.", "decision", "web")
    role = f"memtui_reader_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(store_target, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
        conn.execute(f"GRANT INSERT, UPDATE, DELETE ON common_terms TO {role}")
    params = conninfo_to_dict(store_target)
    reader = open_store(f"postgresql://{role}@/{params['dbname']}?host="
                        f"{quote(str(params['host']))}&port={params.get('port', 5432)}")
    try:
        engine = Engine(reader, "alice")
        found = engine.recall.recall_memories("aurora primary", 5, "web", for_agent=True)
        assert [m.id for m in found] == [memory.id]
        _flushed(engine)
        assert "could not mark 1 recalled memories used" in caplog.text
    finally:
        reader.close()
        with psycopg.connect(store_target, autocommit=True) as conn:
            conn.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {role}")
            conn.execute(f"DROP ROLE {role}")
    assert alice.identity.get_memory(memory.id).last_used_at is None
