"""Asked before quitting or leaving a form with unsaved changes: save, discard or cancel."""

from __future__ import annotations

from typing import Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Static

from memtui.app.modals.base import Dialog

UnsavedAnswer = Literal["save", "discard", "cancel"]


class UnsavedModal(Dialog[UnsavedAnswer]):
    """Unsaved changes in a form: save them, discard them, or stay (the safe default)."""

    BOX = "confirm"
    BINDINGS = [
        Binding("s", "answer('save')", "save", tooltip="Save the changes, then go on",
                id="unsaved.save"),
        Binding("d", "answer('discard')", "discard",
                tooltip="Discard the changes, then go on", id="unsaved.discard"),
        Binding("c,escape", "answer('cancel')", "cancel",
                tooltip="Stay, keep the changes unsaved", id="unsaved.cancel"),
    ]

    def __init__(self, forms: list[str], going: str) -> None:
        super().__init__("Unsaved changes")
        self._forms = forms
        self._going = going

    def compose_body(self) -> ComposeResult:
        """What is unsaved, and Cancel / Discard / Save (Cancel has focus)."""
        names = " and ".join(self._forms)
        yield Static(Text(f"{names} {'has' if len(self._forms) == 1 else 'have'} "
                          f"changes that are not saved. Save them before {self._going}?"),
                     classes="dialog-body")
        with Horizontal(classes="dialog-buttons"):
            yield Button("Cancel (c)", id="cancel")
            yield Button("Discard (d)", id="discard", variant="error")
            yield Button("Save (s)", id="save", variant="primary")

    def on_mount(self) -> None:
        """Cancel is the safe default."""
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Answer with the pressed button."""
        event.stop()
        self.action_answer(event.button.id or "cancel")

    def action_answer(self, answer: str) -> None:
        """Answer from the keyboard."""
        self.dismiss(answer if answer in ("save", "discard") else "cancel")  # type: ignore[arg-type]
