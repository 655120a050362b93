"""``memtui codex ...``: JSON shapes, human output, exit codes, --write."""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import codex_fixture as fx
import pytest
from cli_support import CliResult
from unprivileged import child_command

from memtui.cli.main import main

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SHOW_KEYS = {"summary", "task_groups", "threads", "notes", "jobs", "problems", "diagnosis",
             "consolidation_stuck", "stage1_outputs", "raw_memories", "rollout_summaries",
             "layout"}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return fx.build_codex_home(tmp_path)


@pytest.fixture
def codex(cli: Callable[..., CliResult], home: Path) -> Callable[..., CliResult]:
    """``memtui --user alice codex ARGS --codex-home <fixture>``."""
    return lambda *args: cli("--user", "alice", "codex", *args, "--codex-home", str(home))


def _summary_files(home: Path) -> list[str]:
    return sorted(p.name for p in (home / "memories" / "rollout_summaries").iterdir())


def _notes(home: Path) -> list[str]:
    return sorted(p.name for p in (home / "memories" / "extensions" / "ad_hoc" / "notes")
                  .iterdir())


# --- show -------------------------------------------------------------------------------------


def test_show_json_keys(codex: Callable[..., CliResult]) -> None:
    result = codex("show", "--json")
    assert result.code == 0, result.err
    data = result.json
    assert SHOW_KEYS <= set(data)
    assert data["summary"]["valid_v1"] is True and data["summary"]["present"] is True
    assert [g["name"] for g in data["task_groups"]] == ["ninfer cache and API client",
                                                         "team handbook"]
    assert data["layout"]["name"] == "memories_1" and data["layout"]["state_version"] == 40
    assert data["layout"]["memories_version"] == 1 and data["layout"]["supported"] is True
    threads = {t["thread_id"]: t for t in data["threads"]}
    assert threads[fx.THREAD_V7]["usage_count"] == 11 and threads[fx.THREAD_V7]["last_usage"]
    assert threads[fx.THREAD_V7]["git_branch"] == "main"
    assert threads[fx.THREAD_V7]["source"] == "cli"
    assert threads[fx.THREAD_POLLUTED]["memory_mode"] == "polluted"
    assert threads[fx.THREAD_MCP]["rollout_path"].endswith(".jsonl")
    assert threads[fx.THREAD_ERRORED]["job_status"] == "error"
    assert [n["file_name"] for n in data["notes"]] == list(fx.GOOD_NOTES)
    assert {j["status"] for j in data["jobs"]} == {"done", "error", "running"}
    assert data["consolidation_stuck"] is True
    assert any("lease expired" in reason for reason in data["diagnosis"])
    [problem] = data["problems"]
    assert problem["path"].endswith(fx.BAD_NOTE) and "naming" not in problem
    assert set(problem) == {"path", "reason", "line"}


def test_show_json_for_a_broken_home(home: Path, codex: Callable[..., CliResult]) -> None:
    (home / "memories" / "memory_summary.md").write_text("v2\n\n## User Profile\n")
    (home / "memories_1.sqlite").write_bytes(b"not a database at all" * 100)
    data = codex("show", "--json").json
    assert data["summary"]["valid_v1"] is False
    assert data["database_read"] is False and data["jobs"] == []
    paths = [p["path"] for p in data["problems"]]
    assert any(p.endswith("memory_summary.md") for p in paths)
    assert any(p.endswith("memories_1.sqlite") for p in paths)


def test_show_human_fits_80_columns(codex: Callable[..., CliResult], terminal_80: None) -> None:
    result = codex("show")
    assert result.code == 0
    lines = result.out.splitlines()
    assert max(len(line) for line in lines) <= 80
    for text in ("Task groups (2)", "Threads (10)", "Ad-hoc notes (2)", "Job queue (7)",
                 "Codex database: memories in memories_1.sqlite",
                 "state schema 40, memories schema 1",
                 "Why is consolidation stuck?", "lease expired", "Problems (1",
                 fx.THREAD_V7):
        assert text in result.out, text
    assert "\x1b" not in result.out


def test_show_text_is_never_markup_or_terminal_control(home: Path,
                                                       codex: Callable[..., CliResult]) -> None:
    notes = home / "memories" / "extensions" / "ad_hoc" / "notes"
    (notes / "2026-10-06T00-00-00-evil.md").write_text("[bold red]x[/] \x1b[2J\x07 done\n")
    result = codex("show")
    assert "[bold red]x[/]" in result.out and "\x1b" not in result.out
    assert "\\x1b[2J" in result.out


def test_codex_home_before_or_after_the_command_and_from_env(
        cli: Callable[..., CliResult], home: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    before = cli("--codex-home", str(home), "codex", "show", "--json")
    assert before.code == 0 and before.json["home"] == str(home)
    group = cli("codex", "--codex-home", str(home), "show", "--json")
    assert group.code == 0 and group.json["home"] == str(home)
    wins = cli("--codex-home", str(tmp_path / "nowhere"), "codex", "show", "--json",
               "--codex-home", str(home))
    assert wins.code == 0 and wins.json["home"] == str(home)
    monkeypatch.setenv("CODEX_HOME", str(home))
    assert cli("codex", "show", "--json").json["home"] == str(home)


def test_missing_home_is_not_found(cli: Callable[..., CliResult], tmp_path: Path) -> None:
    result = cli("codex", "show", "--json", "--codex-home", str(tmp_path / "nowhere"))
    assert result.code == 3 and result.json["error"]["code"] == "not_found"
    assert result.err.count("\n") == 1


# --- import -----------------------------------------------------------------------------------


def test_import_and_import_rollouts(codex: Callable[..., CliResult],
                                    cli: Callable[..., CliResult]) -> None:
    first = codex("import", "--json")
    assert first.code == 0, first.err
    assert first.json["imported"] == 5 and first.json["created_projects"] == ["ninfer",
                                                                             "handbook"]
    assert codex("import", "--json").json["skipped"] == {"already_imported": 5,
                                                         "memory_mode": 1}
    human = codex("import")
    assert human.code == 0 and "imported 0 memories" in human.out
    rollouts = codex("import-rollouts", "--json")
    assert rollouts.code == 0 and rollouts.json["imported"] == 5
    assert any("not valid JSON" in p["reason"] for p in rollouts.json["problems"])
    assert codex("import-rollouts", "--json").json["imported"] == 0
    listed = cli("--user", "alice", "memory", "list", "--project", "ninfer", "--json").json
    assert {m["source"] for m in listed["items"]} == {"import"}
    cli("--user", "alice", "settings", "set", "generate_memories=1")
    run = cli("--user", "alice", "run", "--force", "--json").json
    # THREAD_V7's stage-1 memory was imported: its rollout task is not extracted again
    assert run["skipped"] == {"already_extracted": 1, "external_context": 2}
    assert run["extracted"] == 2


@pytest.fixture
def locked(home: Path) -> Iterator[Path]:
    conn = sqlite3.connect(home / "memories_1.sqlite")
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    with fx.locked_by_another_process(home / "memories_1.sqlite"):
        yield home


def test_locked_database(locked: Path, codex: Callable[..., CliResult]) -> None:
    shown = codex("show", "--json", "--wait", "0.1")
    assert shown.code == 0 and shown.json["database_read"] is False
    imported = codex("import", "--wait", "0.1")
    assert imported.code == 1 and "imported 2 memories" in imported.out
    assert imported.err.count("\n") == 1 and "locked by another process" in imported.err
    before = _summary_files(locked)
    forgot = codex("forget", fx.THREAD_V7, "--write", "--wait", "0.1", "--json")
    assert forgot.code == 1 and forgot.json["error"]["code"] == "codex_error"
    assert "locked" in forgot.err and forgot.err.count("\n") == 1
    assert _summary_files(locked) == before


# --- note, forget -----------------------------------------------------------------------------


def test_note_needs_write(home: Path, codex: Callable[..., CliResult]) -> None:
    before = _notes(home)
    dry = codex("note", "Prefer ruff over flake8", "--json")
    assert dry.code == 4 and dry.json["error"]["code"] == "codex_write_refused"
    assert _notes(home) == before
    assert codex("note", "   ").code == 5
    written = codex("note", f"prefer ruff; token {SECRET}", "--write", "--json")
    assert written.code == 0, written.err
    name = written.json["file_name"]
    assert name in _notes(home) and name.endswith("-prefer-ruff-token-redacted.md")
    assert SECRET not in Path(written.json["path"]).read_text()


def test_forget_dry_run_then_write(home: Path, codex: Callable[..., CliResult]) -> None:
    before = _summary_files(home)
    dry = codex("forget", fx.THREAD_V7, "--json")
    assert dry.code == 4
    plan = dry.json["error"]["plan"]
    assert plan["stage1_rows"] == 1 and plan["job_rows"] == 1 and plan["written"] is False
    assert _summary_files(home) == before
    assert "would remove 1 stage-1 row(s)" in codex("forget", fx.THREAD_V7).err
    assert codex("forget", "0199ffff-0000-7000-8000-000000000000").code == 3
    assert codex("forget", "../../etc/passwd").code == 5
    done = codex("forget", fx.THREAD_V7, "--write", "--json")
    assert done.code == 0 and done.json["written"] is True
    assert len(_summary_files(home)) == len(before) - 1
    assert done.json["marked_polluted"] is True and done.json["consolidation_enqueued"] is True
    assert {Path(p).name for p in done.json["still_in"]} == {
        "MEMORY.md", "memory_summary.md", "raw_memories.md"}
    assert codex("forget", fx.THREAD_V7, "--write").code == 3  # nothing left to forget
    # both the fixture's polluted thread and the forgotten one: Codex no longer uses them
    assert codex("import", "--json").json["skipped"] == {"memory_mode": 2}


# --- export -----------------------------------------------------------------------------------


def test_export(cli: Callable[..., CliResult], tmp_path: Path, home: Path) -> None:
    cli("--user", "alice", "memory", "add", "Prefers uv", "--kind", "preference")
    cli("--user", "alice", "note", "Staging is read-only")
    target = tmp_path / "out"
    result = cli("--user", "alice", "codex", "export", str(target), "--home-layout", "--json")
    assert result.code == 0, result.err
    assert result.json["notes"] == 1 and result.json["memories"] == 2
    assert (target / "memories" / "memory_summary.md").read_text().startswith("v1\n")
    shown = cli("codex", "show", "--json", "--codex-home", str(target)).json
    assert [n["text"] for n in shown["notes"]] == ["Staging is read-only\n"]
    refused = cli("--user", "alice", "codex", "export", str(home / "memories"), "--json")
    assert refused.code == 5 and "not an empty folder" in refused.json["error"]["message"]
    human = cli("--user", "alice", "codex", "export", str(tmp_path / "memories"))
    assert human.code == 0 and "exported 2 memories" in human.out


def test_help_lists_every_codex_command(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["codex", "--help"], stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 0
    out = capsys.readouterr().out
    for command in ("show", "import", "import-rollouts", "note", "forget", "export"):
        assert command in out


def _make_read_only(path: Path) -> None:
    for item in sorted(path.rglob("*"), reverse=True):
        if not item.is_symlink():
            item.chmod(0o555 if item.is_dir() else 0o444)
    path.chmod(0o555)


def test_read_only_home() -> None:
    base = Path(tempfile.mkdtemp(prefix="memtui-ro-cli-"))
    try:
        base.chmod(0o755)
        home = fx.build_codex_home(base)
        _make_read_only(home)
        writable = base / "store"
        writable.mkdir(mode=0o777)
        writable.chmod(0o777)
        python, env = child_command(base)

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            command = [*python, "-m", "memtui", "--db",
                       str(writable / "m.db"), "--user", "alice", "codex", *args,
                       "--codex-home", str(home)]
            return subprocess.run(command, capture_output=True, text=True, env=env,
                                  timeout=60, check=False, cwd=str(base))

        shown = run("show", "--json")
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["database_read"] is True
        imported = run("import", "--json")
        assert imported.returncode == 0, imported.stderr
        assert json.loads(imported.stdout)["imported"] == 5
        note = run("note", "a note", "--write")
        assert note.returncode == 4 and note.stderr.count("\n") == 1
        assert "cannot" in note.stderr
        forgot = run("forget", fx.THREAD_V7, "--write", "--wait", "0.1")
        assert forgot.returncode == 4 and forgot.stderr.count("\n") == 1
        assert "read-only" in forgot.stderr and "nothing was changed" in forgot.stderr
        assert len(list((home / "memories" / "rollout_summaries").iterdir())) == 3
    finally:
        for item in [base, *base.rglob("*")]:
            if not item.is_symlink():
                item.chmod(0o755)
        shutil.rmtree(base)


def test_rollouts_another_user_recorded_are_imported_for_a_second_user(
        codex: Callable[..., CliResult], cli: Callable[..., CliResult], home: Path) -> None:
    """External references are per user: alice's import is no oracle for bob, and bob's
    rollouts are really imported (not "already recorded")."""
    assert codex("import-rollouts", "--json").json["imported"] == 5
    alice_ids = {task["id"] for task in cli("--user", "alice", "--json", "task", "list",
                                            "--limit", "50").json["items"]}
    bob = cli("--user", "bob", "--json", "codex", "import-rollouts", "--codex-home", str(home))
    assert bob.code == 0, bob.err
    assert bob.json["imported"] == 5, bob.json
    imported = [item for item in bob.json["items"] if item["outcome"] == "imported"]
    assert not alice_ids & {item["target_id"] for item in imported}
    assert "already" not in json.dumps(bob.json)
    again = cli("--user", "bob", "--json", "codex", "import-rollouts", "--codex-home", str(home))
    assert again.json["imported"] == 0
    assert not alice_ids & {item.get("target_id") for item in again.json["items"]}
