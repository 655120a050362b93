"""Messages the app's thread workers post (workers never touch widgets)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from memtui.app.curator import Change, Write


@dataclass
class Written(Message):
    """A write ran to the end (``change`` says what it did)."""

    write: Write
    change: Change
    asker: MessagePump | None = None


@dataclass
class WriteRefused(Message):
    """A write was refused or failed (``error`` says why, in words)."""

    write: Write
    error: str
    unchanged: bool = False
    """The engine found nothing to change: not a failure."""
