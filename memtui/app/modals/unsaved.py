"""Asked before quitting or leaving a form with unsaved changes: save, discard or cancel."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Static

from memtui.app.modals.base import Dialog

if TYPE_CHECKING:
    from memtui.app.app import MemtuiApp
    from memtui.app.panes.base import Pane

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


def ask_unsaved(app: MemtuiApp, panes: list[Pane], going: str,
                go_on: Callable[[], None]) -> None:
    """Forms with unsaved changes: ask (save / discard / cancel); save or discard, then
    ``go_on``; cancel stays on the first such form. A refused save stays too (the form
    says why next to the field)."""
    def save_in_turn(panes: list[Pane]) -> None:
        if panes:
            panes[0].save_changes(lambda: save_in_turn(panes[1:]))
        else:
            go_on()

    def answered(answer: UnsavedAnswer | None) -> None:
        if answer == "discard":
            for pane in panes:
                pane.discard_changes()
            go_on()
        elif answer == "save":
            save_in_turn(list(panes))
        else:
            app.say("Changes kept, not saved.", toast=False)
            app.show_pane(panes[0].PANE_ID)

    app.push_screen(UnsavedModal([pane.TITLE for pane in panes], going), answered)
