"""The keys and commands, for the help screen and the README (made from the bindings, with
the user's keymap applied, so they never drift from the code)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.binding import Binding

from memtui.app.commands import USAGE

if TYPE_CHECKING:
    from memtui.app.app import MemtuiApp

KEYMAP_NOTE = ("Rebind any key by its id in ~/.config/memtui/keymap.toml (or $MEMTUI_KEYMAP): "
               '[keymap] "memory.forget" = "x"')


def binding_classes() -> list[tuple[str, type]]:
    """(where, class) of everything in the app that has key bindings, in help order."""
    from memtui.app.app import MainScreen, MemtuiApp
    from memtui.app.modals.confirm import ConfirmModal
    from memtui.app.modals.detail import MemoryDetailModal
    from memtui.app.modals.editor import MemoryEditor
    from memtui.app.modals.filter import FilterModal
    from memtui.app.modals.picker import PickerModal
    from memtui.app.modals.text import TextModal
    from memtui.app.panes.base import FormPane
    from memtui.app.panes.extraction_log import ExtractionLogPane
    from memtui.app.panes.history import HistoryPane
    from memtui.app.panes.injection import InjectionPane
    from memtui.app.panes.memories import MemoriesPane, ProjectMemoriesPane
    from memtui.app.panes.profile import ProfilePane
    from memtui.app.panes.settings import SettingsPane
    from memtui.app.widgets.command_line import CommandLine
    from memtui.app.widgets.line_list import LineList
    from memtui.app.widgets.memory_list import MemoryList

    return [("everywhere", MemtuiApp), ("everywhere", MainScreen), ("lists", LineList),
            ("memory lists", MemoryList), ("memory panes", MemoriesPane),
            ("project pane", ProjectMemoriesPane), ("history", HistoryPane),
            ("extraction log", ExtractionLogPane), ("injection preview", InjectionPane),
            ("profile", ProfilePane), ("settings", SettingsPane), ("profile, settings", FormPane),
            ("command line", CommandLine), ("editor", MemoryEditor),
            ("confirm", ConfirmModal), ("memory detail", MemoryDetailModal),
            ("filter", FilterModal), ("picker", PickerModal), ("text view", TextModal)]


def _display_key(keys: str) -> str:
    names = {"question_mark": "?", "slash": "/", "colon": ":", "space": "space",
             "escape": "esc", "pagedown": "pgdn", "pageup": "pgup"}
    return ", ".join(names.get(key.strip(), key.strip()) for key in keys.split(","))


def key_rows(keymap: dict[str, str] | None = None) -> list[tuple[str, str, str, str]]:
    """(where, keys, what, binding id) for every binding, with ``keymap`` applied."""
    keymap = keymap or {}
    rows: list[tuple[str, str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for where, owner in binding_classes():
        for binding in owner.__dict__.get("BINDINGS", []):
            if not isinstance(binding, Binding) or not binding.id:
                continue
            if (where, binding.id) in seen:
                continue
            seen.add((where, binding.id))
            keys = keymap.get(binding.id, binding.key)
            rows.append((where, _display_key(keys), binding.tooltip or binding.description,
                         binding.id))
    return rows


def help_text(app: MemtuiApp) -> Table:
    """The help screen: every key (as remapped), grouped by where it works, and the
    /memory commands."""
    table = Table(box=None, show_header=False, pad_edge=False, expand=True)
    table.add_column("keys", no_wrap=True, style="bold")
    table.add_column("does", ratio=1)
    table.add_column("id", style="dim", no_wrap=True)
    current = None
    for where, keys, what, binding_id in key_rows(dict(app._keymap)):
        if where != current:
            if current is not None:
                table.add_row("", "", "")
            table.add_row(Text(where, style="bold underline"), "", "")
            current = where
        table.add_row(keys, what, binding_id)
    table.add_row("", "", "")
    table.add_row(Text("commands", style="bold underline"), "", "")
    table.add_row(":", Text(USAGE), "")
    table.add_row("ctrl+p", Text("the palette: every action by name (\"memory: forget "
                                 "selected\" ...)"), "")
    table.add_row("", "", "")
    table.add_row("", Text(KEYMAP_NOTE), "")
    return table


def keys_markdown() -> str:
    """The Keys table for the README (default keys)."""
    lines = ["| where | keys | does | id |", "| --- | --- | --- | --- |"]
    for where, keys, what, binding_id in key_rows():
        lines.append(f"| {where} | `{keys}` | {what} | `{binding_id}` |")
    return "\n".join(lines)
