"""Who may do what: roles to permissions, and visibility that never leaks existence."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memtui.errors import NotFound, PermissionDenied
from memtui.store.models import Memory, Project

if TYPE_CHECKING:
    from memtui.store.backend import StoreBackend

READ = "read"
CREATE_TASK = "create_task"
ROLE_PERMISSIONS: dict[str, frozenset[str]] = {
    "owner": frozenset({READ, CREATE_TASK}),
    "member": frozenset({READ, CREATE_TASK}),
    "reader": frozenset({READ}),
}


def permissions(store: StoreBackend, project_id: str, user_id: str) -> frozenset[str]:
    """The user's permissions on a project (empty for a non-member)."""
    role = store.identity.role(project_id, user_id)
    return ROLE_PERMISSIONS.get(role or "", frozenset())


def memory_not_found(memory_id: str) -> NotFound:
    """The one answer for a missing memory and one the actor may not see."""
    return NotFound(f"memory {memory_id!r} not found")


def readable_project(store: StoreBackend, project_id: str, user_id: str) -> Project:
    """The project, if the user may read it; else NotFound (the same as a missing one)."""
    project = store.identity.get_project(project_id)
    if project is None or READ not in permissions(store, project_id, user_id):
        raise NotFound(f"project {project_id!r} not found")
    return project


def writable_project(store: StoreBackend, project_id: str, user_id: str) -> Project:
    """The project, if the user has ``create_task`` on it; PermissionDenied for a reader."""
    project = readable_project(store, project_id, user_id)
    if CREATE_TASK not in permissions(store, project_id, user_id):
        raise PermissionDenied(f"you may read project {project_id!r} but not write to it")
    return project


def can_see(store: StoreBackend, memory: Memory, user_id: str) -> bool:
    """Whether the user may see the memory."""
    return memory.owner == user_id if memory.scope == "user" else \
        READ in permissions(store, memory.project or "", user_id)


def visible_memory(store: StoreBackend, memory_id: str, user_id: str) -> Memory:
    """The memory if the user may see it; NotFound otherwise (same answer as missing)."""
    memory = store.memories.get(memory_id)
    if memory is None or not can_see(store, memory, user_id):
        raise memory_not_found(memory_id)
    return memory


def writable_memory(store: StoreBackend, memory_id: str, user_id: str) -> Memory:
    """The memory if the user may change it; PermissionDenied for a project reader."""
    memory = visible_memory(store, memory_id, user_id)
    if memory.scope == "project" and CREATE_TASK not in permissions(
            store, memory.project or "", user_id):
        raise PermissionDenied(f"you may read memory {memory_id!r} but not change it")
    return memory
