"""Create a project from the app: its id, a name, and optionally its root folder (the
engine checks and redacts them; a refusal shows under the fields, what was typed stays)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from memtui.app.modals.base import Dialog
from memtui.app.widgets.error_line import ErrorLine
from memtui.textsafe import safe_text


@dataclass(frozen=True)
class ProjectDraft:
    """What the dialog returns: the new project's id, name and root folder."""

    project_id: str
    name: str
    root: str


class ProjectDialog(Dialog[ProjectDraft | None]):
    """New project. ``submit(draft, dialog)`` must end with ``dialog.saved()`` or
    ``dialog.failed(message)``."""

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

    def __init__(self, submit: Callable[[ProjectDraft, ProjectDialog], None]) -> None:
        super().__init__()
        self._submit = submit
        self._draft: ProjectDraft | None = None

    def compose(self) -> ComposeResult:
        """Id, name, root folder, the error line, Cancel / Create."""
        with Vertical(classes="dialog dialog-project"):
            yield Static(Text("New project", style="bold"), classes="dialog-title")
            yield Static(Text("You become its owner. Enter in a field (or ctrl+s) creates it.",
                              style="dim"), classes="dialog-context")
            for field, label, hint in (("id", "id", "letters, digits, - and _"),
                                       ("name", "name", "optional: the id if empty"),
                                       ("root", "root folder", "optional: e.g. ~/src/shop")):
                with Horizontal(classes="field-row"):
                    yield Label(label, classes="field-label")
                    yield Input(id=f"project-{field}", placeholder=hint, compact=True)
            yield ErrorLine(id="project-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                for button in (Button("Cancel (esc)", id="cancel"),
                               Button("Create (ctrl+s)", id="save", variant="primary")):
                    button.can_focus = False  # tab stays in the fields
                    yield button

    def on_mount(self) -> None:
        """Start in the id."""
        self.query_one("#project-id", Input).focus()

    def draft(self) -> ProjectDraft:
        """What the fields hold now."""
        return ProjectDraft(self.query_one("#project-id", Input).value.strip(),
                            self.query_one("#project-name", Input).value.strip(),
                            self.query_one("#project-root", Input).value.strip())

    def action_save(self) -> None:
        """Create through ``submit`` (the engine checks everything)."""
        draft = self.draft()
        if not draft.project_id:
            self.failed("Give the project an id first.")
            return
        self._draft = draft
        self.query_one("#save", Button).disabled = True
        self.query_one("#project-error", ErrorLine).update(Text("Creating…", style="dim"))
        self._submit(draft, self)

    def saved(self) -> None:
        """Created: close with the draft."""
        self.dismiss(self._draft)

    def failed(self, message: str) -> None:
        """Refused: say why, keep what was typed."""
        self.query_one("#save", Button).disabled = False
        self.query_one("#project-error", ErrorLine).update(Text(safe_text(message)))

    def action_cancel(self) -> None:
        """Close without creating."""
        self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a field creates."""
        event.stop()
        self.action_save()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Create or cancel."""
        event.stop()
        if event.button.id == "save":
            self.action_save()
        else:
            self.action_cancel()
