"""What memtui has read of each Codex rollout file, per importing user (migration 5)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from memtui.store.dialect import upsert
from memtui.store.repository import Repository, row_maker, row_values

_COLUMNS = 'path, size, mtime_ns, "offset", state, outcome'


@dataclass(frozen=True)
class RolloutFileRow:
    """One file's row: where reading stopped, and what the import made of it."""

    path: str
    size: int
    mtime_ns: int
    offset: int
    state: str
    outcome: str


class RolloutFileRepository(Repository):
    """SQL for the ``codex_rollout_files`` table."""

    def for_user(self, user_id: str) -> dict[str, RolloutFileRow]:
        """Every file row of one user, by path."""
        return {row.path: row for row in self._all(
            row_maker(RolloutFileRow), f"SELECT {_COLUMNS} FROM codex_rollout_files "
            "WHERE user_id = ?", (user_id,))}

    def save(self, user_id: str, rows: Iterable[RolloutFileRow]) -> None:
        """Insert or replace rows (call inside a transaction)."""
        now = self._store.now()
        self._store.conn.executemany(
            upsert("codex_rollout_files", f"user_id, {_COLUMNS}, read_at", "user_id, path"),
            [(user_id, *row_values(row), now) for row in rows])

    def path_with(self, user_id: str, fragment: str) -> str | None:
        """The path of one of the user's read rollout files whose path holds ``fragment``
        (a thread id), or None."""
        return self._text(
            "SELECT path FROM codex_rollout_files WHERE user_id = ? AND path LIKE ? LIMIT 1",
            (user_id, f"%{fragment.replace('%', '').replace('_', '')}%"))
