"""The client sends nothing to a socket someone else could have put there, or to a service
that runs as another user: ``memtui call`` and ``call()`` refuse it with one line."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from backends import interaction_count
from unprivileged import NOBODY, child_command

from memtui.service import client as client_mod
from memtui.service.client import ServiceUnavailable, call
from memtui.service.server import MemoryService, ServiceError
from memtui.store.database import Store

CHILD_TIMEOUT_S = 120
"""A bound for a stuck child, not a speed bar."""
REMEMBER = {"interaction_id": "chat-1", "question": "the deploy key?", "answer": "hunter2"}
SENTINEL = "sentinel"
LISTENER = """
import os, socket, sys
if len(sys.argv) > 3:  # plant a folder every user may write, and a socket in it
    folder = os.path.join(sys.argv[1], sys.argv[2])
    os.mkdir(folder)
    os.chmod(folder, 0o777)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(os.path.join(folder, "memtui.sock"))
else:  # listen on a socket handed over already bound
    listener = socket.socket(fileno=int(sys.argv[1]))
listener.listen()
print("ready", flush=True)
while True:
    conn, _ = listener.accept()
    sent = b"".join(iter(lambda: conn.recv(65536), b"")).decode()
    print(sent, flush=True)
    if sent == sys.argv[-1]:
        break
"""
"""What the other user runs: it prints what each connection sent, up to ``SENTINEL`` (its
last argument)."""


@pytest.fixture
def folder() -> Iterator[Path]:
    """A short folder for sockets (unix socket paths are limited to ~100 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="mtt-"))
    yield path
    shutil.rmtree(path)


@pytest.fixture
def default_socket_under(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The default socket path with no runtime folder: ``$TMPDIR/memtui-<uid>/memtui.sock``,
    ``$TMPDIR`` being ``folder`` (which every user may write to, sticky like /tmp)."""
    folder.chmod(0o1777)
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.delenv("MEMTUI_SOCKET", raising=False)
    return folder / f"memtui-{os.getuid()}" / "memtui.sock"


def _serving(store: Store, path: Path) -> MemoryService:
    return MemoryService(None, "alice", path, store=store)


def _refused(match: str, path: Path | None = None) -> None:
    with pytest.raises(ServiceUnavailable, match=f"refusing the socket .*{match}"):
        call("interaction.remember", REMEMBER, path, timeout=CHILD_TIMEOUT_S)


def test_a_default_folder_others_may_enter_is_refused(store: Store,
                                                      default_socket_under: Path) -> None:
    planted = default_socket_under.parent
    planted.mkdir(mode=0o700)
    planted.chmod(0o777)
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(default_socket_under))
        listener.listen()
        _refused("not private to you")
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected
    with pytest.raises(ServiceError, match="not private to you"):
        _serving(store, default_socket_under).start()


def test_a_folder_others_may_write_is_refused_unless_sticky(store: Store, folder: Path) -> None:
    path = folder / "open" / "memtui.sock"
    with _serving(store, path).running():
        path.parent.chmod(0o777)
        _refused("not yours alone", path)
        path.parent.chmod(0o1777)  # like /tmp: nobody else can replace a socket of yours
        assert call("interaction.remember", REMEMBER, path)["ok"] is True
    assert interaction_count(store, "alice") == 1


def test_a_socket_others_may_write_is_refused(store: Store, folder: Path) -> None:
    path = folder / "memtui.sock"
    with _serving(store, path).running():
        path.chmod(0o666)
        _refused("it is not yours", path)
        path.chmod(0o600)
        assert call("health", {}, path)["ok"] is True
    assert interaction_count(store, "alice") == 0


def test_a_service_of_another_uid_gets_nothing(store: Store, folder: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = folder / "memtui.sock"
    with _serving(store, path).running():
        monkeypatch.setattr(client_mod, "peer_uid", lambda sock: os.getuid() + 1)
        _refused("runs as uid", path)
        monkeypatch.undo()
        assert interaction_count(store, "alice") == 0
        assert call("health", {}, path)["ok"] is True


def test_a_missing_socket_is_still_not_running(folder: Path) -> None:
    for path in (folder / "memtui.sock", folder / "nope" / "memtui.sock"):
        with pytest.raises(ServiceUnavailable, match="service not running at"):
            call("health", {}, path, timeout=1)


# ---- another user, for real (root only) ---------------------------------------------------

def _other_user_listening(workdir: Path, *args: str,
                          pass_fds: tuple[int, ...] = ()) -> subprocess.Popen[str]:
    """``LISTENER`` run as ``NOBODY``, once it listens."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run a listener as another user")
    python, env = child_command(workdir)
    child = subprocess.Popen([*python, "-c", LISTENER, *args, SENTINEL], stdout=subprocess.PIPE,
                             text=True, env=env, cwd=str(workdir), pass_fds=pass_fds)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    return child


def _what_it_got(child: subprocess.Popen[str], path: Path) -> list[str]:
    """Connect and send ``SENTINEL``: everything the child was sent (empty connections left
    out)."""
    with socket.socket(socket.AF_UNIX) as probe:
        probe.connect(str(path))
        probe.sendall(SENTINEL.encode())
    out, _err = child.communicate(timeout=CHILD_TIMEOUT_S)
    return [line for line in out.splitlines() if line]


def test_a_socket_another_user_planted_is_refused(default_socket_under: Path) -> None:
    """The reviewers' repro: with no runtime folder, another user made ``memtui-<uid>``
    first and listens in it."""
    child = _other_user_listening(default_socket_under.parent.parent,
                                  str(default_socket_under.parent.parent),
                                  default_socket_under.parent.name)
    assert default_socket_under.parent.stat().st_uid == NOBODY
    _refused("not private to you")
    assert _what_it_got(child, default_socket_under) == [SENTINEL]


def test_a_listener_of_another_uid_on_your_socket_is_refused(folder: Path) -> None:
    """A socket file of yours in a folder of yours, but another uid listens on it: only the
    peer's credentials tell."""
    folder.chmod(0o755)
    path = folder / "memtui.sock"
    with socket.socket(socket.AF_UNIX) as bound:
        bound.bind(str(path))
        path.chmod(0o600)
        child = _other_user_listening(folder, str(bound.fileno()),
                                      pass_fds=(bound.fileno(),))
    _refused(f"runs as uid {NOBODY}", path)
    assert _what_it_got(child, path) == [SENTINEL]
