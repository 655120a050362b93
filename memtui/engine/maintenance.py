"""Maintenance: ``doctor`` (integrity and memtui's invariants), lossless export and import."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from memtui import __version__
from memtui.engine.redaction import redact
from memtui.engine.validation import MAX_JSON_DEPTH, json_depth
from memtui.errors import InvalidInput, StoreError
from memtui.store import maintenance as sql

if TYPE_CHECKING:
    from memtui.engine.api import Engine

EXPORT_FORMAT = "memtui-export"
EXPORT_FORMAT_VERSION = 1
MAX_IMPORT_LINE_BYTES = 16 * 1024 * 1024
"""Longest line an import accepts (a memory is at most 64 KiB; a task result at most a few MiB)."""
REDACTED_COLUMNS: dict[str, tuple[str, ...]] = {
    "memories": ("content",),
    "tasks": ("goal", "prompt", "result"),
    "interactions": ("question", "answer"),
    "bundle_documents": ("content",),
    "task_followups": ("message",),
}
"""Text columns redacted again on import: every write path redacts (idempotent on clean text)."""

RENUMBERED_ON_MERGE = ("memories", "tasks", "interactions", "consolidations")
"""Tables with a text id whose internal row number is reassigned when merging."""


@dataclass
class DoctorReport:
    """What ``doctor`` found, and what ``--repair`` fixed."""

    problems: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        """No problem is left."""
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON object."""
        return {"healthy": self.healthy, "problems": self.problems, "repaired": self.repaired}


@dataclass
class ImportReport:
    """Rows loaded per table, and rows skipped because they already existed."""

    loaded: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON object."""
        return {"loaded": self.loaded, "skipped": self.skipped}


class MaintenanceApi:
    """Whole-store operations. They act on the file, so they are for whoever holds it."""

    def __init__(self, engine: Engine) -> None:
        self._store = engine.store

    # ---- doctor -------------------------------------------------------------------------

    def check(self) -> list[str]:
        """Every problem found: SQLite's integrity, foreign keys, full-text indexes, chains,
        tombstones, log rows."""
        with self._store.snapshot():
            problems = sql.sqlite_integrity(self._store)
            if problems:
                return problems  # the file itself is damaged; deeper checks would mislead
            problems += sql.fts_integrity(self._store)
            problems += sql.chain_problems(self._store)
            problems += sql.tombstone_problems(self._store)
            problems += sql.log_problems(self._store)
        return problems

    def doctor(self, repair: bool = False) -> DoctorReport:
        """Check the store; with ``repair``, fix what is safe to fix, then check again."""
        report = DoctorReport(problems=self.check())
        if not repair or not report.problems:
            return report
        with self._store.transaction():
            if any("full-text" in p for p in report.problems):
                sql.rebuild_fts(self._store)
                report.repaired.append("rebuilt the full-text indexes")
            if any("extraction log row for missing task" in p for p in report.problems):
                removed = sql.delete_orphan_log_rows(self._store)
                report.repaired.append(f"removed {removed} extraction log row(s) of missing tasks")
            sql.optimize(self._store)
        report.problems = self.check()
        return report

    # ---- export / import ----------------------------------------------------------------

    def export_lines(self) -> Iterator[str]:
        """The whole store as JSON Lines: a header, then one ``{"table", "row"}`` per row."""
        with self._store.snapshot():
            yield json.dumps({"format": EXPORT_FORMAT, "version": EXPORT_FORMAT_VERSION,
                              "schema_version": self._store.schema_version(),
                              "memtui": __version__, "exported_at": self._store.now()})
            for table in sql.EXPORT_TABLES:
                for row in sql.dump_rows(self._store, table):
                    yield json.dumps({"table": table, "row": row}, ensure_ascii=False)

    def export_to(self, out: TextIO) -> dict[str, int]:
        """Write the export to a text stream; returns rows per table."""
        counts: dict[str, int] = {}
        for index, line in enumerate(self.export_lines()):
            out.write(line + "\n")
            if index:
                table = line[len('{"table": "'):].split('"', 1)[0]
                counts[table] = counts.get(table, 0) + 1
        return counts

    def _parse(self, lines: Iterable[str]) -> Iterator[tuple[int, str, dict[str, Any]]]:
        header_seen = False
        for number, raw in enumerate(lines, start=1):
            if len(raw) > MAX_IMPORT_LINE_BYTES:
                raise InvalidInput(f"line {number}: longer than {MAX_IMPORT_LINE_BYTES} bytes")
            if not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):
                raise InvalidInput(f"line {number}: not valid JSON") from None
            if not isinstance(value, dict) or json_depth(value) > MAX_JSON_DEPTH:
                raise InvalidInput(f"line {number}: not an export record")
            if not header_seen:
                if value.get("format") != EXPORT_FORMAT:
                    raise InvalidInput("line 1: not a memtui export (no header)")
                if value.get("schema_version", 0) > self._store.schema_version():
                    raise InvalidInput("the export comes from a newer memtui schema")
                header_seen = True
                continue
            table, row = value.get("table"), value.get("row")
            if table not in sql.EXPORT_TABLES or not isinstance(row, dict):
                raise InvalidInput(f"line {number}: unknown table or row")
            for column in REDACTED_COLUMNS.get(table, ()):
                if isinstance(row.get(column), str):
                    row[column] = redact(row[column])
            yield number, table, row
        if not header_seen:
            raise InvalidInput("the file is empty: not a memtui export")

    def import_lines(self, lines: Iterable[str], *, merge: bool = False) -> ImportReport:
        """Load an export in one transaction. Without ``merge`` the store must be empty;
        with it, rows whose keys already exist are skipped. All or nothing."""
        try:
            return self._import(lines, merge)
        except StoreError as error:
            if "FOREIGN KEY" in error.message:
                raise InvalidInput("the file refers to rows it does not hold (FOREIGN KEY "
                                   "constraint failed); nothing was imported") from None
            raise

    def _import(self, lines: Iterable[str], merge: bool) -> ImportReport:
        report = ImportReport()
        with self._store.transaction():
            if not merge and not sql.is_empty(self._store):
                raise InvalidInput("the store is not empty; import into a new store, or use "
                                   "--merge to add only what is missing")
            sql.defer_foreign_keys(self._store)
            for number, table, row in self._parse(lines):
                if merge and table in RENUMBERED_ON_MERGE:
                    row.pop("seq", None)  # keyed by id: let the store number the new rows
                try:
                    loaded = sql.load_row(self._store, table, row, skip_existing=merge)
                except (ValueError, Exception) as error:
                    if isinstance(error, InvalidInput):
                        raise
                    raise InvalidInput(f"line {number}: cannot load this {table} row "
                                       f"({str(error)[:120]})") from None
                bucket = report.loaded if loaded else report.skipped
                bucket[table] = bucket.get(table, 0) + 1
        return report
