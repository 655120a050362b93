"""Messages the app's thread workers (extraction jobs, store writes) post to the app; its
handlers (``on_<message>``) update the widgets. (The memory list's own loader messages live
in ``widgets/memory_list.py``.) The first frame needs none of them: the app imports this
module when a worker first posts (a dataclass costs 0.3-0.5 ms to make at import).

Workers never touch widgets: they compute, then post one of these. ``post_message`` is safe
to call from any thread. (Textual's ``Message`` runs the dataclass ``__init__`` itself.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from memtui.app.widgets.status import HeaderCounts
    from memtui.engine.extraction import ConsolidationResult, RoundSummary
    from memtui.store.models import Memory


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


@dataclass(frozen=True)
class WriteRequest:
    """A store write the app runs off the UI thread: engine calls only, then ``done`` with
    the result or ``failed`` with the reason, on the UI thread."""

    label: str
    work: Callable[[], object]
    done: Callable[[Any], None] | None = None
    failed: Callable[[str], None] | None = None
    unchanged: Callable[[str], None] | None = None
    """Called instead of ``failed`` when the engine found nothing to change."""


@dataclass
class WriteFinished(Message):
    """A write ran to the end (``result`` is what the engine returned)."""

    request: WriteRequest
    result: object


@dataclass
class WriteFailed(Message):
    """A write was refused or failed (``error`` says why, in words)."""

    request: WriteRequest
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


@dataclass
class ForgetSizes(Message):
    """What the forget question needs, read off the UI thread: how many versions each
    memory's forget would remove and the first memories' text -- or why the user may not
    forget them (``refusal``: the permission rule, checked before anything is counted), or
    why they could not be read (``error``)."""

    memory_ids: tuple[str, ...]
    sizes: dict[str, int]
    error: str | None = None
    on_done: Callable[[tuple[str, ...]], None] | None = None
    shown: tuple[Memory, ...] = ()
    """The first few memories, whose text the question shows."""
    refusal: str | None = None
