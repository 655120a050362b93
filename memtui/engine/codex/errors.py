"""Errors of the Codex interop layer, on top of memtui's shared error classes."""

from __future__ import annotations

from memtui.errors import InvalidInput, MemtuiError, PermissionDenied


class CodexError(MemtuiError):
    """A Codex home cannot be read or written as asked; the message is one line."""

    code = "codex_error"


class CodexWriteRefused(PermissionDenied):
    """A write to a Codex home was asked for without the explicit write flag."""

    code = "codex_write_refused"


class UnsafePathError(CodexError):
    """A path would leave the Codex home or go through a symlink; nothing was written."""

    code = "codex_unsafe_path"


class CodexInputError(InvalidInput):
    """Text or an id handed to a Codex write is not acceptable; nothing was written."""

    code = "codex_invalid_input"


class FileProblemError(CodexError):
    """One file cannot be read safely (outside the home, too large, binary, not UTF-8...).

    Readers catch it and report a ``Problem``; ``reason`` is the one-line cause.
    """

    code = "codex_file_problem"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
