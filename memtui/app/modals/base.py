"""The base of every dialog: a modal screen centred over the app, with the dialogs' shared
CSS (they fit 80x24). The CSS comes with the class, so the first frame does not parse it."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

ResultType = TypeVar("ResultType")


class Dialog(ModalScreen[ResultType]):
    """A modal dialog (a ``ResultType``, None if cancelled): bold title, ``compose_body``."""

    BOX: ClassVar[str] = ""
    """The box's own CSS class is ``dialog-<BOX>`` (``confirm``, ``editor`` ...)."""

    SCOPED_CSS = False
    DEFAULT_CSS = """
    .modal { align: center middle; background: $background 60%; }
    .dialog {
        width: 90%;
        max-width: 100;
        height: auto;
        max-height: 90%;
        border: round $primary;
        background: $surface;
        padding: 0 1;
    }
    .dialog-title { height: 1; margin-bottom: 1; }
    .dialog-context, .dialog-hint, .dialog-body { height: auto; }
    .dialog-scroll { height: auto; max-height: 18; }
    .dialog-buttons { height: auto; align-horizontal: right; margin-top: 1; }
    .dialog-buttons Button { margin-left: 2; min-width: 12; }
    .dialog-confirm { max-width: 70; }
    .dialog-editor TextArea { height: 8; min-height: 3; }
    .kind-picker, .filter-row { layout: horizontal; height: auto; width: 1fr; }
    .filter-row.-many { layout: grid; grid-size: 4; grid-rows: 1; }
    .dialog-picker OptionList { height: auto; max-height: 14; }
    .dialog-detail, .dialog-text { height: 90%; }
    .dialog-detail .dialog-scroll, .dialog-text .dialog-scroll { height: 1fr; max-height: 100%; }
    .dialog-error { height: auto; color: $text-error; text-style: bold; }
    """

    def __init__(self, title: str) -> None:
        super().__init__(classes="modal")
        self.dialog_title = title

    def compose(self) -> ComposeResult:
        """The box, the title, the body."""
        with Vertical(classes=f"dialog dialog-{self.BOX}"):
            yield Static(Text(self.dialog_title, style="bold"), classes="dialog-title")
            yield from self.compose_body()

    def compose_body(self) -> ComposeResult:
        """Everything under the title."""
        raise NotImplementedError

    def action_close(self) -> None:
        """Close without an answer (None)."""
        self.dismiss(None)
