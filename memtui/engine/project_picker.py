"""Which memtui project an imported or hook-recorded agent session's ``cwd`` goes to:
``IdentityApi.project_for_path``'s when the actor can write it (nothing goes into one it may
only read), else a new one named after the folder (id made unique, the actor its owner).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from memtui.engine.validation import ID_PATTERN
from memtui.errors import Conflict

if TYPE_CHECKING:
    from memtui.engine.api import Engine

FALLBACK_PROJECT_ID = "codex-project"
"""Project id used when a ``cwd``'s folder name gives no valid id."""
MAX_PROJECT_ID_CHARS = 64
MAX_PROJECT_NAME_CHARS = 200
MAX_UNIQUE_PROJECT_ATTEMPTS = 1000
_PROJECT_ID_JUNK = re.compile(r"[^a-z0-9._-]+")


def project_id_from_folder(name: str) -> str:
    """A valid project id from a folder name (lowercase, ``[a-z0-9._-]``), never empty."""
    slug = _PROJECT_ID_JUNK.sub("-", name.lower()).strip("-._")[:MAX_PROJECT_ID_CHARS]
    slug = slug.rstrip("-._")
    return slug if slug and ID_PATTERN.match(slug) else FALLBACK_PROJECT_ID


def usable_cwd(cwd: str | None) -> str | None:
    """An absolute, non-root working directory, else None (then no project is chosen)."""
    if not cwd or "\x00" in cwd:
        return None
    path = PurePosixPath(cwd.strip())
    if not path.is_absolute() or not path.name:
        return None
    return str(path)


class ProjectPicker:
    """Maps a ``cwd`` to a writable project, creating one when none fits (cached per run)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._cache: dict[str, str | None] = {}
        self.created: list[str] = []
        self.read_only: dict[str, str] = {}
        """``cwd`` -> the read-only project that holds it (nothing is written there)."""
        self._fresh: str | None = None

    def _free_id(self, base: str) -> str:
        store = self._engine.store
        for attempt in range(1, MAX_UNIQUE_PROJECT_ATTEMPTS + 1):
            suffix = "" if attempt == 1 else f"-{attempt}"
            candidate = base[:MAX_PROJECT_ID_CHARS - len(suffix)] + suffix
            if store.identity.get_project(candidate) is None:
                return candidate
        raise Conflict(f"no free project id for {base!r}")

    def project_for(self, cwd: str) -> str | None:
        """The project for this ``cwd`` (created if needed, in the caller's transaction); None
        when the one that holds it is read only to the actor (``read_only`` names it)."""
        self._fresh = None
        if cwd in self._cache:
            return self._cache[cwd]
        found = self._engine.identity.project_for_path(cwd)
        if found is not None:
            writable = self._engine.identity.can_write(found.id)
            if not writable:
                self.read_only[cwd] = found.id
            self._cache[cwd] = found.id if writable else None
            return self._cache[cwd]
        name = PurePosixPath(cwd).name
        project_id = self._free_id(project_id_from_folder(name))
        self._engine.identity.create_project(project_id, name[:MAX_PROJECT_NAME_CHARS] or None,
                                             cwd)
        self._cache[cwd] = project_id
        self._fresh = cwd
        self.created.append(project_id)
        return project_id

    def rolled_back(self) -> None:
        """The caller's transaction rolled back: forget a project created in it."""
        if self._fresh is not None:
            project_id = self._cache.pop(self._fresh, None)
            if project_id in self.created:
                self.created.remove(project_id)
            self._fresh = None

    def committed(self) -> None:
        """The caller's transaction committed."""
        self._fresh = None

    def refusal(self, cwd: str) -> str:
        """Why nothing from ``cwd`` went into a project (``project_for`` gave None)."""
        return f"its folder belongs to project {self.read_only.get(cwd, '')}, " \
            "which you may only read"
