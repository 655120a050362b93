"""Auto memory: tasks, follow-ups, the extraction log, and the rows extraction reads."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

EXTRACTED_OUTCOMES = ("extracted", "superseded_previous")
"""Log outcomes that mean the task produced a memory."""


@dataclass(frozen=True)
class Task:
    """A task an agent ran: the extractor's input."""

    id: str
    project: str
    user: str
    goal: str
    prompt: str
    status: str
    parent: str | None
    started_at: str | None
    finished_at: str | None
    result: str
    cost_usd: float
    continuation: bool
    external_context: bool
    source: str
    created_at: str
    use_memories: int | None = None
    generate_memories: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The task as the CLI's JSON shape (without its result), plus the override flags."""
        return {key: value for key, value in asdict(self).items() if key != "result"}


@dataclass(frozen=True)
class Followup:
    """A message passed from one task to another."""

    seq: int
    from_task: str
    to_task: str
    message: str
    created_at: str


@dataclass(frozen=True)
class LogEntry:
    """One extraction-log row (one per task, overwritten at every scan)."""

    task_id: str
    user: str
    project: str
    outcome: str
    reason: str | None
    memory_id: str | None
    forced: bool
    at: str
    detail: str | None = None
    """Words the reason code does not hold: a model failure, the tool that made a session
    external context (from ``extraction_details``, filled in by the engine's log reads)."""
    retry_at: str | None = None
    """When a task whose model call failed is asked again."""

    def to_json(self) -> dict[str, Any]:
        """The row as the CLI's JSON shape (without the user; ``detail`` and ``retry_at``
        only when there are)."""
        return {key: value for key, value in asdict(self).items()
                if key != "user" and (value is not None or key not in _OPTIONAL_LOG_KEYS)}


_OPTIONAL_LOG_KEYS = ("detail", "retry_at")


@dataclass(frozen=True)
class ScanRow:
    """Everything the extractor needs about one task, read in one query inside its transaction:
    ``existing_memory`` is a memory already made from it (by id or source_ref, any status),
    ``forgotten`` says a tombstone exists for either."""

    task: Task
    has_followups: bool
    existing_memory: str | None
    forgotten: bool
    log: LogEntry | None


@dataclass(frozen=True)
class QuotaRow:
    """A user's quota row as stored. ``limit_usd`` is raw (None = explicit unlimited); the
    engine checks it, since a hand-edited row may hold anything."""

    user: str
    limit_usd: object
    updated_at: str


@dataclass(frozen=True)
class DedupeRow:
    """An active memory as the consolidation pass sees it (no other fields needed)."""

    id: str
    content: str
    goal_key: str | None
    created_at: str
