"""Create a project from the app: its id, a name, and optionally its root folder (the
engine checks and redacts them; a refusal shows under the fields, what was typed stays)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Label, Static

from memtui.app.modals.editor import SubmitDialog
from memtui.app.widgets.error_line import ErrorLine

if TYPE_CHECKING:
    from memtui.app.curator import Write


@dataclass(frozen=True)
class ProjectDraft:
    """What the dialog returns: the new project's id, name and root folder."""

    project_id: str
    name: str
    root: str


class ProjectDialog(SubmitDialog[ProjectDraft]):
    """New project: save writes ``write(draft)`` and closes with the project."""

    BOX = "project"
    ERROR_ID = "project-error"
    SAVING = "Creating…"

    DEFAULT_CSS = """
    .dialog-project .field-row { height: 1; margin-top: 1; }
    .dialog-project .field-label { width: 14; }
    .dialog-project Input { width: 1fr; }
    """
    BINDINGS = [
        Binding("ctrl+s", "save", "create", tooltip="Create the project", id="project.save"),
        Binding("escape", "cancel", "cancel", tooltip="Cancel (nothing is written)",
                id="project.cancel"),
    ]

    def __init__(self, write: Callable[[ProjectDraft], Write]) -> None:
        super().__init__("New project", write)

    def compose_body(self) -> ComposeResult:
        """Id, name, root folder, the error line, Cancel / Create."""
        yield Static(Text("You become its owner. Enter in a field (or ctrl+s) creates it.",
                          style="dim"), classes="dialog-context")
        for field, label, hint in (("id", "id", "letters, digits, - and _"),
                                   ("name", "name", "optional: the id if empty"),
                                   ("root", "root folder", "optional: e.g. ~/src/shop")):
            with Horizontal(classes="field-row"):
                yield Label(label, classes="field-label")
                yield Input(id=f"project-{field}", placeholder=hint, compact=True)
        yield ErrorLine(id="project-error", classes="dialog-error")
        yield from self.compose_buttons("Create")

    def on_mount(self) -> None:
        """Start in the id."""
        self.query_one("#project-id", Input).focus()

    def draft(self) -> ProjectDraft:
        """What the fields hold now."""
        return ProjectDraft(self.query_one("#project-id", Input).value.strip(),
                            self.query_one("#project-name", Input).value.strip(),
                            self.query_one("#project-root", Input).value.strip())

    def refusal(self, draft: ProjectDraft) -> str | None:
        """The id must be there (the engine checks the rest when creating)."""
        return None if draft.project_id else "Give the project an id first."

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a field creates."""
        event.stop()
        self.action_save()
