"""Errors of the Codex interop layer, and ``CODEX_FILES``: the safe file reads of a Codex home
raising them."""

from __future__ import annotations

from memtui.engine.safe_files import FileProblem, SafeFiles
from memtui.errors import (
    AgentFileWriteFailed,
    InvalidInput,
    MemtuiError,
    PermissionDenied,
    UnsafePath,
)

MAX_CODEX_FILE_BYTES = 10 * 1024 * 1024
"""Largest markdown file read from a Codex home; larger ones are reported, not read."""


class CodexError(MemtuiError, code="codex_error"):
    """A Codex home cannot be read or written as asked; the message is one line."""


class CodexWriteRefused(PermissionDenied, code="codex_write_refused"):
    """A write to a Codex home was asked for without the explicit write flag."""


class CodexInputError(InvalidInput, code="codex_invalid_input"):
    """Text or an id handed to a Codex write is not acceptable; nothing was written."""


class FileProblemError(CodexError, FileProblem, code="codex_file_problem"):
    """One file cannot be read safely (outside the home, too large, binary, not UTF-8...);
    readers report its one-line ``reason`` as a ``Problem``."""


CODEX_FILES = SafeFiles(problem=FileProblemError, unsafe=UnsafePath,
                        failed=AgentFileWriteFailed,
                        home_name="the Codex home", max_bytes=MAX_CODEX_FILE_BYTES)
