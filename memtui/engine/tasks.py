"""Tasks, follow-ups, per-task flags and the monthly quota: the extractor's input. A task is
visible to its user and its project's readers (NotFound for anyone else); the quota's spend
is the user's task costs in the store clock's UTC month.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memtui.engine import permissions as perm
from memtui.engine.base import EngineArea
from memtui.engine.task_flags import flag_value
from memtui.engine.validation import check_limit, check_text, check_time, clean_text, echo
from memtui.errors import Conflict, InvalidInput, NotFound, StoreError
from memtui.store.model_ledger import TaskDetail
from memtui.store.models import TASK_STATUSES, Followup, Task
from memtui.store.timeutil import format_time, month_start, next_month_start

if TYPE_CHECKING:
    from memtui.store.backend import StoreBackend

MAX_TASK_TEXT_BYTES = 1024 * 1024
"""Largest goal, prompt or result accepted, in UTF-8 bytes (after that: InvalidInput)."""
MAX_FOLLOWUP_BYTES = 64 * 1024
MAX_SOURCE_BYTES = 64
MAX_SOURCE_REF_BYTES = 1024
MAX_TOOL_NAME_CHARS = 200
"""The longest tool name kept for the extraction log (the tool that made a task external)."""
MAX_COST_USD = 1_000_000.0
"""Largest cost accepted for one task (a typo guard, not a budget)."""
MAX_QUOTA_USD = 1_000_000_000.0
DEFAULT_QUOTA_USD = 10.0
DEFAULT_TASK_LIST_LIMIT = 50
MAX_TASK_LIST_LIMIT = 10_000
_FLAG_COLUMNS = {"use": "use_memories", "generate": "generate_memories"}


class QuotaUnreadable(StoreError, code="quota_unreadable"):
    """The quota row or the month's spend cannot be read as numbers."""


def can_see_task(store: StoreBackend, task: Task, user_id: str) -> bool:
    """Own tasks, and tasks of projects the user can read."""
    return task.user == user_id or perm.READ in perm.permissions(store, task.project, user_id)


def visible_task(store: StoreBackend, task_id: object, user_id: str) -> Task:
    """The task if the user may see it; NotFound otherwise (same answer as missing)."""
    task = store.tasks.get(task_id) if isinstance(task_id, str) else None
    if task is None or not can_see_task(store, task, user_id):
        raise NotFound(f"task {str(task_id)[:80]!r} not found")
    return task


@dataclass(frozen=True)
class QuotaStatus:
    """The month's quota: ``limit_usd`` None means unlimited; ``is_default`` means no row."""

    limit_usd: float | None
    spent_usd: float
    remaining_percent: float
    is_default: bool

    @property
    def unlimited(self) -> bool:
        """Whether the user has an explicit unlimited row."""
        return self.limit_usd is None

    def to_json(self) -> dict[str, Any]:
        """``{limit, spent, remaining_percent, unlimited, default}``."""
        return {"limit": self.limit_usd, "spent": round(self.spent_usd, 6),
                "remaining_percent": round(self.remaining_percent, 2),
                "unlimited": self.unlimited, "default": self.is_default}


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise QuotaUnreadable(f"{what} is not a number")
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise QuotaUnreadable(f"{what} is not a non-negative finite number")
    return number


def read_quota(store: StoreBackend, user_id: str) -> QuotaStatus:
    """The user's quota for the store clock's month (QuotaUnreadable: fail closed)."""
    row = store.tasks.get_quota(user_id)
    now = store.clock()
    spent = _number(store.tasks.spend_between(user_id, format_time(month_start(now)),
                                              format_time(next_month_start(now))), "the spend")
    limit = DEFAULT_QUOTA_USD if row is None else None if row.limit_usd is None \
        else _number(row.limit_usd, "the quota limit")
    remaining = 100.0 if limit is None else 0.0 if limit == 0 else \
        max(0.0, min(100.0, (limit - spent) / limit * 100.0))
    return QuotaStatus(limit_usd=limit, spent_usd=spent, remaining_percent=remaining,
                       is_default=row is None)


def _time(value: object, what: str) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        value = value.isoformat()  # through the one parser: its range applies to datetimes too
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be an ISO-8601 time")
    return check_time(value, what)


def clean_task_text(value: object, what: str) -> str:
    """A task's goal, prompt or result as stored (None is empty), redacted."""
    return "" if value is None else clean_text(value, what, max_bytes=MAX_TASK_TEXT_BYTES,
                                                allow_empty=True)


def clean_followup_message(value: object) -> str:
    """A follow-up message as stored: not empty, at most ``MAX_FOLLOWUP_BYTES``, redacted."""
    return clean_text(value, "message", max_bytes=MAX_FOLLOWUP_BYTES)


def _usd(value: object, what: str, top: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{what} must be a number of USD")
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise InvalidInput(f"{what} must be a non-negative number of USD, got {value}")
    if number > top:
        raise InvalidInput(f"{what} {number} is above the limit of {top} USD")
    return number


def _check_times(status: str, started: str | None, finished: str | None,
                 allow_missing_times: bool) -> None:
    if status == "completed" and not allow_missing_times and (started is None or finished is None):
        raise InvalidInput("a completed task needs both its start and finish times")
    if started is not None and finished is not None and finished < started:
        raise InvalidInput(f"the task finished ({finished}) before it started ({started})")
    if status == "queued" and finished is not None:
        raise InvalidInput("a queued task cannot have a finish time")


class TaskApi(EngineArea):
    """Tasks, follow-ups, per-task flags and the quota, acting as the engine's user."""

    def add_task(self, project: str, goal: str | None, prompt: str | None, result: str | None,
                 started_at: str | datetime | None, finished_at: str | datetime | None, *,
                 status: str = "completed", cost_usd: float = 0, parent: str | None = None,
                 continuation: bool = False, external_context: bool = False,
                 source: str = "manual", source_ref: str | None = None,
                 allow_missing_times: bool = False,
                 followups: Sequence[tuple[str, str]] = (),
                 external_tool: str | None = None) -> Task:
        """Record a task of the actor in ``project`` with its ``followups`` (from task,
        message), all or nothing; ``external_tool`` names what made it external context. A
        ``source_ref`` the actor already recorded for ``source`` is a Conflict."""
        if status not in TASK_STATUSES:
            raise InvalidInput(f"unknown task status {echo(status, 40)}: use one of "
                               f"{', '.join(TASK_STATUSES)}")
        goal_text, prompt_text = clean_task_text(goal, "goal"), clean_task_text(prompt, "prompt")
        result_text = clean_task_text(result, "result")
        if not goal_text.strip() and not prompt_text.strip():
            raise InvalidInput("a task needs a goal or a prompt")
        started, finished = _time(started_at, "start time"), _time(finished_at, "finish time")
        _check_times(status, started, finished, allow_missing_times)
        cost = _usd(cost_usd, "cost", MAX_COST_USD)
        check_text(source, "source", max_bytes=MAX_SOURCE_BYTES)
        if source_ref is not None:
            check_text(source_ref, "source reference", max_bytes=MAX_SOURCE_REF_BYTES)
        with self._store.transaction():
            perm.writable_project(self._store, project, self.actor)
            if parent is not None:
                visible_task(self._store, parent, self.actor)
            if source_ref is not None:
                existing = self._store.tasks.find_by_source_ref(self.actor, source, source_ref)
                if existing is not None:
                    raise Conflict(f"{source} {source_ref[:80]!r} is already recorded as task "
                                   f"{existing.id}", task_id=existing.id)
            self._store.identity.ensure_user(self.actor)
            task = Task(id=self._store.new_id("task"), project=project, user=self.actor,
                        goal=goal_text, prompt=prompt_text, status=status, parent=parent,
                        started_at=started, finished_at=finished, result=result_text,
                        cost_usd=cost, continuation=bool(continuation),
                        external_context=bool(external_context), source=source,
                        created_at=self._store.now())
            self._store.tasks.insert(task, source_ref)
            if self._engine.client is not None:  # an agent recorded it: say which one
                self._append_audit("task_recorded", task.id, source=source, project=project)
            for from_task, message in followups:
                self.add_followup(task.id, from_task, message)
            if external_context and external_tool:
                self._store.model_ledger.set_detail(TaskDetail(
                    task.id, self.actor, external_tool=clean_text(
                        external_tool[:MAX_TOOL_NAME_CHARS], "tool name", one_line=True)))
        return task

    def find_by_source_ref(self, source: str, source_ref: str) -> Task | None:
        """The actor's own task recorded from (source, source_ref), or None (for importers)."""
        task = self._store.tasks.find_by_source_ref(self.actor, source, source_ref)
        return task if task is not None and can_see_task(self._store, task, self.actor) else None

    def get_task(self, task_id: str) -> Task:
        """One visible task (NotFound otherwise)."""
        return visible_task(self._store, task_id, self.actor)

    def list_tasks(self, project: str | None = None, limit: int = DEFAULT_TASK_LIST_LIMIT, *,
                   mine: bool = False, status: str | None = None) -> list[Task]:
        """Visible tasks, newest first (``mine``: the actor's own; ``project``: its only)."""
        check_limit(limit, MAX_TASK_LIST_LIMIT)
        if status is not None and status not in TASK_STATUSES:
            raise InvalidInput(f"unknown task status {echo(status, 40)}")
        if project is not None:
            perm.readable_project(self._store, project, self.actor)
        return self._store.tasks.list_visible(self.actor, limit, project=project, mine=mine,
                                              status=status)

    def add_followup(self, to_task: str, from_task: str, message: str) -> Followup:
        """Record a message from one visible task to another (writing to the receiver's)."""
        text = clean_followup_message(message)
        if to_task == from_task:
            raise InvalidInput("a task cannot send a follow-up to itself")
        with self._store.transaction():
            target = visible_task(self._store, to_task, self.actor)
            visible_task(self._store, from_task, self.actor)
            perm.writable_project(self._store, target.project, self.actor)
            return self._store.tasks.insert_followup(from_task, to_task, text,
                                                     self._store.now())

    def set_flags(self, task_id: str, use: object = None, generate: object = None) -> Task:
        """Override ``use_memories``/``generate_memories`` of a task (``follow`` clears one)."""
        changes = {_FLAG_COLUMNS[name]: flag_value(value, name)
                   for name, value in (("use", use), ("generate", generate)) if value is not None}
        if not changes:
            raise InvalidInput("give use or generate (on, off or follow)")
        with self._store.transaction():
            task = visible_task(self._store, task_id, self.actor)
            perm.writable_project(self._store, task.project, self.actor)
            self._store.tasks.update_flags(task_id, changes)
            self._append_audit("task_flags_set", task_id, **changes)
            updated = self._store.tasks.get(task_id)
        assert updated is not None
        return updated

    def set_quota(self, limit_usd: float | None = None, *, unlimited: bool = False) -> QuotaStatus:
        """Set the actor's monthly limit in USD, or ``unlimited=True`` (exactly one of them)."""
        if unlimited == (limit_usd is not None):
            raise InvalidInput("give either a limit in USD or unlimited")
        value = None if unlimited else _usd(limit_usd, "the quota limit", MAX_QUOTA_USD)
        with self._store.transaction():
            self._store.identity.ensure_user(self.actor)
            self._store.tasks.set_quota(self.actor, value, self._store.now())
            self._append_audit("quota_set", self.actor, limit_usd=value, unlimited=unlimited)
            return read_quota(self._store, self.actor)

    def quota_status(self) -> QuotaStatus:
        """The actor's limit, this month's spend and the remaining percentage."""
        with self._store.snapshot():
            return read_quota(self._store, self.actor)
