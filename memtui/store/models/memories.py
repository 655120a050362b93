"""Memories and the filters and keyset cursors that page through them."""

from __future__ import annotations

from dataclasses import dataclass

from memtui.jsonable import JsonMixin


@dataclass(frozen=True)
class Memory(JsonMixin):
    """An identity memory (user or project level)."""

    id: str
    scope: str
    owner: str
    project: str | None
    kind: str
    content: str
    status: str
    superseded_by: str | None
    source: str
    source_thread_id: str | None
    created_at: str
    updated_at: str
    usage_count: int
    last_used_at: str | None


@dataclass(frozen=True)
class MemoryFilter:
    """What a memory list shows. ``scope='user'`` lists the owner's user memories;
    ``scope='project'`` lists one project's memories."""

    scope: str
    owner: str | None = None
    project: str | None = None
    kind: str | None = None
    status: str | None = "active"  # None = all statuses
    source: str | None = None
    search: str | None = None


@dataclass(frozen=True)
class PageCursor:
    """A keyset position in a newest-first list: the (created_at, id) of a row."""

    created_at: str
    id: str
