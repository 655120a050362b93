"""Who and where: users, projects, memberships, profiles, and the audit log."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from memtui.jsonable import JsonMixin


@dataclass(frozen=True)
class User:
    """A person (or agent identity) known to the store."""

    id: str
    display_name: str
    created_at: str


@dataclass(frozen=True)
class Project:
    """A project: memories at project level belong to one."""

    id: str
    name: str
    root_path: str | None
    summary: str
    created_by: str | None
    created_at: str

    def to_json(self) -> dict[str, Any]:
        """The project as the CLI's JSON object (``root_path`` named ``root``)."""
        return {"root" if key == "root_path" else key: value
                for key, value in asdict(self).items()}


@dataclass(frozen=True)
class Membership:
    """A user's role in a project."""

    project_id: str
    user_id: str
    role: str


@dataclass(frozen=True)
class Profile(JsonMixin):
    """One user's profile: display name, timezone, preferences (a JSON object)."""

    user_id: str
    display_name: str
    timezone: str
    preferences: dict[str, Any]
    updated_at: str | None


@dataclass(frozen=True)
class AuditEntry(JsonMixin):
    """One append-only audit row. ``detail`` never holds memory content or secrets."""

    seq: int
    at: str
    actor: str
    action: str
    target: str | None
    detail: dict[str, Any]
