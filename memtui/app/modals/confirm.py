"""A yes/no question before an action that cannot be undone (forget)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Static

from memtui.app.modals.base import Dialog


class ConfirmModal(Dialog[bool]):
    """Ask before doing something final. Dismisses with True (confirmed) or False."""

    BOX = "confirm"

    BINDINGS = [
        Binding("y", "answer(True)", "yes", tooltip="Yes, do it", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "no", tooltip="No (nothing happens)",
                id="confirm.no"),
    ]

    def __init__(self, title: str, body: Text, confirm_label: str = "Forget") -> None:
        super().__init__(title)
        self._body = body
        self._confirm_label = confirm_label

    def compose_body(self) -> ComposeResult:
        """The question, and Cancel / confirm buttons (Cancel has focus)."""
        yield Static(self._body, classes="dialog-body")
        with Horizontal(classes="dialog-buttons"):
            yield Button("Cancel (n)", id="cancel")
            yield Button(f"{self._confirm_label} (y)", id="confirm", variant="error")

    def on_mount(self) -> None:
        """Cancel is the safe default."""
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Answer with the pressed button."""
        event.stop()
        self.dismiss(event.button.id == "confirm")

    def action_answer(self, answer: bool) -> None:
        """Answer from the keyboard."""
        self.dismiss(answer)
