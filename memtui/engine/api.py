"""``Engine``: the one API the app, the command line, the worker and the service all use.

An engine is a store plus the acting user. Each area of rules is a sub-API, created on first
use: ``engine.identity``, ``engine.tasks``, ``engine.settings``, ``engine.auto``,
``engine.injection``, ``engine.service``, ``engine.codex``, ``engine.maintenance``.
"""

from __future__ import annotations

import importlib
from functools import cached_property
from typing import TYPE_CHECKING, Any

from memtui.engine.validation import check_id

if TYPE_CHECKING:
    from memtui.engine.identity import IdentityApi
    from memtui.store.database import Store


def _sub_api(module: str, name: str, engine: Engine) -> Any:
    return getattr(importlib.import_module(f"memtui.engine.{module}"), name)(engine)


class Engine:
    """The store seen by one acting user, with every rule of the spec applied."""

    def __init__(self, store: Store, actor: str) -> None:
        self.store = store
        self.actor = check_id(actor, "user id")

    @cached_property
    def identity(self) -> IdentityApi:
        """Projects, members, profiles, memories, context, audit."""
        from memtui.engine.identity import IdentityApi

        return IdentityApi(self)

    @cached_property
    def tasks(self) -> Any:
        """Tasks, follow-ups, per-task flags, quota."""
        return _sub_api("tasks", "TaskApi", self)

    @cached_property
    def settings(self) -> Any:
        """Auto-memory settings."""
        return _sub_api("settings", "SettingsApi", self)

    @cached_property
    def auto(self) -> Any:
        """Extraction rounds, the extraction log, consolidation."""
        return _sub_api("extraction", "ExtractionApi", self)

    @cached_property
    def injection(self) -> Any:
        """First-turn injection."""
        return _sub_api("injection", "InjectionApi", self)

    @cached_property
    def service(self) -> Any:
        """Interactions, recall, bundles, transitions (the service's methods)."""
        return _sub_api("recall", "RecallApi", self)

    @cached_property
    def codex(self) -> Any:
        """Codex home interop: browse, import, rollouts, export."""
        from memtui.engine.codex.importer import CodexImporter

        return CodexImporter(self)

    @cached_property
    def maintenance(self) -> Any:
        """Doctor, export, import."""
        return _sub_api("maintenance", "MaintenanceApi", self)

    def for_user(self, actor: str) -> Engine:
        """The same store seen by another user (tests, the demo builder)."""
        return Engine(self.store, actor)
