"""A store memtui creates is the user's alone: the file (and SQLite's side files) ``0600``, a
folder memtui creates ``0700``, whatever the umask; what the user made keeps its mode."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import run_main
from unprivileged import child_command

from memtui.engine.demo import build_demo_store
from memtui.store.database import open_store

pytestmark = pytest.mark.usefixtures("open_umask")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder every user may enter (outside the test's private temp folder), removed after."""
    folder = Path(tempfile.mkdtemp(prefix="memtui-private-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


def test_a_new_store_in_a_new_folder_is_private(tmp_path: Path) -> None:
    path = tmp_path / "share" / "memtui" / "memtui.db"
    store = open_store(path, create_folder=True)
    try:
        store.identity.ensure_user("alice")  # a write: the log and shared memory files exist
        side_files = [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]
        assert [_mode(file) for file in [path, *side_files]] == [0o600] * 3
    finally:
        store.close()
    assert _mode(path.parent) == 0o700
    assert _mode(tmp_path / "share") == 0o755  # only memtui's own folder is made private


@pytest.mark.parametrize("mode", [0o644, 0o640])
def test_a_file_or_folder_the_user_made_keeps_its_mode(tmp_path: Path, mode: int) -> None:
    folder = tmp_path / "mine"
    folder.mkdir(mode=0o755)
    empty = folder / "empty.db"
    empty.touch(mode=mode)
    for path in (empty, folder / "new.db"):
        open_store(path, create_folder=True).close()
    assert _mode(empty) == mode and _mode(folder / "new.db") == 0o600
    assert _mode(folder) == 0o755
    open_store(empty).close()  # reopening an existing store changes nothing either
    assert _mode(empty) == mode


def test_a_new_store_named_through_a_symlink_is_private(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.db"
    link = tmp_path / "link.db"
    link.symlink_to(target)
    open_store(link).close()  # SQLite follows the link: the file it names is made private
    assert link.is_symlink() and _mode(target) == 0o600


def test_another_user_cannot_read_a_new_store(open_folder: Path) -> None:
    """The reviewers' repro: a world-readable home, a store made under umask 022, and
    another uid reading it (only possible to run as root)."""
    path = open_folder / ".local" / "share" / "memtui" / "memtui.db"
    store = open_store(path, create_folder=True)
    store.identity.ensure_user("alice")
    store.close()
    if os.geteuid() != 0:
        pytest.skip("needs root to read the file as another user")
    python, env = child_command(open_folder)
    child = subprocess.run([*python, "-c", "import sys; open(sys.argv[1], 'rb').read(16)",
                            str(path)], capture_output=True, text=True, env=env, timeout=120,
                           check=False, cwd=str(open_folder))
    assert child.returncode != 0 and "PermissionError" in child.stderr


def test_stores_that_commands_create_are_private(cli, tmp_path: Path) -> None:
    assert cli("--user", "alice", "memory", "add", "a private fact", "--kind", "fact").code == 0
    backup = tmp_path / "backup.jsonl"
    assert cli("--user", "alice", "export", "--all", "--jsonl", str(backup)).code == 0
    imported, copied, demo = (tmp_path / name for name in ("imported.db", "copied.db", "demo.db"))
    assert run_main("--db", str(imported), "import", "--jsonl", str(backup)).code == 0
    assert run_main("store", "copy", "--from", str(imported), "--to", str(copied)).code == 0
    build_demo_store(demo).close()
    assert [_mode(path) for path in (backup, imported, copied, demo)] == [0o600] * 4


def test_doctor_reports_a_store_others_can_read(cli, db_path: Path) -> None:
    assert cli("doctor").code == 0 and _mode(db_path) == 0o600
    db_path.chmod(0o640)
    result = cli("--json", "doctor", "--repair")
    assert result.code == 1 and result.json["problems"] == [
        f"{db_path}: other users can read the store (mode 640): chmod 600 it and its -wal and "
        "-shm files, unless you share it on purpose"]
    assert _mode(db_path) == 0o640  # --repair leaves a mode you chose alone
    db_path.chmod(0o700)  # only bits that let others in count
    assert cli("doctor").code == 0
