"""Maintenance: ``doctor`` (integrity, memtui's invariants, every row's rules), export and
import. Both check each row with ``memtui.engine.rows`` (the first bad row refuses a whole
import); export holds what the actor may read, the whole store only for the file's owner.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from memtui import __version__
from memtui.engine import purge
from memtui.engine.base import EngineArea
from memtui.engine.validation import parse_json_object
from memtui.errors import InvalidInput, MemtuiError, StoreError
from memtui.jsonable import JsonMixin
from memtui.store import maintenance as sql

if TYPE_CHECKING:
    from memtui.engine.rows import RowFinding
    from memtui.store.maintenance import VacuumResult

EXPORT_FORMAT = "memtui-export"
EXPORT_FORMAT_VERSION = 1
MAX_IMPORT_LINE_BYTES = 16 * 1024 * 1024
"""Longest line an import accepts (a memory is at most 64 KiB; a task result at most a few MiB)."""
ROW_PROBLEMS_LIMIT = 100
"""Row problems ``doctor`` lists one by one; past that it says how many more there are."""
PURGE_PROBLEM_START = "forgotten text"
"""How ``doctor`` begins the problem of forgotten text still in the write-ahead log."""
FULLTEXT_TABLES = ("memories", "tasks", "interactions")
"""Tables with a full-text index (rebuilt after ``--repair`` rewrites their text)."""
RENUMBERED_ON_MERGE = ("memories", "tasks", "interactions", "consolidations")
"""Tables with a text id whose internal row number is reassigned when merging."""


@dataclass
class DoctorReport:
    """What ``doctor`` found, what ``--repair`` fixed, and what ``--vacuum`` did."""

    problems: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    vacuum_asked: bool = False
    vacuum: VacuumResult | None = None
    vacuum_skipped: str | None = None

    @property
    def healthy(self) -> bool:
        """No problem is left."""
        return not self.problems

    @property
    def finished(self) -> bool:
        """Healthy, and an asked-for vacuum ran to the end (the exit status 0 of ``doctor``)."""
        return self.healthy and (not self.vacuum_asked or (
            self.vacuum is not None and self.vacuum.pending is None))

    def to_json(self) -> dict[str, Any]:
        """The report as JSON (``vacuum`` when asked for: the result, or ``{"skipped"}``)."""
        out: dict[str, Any] = {"healthy": self.healthy, "problems": self.problems,
                               "repaired": self.repaired}
        if self.vacuum_asked:
            out["vacuum"] = (self.vacuum.to_json() if self.vacuum is not None
                             else {"skipped": self.vacuum_skipped})
        return out


@dataclass
class ImportReport(JsonMixin):
    """Rows loaded per table, and rows skipped because they already existed."""

    loaded: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class _Fix:
    """A safe fix ``doctor`` found, and the value it was made for (``--repair`` rewrites only
    a value still equal to it)."""

    table: str
    rowid: int
    finding: RowFinding
    found: Any


class MaintenanceApi(EngineArea):
    """Whole-store operations. They act on the file, so they are for whoever holds it."""

    def check(self) -> list[str]:
        """Every problem found: integrity, memtui's invariants, each row against its rules."""
        return self._check()[0]

    def _check(self) -> tuple[list[str], list[_Fix]]:
        try:
            with self._store.snapshot():
                problems = sql.sqlite_integrity(self._store)
                if problems:
                    return problems, []  # the file itself is damaged; deeper checks would mislead
                problems += self._store.exposure_problems()
                problems += sql.fts_integrity(self._store)
                problems += sql.chain_problems(self._store)
                problems += sql.tombstone_problems(self._store)
                problems += sql.log_problems(self._store)
                problems += self._purge_problems()
            # Outside the snapshot (its full-text check holds the write lock): the long row
            # scan reads batch by batch, so writers and a forget's purge go on meanwhile.
            row_problems, fixes = self._row_problems()
            problems += row_problems
        except StoreError as error:
            return [f"{self._store.dialect.name}: could not check the database "
                    f"({error.message})"], []
        return problems, fixes

    def _row_problems(self) -> tuple[list[str], list[_Fix]]:
        """Rows that break their table's rules, and the safe fixes among them."""
        from memtui.engine.rows import RowFinding, row_findings

        problems: list[str] = []
        fixes: list[_Fix] = []
        more = 0
        for table in sql.EXPORT_TABLES:
            for rowid, row in sql.scan_rows(self._store, table):
                undecodable = [RowFinding(column, f"{column}: text is not valid UTF-8", False)
                               for column, value in row.items()
                               if isinstance(value, sql.UndecodableText)]
                findings = undecodable or row_findings(table, row)
                for finding in findings:
                    if len(problems) < ROW_PROBLEMS_LIMIT:
                        problems.append(f"{table} row {_row_name(table, rowid, row)}: "
                                        f"{finding.message}")
                    else:
                        more += 1
                    if finding.fixable and rowid is not None \
                            and table not in sql.APPEND_ONLY_TABLES:
                        fixes.append(_Fix(table, rowid, finding, row[finding.column]))
        if more:
            problems.append(f"... and {more} more row problem(s)")
        return problems, fixes

    def _purge_problems(self) -> list[str]:
        """Forgotten text still in the write-ahead log (a reader prevented the checkpoint)."""
        status = purge.pending(self._store)
        if status.purged or self._store.purge_backlog_bytes() == 0:
            return []
        return [f"{PURGE_PROBLEM_START} of {status.pending} forget(s) may still be in "
                f"{self._store.purge_location()}: {status.reason}"]

    def doctor(self, repair: bool = False, vacuum: bool = False,
               full: bool = False) -> DoctorReport:
        """Check the store; with ``repair``, fix what is safe to fix (indexes, orphan log rows,
        redaction, time forms, secret preference keys), then check again; with ``vacuum``,
        then vacuum it (``full``: ``VACUUM FULL``) unless the file itself is damaged."""
        report = self._doctor(repair)
        if vacuum:
            report.vacuum_asked = True
            if _damaged(report.problems, self._store.dialect.name):
                report.vacuum_skipped = ("the database is damaged: a rewrite could lose what "
                                         "is still readable; copy what you can first")
            else:
                report.vacuum = self.vacuum(full)
                # the vacuum truncated the write-ahead log: forgotten text may be gone from it
                report.problems = [p for p in report.problems
                                   if not p.startswith(PURGE_PROBLEM_START)]
                report.problems += self._purge_problems()
        return report

    def vacuum(self, full: bool = False) -> VacuumResult:
        """``Store.vacuum``, then finish the forgets still waiting for it."""
        result = self._store.vacuum(full)
        purge.finish(self._store, purge.PURGE_RETRY_WAIT_S)
        return result

    def _doctor(self, repair: bool) -> DoctorReport:
        problems, fixes = self._check()
        report = DoctorReport(problems=problems)
        if not repair or not report.problems or \
                _damaged(report.problems, self._store.dialect.name):
            return report
        if any(p.startswith(PURGE_PROBLEM_START) for p in report.problems):
            status = purge.finish(self._store, purge.PURGE_RETRY_WAIT_S)
            if status.cleared:
                report.repaired.append(f"erased the text of {status.cleared} forget(s) from "
                                       "the write-ahead log")
        with self._store.transaction():
            rewritten = [fix for fix in fixes
                         if sql.update_value(self._store, fix.table, fix.rowid,
                                             fix.finding.column, fix.finding.fixed, fix.found)]
            if rewritten:
                report.repaired.append(f"rewrote {len(rewritten)} value(s) as the write paths "
                                       "store them (redacted, canonical times, no secret keys)")
            if any("full-text" in p for p in report.problems) or \
                    any(fix.table in FULLTEXT_TABLES for fix in rewritten):
                sql.rebuild_fts(self._store)
                report.repaired.append("rebuilt the full-text indexes")
            if any(" for missing task " in p for p in report.problems):
                removed = sql.delete_orphan_log_rows(self._store)
                report.repaired.append(f"removed {removed} extraction log row(s) and details "
                                       "of missing tasks")
            sql.optimize(self._store)
        report.problems = self.check()
        return report

    def export_lines(self, *, everything: bool = False) -> Generator[str, None, None]:
        """JSON Lines: a header, then one ``{"table", "row"}`` per row the acting user may read
        (``USER_SCOPE``); ``everything``: the whole store, only for the store file's owner."""
        if everything:
            self._store.check_whole_store_access()
        user = None if everything else self.actor
        with self._store.snapshot():
            header: dict[str, Any] = {
                "format": EXPORT_FORMAT, "version": EXPORT_FORMAT_VERSION,
                "schema_version": self._store.schema_version(), "memtui": __version__,
                "exported_at": self._store.now(), "scope": "all" if everything else "user"}
            if user is not None:
                header["user"] = user
            yield json.dumps(header)
            for table in sql.EXPORT_TABLES:
                for row in sql.dump_rows(self._store, table, user=user):
                    yield json.dumps({"table": table, "row": row}, ensure_ascii=False)

    def export_to(self, out: TextIO, *, everything: bool = False) -> dict[str, int]:
        """Write the export to a text stream; returns rows per table."""
        counts: dict[str, int] = {}
        for index, line in enumerate(self.export_lines(everything=everything)):
            out.write(line + "\n")
            if index:
                table = line[len('{"table": "'):].split('"', 1)[0]
                counts[table] = counts.get(table, 0) + 1
        return counts

    def _parse(self, lines: Iterable[str]) -> Iterator[tuple[int, str, dict[str, Any]]]:
        from memtui.engine.rows import clean_row

        header_seen = False
        for number, raw in enumerate(lines, start=1):
            if len(raw) > MAX_IMPORT_LINE_BYTES:
                raise InvalidInput(f"line {number}: longer than {MAX_IMPORT_LINE_BYTES} bytes")
            if not raw.strip():
                continue
            value = parse_json_object(raw, f"line {number}: not valid JSON",
                                      f"line {number}: not an export record")
            if not header_seen:
                self._check_header(number, value)
                header_seen = True
                continue
            table, row = value.get("table"), value.get("row")
            if table not in sql.EXPORT_TABLES or not isinstance(row, dict):
                raise InvalidInput(f"line {number}: unknown table or row")
            try:
                cleaned = clean_row(table, row)
            except InvalidInput as error:
                raise InvalidInput(f"line {number}: {table} row: {error.message}") from None
            yield number, table, cleaned
        if not header_seen:
            raise InvalidInput("the file is empty: not a memtui export")

    def _check_header(self, number: int, header: dict[str, Any]) -> None:
        if header.get("format") != EXPORT_FORMAT:
            raise InvalidInput(f"line {number}: not a memtui export (no header)")
        version = header.get("schema_version", 0)
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            raise InvalidInput(f"line {number}: schema_version must be a whole number, got "
                               f"{str(version)[:20]!r}")
        if version > self._store.schema_version():
            raise InvalidInput("the export comes from a newer memtui schema")

    def import_lines(self, lines: Iterable[str], *, merge: bool = False) -> ImportReport:
        """Load an export, all or nothing (``merge``: rows whose keys exist are skipped)."""
        report = ImportReport()
        try:
            with self._store.transaction():
                if not merge and not self._store.is_empty():
                    raise InvalidInput("the store is not empty; import into a new store, or "
                                       "use --merge to add only what is missing")
                sql.defer_foreign_keys(self._store)
                for number, table, row in self._parse(lines):
                    if merge and table in RENUMBERED_ON_MERGE:
                        row.pop("seq", None)  # keyed by id: let the store number the new rows
                    try:
                        loaded = sql.load_row(self._store, table, row, skip_existing=merge)
                    except MemtuiError:
                        raise
                    except Exception as error:
                        raise InvalidInput(f"line {number}: cannot load this {table} row "
                                           f"({str(error)[:120]})") from None
                    bucket = report.loaded if loaded else report.skipped
                    bucket[table] = bucket.get(table, 0) + 1
                sql.finish_load(self._store)
        except StoreError as error:
            if "FOREIGN KEY" in error.message:
                raise InvalidInput("the file refers to rows it does not hold (FOREIGN KEY "
                                   "constraint failed); nothing was imported") from None
            raise
        return report


def _row_name(table: str, rowid: int | None, row: dict[str, Any]) -> str:
    """How ``doctor`` names a row: its id when that is printable, else its row number."""
    keys = [k for k in ("id", "user_id", "task_id", "source_thread_id", "bundle_id") if k in row]
    value = row.get(keys[0]) if keys else None
    if isinstance(value, str) and value.isprintable() and len(value) <= 80:
        if table == "bundle_documents":
            return f"{value} {str(row.get('path'))[:80]!r}"
        return value
    return f"#{rowid}" if rowid is not None else "(unnamed)"


def _damaged(problems: list[str], backend: str) -> bool:
    """Whether the database itself could not be read or checked (``sqlite: ...``)."""
    return any(p.startswith(f"{backend}: ") for p in problems)
