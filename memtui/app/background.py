"""The extraction engine in a Textual thread worker (rounds, backfill, consolidation)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from textual.worker import get_current_worker

from memtui.app.format import local_time
from memtui.app.widgets.status import StatusLine
from memtui.engine.api import Engine
from memtui.engine.jobs import BACKFILL, CONSOLIDATE, ROUND
from memtui.errors import MemtuiError

if TYPE_CHECKING:
    from memtui.app.app import MemtuiApp
    from memtui.engine.extraction import ConsolidationResult, RoundSummary
    from memtui.engine.worker import BackgroundLoop, LoopEvent
    from memtui.store.backend import StoreBackend

JOB_WORDS = {ROUND: "extraction round", BACKFILL: "backfill", CONSOLIDATE: "consolidation"}
WORKER_GROUP = "extraction"
AUDIT_LOOKBACK = 200
"""How many of the user's latest audit entries are searched for the last extraction run."""


@dataclass
class WorkerState:
    """What the background worker is doing, and how its last job ended (for the header)."""

    job: str | None = None
    forced: bool = False
    done: int = 0
    total: int | None = None
    last_job: str | None = None
    last_at: str | None = None
    last_result: str | None = None
    last_error: str | None = None

    @property
    def running(self) -> bool:
        """Whether a job is running."""
        return self.job is not None


@dataclass(frozen=True)
class RecordedRun:
    """The last extraction run recorded in the audit log."""

    job: str
    at: str
    result: str


def last_recorded_run(engine: Engine) -> RecordedRun | None:
    """The actor's last recorded extraction run, from the audit log (a store read)."""
    try:
        entries = engine.identity.audit(AUDIT_LOOKBACK)
    except MemtuiError:
        return None
    for entry in entries:
        if entry.action == "auto_memory_run":
            job = BACKFILL if entry.detail.get("kind") == BACKFILL else ROUND
            return RecordedRun(job, entry.at, summary_words(job, entry.detail))
    return None


def summary_words(job: str, summary: dict[str, Any] | None) -> str:
    """A job's result in a few words."""
    if not summary:
        return "done"
    if job == CONSOLIDATE:
        count = summary.get("count", 0)
        proposed = (f", {summary['proposed']} proposed by the model for review"
                    if "proposed" in summary else "")
        return f"{count} duplicate{'s' if count != 1 else ''} superseded{proposed}"
    skipped = summary.get("skipped", {})
    skipped_total = sum(skipped.values()) if isinstance(skipped, dict) else int(skipped or 0)
    parts = [f"{summary.get('scanned', 0)} scanned", f"{summary.get('extracted', 0)} new"]
    if summary.get("superseded"):
        parts.append(f"{summary['superseded']} replaced")
    parts.append(f"{skipped_total} skipped")
    if summary.get("errors"):
        parts.append(f"{summary['errors']} errors")
    return ", ".join(parts)


class ExtractionRunner:
    """Runs one extraction job at a time in a thread worker of ``app``'s main screen."""

    def __init__(self, app: MemtuiApp, store: StoreBackend, actor: str) -> None:
        self.app = app
        self.store = store
        self.actor = actor
        self.state = WorkerState()
        self.quiet = False
        """The job running is the timed round's: said only when it made something."""
        self._stop = threading.Event()
        self._loop: BackgroundLoop | None = None

    def show_recorded_run(self, run: RecordedRun) -> None:
        """Show the last recorded run until this session runs one (UI thread)."""
        if self.state.last_job is not None or self.state.running:
            return
        self.state.last_job, self.state.last_at = run.job, run.at
        self.state.last_result = run.result

    def start(self, job: str, force: bool = False, *, quiet: bool = False) -> None:
        """Start a job unless one runs; ``quiet`` (the timed round) says only what it made."""
        app = self.app
        if self.state.running or self._stop.is_set():
            if not quiet:
                app.say("The worker is busy; try again when it is idle.", severity="warning")
            return
        if self._loop is None:
            from memtui.engine.agent_setup import codex_home_for_worker
            from memtui.engine.worker import BackgroundLoop

            self._loop = BackgroundLoop(
                self.store, self.actor, interval_s=None, on_event=self._on_event,
                codex_home=codex_home_for_worker(app.config.codex_home))
        self.state.job, self.state.forced = job, force
        self.state.done, self.state.total = 0, None
        self.quiet = quiet
        app.get_screen_main().run_job(WORKER_GROUP, partial(self.work, self._loop, job, force),
                                      partial(self.finished, job), exclusive=False)
        if not quiet:
            app.say(f"Started {JOB_WORDS.get(job, job)}{' with force' if force else ''}…",
                    toast=False)
        self._show_progress(0, None)

    def stop(self) -> None:
        """Ask a running job to stop between transactions (the app is closing)."""
        self._stop.set()
        if self._loop is not None:
            self._loop.stop(timeout=0)

    def status(self, tz: ZoneInfo, *, short: bool = False) -> str:
        """The worker's state in a few words (``short``: fewer)."""
        state = self.state
        if state.running:
            words = JOB_WORDS.get(state.job or "", state.job or "")
            forced = " (forced)" if state.forced and not short else ""
            done = f" {state.done}/{state.total}" if state.total else "…"
            return f"running {words}{forced}{done}"
        if state.last_job is None:
            return "idle"
        when = local_time(state.last_at, tz, with_year=False)
        if state.last_error:
            return f"idle · last {when} failed"
        return f"idle · last {when}" + ("" if short else f": {state.last_result}")

    def progress(self, counts: tuple[int, int | None] | None, _error: str | None) -> None:
        """A job reported (done, total) (UI thread): the status line's bar, the header."""
        if counts is not None:
            self.state.done, self.state.total = counts
            self._show_progress(*counts)

    def _show_progress(self, done: int | None, total: int | None) -> None:
        screen = self.app.get_screen_main()
        screen.query_one(StatusLine).progress(done, total)
        screen.show_header()

    def finished(self, job: str, result: RoundSummary | ConsolidationResult | None,
                 error: str | None) -> None:
        """A job ended (UI thread): record it, say how, refresh what is shown."""
        state, app = self.state, self.app
        state.last_job, state.last_at = job, self.store.now()
        state.last_error = error
        summary = {} if result is None else result.to_json()
        state.last_result = None if error else summary_words(job, summary)
        state.job = None
        self._show_progress(None, None)
        words = JOB_WORDS.get(job, job).capitalize()
        quiet, self.quiet = self.quiet, False
        if error:
            app.say(f"{words} failed: {error}", severity="error")
        else:
            made = summary.get("extracted", 0) or summary.get("superseded", 0)
            stopped = getattr(result, "stopped", False)
            app.say(f"{words}{' (stopped early)' if stopped else ''}: "
                    f"{state.last_result}", toast=not quiet or bool(made))
        app.store_changed(wrote=True)

    def _should_stop(self) -> bool:
        return self._stop.is_set() or get_current_worker().is_cancelled

    def _post_progress(self, done: int, total: int | None) -> None:
        from memtui.app.panes.base import JobDone

        get_current_worker().node.post_message(JobDone(self.progress, (done, total)))

    def _on_event(self, event: LoopEvent) -> None:  # the loop's, in the worker's thread
        if event.kind == "progress":
            self._post_progress(event.done, event.total)

    def work(self, loop: BackgroundLoop, job: str,
             force: bool) -> RoundSummary | ConsolidationResult:
        """Run one job (a thread job of the main screen); any failure is a MemtuiError."""
        try:
            extraction = Engine(self.store, self.actor).extraction
            if job == ROUND:
                result = loop.run_once(force)
                if result is None:
                    raise MemtuiError(loop.state.last_error or "the round failed")
                return result
            if job == BACKFILL:
                return extraction.backfill(force=force, should_stop=self._should_stop,
                                           progress=self._post_progress)
            return extraction.consolidate(should_stop=self._should_stop)
        except MemtuiError:
            raise
        except Exception as error:  # the app must never die of a job
            raise MemtuiError(f"{error.__class__.__name__}: {error}") from error
