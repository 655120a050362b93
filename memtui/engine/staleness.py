"""Stale memories: cited code gone from the project's folder (``citations``) or not used for
the actor's ``max_unused_days`` (0: never); shown for review, ``keep`` marks them used now.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from memtui.engine import citations
from memtui.engine.base import EngineArea
from memtui.engine.settings import load_settings
from memtui.engine.validation import clamp_limit
from memtui.errors import InvalidInput
from memtui.store.models import Memory
from memtui.store.timeutil import format_time, parse_time

MAX_STALE_SCAN = 2000
MAX_UNUSED_SCAN = 5000
"""Memories made before the unused cut-off that one list's unused query reads at most."""
MAX_STALE_LIST = 500
MAX_KEEP = 1000


@dataclass(frozen=True)
class StaleMemory:
    """A memory and why it is stale."""

    memory: Memory
    reasons: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The memory's JSON with ``stale``: the reasons."""
        return {**self.memory.to_json(), "stale": list(self.reasons)}


class StalenessApi(EngineArea):
    """Stale memories for the actor: citations checked, unused ones found, kept."""

    def check(self, memories: Sequence[Memory]) -> dict[str, tuple[str, ...]]:
        """Why each stale memory's citations no longer hold, by id."""
        roots = {project: row.root_path if (row := self._store.identity.get_project(project))
                 else None for project in {m.project for m in memories if m.project}}
        found, checker = {}, citations.Checker()
        for memory in memories:
            if memory.project is not None:
                reasons = checker.missing(memory.content, roots.get(memory.project))
                if reasons:
                    found[memory.id] = reasons
        return found

    def stale(self, project: str | None = None, limit: int = 50, *, kind: str | None = None,
              source: str | None = None) -> list[StaleMemory]:
        """The actor's stale active memories (``project``'s, else the actor's user-level ones;
        of one ``kind`` or ``source``), newest first: citations gone, or unused for
        ``max_unused_days``."""
        size = clamp_limit(limit, MAX_STALE_LIST)
        flt = self._engine.identity.memory_filter(project, kind=kind, source=source)
        days = int(load_settings(self._store, self.actor)["max_unused_days"])
        before = format_time(parse_time(self._store.now()) - timedelta(days=days)) \
            if days > 0 else None
        with self._store.snapshot():
            newest = self._store.memories.page(flt, MAX_STALE_SCAN)
            unused = (self._store.memories.unused(flt, before, size, MAX_UNUSED_SCAN)
                      if before else [])
        reasons: dict[str, list[str]] = {key: list(value)
                                         for key, value in self.check(newest).items()}
        for memory in unused:
            plural = "" if days == 1 else "s"
            reasons.setdefault(memory.id, []).append(f"unused for over {days} day{plural}")
        memories = {memory.id: memory for memory in [*newest, *unused]}
        ordered = sorted((memories[key] for key in reasons),
                         key=lambda m: (m.created_at, m.id), reverse=True)
        return [StaleMemory(memory, tuple(reasons[memory.id])) for memory in ordered[:size]]

    def everywhere(self, limit: int = MAX_STALE_LIST) -> list[StaleMemory]:
        """The actor's stale user-level memories, then each readable project's (the Inbox)."""
        found = self.stale(None, limit)
        for project in self._engine.recall.readable_projects():
            if len(found) >= limit:
                break
            found += self.stale(project, limit - len(found))
        return found

    def keep(self, memory_ids: Sequence[str]) -> int:
        """Mark the memories used now (reviewed and kept); returns how many."""
        ids = list(dict.fromkeys(memory_ids))
        if not ids or len(ids) > MAX_KEEP:
            raise InvalidInput(f"name 1 to {MAX_KEEP} memories to keep")
        with self._store.transaction():
            for memory_id in ids:
                self._engine.identity.get_memory(memory_id)
            self._store.memories.touch(ids, self._store.now())
            self._append_audit("memories_kept", None, memory_ids=ids)
        return len(ids)
