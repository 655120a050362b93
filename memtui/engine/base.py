"""The base of every engine sub-API: it holds the engine, its store and the acting user."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memtui.engine.api import Engine
    from memtui.store.backend import StoreBackend


class EngineArea:
    """One area of rules (identity, tasks, extraction ...) acting as the engine's user."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._store: StoreBackend = engine.store

    @property
    def actor(self) -> str:
        """The acting user's id."""
        return self._engine.actor

    def _append_audit(self, action: str, target: str | None, **detail: Any) -> None:
        """Append the actor's audit entry (naming the client program, when there is one)."""
        self._store.audit.append(self.actor, action, target, self._engine.audit_detail(detail))
