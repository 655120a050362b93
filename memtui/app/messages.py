"""Messages the extraction worker thread posts to the app; the app's handlers update the
widgets. (The memory list's own loader messages live in ``widgets/memory_list.py``.)

Workers never touch widgets: they compute, then post one of these. ``post_message`` is safe
to call from any thread. (Textual's ``Message`` runs the dataclass ``__init__`` itself.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


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
    summary: dict[str, Any] | None
    error: str | None = None
    stopped: bool = False


@dataclass
class PurgeFinished(Message):
    """The purge worker stopped: ``cleared`` pending forgets had their text erased from the
    write-ahead log; ``purged`` says whether none is left."""

    cleared: int
    purged: bool


@dataclass
class InboxCounted(Message):
    """A worker counted what waits in the review inbox (``None``: it could not)."""

    count: int | None
