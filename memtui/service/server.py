"""``MemoryService``: the unix-socket server behind ``memtui serve`` (docs/service.md).

The socket is owner-only, each peer's uid is checked where the system tells it; a stale
socket file is replaced, a live one is an error. The accept loop reads every connection
without blocking and hands only complete requests to a bounded pool of threads, so a slow
client holds no worker. ``worker=True`` hosts the background extraction loop.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import signal
import socket
import stat
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from memtui.engine.api import Engine
from memtui.engine.paths import default_socket_path
from memtui.errors import MemtuiError
from memtui.private_files import PRIVATE_FILE_MODE, make_private_folder
from memtui.service.methods import ServiceContext, dispatch
from memtui.service.peers import peer_uid, private_folder_problem
from memtui.service.protocol import (
    INTERNAL,
    INVALID_REQUEST,
    MAX_REQUEST_BYTES,
    PERMISSION_DENIED,
    ProtocolError,
    RequestBuffer,
    error_from_exception,
    error_response,
    ok_response,
    parse_request,
)
from memtui.store.backend import StoreBackend
from memtui.store.database import open_store

log = logging.getLogger("memtui.service")

READ_TIMEOUT_S = 2.0
"""A connection must deliver its whole request within this many seconds, or it is dropped."""
WRITE_TIMEOUT_S = 5.0
"""A reply that cannot be written within this many seconds is dropped."""
MAX_CLIENTS = 16
"""Requests answered at once (threads); more complete requests wait in the pool's queue."""
MAX_READING = 512
"""Connections read at once by the accept loop; more wait in the listen backlog."""
LISTEN_BACKLOG = 128
DRAIN_TIMEOUT_S = 0.5
"""After refusing a request, how long unread input is drained so the reply gets through."""
DRAIN_BYTES = 8 * MAX_REQUEST_BYTES
"""At most this much unread input is drained after a refusal."""
PROBE_TIMEOUT_S = 1.0
"""How long the stale-socket probe waits for a live service to accept."""
SHUTDOWN_TIMEOUT_S = 30.0
"""How long ``stop()`` waits for the accept loop and the requests in flight."""
_SOCKET_UMASK = 0o177
_ACCEPT, _WAKE = "accept", "wake"
"""Selector keys of the listening socket and the wake-up pipe."""


@dataclass
class _Reading:
    """A connection whose request is still arriving: its bytes so far and its deadline."""

    conn: socket.socket
    buffer: RequestBuffer
    deadline: float


class ServiceError(MemtuiError, code="service_error"):
    """The service cannot start: the socket is in use, or its path is unusable."""


def _prepare_folder(folder: Path) -> None:
    """Create the socket's folder ``0700`` when missing; refuse a private default folder
    (``memtui-<uid>`` under the temp dir) that someone else owns or others can enter."""
    if not folder.exists():
        try:
            make_private_folder(folder)
        except OSError as error:
            raise ServiceError(f"cannot create the socket folder {folder} ({error})") from None
        return
    if not folder.is_dir():
        raise ServiceError(f"{folder} is not a folder")
    if (problem := private_folder_problem(folder)) is not None:
        raise ServiceError(problem)


def _clear_stale_socket(path: Path) -> None:
    """Remove a socket file nobody listens on; refuse a live one or a non-socket file."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise ServiceError(f"{path} exists and is not a socket; not replacing it")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(PROBE_TIMEOUT_S)
        try:
            probe.connect(str(path))
        except (ConnectionRefusedError, FileNotFoundError):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            log.info("removed a stale socket left by an earlier run: %s", path)
            return
        except OSError as error:
            raise ServiceError(f"cannot check the existing socket {path} ({error})") from None
    raise ServiceError(f"a memtui service is already running at {path}")


class MemoryService:
    """The local memory service for one store (``store``: one already open, left open at stop)
    and one acting user: ``run()`` blocks with signal handling, ``running()`` serves in a
    background thread."""

    def __init__(self, store_path: str | os.PathLike[str] | None, actor: str,
                 socket_path: str | os.PathLike[str] | None = None, *, worker: bool = False,
                 interval_s: float | None = None, read_timeout_s: float = READ_TIMEOUT_S,
                 max_clients: int = MAX_CLIENTS, store: StoreBackend | None = None,
                 create_folder: bool = False,
                 codex_home: str | os.PathLike[str] | None = None) -> None:
        if store_path is None:
            if store is None:
                raise ValueError("give a store path or an open store")
            store_path = store.location
        self.store_path = str(store_path)
        self.actor = actor
        self.socket_path = Path(socket_path).expanduser() if socket_path else default_socket_path()
        self.worker_enabled = worker
        self.codex_home = codex_home
        self.interval_s = interval_s
        self.read_timeout_s = read_timeout_s
        self.max_clients = max_clients
        self._given_store = store
        self._create_folder = create_folder
        self._store: StoreBackend | None = None
        self._context: ServiceContext | None = None
        self._listener: socket.socket | None = None
        self._socket_id: tuple[int, int] | None = None
        self._wake_r: socket.socket | None = None
        self._wake_w: socket.socket | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._reading: dict[socket.socket, _Reading] = {}
        self._accept_paused = False
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._loop: Any = None
        self._started = False
        self._serving = False

    def start(self) -> None:
        """Open the store, bind the socket and start the worker (if asked). Raises
        ``ServiceError``/``StoreError`` with a one-line message when it cannot."""
        if self._started:
            return
        store = self._given_store or open_store(self.store_path,
                                                create_folder=self._create_folder)
        self._store = store
        try:
            self._context = ServiceContext(Engine(store, self.actor), store.location,
                                           worker_state=self._worker_state)
            self._bind()
            self._wake_r, self._wake_w = socket.socketpair()
            self._wake_r.setblocking(False)
            self._pool = ThreadPoolExecutor(max_workers=self.max_clients,
                                            thread_name_prefix="memtui-service")
            if self.worker_enabled:
                from memtui.engine.worker import DEFAULT_INTERVAL_S, BackgroundLoop

                interval = DEFAULT_INTERVAL_S if self.interval_s is None else self.interval_s
                self._loop = BackgroundLoop(store, self.actor, interval,
                                            on_event=self._worker_event,
                                            codex_home=self.codex_home)
                self._loop.start()
        except BaseException:
            self._cleanup()
            raise
        self._started = True
        log.info("listening on %s (user %s, store %s%s)", self.socket_path, self.actor,
                 store.location, ", worker on" if self.worker_enabled else "")

    def _bind(self) -> None:
        path = self.socket_path
        _prepare_folder(path.parent)
        _clear_stale_socket(path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(_SOCKET_UMASK)
        try:
            listener.bind(str(path))
        except OSError as error:
            listener.close()
            raise ServiceError(f"cannot listen on {path} ({error.strerror or error})") from None
        finally:
            os.umask(old_umask)
        os.chmod(path, PRIVATE_FILE_MODE)
        info = path.stat()
        self._socket_id = (info.st_dev, info.st_ino)
        listener.listen(LISTEN_BACKLOG)
        listener.setblocking(False)
        self._listener = listener

    def _worker_event(self, event: Any) -> None:
        if event.kind == "error":
            log.warning("worker round failed: %s", event.error)
        elif event.kind == "finished" and event.summary is not None:
            log.info("worker round: %s", event.summary.to_json())
        elif event.kind == "purged":
            log.info("erased the text of %s forget(s) from the write-ahead log", event.done)

    def _worker_state(self) -> dict[str, Any]:
        if self._loop is None:
            return {"enabled": False}
        return {"enabled": True, "interval_s": self._loop.interval_s,
                **self._loop.state.to_json()}

    def serve_forever(self) -> None:
        """Accept connections and read their requests until ``stop()``; then finish what is
        in flight (requests still arriving get until their deadline) and clean up."""
        self.start()
        assert self._listener is not None and self._wake_r is not None
        self._serving = True
        selector = selectors.DefaultSelector()
        selector.register(self._listener, selectors.EVENT_READ, _ACCEPT)
        selector.register(self._wake_r, selectors.EVENT_READ, _WAKE)
        try:
            while True:
                if self._stopping.is_set():
                    self._stop_listening(selector)
                    if not self._reading:
                        break
                for key, _events in selector.select(self._select_timeout()):
                    if key.data == _WAKE:
                        with contextlib.suppress(OSError):
                            self._wake_r.recv(1024)
                    elif key.data == _ACCEPT:
                        self._accept(selector)
                    else:
                        self._read(selector, key.data)
                self._expire(selector)
        finally:
            for reading in list(self._reading.values()):
                self._forget_reading(selector, reading)
                reading.conn.close()
            selector.close()
            self._cleanup()
            self._stopped.set()

    def _select_timeout(self) -> float | None:
        """Until the nearest read deadline (None: nothing is being read)."""
        deadlines = [reading.deadline for reading in self._reading.values()]
        return max(0.0, min(deadlines) - time.monotonic()) if deadlines else None

    def _stop_listening(self, selector: selectors.BaseSelector | None = None) -> None:
        """Close the listening socket; remove the socket file if it is still the one bound."""
        listener, self._listener = self._listener, None
        if listener is not None:
            if selector is not None and not self._accept_paused:
                selector.unregister(listener)
            listener.close()
        if self._socket_id is not None:
            with contextlib.suppress(OSError):
                info = self.socket_path.lstat()
                if (info.st_dev, info.st_ino) == self._socket_id:
                    self.socket_path.unlink()
            self._socket_id = None

    def _accept(self, selector: selectors.BaseSelector) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            if len(self._reading) >= MAX_READING:
                selector.unregister(self._listener)  # the rest wait in the backlog
                self._accept_paused = True
                return
            try:
                conn, _addr = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:
                log.warning("accept failed: %s", error)
                return
            if (uid := peer_uid(conn)) is not None and hasattr(os, "getuid") and uid != os.getuid():
                log.warning("refused a connection from uid %s", uid)
                self._submit(conn, error_response(
                    None, PERMISSION_DENIED, "this service serves only its own user"))
                continue
            conn.setblocking(False)
            reading = _Reading(conn, RequestBuffer(), time.monotonic() + self.read_timeout_s)
            self._reading[conn] = reading
            selector.register(conn, selectors.EVENT_READ, reading)

    def _read(self, selector: selectors.BaseSelector, reading: _Reading) -> None:
        """Read what a connection sent; hand a complete request to the pool."""
        try:
            chunk = reading.conn.recv(reading.buffer.room())
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # the client went away
            self._forget_reading(selector, reading)
            reading.conn.close()
            return
        try:
            if (raw := reading.buffer.feed(chunk) if chunk else reading.buffer.end()) is None:
                return
            data, request = raw, True
        except ProtocolError as error:
            data, request = error_response(None, error.code, error.message), False
        self._forget_reading(selector, reading)
        self._submit(reading.conn, data, request)

    def _expire(self, selector: selectors.BaseSelector) -> None:
        """Answer and drop the connections past their deadline (without blocking)."""
        now = time.monotonic()
        for reading in [r for r in self._reading.values() if r.deadline <= now]:
            self._forget_reading(selector, reading)
            payload = error_response(None, INVALID_REQUEST, "no complete request within "
                                                            f"{self.read_timeout_s:g}s")
            with contextlib.suppress(OSError):
                reading.conn.send(payload)
                reading.conn.shutdown(socket.SHUT_RDWR)
            reading.conn.close()

    def _forget_reading(self, selector: selectors.BaseSelector, reading: _Reading) -> None:
        """Stop reading a connection; resume accepting if the loop had paused."""
        self._reading.pop(reading.conn, None)
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(reading.conn)
        if self._accept_paused and self._listener is not None and \
                len(self._reading) < MAX_READING:
            selector.register(self._listener, selectors.EVENT_READ, _ACCEPT)
            self._accept_paused = False

    def _submit(self, conn: socket.socket, data: bytes, request: bool = False) -> None:
        """Answer on the pool: ``data`` is a request to run, else a refusal to send (the
        client's unread input drained after it); the connection is closed after it."""
        assert self._pool is not None
        conn.setblocking(True)
        try:
            self._pool.submit(self._serve_connection, conn, data, request)
        except RuntimeError:  # the pool is shutting down
            conn.close()

    def stop(self, timeout: float = SHUTDOWN_TIMEOUT_S) -> bool:
        """Stop accepting, finish requests in flight, stop the worker, remove the socket.
        Safe to call from a signal handler or another thread; True when all is done."""
        self._request_stop()
        if not self._serving:
            self._cleanup()
            return True
        return self._stopped.wait(timeout)

    def _request_stop(self) -> None:
        """Tell the serving loop to stop (it wakes from its wait to see it)."""
        self._stopping.set()
        if self._wake_w is not None:
            with contextlib.suppress(OSError):
                self._wake_w.send(b"x")

    def _cleanup(self) -> None:
        self._stop_listening()
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
        loop, self._loop = self._loop, None
        if loop is not None:
            loop.stop()
        for end in (self._wake_r, self._wake_w):
            if end is not None:
                end.close()
        self._wake_r = self._wake_w = None
        if self._store is not None and self._given_store is None:
            self._store.close()
        self._store = None

    def run(self) -> int:
        """Serve in this (main) thread until SIGTERM/SIGINT (``memtui serve``); returns the
        exit status."""
        self.start()

        def on_signal(signum: int, _frame: FrameType | None) -> None:
            log.info("received %s: shutting down", signal.Signals(signum).name)
            self._request_stop()

        previous = {signum: signal.signal(signum, on_signal)
                    for signum in (signal.SIGTERM, signal.SIGINT)}
        try:
            self.serve_forever()
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        log.info("stopped")
        return 0

    @contextlib.contextmanager
    def running(self) -> Iterator[MemoryService]:
        """Serve in a background thread for the duration of the block."""
        self.start()
        self._serving = True
        thread = threading.Thread(target=self.serve_forever, name="memtui-service-accept",
                                  daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.stop()
            thread.join(SHUTDOWN_TIMEOUT_S)

    def handle_request(self, raw: bytes) -> bytes:
        """Answer one raw request line (no socket involved): the encoded response."""
        assert self._context is not None
        request_id: Any = None
        try:
            request = parse_request(raw)
            request_id = request.id
            return ok_response(request_id, dispatch(self._context, request.method, request.params))
        except Exception as error:
            if isinstance(error, ProtocolError) and error.request_id is not None:
                request_id = error.request_id
            code, message, detail = error_from_exception(error)
            if code == INTERNAL:
                log.error("request %r failed", request_id, exc_info=error)
            try:
                return error_response(request_id, code, message, **detail)
            except (TypeError, ValueError):
                return error_response(request_id, code, message)

    def _serve_connection(self, conn: socket.socket, data: bytes, request: bool) -> None:
        try:
            with conn:
                conn.settimeout(WRITE_TIMEOUT_S)
                conn.sendall(self.handle_request(data) if request else data)
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_WR)
                if not request:  # drop what the client still sends, so it gets the refusal
                    _drain(conn)
        except OSError:
            pass  # the client went away; nothing was half-written on our side
        except Exception:  # never let one connection hurt the service
            log.exception("connection failed")


def _drain(conn: socket.socket) -> None:
    """Read (and drop) up to DRAIN_BYTES the client is still sending, for DRAIN_TIMEOUT_S."""
    deadline = time.monotonic() + DRAIN_TIMEOUT_S
    drained = 0
    with contextlib.suppress(OSError):
        while drained < DRAIN_BYTES and (left := deadline - time.monotonic()) > 0:
            conn.settimeout(left)
            if not (chunk := conn.recv(65536)):
                break
            drained += len(chunk)

