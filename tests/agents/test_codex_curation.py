"""Curating a Codex home: forget one thread, add an ad-hoc note, only when asked."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path

import codex_fixture as fx
import pytest

from memtui.engine.codex.curation import forget_thread, plan_forget_thread
from memtui.engine.codex.errors import CodexError, CodexInputError, CodexWriteRefused
from memtui.engine.codex.naming import is_valid_note_name
from memtui.engine.codex.notes import write_note
from memtui.engine.codex.reader import read_codex_home
from memtui.errors import AgentFileWriteFailed, UnsafePath
from memtui.store import codex_db
from memtui.store.codex_db import CodexDbLocked, CodexDbSchemaError

FAST_TIMEOUT_S = 0.2
WHEN = datetime(2026, 10, 6, 12, 34, 56, tzinfo=UTC)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return fx.build_codex_home(tmp_path)


def rows(home: Path, sql: str, *args: object) -> list[tuple]:
    conn = sqlite3.connect(home / "memories_1.sqlite")
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def fingerprint(path: Path) -> dict[str, str]:
    """Hashes of every file under ``path`` (Codex's sqlite files and their sidecars
    excluded)."""
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(path.rglob("*")) if p.is_file() and not p.is_symlink()
            and "memories_1.sqlite" not in p.name and "state_5.sqlite" not in p.name}


def summary_file(home: Path, thread: str) -> Path:
    return home / "memories" / "rollout_summaries" / fx.SUMMARY_FILES[thread]


# --- forget a thread ------------------------------------------------------------------------


def test_forget_refuses_without_the_write_flag(home: Path) -> None:
    before = fingerprint(home)
    for flag in (False, None, 1, "yes"):
        with pytest.raises(CodexWriteRefused, match="explicit write flag"):
            forget_thread(home, fx.THREAD_V7, flag)  # type: ignore[arg-type]
    assert fingerprint(home) == before
    assert rows(home, "SELECT count(*) FROM stage1_outputs") == [(4,)]


def test_plan_shows_what_would_go(home: Path) -> None:
    before = fingerprint(home)
    plan = plan_forget_thread(home, fx.THREAD_V7)
    assert (plan.stage1_rows, plan.job_rows, plan.written) == (1, 1, False)
    assert plan.summary_files == (str(summary_file(home, fx.THREAD_V7)),)
    assert plan.found and fingerprint(home) == before


def test_forget_removes_rows_and_summary_and_nothing_else(home: Path) -> None:
    memories = home / "memories"
    protected = {name: (memories / name).read_bytes()
                 for name in ("raw_memories.md", "phase2_workspace_diff.md", ".git/HEAD")}
    result = forget_thread(home, fx.THREAD_V7, True)
    assert (result.stage1_rows, result.job_rows, result.written) == (1, 1, True)
    assert result.summary_files == (str(summary_file(home, fx.THREAD_V7)),)
    assert not summary_file(home, fx.THREAD_V7).exists()
    assert summary_file(home, fx.THREAD_DOCS).exists()
    remaining = {row[0] for row in rows(home, "SELECT thread_id FROM stage1_outputs")}
    assert remaining == {fx.THREAD_DOCS, fx.THREAD_API, fx.THREAD_POLLUTED}
    assert rows(home, "SELECT count(*) FROM jobs WHERE job_key = ?", fx.THREAD_V7) == [(0,)]
    assert rows(home, "SELECT count(*) FROM jobs") == [(6,)]
    for name, data in protected.items():
        assert (memories / name).read_bytes() == data
    codex = read_codex_home(home, fx.NOW)
    assert fx.THREAD_V7 not in {s.thread_id for s in codex.stage1_outputs}
    assert fx.THREAD_V7 not in {s.thread_id for s in codex.rollout_summaries}
    again = forget_thread(home, fx.THREAD_V7, True)
    assert not again.found


def test_forget_waits_for_a_locked_database_then_changes_nothing(home: Path) -> None:
    before = fingerprint(home)
    holder = sqlite3.connect(home / "memories_1.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    started = time.monotonic()
    try:
        with pytest.raises(CodexError, match="locked by another process") as caught:
            forget_thread(home, fx.THREAD_V7, True, busy_timeout_s=FAST_TIMEOUT_S)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert time.monotonic() - started >= FAST_TIMEOUT_S * 0.9
    assert "\n" not in str(caught.value) and "nothing was changed" in str(caught.value)
    assert fingerprint(home) == before
    assert rows(home, "SELECT count(*) FROM stage1_outputs") == [(4,)]


def test_store_forget_is_one_transaction(home: Path) -> None:
    db = home / "memories_1.sqlite"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(CodexDbLocked):
            codex_db.forget_thread_memory(home, fx.THREAD_V7, 0, busy_timeout_s=FAST_TIMEOUT_S)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    conn = sqlite3.connect(db)
    conn.execute("CREATE TRIGGER boom BEFORE DELETE ON jobs BEGIN "
                 "SELECT RAISE(ABORT, 'jobs are frozen'); END")
    conn.commit()
    conn.close()
    with pytest.raises(codex_db.CodexDbError, match="jobs are frozen"):
        codex_db.forget_thread_memory(home, fx.THREAD_V7, 0, busy_timeout_s=FAST_TIMEOUT_S)
    # the stage-1 row and the polluted mark (the other file) both rolled back
    assert rows(home, "SELECT count(*) FROM stage1_outputs WHERE thread_id = ?",
                fx.THREAD_V7) == [(1,)]
    state = sqlite3.connect(home / "state_5.sqlite")
    assert state.execute("SELECT memory_mode FROM threads WHERE id = ?",
                         (fx.THREAD_V7,)).fetchall() == [("enabled",)]
    state.close()


def test_forget_with_a_bad_database_changes_nothing(home: Path, tmp_path: Path) -> None:
    (home / "memories_1.sqlite").write_bytes(b"garbage" * 100)
    before = fingerprint(home)
    with pytest.raises(CodexError, match="not an SQLite database"):
        forget_thread(home, fx.THREAD_V7, True)
    assert fingerprint(home) == before
    empty = tmp_path / "empty"
    empty.mkdir()
    sqlite3.connect(empty / "memories_1.sqlite").close()
    with pytest.raises(CodexDbSchemaError):
        codex_db.forget_thread_memory(empty, "t", 0, busy_timeout_s=FAST_TIMEOUT_S)


def test_forget_without_a_database_removes_the_summary(home: Path) -> None:
    (home / "memories_1.sqlite").unlink()
    (home / "state_5.sqlite").unlink()
    result = forget_thread(home, fx.THREAD_DOCS, True)
    assert result.stage1_rows == 0 and "not found" in result.problems[0].reason
    assert not summary_file(home, fx.THREAD_DOCS).exists()
    assert not (home / "memories_1.sqlite").exists()


def test_forget_before_codex_made_its_memory_database_still_opts_out(home: Path) -> None:
    (home / "memories_1.sqlite").unlink()
    result = forget_thread(home, fx.THREAD_DOCS, True)
    assert result.marked_polluted and result.stage1_rows == 0
    assert not (home / "memories_1.sqlite").exists()


def test_forget_finds_codex_thread_named_summaries_and_skips_symlinks(
        home: Path, tmp_path: Path) -> None:
    folder = home / "memories" / "rollout_summaries"
    (folder / f"{fx.THREAD_API}.md").write_text("old style\n", encoding="utf-8")
    outside = tmp_path / "outside.md"
    outside.write_text(f"thread_id: {fx.THREAD_API}\n\nnot Codex's\n", encoding="utf-8")
    (folder / "2026-10-06T00-00-00-lnk1.md").symlink_to(outside)
    result = forget_thread(home, fx.THREAD_API, True)
    assert sorted(Path(p).name for p in result.summary_files) == sorted(
        [fx.SUMMARY_FILES[fx.THREAD_API], f"{fx.THREAD_API}.md"])
    assert outside.exists() and (folder / "2026-10-06T00-00-00-lnk1.md").is_symlink()


@pytest.mark.parametrize("bad", ["", "../etc/passwd", "a/b", "x" * 300, "-rf", "id\nid",
                                 "`id`"])
def test_forget_rejects_odd_thread_ids(home: Path, bad: str) -> None:
    with pytest.raises(CodexInputError):
        forget_thread(home, bad, True)


# --- ad-hoc notes ----------------------------------------------------------------------------


def notes_dir(home: Path) -> Path:
    return home / "memories" / "extensions" / "ad_hoc" / "notes"


def test_write_note_follows_codex_rules(home: Path) -> None:
    path = write_note(home, "Deploys go through the staging cluster first", WHEN)
    assert path.parent == notes_dir(home)
    assert path.name == "2026-10-06T12-34-56-deploys-go-through-the-staging-cluster-first.md"
    assert is_valid_note_name(path.name) and len(path.name.encode()) <= 128
    assert path.read_text(encoding="utf-8") == "Deploys go through the staging cluster first\n"
    assert not [p for p in notes_dir(home).iterdir() if p.name.startswith(".")]
    codex = read_codex_home(home, fx.NOW)
    assert path.name in [note.file_name for note in codex.notes]
    note = next(n for n in codex.notes if n.file_name == path.name)
    assert note.created_at == "2026-10-06T12:34:56.000Z"


def test_write_note_never_overwrites(home: Path) -> None:
    first = write_note(home, "same text", WHEN)
    second = write_note(home, "same text", WHEN)
    assert first != second and second.name.endswith("-same-text-2.md")
    assert first.read_text(encoding="utf-8") == second.read_text(encoding="utf-8")


def test_write_note_redacts_and_slugs_safely(home: Path) -> None:
    path = write_note(home, "token=ghp_R8x2Kq9LmZ4vT7wN1pY6sB3dF0hJ5cXeA2uQ is ours", WHEN)
    text = path.read_text(encoding="utf-8")
    assert "ghp_R8x2Kq9LmZ4vT7wN1pY6sB3dF0hJ5cXeA2uQ" not in text
    assert "ghp" not in path.name and "r8x2kq9" not in path.name
    odd = write_note(home, "Ünïcödé — only!!!", WHEN)
    assert is_valid_note_name(odd.name)
    empty_slug = write_note(home, "日本語のメモ", WHEN)
    assert empty_slug.name == "2026-10-06T12-34-56-note.md"


def test_write_note_creates_missing_folders(tmp_path: Path) -> None:
    home = tmp_path / "fresh"
    home.mkdir()
    path = write_note(home, "first note", WHEN)
    assert path.exists() and path.parent == notes_dir(home)
    with pytest.raises(CodexError, match="Codex home not usable"):
        write_note(tmp_path / "absent", "x", WHEN)


@pytest.mark.parametrize("text", ["", "   \n", "nul\x00byte", "x" * (256 * 1024 + 1),
                                  "lone \ud800 surrogate"])
def test_write_note_rejects_bad_text(home: Path, text: str) -> None:
    before = fingerprint(home)
    with pytest.raises(CodexInputError):
        write_note(home, text, WHEN)
    assert fingerprint(home) == before


@pytest.mark.parametrize("link_at", [("memories", "extensions"),
                                     ("memories", "extensions", "ad_hoc"),
                                     ("memories", "extensions", "ad_hoc", "notes")])
def test_write_note_never_goes_through_a_symlink(tmp_path: Path, link_at: tuple[str, ...]
                                                 ) -> None:
    home = fx.build_codex_home(tmp_path / "h")
    target = tmp_path / "attacker"
    real = home.joinpath(*link_at)
    os.rename(real, target)
    real.symlink_to(target, target_is_directory=True)
    before = fingerprint(target)
    with pytest.raises(UnsafePath, match="symlink"):
        write_note(home, "should not land", WHEN)
    assert fingerprint(target) == before


def test_write_note_refuses_a_file_in_place_of_a_folder(tmp_path: Path) -> None:
    home = tmp_path / "h"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "extensions").write_text("a file", encoding="utf-8")
    with pytest.raises(UnsafePath):
        write_note(home, "x", WHEN)


def test_write_note_in_a_read_only_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = os.open

    def read_only_open(path, flags, *args, **kwargs):  # type: ignore[no-untyped-def]
        if flags & os.O_CREAT:
            raise OSError(30, "Read-only file system")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only_open)
    before = fingerprint(home)
    with pytest.raises(AgentFileWriteFailed, match="Read-only file system"):
        write_note(home, "x", WHEN)
    assert fingerprint(home) == before
