"""``CodexApi``: the engine's one door to a Codex home (``engine.codex``).

Browse (``browse.py``), import memories (``import_memories.py``), import rollouts
(``import_rollouts.py``), export the store (``export.py``) and curate (``curation.py``,
``notes.py``): each job lives in its own module; this facade only hands calls on, acting as
the engine's user.
"""

from __future__ import annotations

import os
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.engine.base import EngineArea
from memtui.engine.codex.paths import MEMORIES_DIR
from memtui.engine.codex.rollouts import MAX_ROLLOUT_FILES

if TYPE_CHECKING:
    from memtui.engine.codex.curation import ForgetResult
    from memtui.engine.codex.export import Exporter, ExportPlan
    from memtui.engine.codex.import_memories import MemoryImporter
    from memtui.engine.codex.import_report import ImportReport
    from memtui.engine.codex.import_rollouts import RolloutImporter
    from memtui.engine.codex.models import CodexHome


class CodexApi(EngineArea):
    """Browse, import, export and curate a Codex home through the engine's rules."""

    @cached_property
    def _memories(self) -> MemoryImporter:
        from memtui.engine.codex.import_memories import MemoryImporter

        return MemoryImporter(self._engine)

    @cached_property
    def _rollouts(self) -> RolloutImporter:
        from memtui.engine.codex.import_rollouts import RolloutImporter

        return RolloutImporter(self._engine)

    @cached_property
    def _exporter(self) -> Exporter:
        from memtui.engine.codex.export import Exporter

        return Exporter(self._engine)

    @staticmethod
    def browse(home: str | os.PathLike[str], now: datetime | None = None, *,
               sqlite_home: str | os.PathLike[str] | None = None,
               db_busy_timeout_s: float | None = None) -> CodexHome:
        """The Codex home, read-only (``browse.browse``)."""
        from memtui.engine.codex.browse import browse

        return browse(home, now, sqlite_home=sqlite_home, db_busy_timeout_s=db_busy_timeout_s)

    def import_memories(self, home: str | os.PathLike[str], *,
                        sqlite_home: str | os.PathLike[str] | None = None,
                        db_busy_timeout_s: float | None = None,
                        codex: CodexHome | None = None) -> ImportReport:
        """Stage-1 outputs and ad-hoc notes become memories (``import_memories``)."""
        return self._memories.import_memories(home, sqlite_home=sqlite_home,
                                              db_busy_timeout_s=db_busy_timeout_s,
                                              codex=codex)

    def import_rollouts(self, home: str | os.PathLike[str], *,
                        max_files: int = MAX_ROLLOUT_FILES) -> ImportReport:
        """New or changed session rollouts become completed tasks (``import_rollouts``)."""
        return self._rollouts.import_rollouts(home, max_files=max_files)

    def plan_export(self) -> ExportPlan:
        """The store rendered in Codex's folder format, nothing written (``export``)."""
        return self._exporter.plan_export()

    def export_store(self, target: str | os.PathLike[str], *,
                     home_layout: bool = False, folder: str = MEMORIES_DIR) -> Path:
        """Write the export into a new folder (``export``)."""
        return self._exporter.export_store(target, home_layout=home_layout, folder=folder)

    def write_plan(self, plan: ExportPlan, target: str | os.PathLike[str], *,
                   home_layout: bool = False, folder: str = MEMORIES_DIR) -> Path:
        """Write a rendered export into a new folder (``export``)."""
        return self._exporter.write_plan(plan, target, home_layout=home_layout, folder=folder)

    @staticmethod
    def plan_forget(home: str | os.PathLike[str], thread_id: str, *,
                    sqlite_home: str | os.PathLike[str] | None = None) -> ForgetResult:
        """What forgetting a thread would change, read-only (``curation``)."""
        from memtui.engine.codex.curation import plan_forget_thread

        return plan_forget_thread(home, thread_id, sqlite_home=sqlite_home)

    @staticmethod
    def forget(home: str | os.PathLike[str], thread_id: str, write: bool, *,
               sqlite_home: str | os.PathLike[str] | None = None,
               busy_timeout_s: float | None = None) -> ForgetResult:
        """Forget one thread the way Codex forgets (``curation.forget_thread``)."""
        from memtui.engine.codex.curation import forget_thread

        if busy_timeout_s is None:
            return forget_thread(home, thread_id, write, sqlite_home=sqlite_home)
        return forget_thread(home, thread_id, write, sqlite_home=sqlite_home,
                             busy_timeout_s=busy_timeout_s)
