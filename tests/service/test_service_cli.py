"""``memtui call`` and ``memtui serve``: exit codes, a down service, SIGTERM shutdown."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memtui.engine.api import Engine
from memtui.service.client import ServiceUnavailable, call
from memtui.service.server import MemoryService
from memtui.store.database import Store

START_TIMEOUT_S = 15.0


@pytest.fixture
def sock() -> Iterator[Path]:
    """A socket path in a short private folder."""
    folder = Path(tempfile.mkdtemp(prefix="mtc-"))
    yield folder / "memtui.sock"
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def running(store: Store, sock: Path) -> Iterator[MemoryService]:
    """alice's service (alice owns ``web``) on the test store."""
    Engine(store, "alice").identity.create_project("web")
    with MemoryService(None, "alice", sock, store=store).running() as svc:
        yield svc


def test_call_prints_the_response(running: MemoryService, sock: Path,
                                  cli: Callable[..., Any]) -> None:
    result = cli("call", "health", "{}", "--socket", str(sock))
    assert result.code == 0 and result.json["ok"] is True
    assert result.json["result"]["user"] == "alice"
    result = cli("call", "bundle.list", "--socket", str(sock))
    assert result.code == 0 and result.json["result"]["items"] == []


@pytest.mark.parametrize(("method", "params", "code", "status"), [
    ("bundle.get", {"bundle": "project:nope"}, "not_found", 3),
    ("memory.recall", {"query": 5}, "invalid_params", 5),
    ("bundle.document.put", {"bundle": "project:web", "path": "x.md", "content": "c",
                             "expected_revision": 0}, "invalid_params", 5),
    ("no.such.method", {}, "unknown_method", 1),
])
def test_call_exit_codes(running: MemoryService, sock: Path, cli: Callable[..., Any],
                         method: str, params: dict, code: str, status: int) -> None:
    result = cli("call", method, json.dumps(params), "--socket", str(sock))
    assert result.code == status
    assert result.json["error"]["code"] == code
    assert code in result.err


def test_call_permission_denied_and_conflict(store: Store, sock: Path,
                                             cli: Callable[..., Any]) -> None:
    owner = Engine(store, "alice")
    owner.identity.create_project("web")
    owner.identity.set_member("web", "bob", "reader")
    owner.recall.put_document("project:web", "INDEX.md", "x", 0)
    put = json.dumps({"bundle": "project:web", "path": "INDEX.md", "content": "y",
                      "expected_revision": 0})
    with MemoryService(None, "bob", sock, store=store).running():
        assert cli("call", "bundle.document.put", put, "--socket", str(sock)).code == 4
    with MemoryService(None, "alice", sock, store=store).running():
        result = cli("call", "bundle.document.put", put, "--socket", str(sock))
        assert result.code == 1
        assert result.json["error"]["current_revision"] == 1


def test_call_with_bad_params_json(running: MemoryService, sock: Path,
                                   cli: Callable[..., Any]) -> None:
    assert cli("call", "health", "{oops", "--socket", str(sock)).code == 5
    assert cli("call", "health", "[1]", "--socket", str(sock)).code == 5


def test_call_when_the_service_is_down(sock: Path, cli: Callable[..., Any]) -> None:
    result = cli("call", "health", "--socket", str(sock))
    assert result.code == 1
    assert result.err.strip() == f"memtui: error: service not running at {sock}"
    assert result.out == ""


def _wait_for(sock: Path, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"serve exited early: {process.stderr.read()}")  # type: ignore[union-attr]
        try:
            if call("health", {}, sock, timeout=2)["ok"]:
                return
        except ServiceUnavailable:
            time.sleep(0.05)
    raise AssertionError("serve did not start")


def test_serve_runs_and_stops_on_sigterm(tmp_path: Path, sock: Path) -> None:
    db = tmp_path / "store.db"
    env = {**os.environ, "MEMTUI_USER": "alice"}
    command = [sys.executable, "-m", "memtui", "--db", str(db), "serve", "--socket", str(sock)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(sock, process)
        assert stat.S_IMODE(sock.stat().st_mode) == 0o600
        assert call("health", {}, sock)["result"]["user"] == "alice"
        params = {"interaction_id": "i1", "question": "q", "answer": "a", "user": "bob"}
        assert call("interaction.remember", params, sock)["error"]["code"] == "invalid_params"
        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=30)
        assert second.returncode == 1 and "already running" in second.stderr
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert not sock.exists()
    assert "listening on" in process.stderr.read()  # type: ignore[union-attr]
