"""What a Codex import reports (one item per thread, note or rollout, and the counts), and
the text rules the imports share."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from memtui.engine import permissions as perm
from memtui.engine.base import EngineArea
from memtui.engine.codex.models import Problem
from memtui.engine.project_picker import ProjectPicker, usable_cwd
from memtui.engine.redaction import redact
from memtui.engine.tasks import MAX_TASK_TEXT_BYTES
from memtui.engine.validation import MAX_CONTENT_BYTES
from memtui.errors import MemtuiError
from memtui.jsonable import JsonMixin

IMPORT_SOURCE = "import"
ROLLOUT_TASK_SOURCE = "codex"
"""``source`` of every task imported from a Codex rollout (``source_ref`` = thread id)."""
NOTE_THREAD_PREFIX = "codex-note:"
"""``source_thread_id`` of an imported ad-hoc note: this prefix and the note's file name."""
TRUNCATION_MARKER = "\n\n[… cut by memtui's Codex import: {omitted} more bytes not kept]"
"""Appended to a text cut to the size limit (``omitted`` is the number of bytes left out)."""

OUTCOME_IMPORTED = "imported"
OUTCOME_SKIPPED = "skipped"
OUTCOME_ERROR = "error"
REASON_ALREADY = "already_imported"
REASON_FORGOTTEN = "forgotten"
REASON_NOT_IN_DB = "not_in_database"
REASON_EMPTY = "empty"
REASON_NO_THREAD = "no_thread_id"
REASON_NO_GOAL = "no_goal"
REASON_NO_RESULT = "missing_result"
REASON_NO_TIMES = "missing_times"
REASON_NO_PROJECT = "no_project"
REASON_DB_UNREADABLE = "database_unreadable"
REASON_MEMORY_MODE = "memory_mode"
"""Codex does not use this thread's memory (``memory_mode`` not ``enabled``)."""
REASON_NOT_INTERACTIVE = "not_interactive"
"""An exec or sub-agent session: Codex mines only interactive sources."""

KIND_THREAD = "thread"
KIND_NOTE = "note"
KIND_ROLLOUT = "rollout"

DB_LOCKED_WORDS = "locked"
"""In the reader's problem for a database another process holds locked (``CodexDbLocked``)."""


@dataclass(frozen=True)
class ImportItem(JsonMixin):
    """What happened to one thread, note or rollout: ``imported`` (``target_id`` the memory or
    task), ``skipped`` (a ``reason`` code) or ``error`` (its code and message)."""

    kind: str
    ref: str
    outcome: str
    reason: str | None = None
    detail: str | None = None
    target_id: str | None = None
    project: str | None = None
    truncated: bool = False
    path: str | None = None


@dataclass(frozen=True)
class ImportReport(JsonMixin):
    """The result of one import: every item, the read problems, the projects created."""

    home: str
    items: tuple[ImportItem, ...]
    problems: tuple[Problem, ...]
    created_projects: tuple[str, ...] = ()
    database_error: str | None = None
    """Why the memory database could not be read although it exists (threads then wait)."""
    unchanged: int = 0
    """Rollout files not opened because they did not change since the last import."""

    @property
    def database_locked(self) -> bool:
        """True when a running Codex held the database locked past the wait."""
        return self.database_error is not None and DB_LOCKED_WORDS in self.database_error

    @property
    def imported(self) -> int:
        """How many items were written."""
        return sum(1 for item in self.items if item.outcome == OUTCOME_IMPORTED)

    @property
    def skipped(self) -> dict[str, int]:
        """Skipped items by reason code."""
        return dict(sorted(Counter(item.reason or "unknown" for item in self.items
                                   if item.outcome == OUTCOME_SKIPPED).items()))

    @property
    def errors(self) -> int:
        """How many items failed (each with its reason)."""
        return sum(1 for item in self.items if item.outcome == OUTCOME_ERROR)

    @property
    def truncated(self) -> tuple[str, ...]:
        """Refs of the items whose text was cut to the size limit."""
        return tuple(item.ref for item in self.items if item.truncated)

    def to_json(self) -> dict[str, Any]:
        """Counts first, then the items, problems and created projects."""
        return {"home": self.home, "imported": self.imported, "skipped": self.skipped,
                "errors": self.errors, "truncated": list(self.truncated),
                "created_projects": list(self.created_projects),
                "database_error": self.database_error, "unchanged": self.unchanged,
                "items": [item.to_json() for item in self.items],
                "problems": [problem.to_json() for problem in self.problems]}


class Importer(EngineArea):
    """An engine area that imports: it audits each import that had items."""

    def _audit(self, action: str, report: ImportReport) -> None:
        if not report.items:
            return
        detail = {"imported": report.imported, "skipped": report.skipped,
                  "errors": report.errors, "created_projects": list(report.created_projects)}
        with self._store.transaction():
            self._store.audit.append(self.actor, action, None, detail)

    def _known(self, kind: str, ref: str, path: str | None) -> ImportItem | None:
        """The skip of a memory forgotten in memtui or imported before and visible to the
        actor, else None."""
        memories = self._store.memories
        if memories.is_forgotten_source(ref):
            return ImportItem(kind, ref, OUTCOME_SKIPPED, REASON_FORGOTTEN,
                              "its memory was forgotten in memtui", path=path)
        return next((ImportItem(kind, ref, OUTCOME_SKIPPED, REASON_ALREADY, target_id=memory.id,
                                project=memory.project, path=path)
                     for memory in memories.get_many(memories.ids_for_thread(ref))
                     if memory.source == IMPORT_SOURCE
                     and perm.can_see(self._store, memory, self.actor)), None)

    def _write_memory(self, kind: str, ref: str, text: str, memory_kind: str,
                      cwd: str | None, path: str | None, picker: ProjectPicker) -> ImportItem:
        """``text`` as one memory (redacted, cut to size) in the project ``picker`` gives
        ``cwd``, unless memtui has it already; an error is the item's outcome."""
        try:
            with self._store.transaction():
                known = self._known(kind, ref, path)
                if known is not None:
                    return known
                project = picker.project_for(cwd) if cwd else None
                content, cut = bound_text(redact(text.strip()), MAX_CONTENT_BYTES)
                memory = self._engine.identity.add_memory(
                    content, memory_kind, project, source=IMPORT_SOURCE, source_thread_id=ref)
        except MemtuiError as error:
            picker.rolled_back()
            return ImportItem(kind, ref, OUTCOME_ERROR, error.code, error.message, path=path)
        picker.committed()
        return ImportItem(kind, ref, OUTCOME_IMPORTED, target_id=memory.id,
                          project=memory.project, truncated=cut, path=path)


def bound_text(text: str, max_bytes: int) -> tuple[str, bool]:
    """``text`` cut to at most ``max_bytes`` UTF-8 bytes with a marker; (text, was_cut)."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text, False
    reserve = len(TRUNCATION_MARKER.format(omitted=len(data)).encode("utf-8"))
    if reserve * 2 > max_bytes:  # no room for a marker: a plain cut
        return data[:max_bytes].decode("utf-8", "ignore"), True
    kept = data[:max_bytes - reserve].decode("utf-8", "ignore").rstrip()
    omitted = len(data) - len(kept.encode("utf-8", "surrogatepass"))
    return kept + TRUNCATION_MARKER.format(omitted=omitted), True


def task_text(value: str | None) -> tuple[str, bool]:
    """A session's goal, prompt or result as an imported task keeps it: redacted, then cut
    to the task text limit with a marker; (text, was_cut)."""
    return bound_text(redact(value or ""), MAX_TASK_TEXT_BYTES)


def task_gap(goal: str | None, result: str | None, started_at: str | None,
             finished_at: str | None, cwd: str | None, source: str) -> tuple[str, str] | None:
    """Why a session read from a ``source`` ("rollout", "session") cannot become a completed
    task (yet): (reason code, detail); None when it can."""
    if not (goal or "").strip():
        return REASON_NO_GOAL, f"no user request in the {source}"
    if not (result or "").strip():
        return REASON_NO_RESULT, ("no assistant answer yet (still running?); import again once "
                                  "it has one")
    if not started_at or not finished_at:
        return REASON_NO_TIMES, f"the {source}'s records carry no usable times"
    if usable_cwd(cwd) is None:
        return REASON_NO_PROJECT, "no absolute working directory to pick a project"
    return None
