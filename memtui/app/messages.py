"""Messages posted by background work (threads) to the app; handlers update the widgets.

Workers never touch widgets: they compute, then post one of these. ``post_message`` is safe
to call from any thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


class StoreChanged(Message):
    """Something in the store changed (another process, the worker, or this app)."""


@dataclass
class ExtractionProgress(Message):
    """A running extraction round or backfill reports how far it got."""

    job: str
    done: int
    total: int | None

    def __post_init__(self) -> None:
        super().__init__()


@dataclass
class ExtractionFinished(Message):
    """A round, a backfill or a consolidation ended (``error`` set when it failed)."""

    job: str
    summary: dict[str, Any] | None
    error: str | None = None
    stopped: bool = False

    def __post_init__(self) -> None:
        super().__init__()


@dataclass
class Notice(Message):
    """A line for the status bar (also shown as a toast when ``toast`` is set)."""

    text: str
    severity: str = "information"
    toast: bool = True

    def __post_init__(self) -> None:
        super().__init__()
