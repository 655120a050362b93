"""Renderables for one memory's or one task's details, provenance included. All store text
goes in as literal ``Text``."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from memtui.app.format import OUTCOME_WORDS, block, literal, local_time, reason_words
from memtui.store.models import LogEntry, Memory, Task

RESULT_EXCERPT_CHARS = 400
"""How much of a task's result the provenance shows."""


def _grid(rows: list[tuple[str, Text]]) -> Table:
    grid = Table.grid(padding=(0, 1), expand=True)
    grid.add_column("field", style="bold", no_wrap=True)
    grid.add_column("value", ratio=1, overflow="fold")
    for name, value in rows:
        grid.add_row(name, value)
    return grid


def memory_fields(memory: Memory, tz: ZoneInfo, versions: int | None = None) -> Table:
    """The memory's fields as a two-column grid."""
    where = f"project {memory.project}" if memory.project else "user (only you see it)"
    rows: list[tuple[str, Text]] = [
        ("id", literal(memory.id)),
        ("kind", literal(memory.kind)),
        ("scope", literal(where)),
        ("status", literal(memory.status + (f" → replaced by {memory.superseded_by}"
                                            if memory.superseded_by else ""))),
        ("source", literal(memory.source)),
        ("owner", literal(memory.owner)),
        ("created", literal(local_time(memory.created_at, tz))),
        ("used", literal(f"{memory.usage_count}× · last " + (
            local_time(memory.last_used_at, tz) if memory.last_used_at else "never"))),
    ]
    if versions is not None:
        rows.append(("versions", literal(f"{versions} in its history")))
    return _grid(rows)


def task_fields(task: Task, tz: ZoneInfo, entry: LogEntry | None = None) -> Table:
    """A task's fields (goal, times, result excerpt) as a grid."""
    excerpt = task.result.strip()
    if len(excerpt) > RESULT_EXCERPT_CHARS:
        excerpt = excerpt[:RESULT_EXCERPT_CHARS - 1] + "…"
    rows: list[tuple[str, Text]] = [
        ("task", literal(task.id)),
        ("project", literal(task.project)),
        ("status", literal(task.status)),
        ("goal", block(task.goal or task.prompt or "—")),
        ("started", literal(local_time(task.started_at, tz))),
        ("finished", literal(local_time(task.finished_at, tz))),
        ("result", block(excerpt or "—")),
    ]
    if entry is not None:
        outcome = OUTCOME_WORDS.get(entry.outcome, entry.outcome)
        words = reason_words(entry.reason)
        rows.append(("extraction", literal(
            f"{outcome}{': ' + words if words else ''}{' (forced)' if entry.forced else ''}"
            f" · {local_time(entry.at, tz)}")))
        if entry.detail:
            rows.append(("why", block(entry.detail)))
        if entry.retry_at:
            rows.append(("next try", literal(local_time(entry.retry_at, tz))))
    return _grid(rows)


def memory_detail(memory: Memory, tz: ZoneInfo, *, task: Task | None = None,
                  task_note: str | None = None, versions: int | None = None) -> RenderableType:
    """Everything about a memory: its text, its fields, and where it came from."""
    parts: list[RenderableType] = [block(memory.content), Text(""),
                                   memory_fields(memory, tz, versions)]
    if memory.source_thread_id:
        parts.append(Text(""))
        parts.append(Text("Provenance", style="bold underline"))
        if task is not None:
            parts.append(task_fields(task, tz))
        else:
            parts.append(literal(f"from {memory.source_thread_id}"
                                 + (f" ({task_note})" if task_note else "")))
    elif memory.source in ("manual", "note"):
        parts.append(Text(""))
        parts.append(Text(f"Provenance: written by hand ({memory.source}).", style="dim"))
    return Group(*parts)
