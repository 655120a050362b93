"""The keys and commands, for the help screen and docs/app.md, made from the bindings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.table import Table
from rich.text import Text
from textual.binding import Binding

from memtui.app.commands import USAGE

BindingOwners = Sequence[tuple[str, type]]
"""(where, class) of everything that has key bindings (``app.binding_classes``)."""

KEYMAP_NOTE = ("Rebind any key by its id in ~/.config/memtui/keymap.toml (or $MEMTUI_KEYMAP): "
               '[keymap] "memory.forget" = "x"')


def _display_key(keys: str) -> str:
    names = {"question_mark": "?", "slash": "/", "colon": ":", "space": "space", "asterisk": "*",
             "escape": "esc", "pagedown": "pgdn", "pageup": "pgup"}
    return ", ".join(names.get(key.strip(), key.strip()) for key in keys.split(","))


def key_rows(owners: BindingOwners,
             keymap: Mapping[str, str] | None = None) -> list[tuple[str, str, str, str]]:
    """(where, keys, what, binding id) for every binding of ``owners``, ``keymap`` applied."""
    keymap = keymap or {}
    rows: list[tuple[str, str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for where, owner in owners:
        for binding in owner.__dict__.get("BINDINGS", []):
            if not isinstance(binding, Binding) or not binding.id or (where, binding.id) in seen:
                continue
            seen.add((where, binding.id))
            keys = keymap.get(binding.id, binding.key)
            rows.append((where, _display_key(keys), binding.tooltip or binding.description,
                         binding.id))
    return rows


WIDE_HELP_COLUMNS = 100
"""From this width the help gives binding ids a column (else they follow the description)."""


def _matches(words: list[str], *parts: str) -> bool:
    haystack = " ".join(parts).lower()
    return all(word in haystack for word in words)


def help_text(owners: BindingOwners, keymap: Mapping[str, str], query: str = "", *,
              width: int = WIDE_HELP_COLUMNS) -> Table:
    """The help screen: every key of ``owners`` (as remapped by ``keymap``), grouped by where
    it works, and the /memory commands; only the rows with every word of ``query``."""
    words = query.lower().split()
    wide = width >= WIDE_HELP_COLUMNS
    table = Table(box=None, show_header=False, pad_edge=False, expand=True)
    table.add_column("keys", no_wrap=True, style="bold")
    table.add_column("does", ratio=1)
    if wide:
        table.add_column("id", style="dim", no_wrap=True)

    def row(keys: str | Text, does: Text | str = "", binding_id: str = "") -> None:
        if wide:
            table.add_row(keys, does, binding_id)
            return
        text = Text(does) if isinstance(does, str) else does.copy()
        if binding_id:
            text.append(f"  {binding_id}", style="dim")
        table.add_row(keys, text)

    commands: list[tuple[str, str, str | Text, str]] = [
        ("commands", ":", Text(USAGE), ""),
        ("commands", "ctrl+p", Text("the palette: every action by name, with its key "
                                    "(\"memory: forget selected\" ...)"), "")]
    current = None
    shown = 0
    for where, keys, what, binding_id in [*key_rows(owners, keymap), *commands]:
        if not _matches(words, where, keys, str(what), binding_id):
            continue
        if where != current:
            if current is not None or where == "commands":
                row("")
            row(Text(where, style="bold underline"))
            current = where
        row(keys, what, binding_id)
        shown += 1
    if not shown:
        row("", Text(f"No key or command matches {query.strip()!r}.", style="dim"))
    row("")
    row("", Text(KEYMAP_NOTE))
    return table


def keys_markdown(owners: BindingOwners) -> str:
    """The Keys table for docs/app.md (default keys)."""
    lines = ["| where | keys | does | id |", "| --- | --- | --- | --- |"]
    for where, keys, what, binding_id in key_rows(owners):
        lines.append(f"| {where} | `{keys}` | {what} | `{binding_id}` |")
    return "\n".join(lines)
