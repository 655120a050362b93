"""The panes of the app, in tab order. Adding a pane is one module and one line in PANES.

Keys ``1``…``9`` switch to the panes in this order; each pane's binding id is
``pane.<id>``.
"""

from __future__ import annotations

from memtui.app.panes.base import Pane
from memtui.app.panes.bundles import BundlesPane
from memtui.app.panes.codex import CodexPane
from memtui.app.panes.extraction_log import ExtractionLogPane
from memtui.app.panes.history import HistoryPane
from memtui.app.panes.injection import InjectionPane
from memtui.app.panes.memories import ProjectMemoriesPane, UserMemoriesPane
from memtui.app.panes.profile import ProfilePane
from memtui.app.panes.settings import SettingsPane

PANES: tuple[type[Pane], ...] = (
    ProfilePane,
    UserMemoriesPane,
    ProjectMemoriesPane,
    HistoryPane,
    ExtractionLogPane,
    SettingsPane,
    InjectionPane,
    BundlesPane,
    CodexPane,
)
"""Every pane class, in tab order (each has PANE_ID and TITLE)."""

__all__ = ["PANES", "Pane"]
