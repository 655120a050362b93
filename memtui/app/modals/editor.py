"""Form dialogs (``FormDialog``, ``SubmitDialog``: a form whose save is a store write) and
the memory editor: add a memory (with a kind picker), write a note, or correct one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, RadioButton, RadioSet, Static, TextArea

from memtui.app.modals.base import Dialog
from memtui.app.widgets.error_line import ErrorLine
from memtui.store.models import KINDS
from memtui.textsafe import safe_text

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from memtui.app.app import MemtuiApp
    from memtui.app.curator import Write
    from memtui.app.messages import WriteRefused, Written

DraftType = TypeVar("DraftType")


class FormDialog(Dialog[DraftType | None], Generic[DraftType]):
    """A dialog of fields with a ``#save`` / ``#cancel`` button pair (and keys bound to
    ``save`` and ``close``): save closes with ``draft()``, cancel with None."""

    def draft(self) -> DraftType:
        """What the form holds now (each dialog reads its own fields)."""
        raise NotImplementedError

    def action_save(self) -> None:
        """Close with what the form holds."""
        self.dismiss(self.draft())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Save or cancel."""
        event.stop()
        (self.action_save if event.button.id == "save" else self.action_close)()

    def compose_buttons(self, save: str, *, focusable: bool = False) -> ComposeResult:
        """Cancel (esc) and ``save`` (ctrl+s); not ``focusable``: tab stays in the fields."""
        with Horizontal(classes="dialog-buttons"):
            for button in (Button("Cancel (esc)", id="cancel"),
                           Button(f"{save} (ctrl+s)", id="save", variant="primary")):
                button.can_focus = focusable
                yield button


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

    @dataclass
    class Submitted(Message):
        """Save was pressed on a dialog without a ``write``: ``draft`` is what it holds."""

        dialog: SubmitDialog[Any]
        draft: object

    def __init__(self, title: str, write: Callable[[DraftType], Write] | None = None, *,
                 asker: MessagePump | None = None) -> None:
        super().__init__(title)
        self._write = write
        self._asker = asker

    def refusal(self, draft: DraftType) -> str | None:
        """Why ``draft`` cannot be saved yet (a required field is empty), else None."""
        return None

    def action_save(self) -> None:
        """Check the form, then write or hand the draft on (save disabled while it runs)."""
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


KIND_KEYS: dict[str, str] = {kind[0]: kind for kind in KINDS}
"""On the kind choice, the first letter of a kind chooses it."""
_KIND_LETTERS = " · ".join(f"{key} {kind}" for key, kind in KIND_KEYS.items())
KIND_HINT = f"Kind: {_KIND_LETTERS} (or arrows)"
"""Shown when the editor starts on the kind (a new memory)."""
KIND_TAB_HINT = f"Kind (tab to it): {_KIND_LETTERS}"
"""Shown when the editor starts in the text (a correction)."""


@dataclass(frozen=True)
class MemoryDraft:
    """What the editor returns: the kind and the text."""

    kind: str
    content: str


class MemoryEditor(SubmitDialog[MemoryDraft]):
    """Edit a memory's kind and text; save writes ``write(draft)`` (see ``SubmitDialog``)."""

    BOX = "editor"
    ERROR_ID = "editor-error"

    BINDINGS = [
        Binding("ctrl+s", "save", "save", tooltip="Save", id="editor.save"),
        Binding("escape", "close", "cancel",
                tooltip="Cancel (nothing is written)", id="editor.cancel"),
    ]

    def __init__(self, title: str, *, kind: str = "fact", content: str = "",
                 show_kind: bool = True, context: str = "",
                 write: Callable[[MemoryDraft], Write] | None = None,
                 asker: MessagePump | None = None) -> None:
        super().__init__(title, write, asker=asker)
        self._kind = kind if kind in KINDS else "fact"
        self._content = content
        self._show_kind = show_kind
        self._context_line = context

    def compose_body(self) -> ComposeResult:
        """Kind picker, text area, error line, buttons."""
        if self._context_line:
            yield Static(Text(self._context_line, style="dim"), classes="dialog-context")
        if self._show_kind:
            hint = KIND_TAB_HINT if self._content else KIND_HINT
            yield Static(Text(hint, style="dim"), classes="dialog-hint")
            with RadioSet(id="kind", classes="kind-picker"):
                for kind in KINDS:
                    yield RadioButton(kind, value=kind == self._kind, id=f"kind-{kind}")
        yield TextArea(safe_text(self._content), id="content", soft_wrap=True,
                       show_line_numbers=False, tab_behavior="focus")
        yield ErrorLine(id="editor-error", classes="dialog-error")
        yield from self.compose_buttons("Save")

    def on_mount(self) -> None:
        """A new memory starts on its kind (tab on to the text); the others in the text."""
        area = self.query_one("#content", TextArea)
        area.move_cursor(area.document.end)
        if self._show_kind and not self._content:
            self.query_one("#kind", RadioSet).focus()
        else:
            area.focus()

    def on_key(self, event: events.Key) -> None:
        """On the kind choice, a kind's first letter chooses it and goes on to the text."""
        picker = self.query("#kind")
        if not picker or self.focused is not picker.first() or event.character is None:
            return
        kind = KIND_KEYS.get(event.character.lower())
        if kind is None:
            return
        event.stop()
        event.prevent_default()
        self.query_one(f"#kind-{kind}", RadioButton).value = True
        self.query_one("#content", TextArea).focus()

    def draft(self) -> MemoryDraft:
        """What the form holds now."""
        kind = self._kind
        if self._show_kind:
            pressed = self.query_one("#kind", RadioSet).pressed_button
            if pressed is not None and pressed.id:
                kind = pressed.id.removeprefix("kind-")
        return MemoryDraft(kind=kind, content=self.query_one("#content", TextArea).text)

    def refusal(self, draft: MemoryDraft) -> str | None:
        """The text must be there."""
        return None if draft.content.strip() else "Write something first (the text is empty)."
