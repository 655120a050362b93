"""The command palette (ctrl+p): the same actions as the keys and ``/memory``, each with its
key, before Textual's own (theme, quit ...), which this one provider also offers."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, NamedTuple, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from memtui.app.textual_compat import app_keymap

if TYPE_CHECKING:
    from memtui.app.app import MemtuiApp
    from memtui.app.panes.base import Pane
    from memtui.app.panes.memories import ProjectMemoriesPane

SYSTEM_SCORE_FACTOR = 0.5
"""Textual's own commands rank below memtui's for the same match quality."""


class PaletteCommand(NamedTuple):
    """One palette entry."""

    name: str
    callback: Callable[[], object]
    help: str
    binding_id: str | None = None


def command_keys(app: MemtuiApp) -> dict[str, str]:
    """Binding id -> the key shown for it (the user's keymap applied)."""
    from memtui.app.help import key_rows

    rows = key_rows(app.binding_owners(), app_keymap(app))
    return {binding_id: key for _where, key, _what, binding_id in reversed(rows)}  # first wins


def memtui_commands(app: MemtuiApp) -> list[PaletteCommand]:
    """memtui's actions, in palette order."""
    from memtui.app import curator
    from memtui.app.commands import MemoryCommand, pane_action, run, scope_project
    from memtui.app.panes import PANES

    def command(name: str, argument: str | None = None, force: bool = False) -> Callable[[], None]:
        return partial(run, app, MemoryCommand(name, argument, force))

    def pane() -> Pane:  # the pane on screen (made if it is still being mounted)
        return app.pane(app.active_pane_id)

    def do(step: Callable[[], curator.Step]) -> Callable[[], None]:
        return lambda: app.do(step())

    def act(pane_id: str, action: str) -> Callable[[], None]:
        return partial(pane_action, app, pane_id, action)

    Row = tuple[str, Callable[[], object], str] | tuple[str, Callable[[], object], str, str]
    rows: list[Row] = [
        ("memory: status", command("status"), "settings, worker state, counts, last run"),
        ("memory: show selected", command("show"), "the selected memory's detail"),
        ("memory: forget selected", lambda: pane().forget_selected(),
         "forget the selected (or marked) memories — asks first", "memory.forget"),
        ("memory: correct selected", lambda: pane().correct_selected(),
         "supersede the selected memory with corrected text", "memory.correct"),
        ("memory: copy selected", lambda: pane().action_copy(),
         "copy the selected memory's text", "memory.copy"),
        ("memory: new memory", do(lambda: curator.add_memory(app.engine, scope_project(app))),
         "add a memory (pick its kind)", "memory.add"),
        ("memory: new note", do(lambda: curator.add_note(app.engine, scope_project(app))),
         "add a note in the current scope", "memory.note"),
        ("memory: extract (run now)", command("extract"), "one extraction round now", "app.run"),
        ("memory: extract with force", command("extract", force=True),
         "skip the idle and size gates", "app.run_force"),
        ("memory: backfill", command("backfill"), "work through every past completed task"),
        ("memory: consolidate", command("consolidate"),
         "supersede duplicates; in model mode the model proposes supersedes into the inbox"),
        ("memory: on (generate and use)", command("on"), ""),
        ("memory: off (generate and use)", command("off"), ""),
        ("memory: toggle generate", do(lambda: curator.toggle(app.engine, "generate_memories")),
         "switch generate_memories", "app.generate"),
        ("memory: toggle use", do(lambda: curator.toggle(app.engine, "use_memories")),
         "switch use_memories", "app.use"),
        ("memory: undo", app.action_undo, "undo the last change (not a forget)", "app.undo"),
        ("memory: command line", app.action_command_line, "type a /memory command",
         "app.command_line"),
        ("memory: help", app.action_help, "every key and command, searchable", "app.help"),
        ("inbox: show", command("inbox"), "memories waiting for review"),
        ("inbox: approve selected", act("inbox", "approve"),
         "approve the inbox's selected or marked rows", "inbox.approve"),
        ("inbox: edit and approve", act("inbox", "edit_approve"),
         "edit the selected row's text, then approve it", "inbox.edit"),
        ("inbox: reject selected", act("inbox", "reject"),
         "reject the selected or marked rows, for good (asks)", "inbox.reject"),
        ("inbox: approve all", command("approve", "all"), "approve everything you may (asks)"),
        ("inbox: reject all", command("reject", "all"),
         "reject everything you may, for good (asks)"),
        ("inbox: review on", command("review", "on"), "memories from agents wait for approval"),
        ("inbox: review off", command("review", "off"), "memories from agents are used at once"),
        ("agents: forget entry", act("agents", "forget_entry"),
         "forget the Agents pane's selected entry (a topic file with its index line, an added "
         "memory) — asks first", "agents.forget"),
        ("agents: edit entry", act("agents", "edit_entry"),
         "edit the selected entry's text, then confirm the diff", "agents.edit"),
        ("agents: promote entry", act("agents", "promote_entry"),
         "move the selected project memory to the user/global tier — asks first",
         "agents.promote"),
        ("project: switch", lambda: cast("ProjectMemoriesPane",
                                         app.pane("project")).action_switch_project(),
         "choose the current project", "memory.project"),
        *((f"pane: {spec.TITLE}", partial(app.show_pane, spec.PANE_ID),
           f"show the {spec.TITLE} pane", f"pane.{spec.PANE_ID}") for spec in PANES),
    ]
    return [PaletteCommand(*row) for row in rows]


def help_with_key(command: PaletteCommand, keys: dict[str, str]) -> str | None:
    """The palette's second line: the key first (``key d · forget …``)."""
    key = keys.get(command.binding_id or "")
    return " · ".join(part for part in (key and f"key {key}", command.help) if part) or None


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
