"""The command palette (ctrl+p) offers the same actions as the keys and ``/memory``:
"memory: forget selected", "memory: extract with force", "pane: History" ..."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from memtui.app.app import MemtuiApp


class MemoryCommands(Provider):
    """Every app action as a palette command."""

    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        app = cast("MemtuiApp", self.app)
        run = app.run_command_text
        commands: list[tuple[str, Callable[[], object], str]] = [
            ("memory: status", lambda: run("/memory status"),
             "settings, worker state, counts, last run"),
            ("memory: show selected", lambda: run("/memory show"), "the selected memory's detail"),
            ("memory: forget selected", app.action_forget_selected,
             "forget the selected (or marked) memories — asks first"),
            ("memory: correct selected", app.action_correct_selected,
             "supersede the selected memory with corrected text"),
            ("memory: copy selected", app.action_copy, "copy the selected memory's text"),
            ("memory: new memory", app.action_new_memory, "add a memory (pick its kind)"),
            ("memory: new note", app.action_new_note, "add a note in the current scope"),
            ("memory: extract (run now)", lambda: run("/memory extract"),
             "one extraction round now"),
            ("memory: extract with force", lambda: run("/memory extract --force"),
             "skip the idle and size gates"),
            ("memory: backfill", lambda: run("/memory backfill"),
             "work through every past completed task"),
            ("memory: consolidate", lambda: run("/memory consolidate"),
             "supersede duplicate active memories"),
            ("memory: on (generate and use)", lambda: run("/memory on"), ""),
            ("memory: off (generate and use)", lambda: run("/memory off"), ""),
            ("memory: toggle generate", app.action_toggle_generate, "g"),
            ("memory: toggle use", app.action_toggle_use, "u"),
            ("memory: undo", app.action_undo, "undo the last change (not a forget)"),
            ("memory: command line", app.action_command_line, "type a /memory command"),
            ("inbox: show", lambda: run("/memory inbox"), "memories waiting for review"),
            ("inbox: approve selected", lambda: app.inbox_action("approve"),
             "approve the inbox's selected or marked rows"),
            ("inbox: edit and approve", lambda: app.inbox_action("edit_approve"),
             "edit the selected row's text, then approve it"),
            ("inbox: reject selected", lambda: app.inbox_action("reject"),
             "reject the selected or marked rows, for good (asks)"),
            ("inbox: approve all", lambda: run("/memory approve all"),
             "approve everything you may (asks)"),
            ("inbox: reject all", lambda: run("/memory reject all"),
             "reject everything you may, for good (asks)"),
            ("inbox: review on", lambda: run("/memory review on"),
             "memories from agents wait for approval"),
            ("inbox: review off", lambda: run("/memory review off"),
             "memories from agents are used at once"),
            ("project: switch", app.choose_project, "choose the current project"),
        ]
        for pane_id, title in app.pane_titles():
            commands.append((f"pane: {title}", partial(app.show_pane, pane_id), ""))
        return commands

    async def discover(self) -> Hits:
        """Everything, before anything is typed."""
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(name, callback, help=help_text or None)

    async def search(self, query: str) -> Hits:
        """Fuzzy matches of the typed text."""
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, text=name,
                          help=help_text or None)
