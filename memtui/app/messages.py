"""Messages the app's thread workers post: extraction jobs and the header's counts to the
main screen, a store write's result to whoever asked (it bubbles to the app); their
handlers (``on_<message>``) update the widgets. (The memory list's own loader messages live
in ``widgets/memory_list.py``.) The first frame needs none of them: the app imports this
module when a worker first posts.

Workers never touch widgets: they compute, then post one of these. ``post_message`` is safe
to call from any thread. (Textual's ``Message`` runs the dataclass ``__init__`` itself.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from memtui.app.curator import Change, Write
    from memtui.app.widgets.status import HeaderCounts
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
    """The engine's own result (a round's or backfill's summary, a consolidation's)."""
    error: str | None = None
    stopped: bool = False

    @property
    def summary(self) -> dict[str, Any] | None:
        """The result in the engine's JSON words (for the status text), made on the UI
        thread when read."""
        return None if self.result is None else self.result.to_json()


@dataclass
class Written(Message):
    """A write ran to the end (``curator.Write``; ``change`` says what it did). Posted to
    whoever asked (``asker``, else the app), it bubbles to the app."""

    write: Write
    change: Change
    asker: MessagePump | None = None


@dataclass
class WriteRefused(Message):
    """A write was refused or failed (``error`` says why, in words)."""

    write: Write
    error: str
    unchanged: bool = False
    """The engine found nothing to change (``Unchanged``): not a failure."""


@dataclass
class PurgeFinished(Message):
    """The purge worker stopped: ``cleared`` pending forgets had their text erased from the
    write-ahead log; ``purged`` says whether none is left."""

    cleared: int
    purged: bool


@dataclass
class HeaderRead(Message):
    """The header worker read the header's counts."""

    counts: HeaderCounts
