"""The help screen: every key and command, searchable as you type; esc closes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from memtui.app.modals.base import Dialog

if TYPE_CHECKING:
    from memtui.app.help import BindingOwners

HINT = "type to search · ↑ ↓ pgup pgdn scroll · esc close"


class HelpModal(Dialog[None]):
    """Keys and commands (the keymap applied), filtered by the words typed in its search."""

    BOX = "text"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", tooltip="Close the help", id="help.close"),
        Binding("down", "scroll(1)", "scroll", show=False, tooltip="Scroll down a line",
                id="help.down"),
        Binding("up", "scroll(-1)", "scroll up", show=False, tooltip="Scroll up a line",
                id="help.up"),
        Binding("pagedown", "scroll(0, 1)", "page down", show=False,
                tooltip="Scroll down a page", id="help.page_down"),
        Binding("pageup", "scroll(0, -1)", "page up", show=False, tooltip="Scroll up a page",
                id="help.page_up"),
    ]

    def __init__(self, owners: BindingOwners, keymap: Mapping[str, str]) -> None:
        super().__init__("Keys and commands")
        self._owners = owners
        self._remapped = dict(keymap)

    def compose_body(self) -> ComposeResult:
        """The search box, the keys, the hint."""
        yield Input(placeholder="search keys and commands (e.g. forget, codex, ctrl)",
                    id="help-search", compact=True, classes="search")
        with VerticalScroll(classes="dialog-scroll", id="help-scroll"):
            yield Static(classes="dialog-body", id="help-body")
        yield Static(Text(HINT, style="dim"), classes="dialog-hint")

    def on_mount(self) -> None:
        """Show everything; the search box takes the keys."""
        self._show("")
        self.query_one("#help-search", Input).focus()

    def on_resize(self) -> None:
        """The id column comes and goes with the width."""
        self._show(self.query_one("#help-search", Input).value)

    def _show(self, query: str) -> None:
        from memtui.app.help import help_text

        body = self.query_one("#help-body", Static)
        body.update(help_text(self._owners, self._remapped, query,
                              width=self.size.width or self.app.size.width))

    def on_input_changed(self, event: Input.Changed) -> None:
        """Filter as the person types."""
        event.stop()
        self._show(event.value)
        self.query_one("#help-scroll", VerticalScroll).scroll_home(animate=False)

    def action_scroll(self, lines: int, pages: int = 0) -> None:
        """Scroll the keys by ``lines`` and ``pages``."""
        scroll = self.query_one("#help-scroll", VerticalScroll)
        scroll.scroll_relative(y=lines + pages * max(1, scroll.size.height - 1), animate=False)
