"""The ``user_settings`` rows: one JSON object of auto-memory settings per user (a module of
its own: the session hooks read them)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from memtui.errors import StoreError
from memtui.store.dialect import upsert
from memtui.store.repository import Repository


class SettingsRepository(Repository):
    """SQL for the ``user_settings`` table."""

    def get(self, user_id: str) -> dict[str, Any] | None:
        """The user's stored settings object, or None (``StoreError``: not a JSON object)."""
        text = self._text("SELECT settings FROM user_settings WHERE user_id = ?", (user_id,))
        if text is None:
            return None
        try:
            value = json.loads(text)
        except (TypeError, ValueError, RecursionError):
            raise StoreError(f"the settings of {user_id!r} are not valid JSON") from None
        if not isinstance(value, dict):
            raise StoreError(f"the settings of {user_id!r} are not a JSON object")
        return value

    def save(self, user_id: str, settings: Mapping[str, Any], at: str) -> None:
        """Write the user's whole settings object."""
        self._store.execute(
            upsert("user_settings", "user_id, settings, updated_at", "user_id"),
            (user_id, json.dumps(dict(settings), sort_keys=True), at))
