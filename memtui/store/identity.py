"""SQL for users, projects, memberships and profiles."""

from __future__ import annotations

import json

from memtui.store.dialect import qualified, upsert
from memtui.store.models import Membership, Profile, Project, User
from memtui.store.repository import Repository, columns_of, row_maker

_PROJECT_COLUMNS = columns_of(Project)
_project = row_maker(Project)
_PROFILE_COLUMNS = "user_id, display_name, timezone, preferences, updated_at"


class IdentityRepository(Repository):
    """Users, projects, memberships, profiles."""

    def get_user(self, user_id: str) -> User | None:
        """One user, or None."""
        return self._one(row_maker(User), f"SELECT {columns_of(User)} FROM users WHERE id = ?",
                         (user_id,))

    def ensure_user(self, user_id: str, display_name: str | None = None) -> User:
        """Create the user if missing (its profile too) and return it."""
        now = self._store.now()
        dialect = self._store.dialect
        self._store.execute(
            dialect.insert_ignore("users(id, display_name, created_at) VALUES (?, ?, ?)"),
            (user_id, display_name or user_id, now))
        self._store.execute(
            dialect.insert_ignore("profiles(user_id, display_name, timezone, preferences, "
                                  "updated_at) VALUES (?, ?, 'UTC', '{}', NULL)"),
            (user_id, display_name or user_id))
        user = self.get_user(user_id)
        assert user is not None
        return user

    def get_project(self, project_id: str) -> Project | None:
        """One project, or None."""
        return self._one(_project, f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE id = ?",
                         (project_id,))

    def insert_project(self, project: Project) -> None:
        """Insert a new project row."""
        self._insert("projects", project)

    def projects_for(self, user_id: str) -> list[tuple[Project, str]]:
        """Projects the user is a member of, with the role, by id."""
        return self._all(lambda row: (_project(row), row[-1]),
                         f"SELECT {qualified(_PROJECT_COLUMNS, 'p')}, m.role "
                         "FROM project_members m JOIN projects p ON p.id = m.project_id "
                         "WHERE m.user_id = ? ORDER BY p.id", (user_id,))

    def chosen_projects(self, user_id: str) -> list[Project]:
        """Projects the user made or accepted a membership of, by id."""
        return self._all(_project, f"SELECT {qualified(_PROJECT_COLUMNS, 'p')} "
                         "FROM project_members m JOIN projects p ON p.id = m.project_id "
                         "WHERE m.user_id = ? AND (m.accepted = 1 OR p.created_by = m.user_id) "
                         "ORDER BY p.id", (user_id,))

    def role(self, project_id: str, user_id: str) -> str | None:
        """The user's role in the project, or None for a non-member."""
        return self._text("SELECT role FROM project_members WHERE project_id = ? AND user_id = ?",
                          (project_id, user_id))

    def set_role(self, project_id: str, user_id: str, role: str) -> None:
        """Insert or change a membership."""
        self._store.execute(upsert("project_members", "project_id, user_id, role",
                                   "project_id, user_id"), (project_id, user_id, role))

    def accept(self, project_id: str, user_id: str) -> bool:
        """Mark the user's membership accepted; whether it was not before."""
        return self._store.execute(
            "UPDATE project_members SET accepted = 1 WHERE project_id = ? AND user_id = ? "
            "AND accepted = 0", (project_id, user_id)).rowcount > 0

    def members(self, project_id: str) -> list[Membership]:
        """A project's memberships, by user."""
        return self._all(row_maker(Membership), f"SELECT {columns_of(Membership)} FROM "
                         "project_members WHERE project_id = ? ORDER BY user_id", (project_id,))

    def get_profile(self, user_id: str) -> Profile | None:
        """The user's profile, or None."""
        return self._one(lambda row: Profile(row[0], row[1], row[2], json.loads(row[3]), row[4]),
                         f"SELECT {_PROFILE_COLUMNS} FROM profiles WHERE user_id = ?", (user_id,))

    def save_profile(self, profile: Profile) -> None:
        """Write the whole profile row."""
        self._store.execute(
            upsert("profiles", _PROFILE_COLUMNS, "user_id"),
            (profile.user_id, profile.display_name, profile.timezone,
             json.dumps(profile.preferences, sort_keys=True, ensure_ascii=False),
             profile.updated_at))
