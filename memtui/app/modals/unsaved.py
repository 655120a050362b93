"""Asked before quitting or leaving a form with unsaved changes: save, discard or cancel."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Button

from memtui.app.modals.confirm import QuestionDialog

if TYPE_CHECKING:
    from memtui.app.app import MemtuiApp
    from memtui.app.panes.base import Pane

UnsavedAnswer = Literal["save", "discard", "cancel"]


class UnsavedModal(QuestionDialog[UnsavedAnswer]):
    """Unsaved changes in a form: save them, discard them, or stay (the safe default)."""

    BINDINGS = [
        Binding("s", "answer('save')", "save", tooltip="Save the changes, then go on",
                id="unsaved.save"),
        Binding("d", "answer('discard')", "discard",
                tooltip="Discard the changes, then go on", id="unsaved.discard"),
        Binding("c,escape", "answer('cancel')", "cancel",
                tooltip="Stay, keep the changes unsaved", id="unsaved.cancel"),
    ]
    ANSWERS: ClassVar[dict[str, Any]] = {"save": "save", "discard": "discard", "cancel": "cancel"}

    def __init__(self, forms: list[str], going: str) -> None:
        names = " and ".join(forms)
        super().__init__("Unsaved changes",
                         Text(f"{names} {'has' if len(forms) == 1 else 'have'} changes that "
                              f"are not saved. Save them before {going}?"),
                         Button("Cancel (c)", id="cancel"),
                         Button("Discard (d)", id="discard", variant="error"),
                         Button("Save (s)", id="save", variant="primary"))


def ask_unsaved(app: MemtuiApp, panes: list[Pane], going: str, go_on: Callable[[], None]) -> None:
    """Ask (save / discard / cancel) about forms with unsaved changes: save or discard, then
    ``go_on``; cancel, or a refused save, stays on the form."""
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
