"""Where the Inbox pane's rows come from: each source lists what waits for a decision and
carries out approve and reject through the engine.

memtui's own pending memories (spec/25) are one source. Another agent's inbox (Gemini CLI's
``.inbox/*.patch``, spec/80) is added as one more ``InboxSource`` in ``INBOX_SOURCES``: the
pane, its keys, marks, bulk actions, the count in the pane bar and the header work on
``InboxEntry`` rows and need no change. Everything here runs in worker threads except
``detail`` (drawing); nothing touches a widget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol
from zoneinfo import ZoneInfo

from rich.text import Text

from memtui.app.format import block, local_time
from memtui.engine.review import ADDED, REMOVED, InboxItem, RejectResult
from memtui.errors import MemtuiError

if TYPE_CHECKING:
    from memtui.engine.api import Engine

MEMORY_SOURCE = "memtui"
REMOVED_STYLE = "red strike"
ADDED_STYLE = "bold green underline"


@dataclass(frozen=True)
class InboxEntry:
    """One row of the Inbox pane, whatever its source.

    ``key`` is unique across sources; ``origin`` names the ``InboxSource`` that made it;
    ``label`` is the writer (``auto``, ``mcp``, ``gemini``...); ``where`` the scope;
    ``text`` what would be remembered; ``correction`` whether it replaces something;
    ``can_act`` whether the person may decide on it; ``payload`` the source's own record."""

    key: str
    origin: str
    label: str
    where: str
    text: str
    created_at: str | None
    correction: bool
    can_act: bool
    payload: object = field(compare=False, default=None)


@dataclass
class Outcome:
    """What a bulk decision did: keys done, and (key, message) for each refused."""

    done: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


class InboxSource(Protocol):
    """A kind of inbox row: list, count, show, approve (optionally edited), reject."""

    name: str

    def entries(self, engine: Engine) -> list[InboxEntry]:
        """What waits now (worker thread)."""

    def count(self, engine: Engine) -> int:
        """How many wait (worker thread; the pane bar's and the header's count)."""

    def detail(self, entry: InboxEntry, tz: ZoneInfo) -> Text:
        """The entry in full, with the diff of a correction (UI thread; literal text)."""

    def editable_text(self, entry: InboxEntry) -> str | None:
        """The text edit-and-approve starts from (None: this source cannot be edited)."""

    def approve(self, engine: Engine, entries: Sequence[InboxEntry],
                edited: str | None = None) -> Outcome:
        """Approve these entries (``edited``: the new text of a single entry)."""

    def reject(self, engine: Engine, entries: Sequence[InboxEntry]) -> Outcome:
        """Reject these entries (final)."""


def diff_line(item: InboxItem) -> Text:
    """A correction's word diff: removed words struck through, added words underlined
    (both also colored; strike and underline stay under NO_COLOR)."""
    out = Text()
    for part in item.diff:
        style = REMOVED_STYLE if part.op == REMOVED else ADDED_STYLE if part.op == ADDED else ""
        out.append_text(block(part.text, style=style))
    return out


class PendingMemories:
    """memtui's own pending memories (``engine.review``)."""

    name = MEMORY_SOURCE

    def entries(self, engine: Engine) -> list[InboxEntry]:
        """Every pending memory the user may see, oldest first."""
        return [self._entry(item) for item in engine.review.items()]

    def count(self, engine: Engine) -> int:
        """How many pending memories the user may see."""
        return engine.review.count()

    @staticmethod
    def _entry(item: InboxItem) -> InboxEntry:
        memory = item.memory
        where = f"project {memory.project}" if memory.scope == "project" else "user"
        return InboxEntry(key=f"{MEMORY_SOURCE}:{memory.id}", origin=MEMORY_SOURCE,
                          label=memory.source, where=where, text=memory.content,
                          created_at=memory.created_at, correction=item.is_correction,
                          can_act=item.can_act, payload=item)

    def detail(self, entry: InboxEntry, tz: ZoneInfo) -> Text:
        """Who wrote it, where, when; a correction as a diff against the text it replaces."""
        item = _item(entry)
        memory = item.memory
        out = Text()
        out.append(f"{memory.id}", style="bold")
        out.append(f" · {memory.kind} · from {memory.source} · {entry.where} · by "
                   f"{memory.owner} · {local_time(memory.created_at, tz)}", style="dim")
        if memory.source_thread_id:
            out.append_text(block(f" · task {memory.source_thread_id}", style="dim"))
        out.append("\n")
        if item.target is not None:
            out.append(f"Corrects {item.target.id} — approving it replaces that text "
                       "(History keeps the old one):\n", style="bold")
            out.append_text(diff_line(item))
        elif item.target_state == "forgotten":
            out.append(f"Corrects {item.replaces}, which was forgotten since: reject it.\n",
                       style="bold yellow")
            out.append_text(block(memory.content))
        else:
            out.append("New memory:\n", style="bold")
            out.append_text(block(memory.content))
        if not item.can_act:
            out.append("\nYou may read this project but not approve or reject its memories.",
                       style="dim")
        return out

    def editable_text(self, entry: InboxEntry) -> str | None:
        """The pending memory's text."""
        return _item(entry).memory.content

    def approve(self, engine: Engine, entries: Sequence[InboxEntry],
                edited: str | None = None) -> Outcome:
        """Approve each (as shown: a memory changed since is refused)."""
        outcome = Outcome()
        for entry in entries:
            item = _item(entry)
            try:
                engine.review.approve(item.id, content=edited, expected=item.version)
                outcome.done.append(entry.key)
            except MemtuiError as error:
                outcome.failed.append((entry.key, error.message))
        return outcome

    def reject(self, engine: Engine, entries: Sequence[InboxEntry]) -> Outcome:
        """Reject each (deleted for good; the task it came from is never extracted again)."""
        items = [_item(entry) for entry in entries]
        result = engine.review.reject_many([item.id for item in items],
                                           expected={item.id: item.version for item in items})
        keys = {item.id: entry.key for item, entry in zip(items, entries, strict=True)}
        outcome = Outcome()
        outcome.done += [keys[done.memory_id] for done in result.done
                         if isinstance(done, RejectResult)]
        outcome.failed += [(keys[memory_id], error.message) for memory_id, error in result.errors]
        return outcome


def _item(entry: InboxEntry) -> InboxItem:
    if not isinstance(entry.payload, InboxItem):
        raise TypeError(f"{entry.key} is not a pending memory")
    return entry.payload


INBOX_SOURCES: tuple[InboxSource, ...] = (PendingMemories(),)
"""Every kind of inbox row, in the order the pane lists them."""


def source_named(name: str) -> InboxSource:
    """The source that made entries with this ``origin``."""
    for source in INBOX_SOURCES:
        if source.name == name:
            return source
    raise KeyError(name)


def count_all(engine: Engine) -> int:
    """How many entries wait in every source (a source that fails counts 0)."""
    total = 0
    for source in INBOX_SOURCES:
        try:
            total += source.count(engine)
        except MemtuiError:
            continue
    return total


__all__ = ["INBOX_SOURCES", "InboxEntry", "InboxSource", "Outcome", "PendingMemories",
           "count_all", "diff_line", "source_named"]
