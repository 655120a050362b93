"""Agents' memory-file writes held for review by the write gate (``agent_writes``): each file
as it would be after the call, redacted, with the hash of its base and the diff."""

from __future__ import annotations

from dataclasses import dataclass

from memtui.store.repository import Repository, columns_of, row_maker


@dataclass(frozen=True)
class AgentWrite:
    """One held write: who proposed it, the file's text after the call and the hash of its base."""

    id: str
    user_id: str
    agent: str
    session_id: str | None
    tool: str
    project_dir: str | None
    memory_dir: str
    path: str
    content: str
    base_sha256: str | None
    diff: str
    created_at: str
    updated_at: str


COLUMNS = columns_of(AgentWrite)
_write = row_maker(AgentWrite)


class AgentWriteRepository(Repository):
    """SQL for the ``agent_writes`` table."""

    def add(self, row: AgentWrite) -> None:
        """Insert a held write (call inside a transaction)."""
        self._insert("agent_writes", row)

    def get(self, user_id: str, write_id: str) -> AgentWrite | None:
        """One of the user's held writes, or None."""
        return self._one(_write, f"SELECT {COLUMNS} FROM agent_writes WHERE user_id = ? AND "
                         "id = ?", (user_id, write_id))

    def list_for(self, user_id: str, limit: int) -> list[AgentWrite]:
        """The user's held writes, oldest first."""
        return self._all(_write, f"SELECT {COLUMNS} FROM agent_writes WHERE user_id = ? "
                         "ORDER BY created_at, id LIMIT ?", (user_id, limit))

    def count_for(self, user_id: str) -> int:
        """How many writes the user has waiting."""
        return self._count("SELECT count(*) FROM agent_writes WHERE user_id = ?", (user_id,))

    def waiting_for(self, user_id: str, path: str) -> list[AgentWrite]:
        """The user's held writes of one file, oldest first."""
        return self._all(_write, f"SELECT {COLUMNS} FROM agent_writes WHERE user_id = ? AND "
                         "path = ? ORDER BY created_at, id", (user_id, path))

    def rebase(self, write_id: str, content: str, base_sha256: str | None, diff: str,
               at: str) -> None:
        """A held write's text, base and diff made anew (an edit, or the file changed)."""
        self._store.execute("UPDATE agent_writes SET content = ?, base_sha256 = ?, diff = ?, "
                            "updated_at = ? WHERE id = ?",
                            (content, base_sha256, diff, at, write_id))

    def delete(self, write_id: str) -> None:
        """Remove a held write."""
        self._store.execute("DELETE FROM agent_writes WHERE id = ?", (write_id,))
