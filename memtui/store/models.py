"""Plain dataclasses that cross the store's interface. No sqlite types leak above the store."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

SCOPES = ("user", "project")
KINDS = ("fact", "preference", "decision", "convention")
STATUSES = ("active", "superseded")
SOURCES = ("manual", "note", "auto", "import")
ROLES = ("owner", "member", "reader")
TASK_STATUSES = ("queued", "running", "completed", "failed", "interrupted", "merged")
LOG_OUTCOMES = ("extracted", "superseded_previous", "skipped", "error")


@dataclass(frozen=True)
class User:
    """A person (or agent identity) known to the store."""

    id: str
    display_name: str
    created_at: str


@dataclass(frozen=True)
class Project:
    """A project: memories at project level belong to one."""

    id: str
    name: str
    root_path: str | None
    summary: str
    created_by: str | None
    created_at: str

    def to_json(self) -> dict[str, Any]:
        """The project as the CLI's JSON object."""
        return {
            "id": self.id,
            "name": self.name,
            "root": self.root_path,
            "summary": self.summary,
            "created_by": self.created_by,
            "created_at": self.created_at,
        }


@dataclass(frozen=True)
class Membership:
    """A user's role in a project."""

    project_id: str
    user_id: str
    role: str


@dataclass(frozen=True)
class Profile:
    """One user's profile: display name, timezone, preferences (a JSON object)."""

    user_id: str
    display_name: str
    timezone: str
    preferences: dict[str, Any]
    updated_at: str | None

    def to_json(self) -> dict[str, Any]:
        """The profile as a JSON object."""
        return asdict(self)


@dataclass(frozen=True)
class Memory:
    """An identity memory (user or project level)."""

    id: str
    scope: str
    owner: str
    project: str | None
    kind: str
    content: str
    status: str
    superseded_by: str | None
    source: str
    source_thread_id: str | None
    created_at: str
    updated_at: str
    usage_count: int
    last_used_at: str | None

    def to_json(self) -> dict[str, Any]:
        """The memory as the CLI's JSON shape (spec/70)."""
        return asdict(self)


@dataclass(frozen=True)
class MemoryFilter:
    """What a memory list shows. ``scope='user'`` lists the owner's user memories;
    ``scope='project'`` lists one project's memories."""

    scope: str
    owner: str | None = None
    project: str | None = None
    kind: str | None = None
    status: str | None = "active"  # None = all statuses
    source: str | None = None
    search: str | None = None


@dataclass(frozen=True)
class PageCursor:
    """A keyset position in a newest-first list: the (created_at, id) of a row."""

    created_at: str
    id: str


@dataclass(frozen=True)
class AuditEntry:
    """One append-only audit row. ``detail`` never holds memory content or secrets."""

    seq: int
    at: str
    actor: str
    action: str
    target: str | None
    detail: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The entry as a JSON object."""
        return asdict(self)


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
        """The task as the CLI's JSON shape (spec/70), plus the override flags."""
        return {
            "id": self.id,
            "project": self.project,
            "user": self.user,
            "goal": self.goal,
            "prompt": self.prompt,
            "status": self.status,
            "parent": self.parent,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "cost_usd": self.cost_usd,
            "continuation": self.continuation,
            "external_context": self.external_context,
            "source": self.source,
            "created_at": self.created_at,
            "use_memories": self.use_memories,
            "generate_memories": self.generate_memories,
        }


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

    def to_json(self) -> dict[str, Any]:
        """The row as the CLI's JSON shape (spec/70)."""
        return {
            "task_id": self.task_id,
            "project": self.project,
            "outcome": self.outcome,
            "reason": self.reason,
            "memory_id": self.memory_id,
            "forced": self.forced,
            "at": self.at,
        }


@dataclass(frozen=True)
class Interaction:
    """A finished question/answer pair an agent asked the store to remember."""

    id: str
    user: str
    project: str | None
    question: str
    answer: str
    source: str | None
    created_at: str

    def to_json(self) -> dict[str, Any]:
        """The interaction as a JSON object."""
        return asdict(self)


@dataclass(frozen=True)
class BundleDocument:
    """One document of a bundle, with its revision."""

    bundle: str
    path: str
    revision: int
    content: str
    updated_at: str
    updated_by: str

    def to_json(self) -> dict[str, Any]:
        """The document as a JSON object."""
        return {"path": self.path, "revision": self.revision, "content": self.content,
                "updated_at": self.updated_at, "updated_by": self.updated_by}


@dataclass(frozen=True)
class Bundle:
    """A set of documents per project or schedule."""

    id: str
    project: str | None
    schedule: str | None
    created_by: str
    created_at: str
    documents: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """The bundle as a JSON object."""
        return asdict(self) | {"documents": list(self.documents)}


# ---- auto memory (issue 4): extraction scan rows, quota rows, consolidation inputs ----------

EXTRACTED_OUTCOMES = ("extracted", "superseded_previous")
"""Log outcomes that mean the task produced a memory."""


@dataclass(frozen=True)
class ScanRow:
    """Everything the extractor needs about one task, read in one query inside its transaction.

    ``existing_memory`` is a memory already made from this task (its id or its source_ref as
    ``source_thread_id``, any status); ``forgotten`` says a tombstone exists for either.
    """

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
