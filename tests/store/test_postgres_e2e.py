"""End to end on one PostgreSQL store, the way a team uses it: processes as separate machines.

- The app open on one machine (Pilot, in this process) and the command line writing on
  another (a subprocess): the app refreshes because the write's NOTIFY reached its listening
  connection -- its timer only reads that connection, it runs no query on the tables while
  nothing changed -- and the selection stays on its memory.
- A worker killed with SIGKILL in the middle of a batch (its claims held, its transaction
  open): ``memtui doctor`` is clean, and the next round scans every task the dead worker left,
  none twice.
- A wrong password, an unreachable server and a database of a newer schema: one line on
  stderr (and the JSON error object with ``--json``), exit status 1, the password nowhere.

Waits are bounded by events (a file a process touches, a row that appears, a timer tick),
each under a generous timeout; nothing asserts a wall-clock duration.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import pytest
from fixtures_auto import LONG_RESULT
from pilot_harness import app_test, opened, press, screen_text, settle

from memtui.engine.api import Engine
from memtui.store.database import open_store
from memtui.store.schema import LATEST_VERSION

SECRET = "Wr0ng-S3cret/pa:ss"
"""A password that must never be printed (it holds characters a URL quotes)."""
WAIT_S = 60.0
"""Generous upper bound of every wait for an event (a process, a notification, a row)."""
POLL_S = 0.05
"""The app's change timer in the live test (it reads the listening connection only)."""
IDLE_TICKS = 5
"""Timer ticks the idle app must pass without running a single statement."""
TASKS = 240
BATCH = 40
"""The killed worker's batch size: it dies inside its second batch."""
KILL_AFTER = BATCH + BATCH // 2
"""Tasks the killed worker has scanned when it stops to be killed."""
CLI = [sys.executable, "-m", "memtui"]


def _env(machine: str, home: Path) -> dict[str, str]:
    """The environment of a process playing another machine: its own home and name."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMTUI_", "PG"))}
    home.mkdir(parents=True, exist_ok=True)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local/share"), PGAPPNAME=machine,
               MEMTUI_USER="alice", COLUMNS="200")
    return env


def _run(args: list[str], env: dict[str, str], *, stdin: str | None = None,
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(CLI + args, env=env, input=stdin, capture_output=True, text=True,
                          timeout=WAIT_S * 2)


def _with_password(url: str, password: str) -> str:
    """``url`` with ``password`` in its user part (URL-quoted)."""
    parts = urlsplit(url)
    user, _, host = parts.netloc.rpartition("@")
    user = user.split(":", 1)[0] or "postgres"
    netloc = f"{user}:{quote(password, safe='')}@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


# ---- two machines: the CLI writes, the open app refreshes ------------------------------------


@pytest.mark.postgres
@app_test
async def test_a_cli_write_on_another_machine_refreshes_the_open_app_keeping_selection(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.store.postgres.store import PostgresStore

    seed = open_store(pg_url)
    try:
        alice = Engine(seed, "alice")
        for index in range(4):
            alice.identity.add_memory(f"Team memory number {index}", "fact")
    finally:
        seed.close()

    store = open_store(pg_url)
    assert isinstance(store, PostgresStore)
    events: list[tuple[str, Any]] = []
    real_run_on = PostgresStore._run_on

    def run_on(self: PostgresStore, conn: Any, query: str, params: Any, many: bool) -> Any:
        if self is store:
            events.append(("sql", query))
        return real_run_on(self, conn, query, params, many)

    real_version = store.data_version

    def data_version() -> int:
        version = real_version()
        events.append(("tick", version))
        return version

    monkeypatch.setattr(PostgresStore, "_run_on", run_on)
    monkeypatch.setattr(store, "data_version", data_version)
    async with opened(tmp_path, store=store, user="alice", project=None, poll_interval=POLL_S,
                      size=(100, 30)) as (app, pilot):
        memory_list = app.pane("user").memory_list
        await press(pilot, "j", "j")
        selected = memory_list.current().id
        assert memory_list.count == 4 and memory_list.cursor == 2

        # idle: the timer ticks, reading only the listening connection
        mark = len(events)
        while sum(1 for kind, _ in events[mark:] if kind == "tick") < IDLE_TICKS:
            await pilot.pause(POLL_S)
        idle = events[mark:]
        assert [e for e in idle if e[0] == "sql"] == []
        version = idle[-1][1]

        # machine B writes through the command line
        written = await _in_thread(lambda: _run(
            ["--db", pg_url, "--user", "alice", "--json", "memory", "add",
             "Written on machine B", "--kind", "fact"], _env("machine-b", tmp_path / "b")))
        assert written.returncode == 0, written.stderr
        new_id = json.loads(written.stdout)["id"]

        deadline = time.monotonic() + WAIT_S
        while memory_list.count != 5 and time.monotonic() < deadline:
            await pilot.pause(POLL_S)
            await settle(pilot)
        assert memory_list.count == 5
        assert memory_list.current().id == selected  # the selection stays on its memory
        assert memory_list.cursor == 3
        assert "Written on machine B" in screen_text(app)
        assert memory_list.source is not None and memory_list.source.get(0).id == new_id

        # the refresh came from the notification: the first statement after the write
        # follows the tick whose data version moved, and none ran before it
        after = events[len(idle) + mark:]
        first_sql = next(i for i, e in enumerate(after) if e[0] == "sql")
        ticks = [e for e in after[:first_sql] if e[0] == "tick"]
        assert ticks and ticks[-1][1] != version
        assert all(t[1] == version for t in ticks[:-1])
    store.close()


async def _in_thread(function: Callable[[], Any]) -> Any:
    """Run a blocking call off the event loop (the app keeps running meanwhile)."""
    import asyncio

    return await asyncio.get_running_loop().run_in_executor(None, function)


# ---- kill -9 of a worker in the middle of a round -------------------------------------------

KILLED_WORKER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    import memtui.engine.extraction as extraction
    from memtui.engine.api import Engine
    from memtui.store.database import open_store

    url, inside, batch, kill_after = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    extraction.BATCH_SIZE = batch
    real_scan = extraction.ExtractionApi._scan_one
    scanned = 0

    def scan(self, *args, **kwargs):
        global scanned
        outcome = real_scan(self, *args, **kwargs)
        scanned += 1
        if scanned == kill_after:  # mid-batch: claims held, this batch's writes uncommitted
            inside.touch()
            time.sleep(3600)
        return outcome

    extraction.ExtractionApi._scan_one = scan
    Engine(open_store(url), "alice").extraction.run_round()
""")


def _seed_tasks(url: str) -> list[str]:
    store = open_store(url)
    try:
        alice = Engine(store, "alice")
        alice.identity.create_project("web", "Web", None)
        alice.settings.update(generate_memories=1)
        alice.tasks.set_quota(unlimited=True)
        finished = datetime.now(UTC) - timedelta(hours=2)
        return [alice.tasks.add_task("web", f"Goal number {i}", "p", f"{LONG_RESULT} #{i}",
                                     finished - timedelta(minutes=10),
                                     finished + timedelta(seconds=i)).id
                for i in range(TASKS)]
    finally:
        store.close()


def _backends_named(url: str, name: str) -> int:
    store = open_store(url)
    try:
        return int(store.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?",
                                 (name,)).fetchone()[0])
    finally:
        store.close()


def _round_state(url: str) -> dict[str, Any]:
    store = open_store(url)
    try:
        return {
            "logged": dict(store.execute(
                "SELECT outcome, count(*) FROM extraction_log GROUP BY outcome").fetchall()),
            "memories": int(store.execute("SELECT count(*) FROM memories").fetchone()[0]),
            "tasks_with_memory": int(store.execute(
                "SELECT count(DISTINCT source_thread_id) FROM memories").fetchone()[0]),
            "unlogged_memories": int(store.execute(
                "SELECT count(*) FROM memories m WHERE NOT EXISTS (SELECT 1 FROM extraction_log "
                "l WHERE l.task_id = m.source_thread_id AND l.memory_id = m.id)").fetchone()[0]),
        }
    finally:
        store.close()


@pytest.mark.postgres
@pytest.mark.slow
def test_a_worker_killed_mid_round_loses_and_doubles_nothing(pg_url: str, tmp_path: Path) -> None:
    tasks = _seed_tasks(pg_url)
    inside = tmp_path / "inside-second-batch"
    worker = subprocess.Popen(
        [sys.executable, "-c", KILLED_WORKER, pg_url, str(inside), str(BATCH), str(KILL_AFTER)],
        env=_env("memtui-killed-worker", tmp_path / "w"), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(lambda: inside.exists() or worker.poll() is not None, "the worker's 2nd batch")
        assert worker.poll() is None, worker.communicate()[1]
        # the first batch is committed; the second is open, its tasks claimed
        assert _round_state(pg_url)["logged"] == {"extracted": BATCH}
        worker.send_signal(signal.SIGKILL)
        worker.wait(WAIT_S)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert worker.returncode == -signal.SIGKILL
    # the server notices the dead client, rolls its transaction back and frees its claims
    _wait_for(lambda: _backends_named(pg_url, "memtui-killed-worker") == 0,
              "the server to end the dead worker's connections")
    state = _round_state(pg_url)
    assert state["logged"] == {"extracted": BATCH} and state["memories"] == BATCH

    env = _env("machine-c", tmp_path / "c")
    doctor = _run(["--db", pg_url, "--json", "doctor"], env)
    assert doctor.returncode == 0, (doctor.stdout, doctor.stderr)

    again = _run(["--db", pg_url, "--user", "alice", "--json", "run"], env)
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)
    assert summary["extracted"] == TASKS - BATCH and summary["errors"] == 0
    assert summary["scanned"] == TASKS - BATCH  # the first batch is not scanned again

    state = _round_state(pg_url)
    assert state == {"logged": {"extracted": TASKS}, "memories": TASKS,
                     "tasks_with_memory": TASKS, "unlogged_memories": 0}
    store = open_store(pg_url)
    try:
        threads = {row[0] for row in store.execute("SELECT source_thread_id FROM memories")}
    finally:
        store.close()
    assert threads == set(tasks)
    doctor = _run(["--db", pg_url, "doctor"], env)
    assert doctor.returncode == 0, (doctor.stdout, doctor.stderr)


# ---- one-line errors, the password never shown ----------------------------------------------


def _assert_one_line_error(result: subprocess.CompletedProcess[str], *needles: str,
                           json_output: bool) -> str:
    """Exit status 1, one stderr line naming the problem, the JSON error object on stdout
    with ``--json``, and the password in no form anywhere."""
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("memtui: error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    for form in (SECRET, quote(SECRET, safe=""), quote(SECRET)):
        assert form not in result.stderr and form not in result.stdout
    if json_output:
        error = json.loads(result.stdout)["error"]
        assert error["code"] == "store_error" and "\n" not in error["message"]
    else:
        assert result.stdout == ""
    return lines[0]


def _assert_doctor_problem(result: subprocess.CompletedProcess[str], needle: str,
                           json_output: bool) -> None:
    """``doctor`` reports a store it cannot open as a problem (its report, exit status 1),
    without the password."""
    assert result.returncode == 1 and result.stderr == "", (result.stdout, result.stderr)
    for form in (SECRET, quote(SECRET, safe=""), quote(SECRET)):
        assert form not in result.stdout
    if json_output:
        report = json.loads(result.stdout)
        assert report["healthy"] is False
        assert any(needle in problem for problem in report["problems"]), report
        # labelled by the backend the store is on
        assert all(problem.startswith("postgresql: ") for problem in report["problems"])
    else:
        assert result.stdout.startswith("problem: postgresql: ") and \
            needle in " ".join(result.stdout.split())
    assert "sqlite" not in result.stdout


class FakeServer:
    """Just enough of a PostgreSQL server to refuse a password: it answers the SSL and
    GSS probes with 'N', asks for a clear-text password, remembers what it got, and sends
    libpq the server's real error (28P01)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.passwords: list[bytes] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with conn:
                with contextlib.suppress(OSError, ValueError):
                    self._session(conn)

    @staticmethod
    def _read(conn: socket.socket, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = conn.recv(size - len(data))
            if not chunk:
                raise ValueError("closed")
            data += chunk
        return data

    def _session(self, conn: socket.socket) -> None:
        conn.settimeout(WAIT_S)
        while True:  # SSLRequest / GSSENCRequest, then the startup message
            length = int.from_bytes(self._read(conn, 4), "big")
            body = self._read(conn, length - 4)
            if int.from_bytes(body[:4], "big") in (80877103, 80877104):
                conn.sendall(b"N")
                continue
            user = body[4:].split(b"\0")
            break
        name = user[user.index(b"user") + 1] if b"user" in user else b"?"
        conn.sendall(b"R" + (8).to_bytes(4, "big") + (3).to_bytes(4, "big"))
        kind = self._read(conn, 1)
        length = int.from_bytes(self._read(conn, 4), "big")
        if kind == b"p":
            self.passwords.append(self._read(conn, length - 4).rstrip(b"\0"))
        fields = (b"SFATAL\0VFATAL\0C28P01\0Mpassword authentication failed for user \""
                  + name + b"\"\0\0")
        conn.sendall(b"E" + (len(fields) + 4).to_bytes(4, "big") + fields)

    def close(self) -> None:
        """Stop listening."""
        self.listener.close()


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    """A fake server that refuses every password (no real server needed)."""
    pytest.importorskip("psycopg")
    server = FakeServer()
    yield server
    server.close()


@pytest.mark.parametrize("json_output", [False, True], ids=["human", "json"])
def test_a_wrong_password_is_one_line_without_the_password(
        fake_server: FakeServer, tmp_path: Path, json_output: bool) -> None:
    url = (f"postgresql://alice:{quote(SECRET, safe='')}@127.0.0.1:{fake_server.port}/team"
           "?sslmode=disable&gssencmode=disable&connect_timeout=20")
    env = _env("machine-d", tmp_path / "d")
    result = _run(["--db", url, *(["--json"] if json_output else []), "memory", "list"], env)
    line = _assert_one_line_error(result, "password authentication failed",
                                  f"postgresql://alice@127.0.0.1:{fake_server.port}/team",
                                  json_output=json_output)
    assert "cannot connect" in line
    assert fake_server.passwords and fake_server.passwords[-1] == SECRET.encode()
    # the same through $MEMTUI_DB, and through $PGPASSWORD with no password in the URL
    env_db = env | {"MEMTUI_DB": url}
    _assert_one_line_error(_run(["memory", "list"], env_db), "password authentication failed",
                           json_output=False)
    bare = url.replace(f":{quote(SECRET, safe='')}@", "@")
    _assert_one_line_error(_run(["--db", bare, "memory", "list"], env | {"PGPASSWORD": SECRET}),
                           "password authentication failed", json_output=False)
    assert fake_server.passwords[-1] == SECRET.encode()


@pytest.mark.parametrize("json_output", [False, True], ids=["human", "json"])
def test_an_unreachable_server_is_one_line_without_the_password(
        tmp_path: Path, json_output: bool) -> None:
    pytest.importorskip("psycopg")
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # closed below: nothing listens there any more
    url = (f"postgresql://alice:{quote(SECRET, safe='')}@127.0.0.1:{port}/team"
           "?connect_timeout=20")
    env = _env("machine-e", tmp_path / "e")
    flags = ["--json"] if json_output else []
    for command in (["memory", "list"], ["run"], ["memory", "add", "x", "--kind", "fact"]):
        result = _run(["--db", url, *flags, *command], env)
        line = _assert_one_line_error(result, "cannot connect", json_output=json_output)
        assert f"postgresql://alice@127.0.0.1:{port}/team" in line
    _assert_doctor_problem(_run(["--db", url, *flags, "doctor"], env), "cannot connect",
                           json_output)


@pytest.mark.postgres
@pytest.mark.parametrize("json_output", [False, True], ids=["human", "json"])
def test_a_database_of_a_newer_schema_is_one_line_and_left_alone(
        pg_url: str, tmp_path: Path, json_output: bool) -> None:
    store = open_store(pg_url)
    try:
        with store.transaction():
            store.execute("INSERT INTO schema_migrations(version, applied_at) VALUES (?, ?)",
                          (LATEST_VERSION + 3, store.now()))
    finally:
        store.close()
    url = _with_password(pg_url, SECRET)  # the test server trusts the socket: any password
    env = _env("machine-f", tmp_path / "f")
    flags = ["--json"] if json_output else []
    for command in (["memory", "list"], ["memory", "add", "x", "--kind", "fact"], ["run"]):
        result = _run(["--db", url, *flags, *command], env)
        _assert_one_line_error(result, "newer memtui", f"schema {LATEST_VERSION + 3}",
                               json_output=json_output)
    _assert_doctor_problem(_run(["--db", url, *flags, "doctor"], env), "newer memtui",
                           json_output)
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:  # nothing was written to it
        assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
        assert conn.execute("SELECT max(version) FROM schema_migrations").fetchone() == \
            (LATEST_VERSION + 3,)
