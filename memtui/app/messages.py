"""Messages the app's thread workers post (workers never touch widgets)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from memtui.app.curator import Change, Write
    from memtui.engine.extraction import ConsolidationResult, RoundSummary


@dataclass
class ExtractionProgress(Message):
    """A running extraction round or backfill reports how far it got."""

    job: str
    done: int
    total: int | None


@dataclass
class ExtractionFinished(Message):
    """A round, a backfill or a consolidation ended (``error`` set when it failed)."""

    job: str
    result: RoundSummary | ConsolidationResult | None
    error: str | None = None
    stopped: bool = False


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
