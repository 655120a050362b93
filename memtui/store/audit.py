"""The append-only audit log. Entries never hold memory content or secrets."""

from __future__ import annotations

import json
from typing import Any

from memtui.store.models import AuditEntry
from memtui.store.repository import Repository


class AuditRepository(Repository):
    """SQL for the ``audit`` table."""

    def append(self, actor: str, action: str, target: str | None,
               detail: dict[str, Any] | None = None) -> None:
        """Append one entry (call inside the transaction whose change it records)."""
        self._store.execute(
            "INSERT INTO audit(at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)",
            (self._store.now(), actor, action, target,
             json.dumps(detail or {}, sort_keys=True, ensure_ascii=False)),
        )

    def list_for(self, actor: str, limit: int) -> list[AuditEntry]:
        """The actor's entries, newest first."""
        return self._all(lambda r: AuditEntry(r[0], r[1], r[2], r[3], r[4], json.loads(r[5])),
                         "SELECT seq, at, actor, action, target, detail FROM audit WHERE actor = ? "
                         "ORDER BY seq DESC LIMIT ?", (actor, limit))
