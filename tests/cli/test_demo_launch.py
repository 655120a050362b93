"""``memtui --demo``: Codex, Claude Code and Gemini CLI homes beside the demo store (every
pane shows something, never the machine's own homes; the Inbox has a Gemini patch), and no
``memtui-demo-*`` folder left behind, however the app ends (issue 19)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

from memtui.cli.launch import DEMO_FOLDER_PREFIX, demo_homes
from memtui.cli.main import main
from memtui.engine.agents.gemini_review import review_gemini_inbox
from memtui.engine.codex.browse import codex_threads
from memtui.engine.codex.reader import read_codex_home
from memtui.engine.demo import DEMO_NOW
from memtui.engine.demo_codex import THREAD_CHECKOUT, THREAD_FAILED, build_demo_codex_home


def _leftovers(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"{DEMO_FOLDER_PREFIX}*"))


@pytest.fixture
def temp_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.mark.parametrize("fails", [False, True])
def test_the_demo_removes_its_temporary_folder(temp_folder: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               fails: bool) -> None:
    seen: dict[str, Any] = {}

    def fake_run_app(ctx: Any) -> int:
        seen["db"] = Path(ctx.args.db)
        seen["codex_home"] = Path(ctx.args.codex_home)
        seen["exists"] = Path(ctx.args.db).is_file() and Path(ctx.args.codex_home).is_dir()
        seen["homes"] = (Path(ctx.args.claude_home), Path(ctx.args.gemini_home))
        seen["patches"] = [review.name for review in
                           review_gemini_inbox(ctx.args.gemini_home, env={})
                           if review.apply is not None]
        if fails:
            raise RuntimeError("the app crashed")
        return 0

    monkeypatch.setattr("memtui.app.main.run_app", fake_run_app)
    if fails:
        with pytest.raises(RuntimeError):
            main(["--demo"])
    else:
        assert main(["--demo"]) == 0
    assert seen["exists"]  # the app saw the store and its Codex home
    assert (seen["codex_home"], *seen["homes"]) == demo_homes(seen["db"])
    assert seen["patches"] == ["webshop:private/0001-ci.patch"]  # the Inbox shows one
    assert _leftovers(temp_folder) == []


def test_homes_given_on_the_command_line_win_over_the_demos(temp_folder: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    def fake_run_app(ctx: Any) -> int:
        seen.update(claude=ctx.args.claude_home, gemini=ctx.args.gemini_home)
        return 0

    monkeypatch.setattr("memtui.app.main.run_app", fake_run_app)
    mine = str(tmp_path / "my-gemini")
    assert main(["--demo", "--gemini-home", mine]) == 0
    assert seen["gemini"] == mine and seen["claude"].endswith(".claude")


def test_a_named_demo_store_is_kept_with_its_codex_home(tmp_path: Path, temp_folder: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memtui.app.main.run_app", lambda ctx: 0)
    target = tmp_path / "mine" / "demo.db"
    target.parent.mkdir()
    assert main(["--demo", str(target)]) == 0
    assert target.is_file() and all(home.is_dir() for home in demo_homes(target))
    assert main(["--demo", str(target)]) == 0  # reopened, not rebuilt
    assert _leftovers(temp_folder) == []


@pytest.mark.parametrize("kind", ["store", "text"])
def test_a_file_that_is_not_a_demo_store_is_refused_before_anything_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        kind: str) -> None:
    monkeypatch.setattr("memtui.app.main.run_app", lambda ctx: pytest.fail("app opened"))
    target = tmp_path / "real.db"
    if kind == "store":
        assert main(["--db", str(target), "--user", "ann", "project", "add", "myproj"]) == 0
    else:
        target.write_text("my notes\n")
    before = target.read_bytes()
    capsys.readouterr()
    assert main(["--demo", str(target)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(target) in err
    assert "not a demo store" in err or kind == "text"
    assert sorted(tmp_path.iterdir()) == [target] and target.read_bytes() == before


def test_the_demo_codex_home_reads_like_a_real_one(tmp_path: Path) -> None:
    home = build_demo_codex_home(tmp_path / "codex")
    codex = read_codex_home(home, DEMO_NOW)
    threads = {thread.thread_id: thread for thread in codex_threads(codex)}
    assert threads[THREAD_CHECKOUT].usage_count == 7
    assert threads[THREAD_CHECKOUT].description
    assert threads[THREAD_FAILED].job_status == "error"
    assert len(codex.notes) == 2 and len(codex.task_groups) == 1
    assert codex.diagnosis  # "why is consolidation stuck?" has an answer
    assert not codex.problems
    with pytest.raises(FileExistsError):
        build_demo_codex_home(home)


def test_a_killed_demo_still_removes_its_folder(temp_folder: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A closed terminal (SIGHUP) or SIGTERM ends the demo through its cleanup."""
    import os
    import signal

    before = signal.getsignal(signal.SIGTERM)

    def killed_app(ctx: Any) -> int:
        os.kill(os.getpid(), signal.SIGTERM)
        return 0  # not reached: the handler ends the app

    monkeypatch.setattr("memtui.app.main.run_app", killed_app)
    with pytest.raises(SystemExit) as leaving:
        main(["--demo"])
    assert leaving.value.code == 128 + signal.SIGTERM
    assert _leftovers(temp_folder) == []
    assert signal.getsignal(signal.SIGTERM) == before  # the old handler is back
