"""SQL for tasks, follow-ups, quotas, the extraction log and scan, and consolidation input."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from memtui.errors import StoreError
from memtui.store.dialect import marks, qualified, upsert
from memtui.store.models import (
    DedupeRow,
    Followup,
    LogEntry,
    PageCursor,
    QuotaRow,
    ScanRow,
    Task,
)
from memtui.store.paging import keyset_page, position_page
from memtui.store.repository import Repository, columns_of, row_maker, row_values

TASK_COLUMNS = ("id, project_id, user_id, goal, prompt, status, parent_id, started_at, "
                "finished_at, result, cost_usd, continuation, external_context, source, "
                "created_at, use_memories, generate_memories")
_T_COLUMNS = qualified(TASK_COLUMNS, "t")
_TASK_WIDTH = len(TASK_COLUMNS.split(","))
_INSERT = (f"INSERT INTO tasks({TASK_COLUMNS}, source_ref) "
           f"VALUES ({marks(TASK_COLUMNS.split(','))}, ?)")
_LOG_COLUMNS = "task_id, user_id, project_id, outcome, reason, memory_id, forced, at"
_LOG_WIDTH = len(_LOG_COLUMNS.split(","))
FLAG_COLUMNS = ("use_memories", "generate_memories")
"""The per-task override columns ``update_flags`` may change."""
PERMANENT_SKIP_REASONS = ("already_extracted", "forgotten", "model_nothing", "model_gave_up")
"""Skip reasons that never change: such tasks are not rescanned."""

# A completed task is (re)scanned when it has no log row, when its last scan was a skip or an
# error that may pass later, or when the memory it produced is gone (forgotten: the rescan
# logs the tombstone).
_PERMANENT = ", ".join(f"'{reason}'" for reason in PERMANENT_SKIP_REASONS)
DUE_FOR_SCAN = f"""
    t.status = 'completed' AND (
        l.task_id IS NULL
        OR (l.outcome IN ('skipped', 'error')
            AND COALESCE(l.reason, '') NOT IN ({_PERMANENT}))
        OR (l.outcome IN ('extracted', 'superseded_previous')
            AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = l.memory_id)))
"""
"""Whether task ``t`` (with its log row ``l``, left-joined) is due for a scan."""
_WITH_LOG = "FROM tasks t LEFT JOIN extraction_log l ON l.task_id = t.id"
_RESCANNABLE = f"{_WITH_LOG} WHERE t.user_id = ? AND {DUE_FOR_SCAN}"
"""The user's tasks due for a scan (``t``, with its log row ``l``)."""
CLAIM_CHUNK = 500
"""Task ids checked per statement by ``claim`` (SQLite binds at most 999 parameters)."""
_savepoint_names = itertools.count(1)

SweepCursor = tuple[str | None, str]
"""A backfill position: (finish time or None, task id) of the last task visited."""


row_to_task = row_maker(Task)
"""A tasks row (in TASK_COLUMNS order, the fields' order) as a Task."""
_row_to_log = row_maker(LogEntry)


class TaskRepository(Repository):
    """Tasks, follow-ups, quotas, settings, extraction log, scan queries, consolidations."""

    # ---- tasks ----------------------------------------------------------------------------

    def insert(self, task: Task, source_ref: str | None = None) -> None:
        """Insert a task row (its full-text row follows by trigger)."""
        self._store.execute(_INSERT, (*row_values(task), source_ref))

    def insert_many(self, rows: Sequence[tuple[Task, str | None]]) -> None:
        """Insert many tasks at once (benchmarks, bulk import)."""
        self._store.conn.executemany(_INSERT, ((*row_values(task), ref) for task, ref in rows))

    def get(self, task_id: str) -> Task | None:
        """One task by id (no visibility check: the engine does that)."""
        return self._one(row_to_task, f"SELECT {TASK_COLUMNS} FROM tasks WHERE id = ?",
                         (task_id,))

    def get_many(self, task_ids: Sequence[str]) -> list[Task]:
        """Tasks by id, in the order asked (missing ids left out)."""
        if not task_ids:
            return []
        found = {task.id: task for task in self._all(
            row_to_task, f"SELECT {TASK_COLUMNS} FROM tasks WHERE id IN ({marks(task_ids)})",
            tuple(task_ids))}
        return [found[task_id] for task_id in task_ids if task_id in found]

    def find_by_source_ref(self, user_id: str, source: str, source_ref: str) -> Task | None:
        """The task ``user_id`` (never another user) recorded from this (source, source_ref)."""
        return self._one(row_to_task, f"SELECT {TASK_COLUMNS} FROM tasks "
                         "WHERE user_id = ? AND source = ? AND source_ref = ?",
                         (user_id, source, source_ref))

    def source_ref(self, task_id: str) -> str | None:
        """The external reference a task was recorded from, if any."""
        return self._text("SELECT source_ref FROM tasks WHERE id = ?", (task_id,))

    def has_children(self, task_id: str) -> bool:
        """Whether any task names this one as its parent (it is a coordinator)."""
        return self._store.execute("SELECT 1 FROM tasks WHERE parent_id = ? LIMIT 1",
                                   (task_id,)).fetchone() is not None

    def children(self, task_id: str) -> list[Task]:
        """A coordinator's sub-tasks, oldest first."""
        return self._all(row_to_task, f"SELECT {TASK_COLUMNS} FROM tasks WHERE parent_id = ? "
                         "ORDER BY created_at, id", (task_id,))

    def list_visible(self, user_id: str, limit: int, *, project: str | None = None,
                     mine: bool = False, status: str | None = None) -> list[Task]:
        """Tasks newest first: the user's own and their projects' (``mine``: only their own)."""
        clauses = ["t.user_id = ?" if mine else "(t.user_id = ? OR t.project_id IN "
                   "(SELECT project_id FROM project_members WHERE user_id = ?))"]
        params: list[Any] = [user_id] if mine else [user_id, user_id]
        for column, value in (("project_id", project), ("status", status)):
            if value is not None:
                clauses.append(f"t.{column} = ?")
                params.append(value)
        return self._all(row_to_task, f"SELECT {_T_COLUMNS} FROM tasks t WHERE "
                         f"{' AND '.join(clauses)} ORDER BY t.created_at DESC, t.id DESC LIMIT ?",
                         (*params, limit))

    def update_flags(self, task_id: str, changes: Mapping[str, int | None]) -> None:
        """Set per-task override columns (``use_memories``, ``generate_memories``)."""
        for column, value in changes.items():
            if column not in FLAG_COLUMNS:
                raise StoreError(f"not a task flag column: {column!r}")
            self._store.execute(f"UPDATE tasks SET {column} = ? WHERE id = ?", (value, task_id))

    # ---- follow-ups -----------------------------------------------------------------------

    def insert_followup(self, from_task: str, to_task: str, message: str, at: str) -> Followup:
        """Record a message passed from one task to another."""
        seq = self._count("INSERT INTO task_followups(from_task, to_task, message, created_at) "
                          "VALUES (?, ?, ?, ?) RETURNING seq", (from_task, to_task, message, at))
        return Followup(seq, from_task, to_task, message, at)

    def followups_for(self, task_id: str) -> list[Followup]:
        """Messages sent to or from a task, oldest first."""
        return self._all(row_maker(Followup), f"SELECT {columns_of(Followup)} FROM task_followups "
                         "WHERE to_task = ? OR from_task = ? ORDER BY seq", (task_id, task_id))

    # ---- quotas ---------------------------------------------------------------------------

    def get_quota(self, user_id: str) -> QuotaRow | None:
        """The user's quota row as stored, or None (the engine applies the default)."""
        return self._one(row_maker(QuotaRow), "SELECT user_id, limit_usd, updated_at FROM quotas "
                         "WHERE user_id = ?", (user_id,))

    def set_quota(self, user_id: str, limit_usd: object, at: str) -> None:
        """Write the user's quota row (None = unlimited). Stores the value as given."""
        self._store.execute(upsert("quotas", "user_id, limit_usd, updated_at", "user_id"),
                            (user_id, limit_usd, at))

    def spend_between(self, user_id: str, start: str, end: str) -> object:
        """Sum of the user's task costs recorded in ``[start, end)`` (raw SQL value)."""
        return self._store.execute(
            "SELECT COALESCE(SUM(cost_usd), 0) FROM tasks "
            "WHERE user_id = ? AND created_at >= ? AND created_at < ?",
            (user_id, start, end)).fetchone()[0]

    # ---- extraction log -------------------------------------------------------------------

    def upsert_log(self, entry: LogEntry) -> None:
        """Write the task's log row, replacing the previous scan's."""
        self._store.execute(upsert("extraction_log", _LOG_COLUMNS, "task_id"),
                            row_values(entry)[:_LOG_WIDTH])

    def get_log(self, task_id: str) -> LogEntry | None:
        """One task's log row."""
        return self._one(_row_to_log, f"SELECT {_LOG_COLUMNS} FROM extraction_log "
                         "WHERE task_id = ?", (task_id,))

    def log_page(self, user_id: str, limit: int, after: PageCursor | None = None,
                 before: PageCursor | None = None) -> list[LogEntry]:
        """A page of the user's log, most recent scan first, by keyset (cursor: ``at``, task id)."""
        page = keyset_page("at", "task_id", after, before)
        return page.in_list_order(self._all(
            _row_to_log, f"SELECT {_LOG_COLUMNS} FROM extraction_log "
            f"WHERE {' AND '.join(('user_id = ?', *page.clauses))} "
            f"ORDER BY {page.order} LIMIT ?", (user_id, *page.params, limit)))

    def log_at(self, user_id: str, offset: int, limit: int, *,
               from_end: bool = False) -> list[LogEntry]:
        """A page of the user's log by position (``from_end``: counted from the bottom)."""
        page = position_page("at", "task_id", from_end)
        return page.in_list_order(self._all(
            _row_to_log, f"SELECT {_LOG_COLUMNS} FROM extraction_log WHERE user_id = ? "
            f"ORDER BY {page.order} LIMIT ? OFFSET ?", (user_id, limit, max(0, offset))))

    def count_log_rows(self, user_id: str) -> int:
        """How many log rows the user has."""
        return self._count("SELECT count(*) FROM extraction_log WHERE user_id = ?", (user_id,))

    def count_log(self, user_id: str) -> dict[str, int]:
        """How many of the user's log rows have each outcome."""
        return dict(self._store.execute(
            "SELECT outcome, count(*) FROM extraction_log WHERE user_id = ? GROUP BY outcome",
            (user_id,)).fetchall())

    # ---- extraction scan ------------------------------------------------------------------

    def round_candidates(self, user_id: str, limit: int) -> list[str]:
        """Ids of the user's tasks due for a scan: never scanned, then longest ago, oldest first."""
        return self._texts(
            f"SELECT t.id {_RESCANNABLE} "
            "ORDER BY l.at IS NOT NULL, l.at, t.finished_at NULLS FIRST, t.id LIMIT ?",
            (user_id, limit))

    def sweep_candidates(self, user_id: str, after: SweepCursor | None,
                         limit: int) -> list[tuple[SweepCursor, str]]:
        """(cursor, id) of the user's tasks due for a scan after ``after`` in (finish time, id)
        order, unfinished first: a keyset walk that visits each due task once (backfill)."""
        rows: list[tuple[SweepCursor, str]] = []
        if after is None or after[0] is None:
            rows = self._all(lambda row: ((None, row[0]), row[0]),
                             f"SELECT t.id {_RESCANNABLE} AND t.finished_at IS NULL AND t.id > ? "
                             "ORDER BY t.id LIMIT ?", (user_id, after[1] if after else "", limit))
            if len(rows) >= limit:
                return rows
            after = ("", "")
        return rows + self._all(
            lambda row: ((row[0], row[1]), row[1]),
            f"SELECT t.finished_at, t.id {_RESCANNABLE} AND t.finished_at IS NOT NULL "
            "AND (t.finished_at, t.id) > (?, ?) ORDER BY t.finished_at, t.id LIMIT ?",
            (user_id, after[0], after[1], limit - len(rows)))

    def count_candidates(self, user_id: str) -> int:
        """How many of the user's tasks are due for a scan."""
        return self._count(f"SELECT count(*) {_RESCANNABLE}", (user_id,))

    def scan_row(self, task_id: str) -> ScanRow | None:
        """One task with its follow-up flag, a memory made from it, its tombstone and its log
        row, in one query. The memory is the first by ``seq + 0``: by the key itself, a
        planner short of statistics walks every memory; by the expression, the thread index."""
        row = self._store.execute(
            f"SELECT {_T_COLUMNS}, "
            "EXISTS (SELECT 1 FROM task_followups f WHERE f.to_task = t.id), "
            "(SELECT m.id FROM memories m WHERE m.source_thread_id = t.id "
            "   OR (t.source_ref IS NOT NULL AND m.source_thread_id = t.source_ref "
            "       AND (m.owner = t.user_id OR m.project = t.project_id)) "
            "ORDER BY m.seq + 0 LIMIT 1), "
            "EXISTS (SELECT 1 FROM forgotten_sources s WHERE s.source_thread_id = t.id "
            "   OR (t.source_ref IS NOT NULL AND s.source_thread_id = t.source_ref)), "
            f"{qualified(_LOG_COLUMNS, 'l')} "
            f"{_WITH_LOG} WHERE t.id = ?",
            (task_id,)).fetchone()
        if row is None:
            return None
        width = _TASK_WIDTH
        log_row = row[width + 3:]
        return ScanRow(task=row_to_task(row[:width]), has_followups=bool(row[width]),
                       existing_memory=row[width + 1], forgotten=bool(row[width + 2]),
                       log=_row_to_log(log_row) if log_row[0] is not None else None)

    def claim(self, task_ids: Sequence[str]) -> list[str]:
        """The tasks of ``task_ids`` still due for a scan (on PostgreSQL: locked, not others')."""
        dialect = self._store.dialect
        due: set[str] = set()
        for start in range(0, len(task_ids), CLAIM_CHUNK):
            chunk = list(task_ids[start:start + CLAIM_CHUNK])
            due.update(self._texts(f"SELECT t.id {_WITH_LOG} WHERE t.id IN ({marks(chunk)}) "
                                   f"AND {DUE_FOR_SCAN}{dialect.skip_locked}", chunk))
        return [task_id for task_id in task_ids if task_id in due]

    def active_auto_for_goal(self, project: str, goal_key: str) -> str | None:
        """The id of the newest active auto memory of ``project`` for this goal key, after
        taking the goal's lock (two workers of one goal take turns: its chain never forks).
        Read through the goal index: a planner left to itself walks the project's memories."""
        dialect = self._store.dialect
        if dialect.goal_lock is not None:
            self._store.execute(dialect.goal_lock, (project, goal_key))
        return self._text(
            f"WITH goal AS{dialect.materialized} (SELECT id, created_at FROM memories"
            f"{dialect.indexed_by('memories_goal')} WHERE project = ? AND goal_key = ? "
            "AND status = 'active' AND source = 'auto') "
            "SELECT id FROM goal ORDER BY created_at DESC, id DESC LIMIT 1", (project, goal_key))

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
        """A savepoint: on an exception only the block's work is undone (it goes on)."""
        name = f"sp_{next(_savepoint_names)}"
        # ``store.conn`` per statement: it raises ``TransactionLost`` once SQLite rolled
        # the whole transaction back, instead of going on outside any transaction
        self._store.conn.execute(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            self._store.conn.execute(f"ROLLBACK TO {name}")
            self._store.conn.execute(f"RELEASE {name}")
            raise
        self._store.conn.execute(f"RELEASE {name}")

    # ---- consolidation --------------------------------------------------------------------

    def newest_active_at(self, project: str) -> str | None:
        """When the newest active memory of ``project`` was created (None: it has none)."""
        return self._text("SELECT max(created_at) FROM memories WHERE project = ? "
                          "AND status = 'active'", (project,))

    def active_memories(self, *, owner: str | None = None,
                        project: str | None = None) -> list[DedupeRow]:
        """The active memories of ``owner``'s user list or of ``project``, oldest first."""
        where, key = (("project = ?", project) if project is not None
                      else ("owner = ? AND scope = 'user'", owner))
        return self._all(row_maker(DedupeRow), f"SELECT {columns_of(DedupeRow)} FROM memories "
                         f"WHERE {where} AND status = 'active' ORDER BY created_at, id", (key,))
