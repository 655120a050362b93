"""The background extraction loop the app and the service host (plain threads, no Textual):
timed rounds (``run_once``: one in the caller's thread), reported through ``on_event`` (a round
that raises is an ``error`` event), pending purges retried between them.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from memtui.engine import purge
from memtui.engine.api import Engine
from memtui.jsonable import JsonMixin
from memtui.store.backend import StoreBackend

if TYPE_CHECKING:
    from memtui.engine.extraction import RoundSummary

log = logging.getLogger(__name__)

DEFAULT_INTERVAL_S = 60.0
DEFAULT_STOP_TIMEOUT_S = 10.0
PURGE_POLL_S = 2.0
"""How often the running loop looks for pending purges and retries them."""
STOP_CHECK_S = 0.1
IDLE, RUNNING, STOPPED = "idle", "running", "stopped"
EventKind = Literal["started", "progress", "finished", "error", "purged", "stopped"]
"""Per round, or ``purged`` (pending purges finished), or ``stopped`` once at the end."""


@dataclass(frozen=True)
class LoopEvent:
    """One report from the loop (``done``/``total`` count tasks)."""

    kind: EventKind
    forced: bool = False
    done: int = 0
    total: int = 0
    summary: RoundSummary | None = None
    error: str | None = None
    at: str | None = None


@dataclass
class LoopState(JsonMixin):
    """What the loop is doing and what its last round did (the service's ``health``)."""

    status: str = IDLE
    last_run_at: str | None = None
    last_summary: RoundSummary | None = None
    last_error: str | None = None
    runs: int = 0
    progress: tuple[int, int] = field(default=(0, 0))
    purge_pending: int = 0


StoreSource = StoreBackend | Callable[[], StoreBackend]
"""A store to share, or a factory the loop calls once to open its own (closed at stop)."""


class BackgroundLoop:
    """Timed and on-demand extraction rounds for one user, in a thread of its own."""

    def __init__(self, store: StoreSource, actor: str, interval_s: float | None = DEFAULT_INTERVAL_S,
                 on_event: Callable[[LoopEvent], None] | None = None,
                 codex_home: str | os.PathLike[str] | None = None) -> None:
        if interval_s is not None and interval_s <= 0:
            raise ValueError("interval_s must be positive (or None: on demand only)")
        self._source = store
        self._store: StoreBackend | None = store if isinstance(store, StoreBackend) else None
        self._owns_store = not isinstance(store, StoreBackend)
        self.actor = actor
        self.interval_s = interval_s
        self.codex_home = codex_home
        """A Codex home whose new rollouts each round imports as tasks."""
        self._on_event = on_event
        self._state = LoopState()
        self._state_lock = threading.Lock()
        self._run_lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def state(self) -> LoopState:
        """A copy of the current state."""
        with self._state_lock:
            return LoopState(**vars(self._state))

    @property
    def running(self) -> bool:
        """Whether the loop's thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start the loop's thread (a timed round runs after the first interval)."""
        if self.running:
            return
        self._stopping.clear()
        self._set(status=IDLE)
        self._thread = threading.Thread(target=self._loop, name=f"memtui-worker-{self.actor}",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float = DEFAULT_STOP_TIMEOUT_S) -> bool:
        """Ask the loop to stop; whether its thread ended within ``timeout``."""
        self._stopping.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                return False
        self._thread = None
        if self._owns_store and self._store is not None:
            self._store.close()
            self._store = None
        self._set(status=STOPPED)
        return True

    def run_once(self, force: bool = False) -> RoundSummary | None:
        """Run a round now in the caller's thread; its summary, or None when it failed."""
        with self._run_lock:
            return self._round(bool(force))

    def _loop(self) -> None:
        try:
            next_round = self._next_round_at()
            while (is_round := self._wait_for_turn(next_round)) is not None:
                self._finish_purges()
                if not is_round:
                    continue
                with self._run_lock:
                    if self._stopping.is_set():
                        break
                    self._round(False)
                self._finish_purges()
                next_round = self._next_round_at()
        finally:
            self._emit(LoopEvent("stopped"))

    def _next_round_at(self) -> float | None:
        return None if self.interval_s is None else time.monotonic() + self.interval_s

    def _wait_for_turn(self, next_round: float | None) -> bool | None:
        """Wait for the next round or purge poll: whether the round is due, None to stop."""
        timeout = PURGE_POLL_S
        if next_round is not None:
            timeout = max(0.0, min(timeout, next_round - time.monotonic()))
        if self._stopping.wait(timeout):
            return None
        return next_round is not None and time.monotonic() >= next_round

    def _finish_purges(self) -> None:
        """Retry pending purges (a quick look when there are none); never raises."""
        try:
            status = purge.finish(self._open_store(), purge.PURGE_RETRY_WAIT_S)
        except Exception as error:  # the loop never dies on a purge
            log.warning("purge retry failed: %s: %s", type(error).__name__, error)
            return
        self._set(purge_pending=status.pending)
        if status.cleared:
            self._emit(LoopEvent("purged", done=status.cleared, total=status.cleared))

    def _round(self, force: bool) -> RoundSummary | None:
        self._set(status=RUNNING, progress=(0, 0))
        self._emit(LoopEvent("started", forced=force))
        try:
            engine = Engine(self._open_store(), self.actor)
            self._collect_sessions(engine)
            summary = engine.extraction.run_round(
                force=force, progress=lambda done, total: self._progress(force, done, total),
                should_stop=self._stopping.is_set)
            at = engine.store.now()
        except Exception as error:  # the loop never dies on a round
            message = f"{type(error).__name__}: {error}"
            log.warning("extraction round for %s failed: %s", self.actor, message)
            self._finish(last_error=message)
            self._emit(LoopEvent("error", forced=force, error=message))
            return None
        self._finish(last_summary=summary, last_error=None, last_run_at=at)
        self._emit(LoopEvent("finished", forced=force, done=summary.scanned,
                             total=summary.scanned, summary=summary, at=at))
        return summary

    def _collect_sessions(self, engine: Engine) -> None:
        """Turn recorded agent sessions and new Codex rollouts into tasks (failures logged)."""
        try:
            done = engine.sessions.process_waiting()
            if done.processed:
                log.info("agent sessions: %s", done.to_json())
        except Exception as error:
            log.warning("agent sessions of %s not processed: %s: %s", self.actor,
                        type(error).__name__, error)
        if self.codex_home is None or self._stopping.is_set():
            return
        try:
            report = engine.codex.import_rollouts(self.codex_home)
            if report.imported:
                log.info("codex rollouts imported: %d", report.imported)
        except Exception as error:
            log.warning("codex rollouts of %s not imported: %s: %s", self.codex_home,
                        type(error).__name__, error)

    def _progress(self, force: bool, done: int, total: int) -> None:
        self._set(progress=(done, total))
        self._emit(LoopEvent("progress", forced=force, done=done, total=total))

    def _open_store(self) -> StoreBackend:
        if self._store is None:
            factory = self._source
            assert callable(factory)
            self._store = factory()
        return self._store

    def _set(self, **changes: object) -> None:
        with self._state_lock:
            for name, value in changes.items():
                setattr(self._state, name, value)

    def _finish(self, **changes: object) -> None:
        """The end of a round (rounds never overlap: ``_run_lock``)."""
        self._set(runs=self._state.runs + 1,
                  status=STOPPED if self._stopping.is_set() else IDLE, **changes)

    def _emit(self, event: LoopEvent) -> None:
        if self._on_event is None:
            return
        try:
            self._on_event(event)
        except Exception:  # a broken listener must not stop the loop
            log.exception("worker event listener failed")


def retry_purges(store: StoreBackend, should_stop: Callable[[], bool],
                 poll_s: float | None = None) -> purge.PurgeStatus:
    """Retry pending purges every ``poll_s`` (default ``PURGE_POLL_S``) until none is left
    or ``should_stop()`` (a host without a loop); the last status, ``cleared`` summed."""
    pause = PURGE_POLL_S if poll_s is None else poll_s
    cleared = 0
    while True:
        status = purge.finish(store, purge.PURGE_RETRY_WAIT_S)
        cleared += status.cleared
        if status.purged or should_stop():
            return replace(status, cleared=cleared)
        deadline = time.monotonic() + pause
        while time.monotonic() < deadline:
            if should_stop():
                return replace(status, purged=False, cleared=cleared)
            time.sleep(min(STOP_CHECK_S, pause))
