"""The panes of the app, in tab order (keys ``1``…``9``, binding ids ``pane.<id>``). A
pane's module is imported when the pane is first mounted, so the first frame does not wait
for every pane's imports."""

from __future__ import annotations

import importlib
from typing import NamedTuple

from memtui.app.panes.base import Pane


class PaneSpec(NamedTuple):
    """One entry of ``PANES``: id, title and ``module:ClassName`` (imported on first use)."""

    PANE_ID: str
    TITLE: str
    path: str

    def load(self) -> type[Pane]:
        """The pane class, imported now if it was not yet."""
        module, _, name = self.path.partition(":")
        pane_class: type[Pane] = getattr(importlib.import_module(module), name)
        if (pane_class.PANE_ID, pane_class.TITLE) != (self.PANE_ID, self.TITLE):
            raise RuntimeError(f"PANES entry {self.PANE_ID!r} does not match {self.path}")
        return pane_class

    def __call__(self) -> Pane:
        """A new pane of this class."""
        return self.load()()


PANES: tuple[PaneSpec, ...] = (
    PaneSpec("profile", "Profile", "memtui.app.panes.profile:ProfilePane"),
    PaneSpec("user", "User", "memtui.app.panes.memories:MemoriesPane"),
    PaneSpec("project", "Project", "memtui.app.panes.memories:ProjectMemoriesPane"),
    PaneSpec("history", "History", "memtui.app.panes.history:HistoryPane"),
    PaneSpec("log", "Log", "memtui.app.panes.extraction_log:ExtractionLogPane"),
    PaneSpec("settings", "Settings", "memtui.app.panes.settings:SettingsPane"),
    PaneSpec("inject", "Inject", "memtui.app.panes.injection:InjectionPane"),
    PaneSpec("inbox", "Inbox", "memtui.app.panes.inbox:InboxPane"),
    PaneSpec("bundles", "Bundles", "memtui.app.panes.bundles:BundlesPane"),
    PaneSpec("codex", "Codex", "memtui.app.panes.codex:CodexPane"),
    PaneSpec("agents", "Agents", "memtui.app.panes.agents:AgentsPane"),
)
"""Every pane, in tab order (each has PANE_ID and TITLE; ``load()`` gives its class)."""

__all__ = ["PANES", "Pane", "PaneSpec"]
