"""Pending purges: content-free rows of forgets whose text may still sit in the write-ahead
log, each removed once a truncating checkpoint has run after it."""

from __future__ import annotations

from dataclasses import dataclass

from memtui.store.repository import Repository, row_maker


@dataclass(frozen=True)
class PendingPurges:
    """Forgets not yet purged from the WAL: how many, and the newest row's number."""

    count: int
    last_seq: int


class PurgeRepository(Repository):
    """SQL for the ``pending_purges`` table (content-free)."""

    def add(self, at: str, by: str, removed_count: int) -> None:
        """Record a forget whose rows were just deleted (call inside its transaction)."""
        self._store.execute(
            "INSERT INTO pending_purges(requested_at, requested_by, removed_count) "
            "VALUES (?, ?, ?)", (at, by, removed_count))

    def pending(self) -> PendingPurges | None:
        """The forgets still waiting for a truncating checkpoint, or None."""
        found = self._one(row_maker(PendingPurges),
                          "SELECT count(*), max(seq) FROM pending_purges")
        return found if found and found.count else None

    def clear_through(self, last_seq: int) -> int:
        """Drop the records up to ``last_seq`` (their text is gone from the files)."""
        return self._store.execute("DELETE FROM pending_purges WHERE seq <= ?",
                                   (last_seq,)).rowcount
