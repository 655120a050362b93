"""Errors of the agent-store layer (Claude Code, Gemini CLI), on memtui's shared classes."""

from __future__ import annotations

from memtui.errors import Conflict, InvalidInput, MemtuiError, NotFound, PermissionDenied


class AgentError(MemtuiError):
    """An agent's store cannot be read or written as asked; the message is one line."""

    code = "agent_error"


class AgentFileProblem(AgentError):
    """One file cannot be read or written safely (outside the store, a symlink, too large,
    binary, not UTF-8 ...). Readers catch it and report a ``Problem``; ``reason`` is the
    one-line cause."""

    code = "agent_file_problem"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class AgentWriteRefused(PermissionDenied):
    """A write into an agent's store was asked for without the explicit write flag."""

    code = "agent_write_refused"


class UnsafeAgentPath(PermissionDenied):
    """A write would leave the agent's store or go through a symlink; nothing was written."""

    code = "agent_unsafe_path"


class ChangedSinceRead(Conflict):
    """The file changed (size, mtime or hash) between memtui's read and its write; nothing
    was written."""

    code = "agent_file_changed"


class AgentNotFound(NotFound):
    """An agent home, memory file or patch that does not exist."""

    code = "agent_not_found"


class AgentInputError(InvalidInput):
    """Input handed to an agent write is not acceptable (a patch that does not apply, a
    settings file that is not JSON, an empty text ...); nothing was written."""

    code = "agent_invalid_input"
