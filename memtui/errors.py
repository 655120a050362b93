"""Errors shared by every layer, each with a stable code and command-line exit code."""

from __future__ import annotations


class MemtuiError(Exception):
    """Base of every error memtui reports: ``code`` is the stable name ``--json`` and the
    service use, ``exit_code`` the command line's exit status for it."""

    code = "error"
    exit_code = 1

    def __init_subclass__(cls, *, code: str | None = None, exit_code: int | None = None,
                          **kwargs: object) -> None:
        """A subclass's ``code`` and ``exit_code`` as class keywords (unnamed: inherited)."""
        super().__init_subclass__(**kwargs)
        if code is not None:
            cls.code = code
        if exit_code is not None:
            cls.exit_code = exit_code

    def __init__(self, message: str, **detail: object) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail

    def to_json(self) -> dict[str, object]:
        """The error as the ``{"code", "message"}`` object of the CLI and the service."""
        return {"code": self.code, "message": self.message, **self.detail}


class NotFound(MemtuiError, code="not_found", exit_code=3):
    """The thing does not exist, or exists but the actor may not see it (404, never 403)."""


class PermissionDenied(MemtuiError, code="permission_denied", exit_code=4):
    """The actor can see the thing but may not do this to it."""


class UnsafePath(PermissionDenied, code="unsafe_path"):
    """A write would leave the agent's home (or the folder it is aimed at) or go through a
    symlink; nothing was written. The one error for that rule, whichever agent's file."""


class AgentFileWriteFailed(PermissionDenied, code="agent_file_write_failed"):
    """The system refused a write into an agent's file (permissions, a read-only or full
    disk ...): one line naming the file and why; nothing was written, no temporary file left."""


class InvalidInput(MemtuiError, code="invalid_input", exit_code=5):
    """Refused by validation; nothing was written."""


class Unchanged(InvalidInput):
    """A write that would change nothing (nothing written): an ``InvalidInput`` said calmly."""


class Conflict(MemtuiError, code="conflict"):
    """A write lost a race (for example a stale ``expected_revision``)."""


class StoreError(MemtuiError, code="store_error"):
    """The store cannot be opened or used (bad file, newer schema, read-only, locked)."""


class TransactionLost(StoreError):
    """SQLite rolled a write transaction back when one of its statements failed (even one
    the caller caught): every later statement of the block raises this."""


class QueryInterrupted(StoreError, code="interrupted"):
    """A read stopped because a newer one made it obsolete (``QueryLane``); nothing changed."""

