"""Errors of the agent-store layer (Claude Code, Gemini CLI), on memtui's shared classes,
and ``AGENT_FILES``: the safe file reads and writes of an agent's store
(``memtui.engine.safe_files``) raising them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from memtui.engine.safe_files import FileProblem, SafeFiles
from memtui.errors import (
    AgentFileWriteFailed,
    Conflict,
    InvalidInput,
    MemtuiError,
    NotFound,
    PermissionDenied,
    UnsafePath,
)

T = TypeVar("T")

MAX_TEXT_FILE_BYTES = 1024 * 1024
"""Largest memory or instruction file read; larger ones are reported, not read."""


class AgentError(MemtuiError, code="agent_error"):
    """An agent's store cannot be read or written as asked; the message is one line."""


class AgentFileProblem(AgentError, FileProblem, code="agent_file_problem"):
    """One file cannot be read or written safely; readers report its ``reason`` as a problem."""


class AgentWriteRefused(PermissionDenied, code="agent_write_refused"):
    """A write into an agent's store was asked for without the explicit write flag."""


class ChangedSinceRead(Conflict, code="agent_file_changed"):
    """The file changed between memtui's read and its write; nothing was written."""


class AgentNotFound(NotFound, code="agent_not_found"):
    """An agent home, memory file or patch that does not exist."""


class AgentInputError(InvalidInput, code="agent_invalid_input"):
    """Input handed to an agent write is not acceptable; nothing was written."""


AGENT_FILES = SafeFiles(problem=AgentFileProblem, unsafe=UnsafePath,
                        changed=ChangedSinceRead, failed=AgentFileWriteFailed,
                        max_bytes=MAX_TEXT_FILE_BYTES)
"""Reads and writes inside an agent's store, with this layer's errors."""


def only_match(matches: Sequence[T], none: str, several: str) -> T:
    """The one item of ``matches``: AgentNotFound saying ``none`` when there is none,
    AgentInputError saying ``<count> <several>`` when there are more."""
    if not matches:
        raise AgentNotFound(none)
    if len(matches) > 1:
        raise AgentInputError(f"{len(matches)} {several}")
    return matches[0]
