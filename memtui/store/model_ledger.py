"""SQL for the model cost ledger (``model_usage``) and per-task extraction details."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

from memtui.jsonable import JsonMixin
from memtui.store.dialect import marks, upsert
from memtui.store.repository import Repository, row_maker, row_values

_USAGE_COLUMNS = ("user_id, phase, round_id, task_id, project_id, model, tokens_in, "
                  "tokens_out, outcome, at")
_DETAIL_COLUMNS = "task_id, user_id, external_tool, detail, attempts, retry_at"
GROUPINGS = {"task": "task_id", "round": "round_id", "day": "substr(at, 1, 10)"}
"""How ``totals`` may group the ledger: per task, per round, per day (UTC)."""


@dataclass(frozen=True)
class UsageRow:
    """One model call: who, which phase and round, which task, its tokens and outcome."""

    user: str
    phase: str
    round_id: str
    task_id: str | None
    project: str | None
    model: str
    tokens_in: int
    tokens_out: int
    outcome: str
    at: str


@dataclass(frozen=True)
class UsageTotal(JsonMixin):
    """Calls and tokens of one group of the ledger (a task, a round or a day)."""

    key: str
    calls: int
    tokens_in: int
    tokens_out: int
    first_at: str
    last_at: str


@dataclass(frozen=True)
class TaskDetail:
    """What the extraction log's reason code does not say about one task."""

    task_id: str
    user: str
    external_tool: str | None = None
    detail: str | None = None
    attempts: int = 0
    retry_at: str | None = None


class ModelLedgerRepository(Repository):
    """The ``model_usage`` and ``extraction_details`` tables."""

    def add_usage(self, row: UsageRow) -> None:
        """Record one model call."""
        self._store.execute(
            f"INSERT INTO model_usage({_USAGE_COLUMNS}) VALUES ({marks(fields(row))})",
            row_values(row))

    def tokens_between(self, user_id: str, start: str, end: str) -> int:
        """Tokens in and out the user's calls spent in ``[start, end)``."""
        return self._count("SELECT COALESCE(SUM(tokens_in + tokens_out), 0) FROM model_usage "
                           "WHERE user_id = ? AND at >= ? AND at < ?", (user_id, start, end))

    def totals(self, user_id: str, by: str, limit: int,
               since: str | None = None) -> list[UsageTotal]:
        """Calls and tokens per ``GROUPINGS`` key, latest first (only from ``since`` on)."""
        key = GROUPINGS[by]
        return self._all(
            lambda r: UsageTotal(str(r[0]), int(r[1]), int(r[2]), int(r[3]), r[4], r[5]),
            f"SELECT {key}, count(*), SUM(tokens_in), SUM(tokens_out), MIN(at), MAX(at) "
            f"FROM model_usage WHERE user_id = ? AND at >= ? AND {key} IS NOT NULL "
            f"GROUP BY {key} ORDER BY MAX(at) DESC LIMIT ?", (user_id, since or "", limit))

    def set_detail(self, detail: TaskDetail) -> None:
        """Write a task's details, replacing what was there."""
        self._store.execute(upsert("extraction_details", _DETAIL_COLUMNS, "task_id"),
                            row_values(detail))

    def details(self, task_ids: Sequence[str]) -> dict[str, TaskDetail]:
        """The details of these tasks, by task id (tasks without any left out)."""
        if not task_ids:
            return {}
        return {detail.task_id: detail for detail in self._all(
            row_maker(TaskDetail), f"SELECT {_DETAIL_COLUMNS} FROM extraction_details "
            f"WHERE task_id IN ({marks(task_ids)})", tuple(task_ids))}
