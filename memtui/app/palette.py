"""The command palette (ctrl+p) offers the same actions as the keys and ``/memory``:
"memory: forget selected", "memory: extract with force", "pane: History" ... Each names its
key (as the user's keymap has it), and memtui's actions come before Textual's own (theme,
quit, screenshot ...), which this one provider also offers."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, NamedTuple, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from memtui.app.textual_compat import app_keymap

if TYPE_CHECKING:
    from memtui.app.app import MemtuiApp

SYSTEM_SCORE_FACTOR = 0.5
"""Textual's own commands rank below memtui's for the same match quality."""


class PaletteCommand(NamedTuple):
    """One palette entry."""

    name: str
    callback: Callable[[], object]
    help: str
    binding_id: str | None = None
    """The key binding that does the same (its key is shown)."""


def command_keys(app: MemtuiApp) -> dict[str, str]:
    """Binding id -> the key shown for it (the user's keymap applied)."""
    from memtui.app.help import key_rows

    keys: dict[str, str] = {}
    for _where, key, _what, binding_id in key_rows(app.binding_owners(), dict(app_keymap(app))):
        keys.setdefault(binding_id, key)
    return keys


def memtui_commands(app: MemtuiApp) -> list[PaletteCommand]:
    """memtui's actions, in palette order."""
    run = app.run_command_text
    commands = [
        PaletteCommand("memory: status", lambda: run("/memory status"),
                       "settings, worker state, counts, last run"),
        PaletteCommand("memory: show selected", lambda: run("/memory show"),
                       "the selected memory's detail"),
        PaletteCommand("memory: forget selected", app.action_forget_selected,
                       "forget the selected (or marked) memories — asks first",
                       "memory.forget"),
        PaletteCommand("memory: correct selected", app.action_correct_selected,
                       "supersede the selected memory with corrected text", "memory.correct"),
        PaletteCommand("memory: copy selected", app.action_copy,
                       "copy the selected memory's text", "memory.copy"),
        PaletteCommand("memory: new memory", app.action_new_memory,
                       "add a memory (pick its kind)", "memory.add"),
        PaletteCommand("memory: new note", app.action_new_note,
                       "add a note in the current scope", "memory.note"),
        PaletteCommand("memory: extract (run now)", lambda: run("/memory extract"),
                       "one extraction round now", "app.run"),
        PaletteCommand("memory: extract with force", lambda: run("/memory extract --force"),
                       "skip the idle and size gates", "app.run_force"),
        PaletteCommand("memory: backfill", lambda: run("/memory backfill"),
                       "work through every past completed task"),
        PaletteCommand("memory: consolidate", lambda: run("/memory consolidate"),
                       "supersede duplicate active memories"),
        PaletteCommand("memory: on (generate and use)", lambda: run("/memory on"), ""),
        PaletteCommand("memory: off (generate and use)", lambda: run("/memory off"), ""),
        PaletteCommand("memory: toggle generate", app.action_toggle_generate,
                       "switch generate_memories", "app.generate"),
        PaletteCommand("memory: toggle use", app.action_toggle_use,
                       "switch use_memories", "app.use"),
        PaletteCommand("memory: undo", app.action_undo,
                       "undo the last change (not a forget)", "app.undo"),
        PaletteCommand("memory: command line", app.action_command_line,
                       "type a /memory command", "app.command_line"),
        PaletteCommand("memory: help", app.action_help,
                       "every key and command, searchable", "app.help"),
        PaletteCommand("inbox: show", lambda: run("/memory inbox"),
                       "memories waiting for review"),
        PaletteCommand("inbox: approve selected", lambda: app.inbox_action("approve"),
                       "approve the inbox's selected or marked rows", "inbox.approve"),
        PaletteCommand("inbox: edit and approve", lambda: app.inbox_action("edit_approve"),
                       "edit the selected row's text, then approve it", "inbox.edit"),
        PaletteCommand("inbox: reject selected", lambda: app.inbox_action("reject"),
                       "reject the selected or marked rows, for good (asks)", "inbox.reject"),
        PaletteCommand("inbox: approve all", lambda: run("/memory approve all"),
                       "approve everything you may (asks)"),
        PaletteCommand("inbox: reject all", lambda: run("/memory reject all"),
                       "reject everything you may, for good (asks)"),
        PaletteCommand("inbox: review on", lambda: run("/memory review on"),
                       "memories from agents wait for approval"),
        PaletteCommand("inbox: review off", lambda: run("/memory review off"),
                       "memories from agents are used at once"),
        PaletteCommand("agents: forget entry", lambda: app.agents_action("forget"),
                       "forget the Agents pane's selected entry (a topic file with its index "
                       "line, an added memory) — asks first", "agents.forget"),
        PaletteCommand("agents: edit entry", lambda: app.agents_action("edit"),
                       "edit the selected entry's text, then confirm the diff",
                       "agents.edit"),
        PaletteCommand("agents: promote entry", lambda: app.agents_action("promote"),
                       "move the selected project memory to the user/global tier — asks "
                       "first", "agents.promote"),
        PaletteCommand("project: switch", app.choose_project, "choose the current project",
                       "memory.project"),
    ]
    for pane_id, title in app.pane_titles():
        commands.append(PaletteCommand(f"pane: {title}", partial(app.show_pane, pane_id),
                                       f"show the {title} pane", f"pane.{pane_id}"))
    return commands


def help_with_key(command: PaletteCommand, keys: dict[str, str]) -> str | None:
    """The palette's second line: the key first (``key d · forget …``)."""
    key = keys.get(command.binding_id or "")
    parts = [f"key {key}"] if key else []
    if command.help:
        parts.append(command.help)
    return " · ".join(parts) or None


class MemoryCommands(Provider):
    """Every app action as a palette command (with its key), then Textual's own."""

    def _commands(self) -> list[tuple[PaletteCommand, bool]]:
        """(command, is memtui's) in order: memtui's, then Textual's system commands."""
        app = cast("MemtuiApp", self.app)
        entries = [(command, True) for command in memtui_commands(app)]
        system = sorted(app.get_system_commands(self.screen), key=lambda command: command[0])
        entries.extend((PaletteCommand(name, callback, help_text), False)
                       for name, help_text, callback, discover in system if discover)
        return entries

    async def discover(self) -> Hits:
        """Everything, before anything is typed: memtui's actions first."""
        keys = command_keys(cast("MemtuiApp", self.app))
        for command, _mine in self._commands():
            yield DiscoveryHit(command.name, command.callback, help=help_with_key(command, keys))

    async def search(self, query: str) -> Hits:
        """Fuzzy matches of the typed text (memtui's rank above Textual's)."""
        keys = command_keys(cast("MemtuiApp", self.app))
        matcher = self.matcher(query)
        for command, mine in self._commands():
            score = matcher.match(command.name)
            if score > 0:
                yield Hit(score if mine else score * SYSTEM_SCORE_FACTOR,
                          matcher.highlight(command.name), command.callback,
                          text=command.name, help=help_with_key(command, keys))
