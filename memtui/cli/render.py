"""Human output for the command line: Rich tables readable at 80 columns, text made safe."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rich import box
from rich.table import Table
from rich.text import Text

from memtui.store.models import Memory
from memtui.textsafe import one_line, safe_text

CONTENT_PREVIEW_CHARS = 200
BYTES_PER_KIB = 1024
SIZE_UNITS = ("KiB", "MiB", "GiB")


def text(value: object) -> Text:
    """A cell of store text: safe, literal, never markup."""
    return Text(safe_text("" if value is None else str(value)))


def byte_size(count: int, small: str = "bytes", units: Sequence[str] = SIZE_UNITS) -> str:
    """A byte count for people: ``812 bytes``, ``4.0 KiB``, ``1.3 MiB``, ``2.1 GiB`` (below
    a KiB in ``small``, else in the largest of ``units`` it reaches)."""
    if count < BYTES_PER_KIB:
        return f"{count} {small}"
    exponent = 1
    while exponent < len(units) and count >= BYTES_PER_KIB ** (exponent + 1):
        exponent += 1
    return f"{count / BYTES_PER_KIB ** exponent:.1f} {units[exponent - 1]}"


def short_time(stamp: str | None) -> str:
    """A stored time as ``YYYY-MM-DD HH:MM`` for tables."""
    return stamp[:16].replace("T", " ") if stamp else "—"


def add_id_column(table: Table, header: str, ids: Iterable[str | None]) -> None:
    """An id column that never wraps nor shrinks: as wide as its longest id, so a copied id
    is whole; the table's other columns give way at 80 columns."""
    width = max([len(header), *(len(value) for value in ids if value)])
    table.add_column(header, no_wrap=True, overflow="ignore", min_width=width)


def memory_table(memories: Sequence[Memory], title: str | None = None,
                 reasons: Mapping[str, Sequence[str]] | None = None) -> Table:
    """Memories as a compact table that reads at 80 columns: id, kind, created, content
    (with the source and, for superseded rows, the status after the text; a stale one's
    ``reasons`` on a line of their own)."""
    table = Table(title=title, box=box.SIMPLE_HEAD, show_lines=False, expand=False,
                  pad_edge=False)
    add_id_column(table, "id", (memory.id for memory in memories))
    table.add_column("kind", no_wrap=True)
    table.add_column("created", no_wrap=True)
    table.add_column("content", overflow="fold", min_width=24)
    for memory in memories:
        cell = Text(one_line(memory.content, CONTENT_PREVIEW_CHARS))
        suffix = f" [{memory.source}]" if memory.source != "manual" else ""
        if memory.status != "active":
            suffix += f" ({memory.status} by {memory.superseded_by})"
        if suffix:
            cell.append(suffix, style="dim")
        if reasons and reasons.get(memory.id):
            cell.append("\nstale: " + one_line("; ".join(reasons[memory.id]),
                                                CONTENT_PREVIEW_CHARS), style="yellow")
        table.add_row(memory.id, memory.kind, short_time(memory.created_at)[5:], cell)
    return table


def key_value_table(rows: Iterable[tuple[str, object]], title: str | None = None) -> Table:
    """Two columns of field and value."""
    table = Table(title=title, show_header=False, expand=False)
    table.add_column("field", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    for key, value in rows:
        table.add_row(key, text("—" if value is None else value))
    return table


def memory_detail(memory: Memory) -> Table:
    """All fields of one memory."""
    return key_value_table([
        ("id", memory.id), ("scope", memory.scope), ("owner", memory.owner),
        ("project", memory.project), ("kind", memory.kind), ("status", memory.status),
        ("superseded by", memory.superseded_by), ("source", memory.source),
        ("source thread", memory.source_thread_id), ("created", memory.created_at),
        ("updated", memory.updated_at), ("usage count", memory.usage_count),
        ("last used", memory.last_used_at), ("content", memory.content),
    ])
