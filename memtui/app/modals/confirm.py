"""A yes/no question before an action that cannot be undone (forget)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Static

from memtui.app.modals.base import Dialog, ResultType


class QuestionDialog(Dialog[ResultType]):
    """A question and its answer buttons; Cancel (``#cancel``) has focus, the safe
    default. A button (or a key's ``answer``) closes with its id's entry in ``ANSWERS``."""

    BOX = "confirm"
    ANSWERS: ClassVar[dict[str, Any]] = {}
    """Button id -> what the dialog closes with (``cancel``'s for any other)."""

    def __init__(self, title: str, body: Text, *buttons: Button) -> None:
        super().__init__(title)
        self._body = body
        self._buttons = buttons

    def compose_body(self) -> ComposeResult:
        """The question, and the buttons."""
        yield Static(self._body, classes="dialog-body")
        with Horizontal(classes="dialog-buttons"):
            yield from self._buttons

    def on_mount(self) -> None:
        """Cancel is the safe default."""
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Answer with the pressed button."""
        event.stop()
        self.action_answer(event.button.id or "cancel")

    def action_answer(self, button: str) -> None:
        """Close with what the button ``button`` (its id) answers."""
        self.dismiss(self.ANSWERS.get(button, self.ANSWERS["cancel"]))


class ConfirmModal(QuestionDialog[bool]):
    """Ask before doing something final. Dismisses with True (confirmed) or False."""

    BINDINGS = [
        Binding("y", "answer('confirm')", "yes", tooltip="Yes, do it", id="confirm.yes"),
        Binding("n,escape", "answer('cancel')", "no", tooltip="No (nothing happens)",
                id="confirm.no"),
    ]
    ANSWERS: ClassVar[dict[str, Any]] = {"confirm": True, "cancel": False}

    def __init__(self, title: str, body: Text, confirm_label: str = "Forget") -> None:
        super().__init__(title, body, Button("Cancel (n)", id="cancel"),
                         Button(f"{confirm_label} (y)", id="confirm", variant="error"))
