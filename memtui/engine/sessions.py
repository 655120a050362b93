"""Agent sessions: what the session hooks record (once per agent and session id), the
worker's turn of each ended or idle session into one task (``source_ref`` = the session id),
and the text a new session starts with (``session_start``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from memtui.engine.base import EngineArea
from memtui.engine.settings import load_settings
from memtui.engine.validation import check_limit, check_text, echo
from memtui.errors import Conflict, InvalidInput, MemtuiError
from memtui.jsonable import JsonMixin
from memtui.store.sessions import AgentSession
from memtui.store.timeutil import format_time, parse_time

log = logging.getLogger(__name__)

AGENTS = ("claude-code", "codex", "gemini")
SESSION_END_EVENTS = frozenset({"SessionEnd"})
"""Hook events that mean the session is over (``Stop`` only means an answer is done)."""
IMPORT_EVENT = "import"
NEW_SESSION_SOURCE = "startup"
"""A SessionStart hook's ``source`` for a brand-new session (others: resume, clear, compact)."""
MAX_SESSION_ID_BYTES = 200
MAX_PATH_BYTES = 4096
MAX_SESSIONS_PER_ROUND = 50
MAX_SESSION_LIST = 1000
RECORDED, ALREADY_RECORDED = "recorded", "already_recorded"
NO_TRANSCRIPT, NO_PROMPT, NO_FOLDER, REFUSED = "no_transcript", "no_prompt", "no_folder", "refused"


@dataclass
class SessionsSummary(JsonMixin):
    """What one pass over the waiting sessions did: outcome -> count, the tasks recorded."""

    outcomes: dict[str, int] = field(default_factory=dict)
    task_ids: list[str] = field(default_factory=list)

    @property
    def processed(self) -> int:
        """How many sessions were processed."""
        return sum(self.outcomes.values())

    def to_json(self) -> dict[str, Any]:
        """``{processed, outcomes, task_ids}``."""
        return {"processed": self.processed} | super().to_json()


def _optional_text(value: object, what: str, max_bytes: int) -> str | None:
    return None if value is None or value == "" else check_text(value, what, max_bytes=max_bytes)


def check_agent(agent: object) -> str:
    """One of AGENTS; InvalidInput otherwise."""
    if agent not in AGENTS:
        raise InvalidInput(f"unknown agent {echo(agent, 40)}: use one of {', '.join(AGENTS)}")
    return str(agent)


class SessionsApi(EngineArea):
    """The actor's agent sessions: record (hooks), process (worker), session start."""

    def record(self, agent: str, payload: dict[str, Any]) -> AgentSession:
        """Record a session-end (or Stop) hook call; see the module doc."""
        check_agent(agent)
        session_id = check_text(payload.get("session_id"), "session_id",
                                max_bytes=MAX_SESSION_ID_BYTES)
        transcript = _optional_text(payload.get("transcript_path"), "transcript_path",
                                    MAX_PATH_BYTES)
        cwd = _optional_text(payload.get("cwd"), "cwd", MAX_PATH_BYTES)
        event = check_text(payload.get("hook_event_name") or "SessionEnd", "hook_event_name",
                           max_bytes=MAX_SESSION_ID_BYTES)
        with self._store.transaction():
            self._store.identity.ensure_user(self.actor)
            self._store.sessions.upsert(agent, session_id, self.actor, transcript, cwd, event,
                                        event in SESSION_END_EVENTS, self._store.now())
            found = self._store.sessions.get(agent, session_id)
        assert found is not None
        return found

    def record_imported(self, agent: str, session_id: str, transcript: str, cwd: str | None,
                        task_id: str) -> None:
        """Record a session an import made task ``task_id`` of, as processed already."""
        if self._store.sessions.get(agent, session_id) is not None:
            return
        now = self._store.now()
        with self._store.transaction():
            self._store.sessions.add_processed(AgentSession(
                agent, session_id, self.actor, transcript, cwd, IMPORT_EVENT, True, now, now,
                now, RECORDED, None, task_id))

    def list(self, limit: int = 50) -> list[AgentSession]:
        """The actor's recorded sessions, newest first."""
        return self._store.sessions.list_for(self.actor, check_limit(limit, MAX_SESSION_LIST))

    def process_waiting(self, limit: int = MAX_SESSIONS_PER_ROUND) -> SessionsSummary:
        """Turn the actor's finished sessions into tasks (see the module doc)."""
        idle = load_settings(self._store, self.actor)["idle_seconds"]
        idle_before = format_time(self._store.clock() - timedelta(seconds=idle))
        summary = SessionsSummary()
        for session in self._store.sessions.waiting(self.actor, idle_before, limit):
            outcome, detail, task_id = self._process(session)
            with self._store.transaction():
                self._store.sessions.mark_processed(session.agent, session.session_id,
                                                    self._store.now(), outcome, detail, task_id)
            summary.outcomes[outcome] = summary.outcomes.get(outcome, 0) + 1
            if outcome == RECORDED and task_id:
                summary.task_ids.append(task_id)
        return summary

    def _process(self, session: AgentSession) -> tuple[str, str | None, str | None]:
        from memtui.engine.agents.transcripts import read_transcript, recorded_session
        from memtui.engine.safe_files import FileProblem

        existing = recorded_session(self._engine.tasks, session.agent, session.session_id)
        if existing is not None:
            return ALREADY_RECORDED, None, existing.id
        if not session.transcript_path:
            return NO_TRANSCRIPT, "the hook named no transcript", None
        try:
            read = read_transcript(session.transcript_path)
        except FileProblem as error:
            return NO_TRANSCRIPT, f"transcript {session.transcript_path}: {error.reason}", None
        if read.sidechain_only:
            return NO_PROMPT, "every record is a sub-agent (isSidechain) record", None
        if not read.goal:
            return NO_PROMPT, None, None
        from memtui.engine.project_picker import ProjectPicker, usable_cwd

        folder = usable_cwd(session.cwd)
        if folder is None:
            return NO_FOLDER, "the hook named no absolute working folder", None
        engine = self._engine.for_client(self._engine.client or session.agent)
        picker = ProjectPicker(engine)
        try:
            with self._store.transaction():
                project = picker.project_for(folder)
                if project is None:
                    return REFUSED, picker.refusal(folder), None
                goal, result = read.task_texts()
                task = engine.tasks.add_task(
                    project, goal, goal, result,
                    _time_or_none(read.started_at), _time_or_none(read.finished_at),
                    external_context=read.used_external_context, source=session.agent,
                    external_tool=read.external_tool,
                    source_ref=session.session_id, allow_missing_times=True)
        except Conflict as error:
            return ALREADY_RECORDED, None, str(error.detail.get("task_id") or "") or None
        except MemtuiError as error:
            return REFUSED, error.message[:500], None
        return RECORDED, None, task.id

    def session_start(self, payload: dict[str, Any]) -> str | None:
        """The text a new session starts with (its injection), or None."""
        if payload.get("source", NEW_SESSION_SOURCE) != NEW_SESSION_SOURCE:
            return None
        cwd = _optional_text(payload.get("cwd"), "cwd", MAX_PATH_BYTES)
        session = _optional_text(payload.get("session_id"), "session_id", MAX_SESSION_ID_BYTES)
        project = self._engine.identity.project_for_path(cwd) if cwd else None
        result = self._engine.injection.for_session(project.id if project else None, session,
                                                    apply=True)
        return result.prompt if result.injected else None


def _time_or_none(stamp: str | None) -> str | None:
    if stamp is None:
        return None
    try:
        return format_time(parse_time(stamp))
    except (InvalidInput, ValueError):
        return None
