"""Form dialogs. ``FormDialog``: fields and Save / Cancel; save closes with the draft the
fields hold. ``SubmitDialog``: a form dialog whose save is a store write.

Save shows a "saving…" line and disables the save button while the app writes (in a
worker); the dialog closes when the write is done, or stays open, says why, and keeps
everything typed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from rich.text import Text
from textual.message import Message
from textual.widgets import Button

from memtui.app.modals.base import Dialog
from memtui.app.widgets.error_line import ErrorLine
from memtui.textsafe import safe_text

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from memtui.app.app import MemtuiApp
    from memtui.app.curator import Write
    from memtui.app.messages import WriteRefused, Written

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
    """A dialog whose save writes: ``write(draft)`` makes the ``curator.Write`` the app's
    write worker runs with this dialog as the asker; ``Written`` closes it with what the
    engine returned, ``WriteRefused`` says why and keeps everything typed (both go on to
    the app). Without ``write``, save posts ``Submitted`` to ``asker``, which ends with
    ``dismiss()`` or ``failed(message)``. Subclasses compose an ``ErrorLine`` with id
    ``ERROR_ID`` and a ``#save`` / ``#cancel`` button pair."""

    ERROR_ID: ClassVar[str] = ""
    """The id of the dialog's error line."""
    SAVING: ClassVar[str] = "Saving…"
    """What the error line says while the write runs."""

    class Submitted(Message):
        """Save was pressed on a dialog without a ``write``: ``draft`` is what it holds."""

        def __init__(self, dialog: SubmitDialog[Any], draft: object) -> None:
            super().__init__()
            self.dialog = dialog
            self.draft = draft

    def __init__(self, title: str, write: Callable[[DraftType], Write] | None = None, *,
                 asker: MessagePump | None = None) -> None:
        super().__init__(title)
        self._write = write
        self._asker = asker

    def refusal(self, draft: DraftType) -> str | None:
        """Why ``draft`` cannot be saved yet (a required field is empty), else None."""
        return None

    def action_save(self) -> None:
        """Check the form, then write (or hand the draft to the asker); while it runs,
        save is disabled and the error line says so."""
        draft = self.draft()
        refusal = self.refusal(draft)
        if refusal is not None:
            self.failed(refusal)
            return
        self.query_one("#save", Button).disabled = True
        self.query_one(f"#{self.ERROR_ID}", ErrorLine).update(Text(self.SAVING, style="dim"))
        if self._write is not None:
            cast("MemtuiApp", self.app).write_worker(self._write(draft), self)
        elif self._asker is not None:
            self._asker.post_message(self.Submitted(self, draft))

    def on_written(self, message: Written) -> None:
        """The write is done: close with what the engine returned."""
        self.dismiss(message.change.result)

    def on_write_refused(self, message: WriteRefused) -> None:
        """The write was refused: say why, keep everything typed."""
        self.failed(message.error)

    def failed(self, message: str) -> None:
        """The write (or a check) failed: say why, keep everything typed."""
        self.query_one("#save", Button).disabled = False
        self.query_one(f"#{self.ERROR_ID}", ErrorLine).update(Text(safe_text(message)))
