"""Form dialogs. ``FormDialog``: fields and Save / Cancel; save closes with the draft the
fields hold. ``SubmitDialog``: a form dialog that writes through a ``submit`` callback.

Save shows a "saving…" line and disables the save button while the app writes (in a
worker); the callback ends with ``saved()`` (the dialog closes with the draft) or
``failed(message)`` (the dialog stays open, says why, and keeps everything typed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Generic, Self, TypeVar

from rich.text import Text
from textual.widgets import Button

from memtui.app.modals.base import Dialog
from memtui.app.widgets.error_line import ErrorLine
from memtui.textsafe import safe_text

DraftType = TypeVar("DraftType")


class FormDialog(Dialog[DraftType | None], Generic[DraftType]):
    """A dialog of fields with a ``#save`` / ``#cancel`` button pair (and keys bound to
    ``save`` and ``cancel``): save closes with ``draft()``, cancel with None."""

    def draft(self) -> DraftType:
        """What the form holds now (each dialog reads its own fields)."""
        raise NotImplementedError

    def action_save(self) -> None:
        """Close with what the form holds."""
        self.dismiss(self.draft())

    def action_cancel(self) -> None:
        """Close without saving."""
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Save or cancel."""
        event.stop()
        if event.button.id == "save":
            self.action_save()
        else:
            self.action_cancel()


class SubmitDialog(FormDialog[DraftType]):
    """A dialog whose save goes through ``submit(draft, dialog)``, which must end with
    ``dialog.saved()`` or ``dialog.failed(message)``; without ``submit`` the draft is
    simply returned. Subclasses compose an ``ErrorLine`` with id ``ERROR_ID`` and a
    ``#save`` / ``#cancel`` button pair."""

    ERROR_ID: ClassVar[str] = ""
    """The id of the dialog's error line."""
    SAVING: ClassVar[str] = "Saving…"
    """What the error line says while the write runs."""

    def __init__(self, title: str, submit: Callable[[DraftType, Self], None] | None) -> None:
        super().__init__(title)
        self._submit: Callable[[DraftType, Self], None] | None = submit
        self._draft: DraftType | None = None

    def refusal(self, draft: DraftType) -> str | None:
        """Why ``draft`` cannot be saved yet (a required field is empty), else None."""
        return None

    def action_save(self: Self) -> None:
        """Check the form, then save through ``submit`` (or close with the draft when there
        is none); while the write runs, save is disabled and the error line says so."""
        draft = self.draft()
        refusal = self.refusal(draft)
        if refusal is not None:
            self.failed(refusal)
            return
        self._draft = draft
        if self._submit is None:
            self.dismiss(draft)
            return
        self.query_one("#save", Button).disabled = True
        self.query_one(f"#{self.ERROR_ID}", ErrorLine).update(Text(self.SAVING, style="dim"))
        self._submit(draft, self)

    def saved(self) -> None:
        """The write succeeded: close with the draft."""
        self.dismiss(self._draft)

    def failed(self, message: str) -> None:
        """The write (or a check) failed: say why, keep everything typed."""
        self.query_one("#save", Button).disabled = False
        self.query_one(f"#{self.ERROR_ID}", ErrorLine).update(Text(safe_text(message)))
