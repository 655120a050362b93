"""``CodexApi``: the engine's one door to a Codex home (``engine.codex``), gathering the
jobs of the package's modules and acting as the engine's user."""

from __future__ import annotations

from memtui.engine.codex.curation import forget_thread, plan_forget_thread
from memtui.engine.codex.export import Exporter
from memtui.engine.codex.import_memories import MemoryImporter
from memtui.engine.codex.import_rollouts import RolloutImporter
from memtui.engine.codex.reader import read_codex_home


class CodexApi(MemoryImporter, RolloutImporter, Exporter):
    """Browse, import, export and curate a Codex home through the engine's rules."""

    browse = staticmethod(read_codex_home)
    """The Codex home, read-only (``reader.read_codex_home``)."""
    plan_forget = staticmethod(plan_forget_thread)
    """What forgetting a thread would change, read-only (``curation``)."""
    forget = staticmethod(forget_thread)
    """Forget one thread the way Codex forgets (``curation.forget_thread``)."""
