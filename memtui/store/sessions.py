"""Agent sessions recorded by the session hooks (``agent_sessions``, migration 6)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from memtui.store.repository import Repository, columns_of, row_maker


@dataclass(frozen=True)
class AgentSession:
    """One agent session as the hooks recorded it, and what the worker made of it."""

    agent: str
    session_id: str
    user_id: str
    transcript_path: str | None
    cwd: str | None
    event: str
    ended: bool
    recorded_at: str
    updated_at: str
    processed_at: str | None
    outcome: str | None
    detail: str | None
    task_id: str | None

    def to_json(self) -> dict[str, Any]:
        """The session as a JSON object (``user_id`` named ``user``)."""
        return {"user" if key == "user_id" else key: value
                for key, value in asdict(self).items()}


SESSION_COLUMNS = columns_of(AgentSession)
_row = row_maker(AgentSession)


class SessionRepository(Repository):
    """SQL for the ``agent_sessions`` table."""

    def get(self, agent: str, session_id: str) -> AgentSession | None:
        """One recorded session, or None."""
        return self._one(_row, f"SELECT {SESSION_COLUMNS} FROM agent_sessions WHERE agent = ? "
                         "AND session_id = ?", (agent, session_id))

    def upsert(self, agent: str, session_id: str, user_id: str, transcript_path: str | None,
               cwd: str | None, event: str, ended: bool, at: str) -> None:
        """Record a hook call: a new row, or an unprocessed one refreshed (``ended`` stays 1)."""
        self._store.execute(
            "INSERT INTO agent_sessions(agent, session_id, user_id, transcript_path, cwd, event, "
            "ended, recorded_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(agent, session_id) DO UPDATE SET "
            "transcript_path = coalesce(excluded.transcript_path, "
            "agent_sessions.transcript_path), "
            "cwd = coalesce(excluded.cwd, agent_sessions.cwd), event = excluded.event, "
            "ended = "
            f"{self._store.dialect.greatest('agent_sessions.ended', 'excluded.ended')}, "
            "updated_at = excluded.updated_at WHERE agent_sessions.processed_at IS NULL",
            (agent, session_id, user_id, transcript_path, cwd, event, int(ended), at, at))

    def add_processed(self, session: AgentSession) -> None:
        """Record a processed session (an import made a task of it) unless it is recorded."""
        self._insert("agent_sessions", session, " ON CONFLICT(agent, session_id) DO NOTHING")

    def waiting(self, user_id: str, idle_before: str, limit: int) -> list[AgentSession]:
        """The user's unprocessed sessions that ended or went idle before ``idle_before``."""
        return self._all(_row, f"SELECT {SESSION_COLUMNS} FROM agent_sessions WHERE user_id = ? "
                         "AND processed_at IS NULL AND (ended = 1 OR updated_at <= ?) "
                         "ORDER BY updated_at, session_id LIMIT ?", (user_id, idle_before, limit))

    def mark_processed(self, agent: str, session_id: str, at: str, outcome: str,
                       detail: str | None, task_id: str | None) -> None:
        """Record what the worker made of a session (it is never processed again)."""
        self._store.execute(
            "UPDATE agent_sessions SET processed_at = ?, outcome = ?, detail = ?, task_id = ? "
            "WHERE agent = ? AND session_id = ?",
            (at, outcome, detail, task_id, agent, session_id))

    def list_for(self, user_id: str, limit: int) -> list[AgentSession]:
        """The user's recorded sessions, newest first."""
        return self._all(_row, f"SELECT {SESSION_COLUMNS} FROM agent_sessions WHERE user_id = ? "
                         "ORDER BY updated_at DESC, session_id DESC LIMIT ?", (user_id, limit))
