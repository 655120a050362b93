"""Pick one item from a short list (the current project)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from memtui.app.modals.base import Dialog
from memtui.textsafe import one_line


class PickerModal(Dialog[str | None]):
    """A short list of (id, label) choices (projects); dismisses with the id chosen, or None."""

    BOX = "picker"
    BINDINGS = [Binding("escape", "close", "cancel", tooltip="Cancel", id="picker.cancel")]

    def __init__(self, title: str, choices: list[tuple[str, str]], current: str | None) -> None:
        super().__init__(title)
        self._choices = choices
        self._current = current

    def compose_body(self) -> ComposeResult:
        """The options (labels are literal text)."""
        yield OptionList(*[Option(Text(one_line(label, 70)), id=choice)
                           for choice, label in self._choices], id="choices")
        yield Static(Text("enter choose · esc cancel", style="dim"), classes="dialog-hint")

    def on_mount(self) -> None:
        """Highlight the current choice."""
        options = self.query_one("#choices", OptionList)
        options.focus()
        for index, (choice, _label) in enumerate(self._choices):
            if choice == self._current:
                options.highlighted = index

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Close with the chosen id."""
        event.stop()
        self.dismiss(event.option.id)
