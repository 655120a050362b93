"""Extraction: completed tasks become project-level ``fact`` memories (docs/auto-memory.md),
through the gates in ``REASONS`` order (``force`` skips ``not_idle`` and the shape gates; the
quota fails closed). Tasks go in batches of ``BATCH_SIZE``, one write transaction each, every
task claimed and re-checked first, so two workers never extract a task twice; in ``model``
mode a task that passed the gates is asked of the model after its batch commits.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from memtui.engine import permissions as perm
from memtui.engine.base import EngineArea
from memtui.engine.identity import new_memory
from memtui.engine.jobs import BACKFILL, ROUND
from memtui.engine.model_client import (
    ERROR_WORDS_CHARS,
    Endpoint,
    ModelFailure,
    complete_json,
    estimate_tokens,
)
from memtui.engine.model_consolidation import ProjectPass, propose
from memtui.engine.model_extraction import (
    EXTRACT_SYSTEM,
    Proposed,
    parse_memories,
    render_task,
)
from memtui.engine.model_phase import (
    EXTRACT,
    MAX_ATTEMPTS,
    cap_reason,
    conversation_for,
    retry_at,
    spend,
)
from memtui.engine.redaction import redact
from memtui.engine.review_rules import PENDING, status_for_new
from memtui.engine.settings import MODE_SETTING, MODEL_MODE, load_settings
from memtui.engine.tasks import QuotaStatus, read_quota
from memtui.engine.validation import check_limit, clean_text
from memtui.errors import InvalidInput, TransactionLost
from memtui.jsonable import JsonMixin
from memtui.store.model_ledger import TaskDetail, UsageTotal
from memtui.store.models import (
    EXTRACTED_OUTCOMES,
    DedupeRow,
    LogEntry,
    PageCursor,
    ScanRow,
    Task,
)
from memtui.store.recall import ConsolidationRecord
from memtui.store.tasks import SweepCursor
from memtui.store.timeutil import seconds_between

log = logging.getLogger(__name__)

ROUND_LIMIT = 500
"""Most tasks one round scans; the rest wait for the next round."""
BATCH_SIZE = 100
"""Tasks per write transaction: a stop request is honoured between batches."""
RESULT_CHARS = 800
EVIDENCE_KEPT_CHARS = 300
MODEL_ROUND_SECONDS = 300.0
"""Model mode: after this long asking the model a round asks no more (the rest stay due)."""
HALTING_FAILURES = ("timeout", "connection")
"""Model failures after which a consolidation pass asks about no more projects."""
TITLE_MAX_CHARS = 300
MAX_LOG_LIMIT = 10_000
MAX_ROUND_LIMIT = 100_000
AUTO_SOURCE = "auto"
ERROR_REASON_CHARS = 40

REASONS = ("generate_off", "not_idle", "missing_times", "too_short", "result_too_short",
           "external_context", "quota_low", "quota_check_failed", "already_extracted",
           "forgotten")
"""Every skip reason code of the gates, in the order they are checked."""

Progress = Callable[[int, int], None]
"""``progress(done, total)`` after each batch."""
ShouldStop = Callable[[], bool]
"""Asked between batches; True ends the round early (never mid-transaction)."""


def first_line(text: str) -> str:
    """The first non-blank line, stripped, cut to TITLE_MAX_CHARS."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= TITLE_MAX_CHARS else line[:TITLE_MAX_CHARS - 1] + "…"


def normalise(text: str) -> str:
    """Whitespace collapsed, case folded: the comparison form of goals and contents."""
    return " ".join(text.split()).casefold()


def memory_content(task: Task) -> str:
    """A task's memory text: its first goal (else prompt) line and result start, redacted."""
    result = task.result.strip()[:RESULT_CHARS].rstrip()
    title = first_line(task.goal) or first_line(task.prompt)
    return redact(title + ("\n" + result if result else ""))


@dataclass
class RoundSummary(JsonMixin):
    """What one round (or a backfill) did: ``scanned`` = extracted + superseded (memories that
    replaced an older one) + skipped + errors."""

    scanned: int = 0
    extracted: int = 0
    superseded: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    errors: int = 0
    forced: bool = False
    stopped: bool = False
    memory_ids: list[str] = field(default_factory=list)

    def add(self, outcome: str, reason: str | None, memory_id: str | None) -> None:
        """Count one scanned task."""
        self.scanned += 1
        if outcome == "extracted":
            self.extracted += 1
        elif outcome == "superseded_previous":
            self.superseded += 1
        elif outcome == "error":
            self.errors += 1
        else:
            self.skipped[reason or "unknown"] += 1
        if memory_id and outcome in EXTRACTED_OUTCOMES:
            self.memory_ids.append(memory_id)

    def to_json(self) -> dict[str, Any]:
        """The run summary ``memtui run --json`` prints."""
        return {"scanned": self.scanned, "extracted": self.extracted,
                "superseded": self.superseded, "skipped": dict(sorted(self.skipped.items())),
                "errors": self.errors}


@dataclass(frozen=True)
class ConsolidationResult:
    """What a consolidation pass superseded: (old id, surviving id) pairs, per scope, and in
    model mode what each project's model pass proposed for review."""

    id: str
    superseded: tuple[tuple[str, str], ...]
    scopes: tuple[str, ...]
    passes: tuple[ProjectPass, ...] = ()

    @property
    def proposed(self) -> int:
        """How many supersedes the model proposed (pending in the inbox)."""
        return sum(len(done.proposed) for done in self.passes)

    @property
    def count(self) -> int:
        """How many memories were superseded."""
        return len(self.superseded)

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON object (ids only)."""
        return {"id": self.id, "count": self.count, "scopes": list(self.scopes),
                "superseded": [{"id": old, "by": new} for old, new in self.superseded]} | (
            {"proposed": self.proposed, "model": [done.to_json() for done in self.passes]}
            if self.passes else {})


@dataclass
class _Batch:
    """Per-transaction inputs, each read once: the store time, the user's settings, quota and
    writable projects, and the tasks to ask the model after the transaction."""

    now: str
    settings: dict[str, Any]
    quota: QuotaStatus | Exception | None = None
    writable: set[str] = field(default_factory=set)
    model_tasks: list[Task] = field(default_factory=list)


class ExtractionApi(EngineArea):
    """Extraction rounds, backfill, the log and consolidation, for the actor's own tasks."""

    _round_id = "round_none"
    """The current round's id (the cost ledger groups calls by it)."""
    _model_until = 0.0
    """When the current round stops asking the model (``MODEL_ROUND_SECONDS``)."""

    def _start_round(self) -> None:
        self._round_id = self._store.new_id("round")
        self._model_until = time.monotonic() + MODEL_ROUND_SECONDS

    def run_round(self, force: bool = False, limit: int = ROUND_LIMIT,
                  progress: Progress | None = None,
                  should_stop: ShouldStop | None = None) -> RoundSummary:
        """One bounded round over the actor's due tasks (at most ``limit``)."""
        check_limit(limit, MAX_ROUND_LIMIT)
        task_ids = self._store.tasks.round_candidates(self.actor, limit)
        summary = RoundSummary(forced=bool(force))
        self._start_round()
        self._process(task_ids, summary, force, progress, should_stop, len(task_ids), 0)
        self._audit_round(summary, ROUND)
        return summary

    def backfill(self, force: bool = False, progress: Progress | None = None,
                 should_stop: ShouldStop | None = None,
                 batch_limit: int = ROUND_LIMIT) -> RoundSummary:
        """Rounds until every task due when it started was scanned once, with overall progress."""
        check_limit(batch_limit, MAX_ROUND_LIMIT)
        total = self._store.tasks.count_candidates(self.actor)
        summary = RoundSummary(forced=bool(force))
        self._start_round()
        after: SweepCursor | None = None
        while not summary.stopped:
            rows = self._store.tasks.sweep_candidates(self.actor, after, batch_limit)
            if not rows:
                break
            after = rows[-1][0]
            self._process([task_id for _cursor, task_id in rows], summary, force, progress,
                          should_stop, max(total, summary.scanned + len(rows)), summary.scanned)
        self._audit_round(summary, BACKFILL)
        return summary

    def _process(self, task_ids: Sequence[str], summary: RoundSummary, force: bool,
                 progress: Progress | None, should_stop: ShouldStop | None, total: int,
                 done: int) -> None:
        for start in range(0, len(task_ids), BATCH_SIZE):
            if should_stop is not None and should_stop():
                summary.stopped = True
                return
            batch = task_ids[start:start + BATCH_SIZE]
            self._run_batch(batch, summary, force, should_stop)
            done += len(batch)
            if progress is not None:
                progress(done, total)

    def _run_batch(self, task_ids: Sequence[str], summary: RoundSummary, force: bool,
                   should_stop: ShouldStop | None = None) -> None:
        # Shared: workers on other machines scan other tasks of the round meanwhile; a task
        # one of them holds is left to it (claim), and one goal's supersede takes turns.
        with self._store.transaction(shared=True):
            context = _Batch(now=self._store.now(),
                             settings=load_settings(self._store, self.actor))
            for task_id in self._store.tasks.claim(task_ids):
                try:
                    with self._store.tasks.savepoint():
                        outcome = self._scan_one(task_id, context, force)
                except TransactionLost:
                    raise  # the whole batch was rolled back: the round fails, retried later
                except Exception as error:  # one bad task must not stop the round
                    outcome = self._log_error(task_id, error, force, context.now)
                if outcome is not None:
                    summary.add(*outcome)
        for task in context.model_tasks:
            if should_stop is not None and should_stop():
                summary.stopped = True  # the rest stay due: the next round asks for them
                return
            if time.monotonic() > self._model_until:
                return  # the round's time with the model is spent: the rest stay due
            try:
                outcome = self._model_extract(task, context.settings, force)
            except Exception as error:  # one bad task must not stop the round; it may have
                # cost tokens, so it waits out a backoff like a failed call
                log.info("model extraction of task %s failed: %s", task.id, error)
                with self._store.transaction():
                    outcome = self._model_failed(task, type(error).__name__[:ERROR_REASON_CHARS],
                                                 f"{type(error).__name__}: {error}", force)
            if outcome is not None:
                summary.add(*outcome)

    def _scan_one(self, task_id: str, context: _Batch,
                  force: bool) -> tuple[str, str | None, str | None] | None:
        row = self._store.tasks.scan_row(task_id)
        if row is None or row.task.user != self.actor or row.task.status != "completed":
            return None  # gone or changed since the candidate query
        if row.log is not None and row.log.outcome in EXTRACTED_OUTCOMES \
                and row.existing_memory is not None and not row.forgotten:
            return "skipped", "already_extracted", None  # another process just did it
        reason = self._skip_reason(row, context, force)
        if reason is not None:
            memory_id = row.existing_memory if reason == "already_extracted" else None
            self._write_log(row.task, "skipped", reason, memory_id, force, context.now)
            return "skipped", reason, memory_id
        if context.settings[MODE_SETTING] == MODEL_MODE:
            self._queue_for_model(row, context)
            return None
        outcome, memory_id = self._extract(row.task, context)
        self._write_log(row.task, outcome, None, memory_id, force, context.now)
        return outcome, None, memory_id

    def _skip_reason(self, row: ScanRow, context: _Batch, force: bool) -> str | None:
        task, settings = row.task, context.settings
        if row.forgotten:
            return "forgotten"
        if row.existing_memory is not None:
            return "already_extracted"
        generate = task.generate_memories if task.generate_memories is not None \
            else settings["generate_memories"]
        if not generate:
            return "generate_off"
        if not force:
            reason = self._idle_or_shape(task, settings, context.now)
            if reason is not None:
                return reason
        if settings["disable_on_external_context"] and (
                row.has_followups or task.parent is not None or task.external_context):
            return "external_context"
        return self._quota_reason(context, settings)

    @staticmethod
    def _idle_or_shape(task: Task, settings: dict[str, Any], now: str) -> str | None:
        if task.finished_at is not None and \
                seconds_between(task.finished_at, now) < settings["idle_seconds"]:
            return "not_idle"
        if task.started_at is None or task.finished_at is None:
            return "missing_times"
        if seconds_between(task.started_at, task.finished_at) < settings["min_duration_seconds"]:
            return "too_short"
        if len(task.result.strip()) < settings["min_result_chars"]:
            return "result_too_short"
        return None

    def _quota_reason(self, context: _Batch, settings: dict[str, Any]) -> str | None:
        if context.quota is None:
            try:
                context.quota = read_quota(self._store, self.actor)
            except Exception as error:  # fail closed: never assume there is quota left
                log.info("quota of %s unreadable: %s", self.actor, error)
                context.quota = error
        if isinstance(context.quota, Exception):
            return "quota_check_failed"
        if context.quota.remaining_percent < settings["min_rate_limit_remaining_percent"]:
            return "quota_low"
        return None

    def _check_writable(self, project: str, context: _Batch) -> None:
        if project not in context.writable:
            perm.writable_project(self._store, project, self.actor)  # raises when it is not
            context.writable.add(project)

    def _extract(self, task: Task, context: _Batch) -> tuple[str, str]:
        self._check_writable(task.project, context)
        content = memory_content(task)
        if not content.strip():
            raise InvalidInput("the task has no text to remember")
        key = normalise(content.split("\n", 1)[0]) or None  # the goal key: its first line
        previous = self._store.tasks.active_auto_for_goal(task.project, key) if key else None
        now = context.now
        status = status_for_new(self._store, task.user, AUTO_SOURCE, context.settings)
        memory = new_memory(self._store, task.user, task.project, "fact", content, status,
                            AUTO_SOURCE, task.id, now)
        # pending, it waits in the inbox; a repeated goal is then a pending correction of the
        # active one, and approving it is the supersede
        self._store.memories.insert(memory, key, replaces=previous if status == PENDING else None)
        if status == PENDING or previous is None:
            return "extracted", memory.id
        self._store.memories.mark_superseded(previous, memory.id, now)
        return "superseded_previous", memory.id

    def _write_log(self, task: Task, outcome: str, reason: str | None, memory_id: str | None,
                   force: bool, at: str) -> None:
        self._store.tasks.upsert_log(LogEntry(
            task_id=task.id, user=task.user, project=task.project, outcome=outcome,
            reason=reason, memory_id=memory_id, forced=bool(force), at=at))

    def _detail(self, task_id: str) -> TaskDetail:
        return self._store.model_ledger.details([task_id]).get(task_id) or \
            TaskDetail(task_id, self.actor)

    def _queue_for_model(self, row: ScanRow, context: _Batch) -> None:
        """Queue a task for its model call, unless it waits out a backoff (then it goes last)."""
        self._check_writable(row.task.project, context)
        detail = self._detail(row.task.id)
        if detail.retry_at is not None and detail.retry_at > context.now and row.log:
            self._store.tasks.upsert_log(replace(row.log, at=context.now))
            return
        context.model_tasks.append(row.task)

    def _model_extract(self, task: Task, settings: dict[str, Any],
                       force: bool) -> tuple[str, str | None, str | None]:
        """Ask the model about one task and write what it answered."""
        answer, failure, stop, model = None, None, None, settings.get("extract_model") or ""
        try:
            endpoint = Endpoint.from_settings(settings)
            model = endpoint.model
            text = render_task(task, conversation_for(self._store, task))
            stop = cap_reason(self._store, self.actor, settings, self._store.now(),
                              estimate_tokens(EXTRACT_SYSTEM, text))
            if stop is None:
                answer = complete_json(endpoint, EXTRACT_SYSTEM, text)
                proposed = parse_memories(answer.data)
        except ModelFailure as error:
            failure = error
        if stop is None and (failure is None or failure.kind != "config"):
            spent = (answer.tokens_in, answer.tokens_out) if answer else \
                (failure.tokens_in, failure.tokens_out) if failure else (0, 0)
            spend(self._store, self.actor, EXTRACT, self._round_id, task.id, task.project,
                  model, spent, failure.kind if failure else "answered")
        with self._store.transaction():
            now = self._store.now()
            row = self._store.tasks.scan_row(task.id) if self._store.tasks.claim([task.id]) \
                else None  # claimed again: on PostgreSQL another worker's write waits
            if row is None or row.existing_memory is not None or row.forgotten:
                return "skipped", "already_extracted", None  # done elsewhere meanwhile
            detail = self._detail(task.id)
            if stop is not None or (failure is not None and failure.kind == "config"):
                reason, words = stop or ("model_not_ready", failure.words if failure else "")
                self._write_detail(detail, words, 0, None)
                self._write_log(task, "skipped", reason, None, force, now)
                return "skipped", reason, None
            if failure is not None:
                return self._model_failed(task, f"model_{failure.kind}",
                                          f"{failure.kind}: {failure.words}", force, detail)
            perm.writable_project(self._store, task.project, self.actor)
            ids = [self._insert_proposed(task, item, settings, now) for item in proposed]
            self._write_detail(detail, None, 0, None)
            if not ids:
                self._write_log(task, "skipped", "model_nothing", None, force, now)
                return "skipped", "model_nothing", None
            self._write_log(task, "extracted", None, ids[0], force, now)
            return "extracted", None, ids[0]

    def _model_failed(self, task: Task, reason: str, words: str, force: bool,
                      detail: TaskDetail | None = None) -> tuple[str, str | None, str | None]:
        """A failed model task's ``error`` row, with its backoff (at last ``model_gave_up``)."""
        now, detail = self._store.now(), detail or self._detail(task.id)
        attempts = detail.attempts + 1
        gave_up = attempts >= MAX_ATTEMPTS
        self._write_detail(detail, f"{redact(words)[:ERROR_WORDS_CHARS]} (try {attempts} of "
                                   f"{MAX_ATTEMPTS})", attempts,
                           None if gave_up else retry_at(now, attempts))
        reason = "model_gave_up" if gave_up else reason
        self._write_log(task, "error", reason, None, force, now)
        return "error", reason, None

    def _write_detail(self, detail: TaskDetail, words: str | None, attempts: int,
                      again: str | None) -> None:
        self._store.model_ledger.set_detail(replace(
            detail, detail=None if words is None else redact(words), attempts=attempts,
            retry_at=again))

    def _insert_proposed(self, task: Task, item: Proposed, settings: dict[str, Any],
                         now: str) -> str:
        """One proposed memory, checked and redacted again, with the evidence it rests on; a
        user-level one (with its reason) always waits in the inbox."""
        user_level = item.scope == "user"
        text = item.text + f"\n\nEvidence: {item.evidence[:EVIDENCE_KEPT_CHARS]}" + (
            f"\nFor every project because: {item.reason}" if user_level else "")
        status = PENDING if user_level else status_for_new(self._store, task.user,
                                                           AUTO_SOURCE, settings)
        memory = new_memory(self._store, task.user, None if user_level else task.project,
                            item.kind, clean_text(text, "memory"), status, AUTO_SOURCE, task.id,
                            now)
        self._store.memories.insert(memory, None)
        return memory.id

    def _log_error(self, task_id: str, error: Exception, force: bool,
                   at: str) -> tuple[str, str | None, str | None] | None:
        reason = type(error).__name__[:ERROR_REASON_CHARS]
        log.info("extraction of task %s failed: %s", task_id, reason)
        task = self._store.tasks.get(task_id)
        if task is None:
            return None
        self._write_log(task, "error", reason, None, force, at)
        return "error", reason, None

    def _audit_round(self, summary: RoundSummary, kind: str) -> None:
        if summary.scanned == 0:
            return
        detail = summary.to_json() | {"forced": summary.forced, "kind": kind,
                                      "stopped": summary.stopped}
        with self._store.transaction():
            self._append_audit("auto_memory_run", self.actor, **detail)

    def log(self, limit: int = 50, *, after: PageCursor | None = None,
            before: PageCursor | None = None) -> list[LogEntry]:
        """The extraction log of the actor's own tasks, newest first; a keyset page ``after``
        a row's (``at``, ``task_id``) or just ``before`` it."""
        check_limit(limit, MAX_LOG_LIMIT)
        return self._with_details(
            self._store.tasks.log_page(self.actor, limit, after=after, before=before))

    def log_at(self, offset: int, limit: int = 50, *, from_end: bool = False) -> list[LogEntry]:
        """A page of the actor's log by position (from the bottom with ``from_end``)."""
        check_limit(limit, MAX_LOG_LIMIT)
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise InvalidInput("offset must be a whole number from 0")
        return self._with_details(
            self._store.tasks.log_at(self.actor, offset, limit, from_end=from_end))

    def _with_details(self, entries: list[LogEntry]) -> list[LogEntry]:
        """Log rows with their words and when a failed model call is tried again."""
        details = self._store.model_ledger.details([entry.task_id for entry in entries])
        shown: list[LogEntry] = []
        for entry in entries:
            found = details.get(entry.task_id)
            if found is not None and entry.reason == "external_context":
                entry = replace(entry, detail=found.external_tool)
            elif found is not None and entry.reason not in REASONS:
                entry = replace(entry, detail=found.detail, retry_at=found.retry_at)
            shown.append(entry)
        return shown

    def cost(self, limit: int = 30) -> dict[str, Any]:
        """The actor's model cost ledger: calls and tokens today and this month (UTC) against
        the caps, and per day, round and task (latest first, at most ``limit`` each)."""
        check_limit(limit, MAX_LOG_LIMIT)
        return self._cost({name: [row.to_json() for row in self._store.model_ledger.totals(
            self.actor, name, limit)] for name in ("day", "round", "task")})

    def cost_summary(self) -> dict[str, Any]:
        """``cost`` without its lists (what the Log pane's title shows)."""
        return self._cost({"day": [], "round": [], "task": []})

    def _cost(self, by: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        ledger, settings = self._store.model_ledger, load_settings(self._store, self.actor)
        now = self._store.now()
        month = ledger.totals(self.actor, "day", 31, since=now[:7])

        def spent(rows: list[UsageTotal], cap: str) -> dict[str, Any]:
            return {"calls": sum(r.calls for r in rows),
                    "tokens_in": sum(r.tokens_in for r in rows),
                    "tokens_out": sum(r.tokens_out for r in rows), "cap": settings[cap]}

        return {"today": spent([r for r in month if r.key == now[:10]], "model_daily_token_cap"),
                "month": spent(month, "model_monthly_token_cap"),
                "by_day": by["day"], "by_round": by["round"], "by_task": by["task"]}

    def log_count(self) -> int:
        """How many log rows the actor has (one per task scanned)."""
        return self._store.tasks.count_log_rows(self.actor)

    def log_counts(self) -> dict[str, int]:
        """How many of the actor's log rows have each outcome."""
        return self._store.tasks.count_log(self.actor)

    def pending(self) -> int:
        """How many of the actor's tasks are due for a scan (what a backfill would visit)."""
        return self._store.tasks.count_candidates(self.actor)

    def consolidate(self, should_stop: ShouldStop | None = None) -> ConsolidationResult:
        """Supersede active memories duplicating another in the same scope (the actor's user
        memories, each project it can write) in one transaction; in model mode a model pass
        per project then proposes supersedes into the inbox, until ``should_stop``,
        ``MODEL_ROUND_SECONDS`` or a ``HALTING_FAILURES`` failure."""
        with self._store.transaction():
            scopes: list[tuple[str, list[DedupeRow]]] = [
                ("user", self._store.tasks.active_memories(owner=self.actor))]
            for project, role in self._store.identity.projects_for(self.actor):
                if perm.CREATE_TASK in perm.ROLE_PERMISSIONS.get(role, frozenset()):
                    scopes.append((f"project:{project.id}",
                                   self._store.tasks.active_memories(project=project.id)))
            now = self._store.now()
            pairs: list[tuple[str, str]] = []
            for _scope, rows in scopes:
                for old, new in duplicate_pairs(rows):
                    self._store.memories.mark_superseded(old, new, now)
                    self._append_audit("memory_superseded", old, new_id=new, reason="consolidation")
                    pairs.append((old, new))
            record = ConsolidationResult(id=self._store.new_id("cons"), superseded=tuple(pairs),
                                         scopes=tuple(name for name, _rows in scopes))
            detail = {"count": record.count, "scopes": list(record.scopes),
                      "superseded": [list(pair) for pair in pairs]}
            self._store.recall.insert_consolidation(ConsolidationRecord(
                id=record.id, user=self.actor, kind="dedupe",
                outcome="superseded" if pairs else "nothing_to_do", detail=detail, at=now))
            self._append_audit("memories_consolidated", record.id, count=record.count,
                               scopes=len(scopes))
        settings = load_settings(self._store, self.actor)
        if settings[MODE_SETTING] != MODEL_MODE:
            return record
        passes: list[ProjectPass] = []
        until, halted = time.monotonic() + MODEL_ROUND_SECONDS, None
        for name in [s.removeprefix("project:") for s in record.scopes
                        if s.startswith("project:")]:
            if halted is None and should_stop is not None and should_stop():
                halted = "the pass was stopped"
            elif halted is None and time.monotonic() > until:
                halted = "the pass's time with the model is spent"
            if halted is not None:
                passes.append(ProjectPass(name, (), f"not asked: {halted}"))
                continue
            passes.append(propose(self._store, self.actor, name, settings))
            if passes[-1].failure in HALTING_FAILURES:
                halted = f"the endpoint failed ({passes[-1].failure})"
        return replace(record, passes=tuple(passes))


def duplicate_pairs(rows: Sequence[DedupeRow]) -> list[tuple[str, str]]:
    """(old id, surviving id) for every memory duplicating a newer one in ``rows`` (equal
    normalised content or goal key); the newest of a group survives."""
    parent: dict[str, str] = {row.id: row.id for row in rows}

    def find(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    seen: dict[tuple[str, str], str] = {}
    for row in rows:
        keys = [("content", normalise(row.content))]
        if row.goal_key:
            keys.append(("goal", row.goal_key))
        for key in keys:
            if key in seen:
                parent[find(row.id)] = find(seen[key])
            else:
                seen[key] = row.id
    groups: dict[str, list[DedupeRow]] = {}
    for row in rows:
        groups.setdefault(find(row.id), []).append(row)
    pairs: list[tuple[str, str]] = []
    for members in groups.values():
        ordered = sorted(members, key=lambda r: (r.created_at, r.id))
        pairs += [(row.id, ordered[-1].id) for row in ordered[:-1]]
    return pairs
