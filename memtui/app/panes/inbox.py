"""The Inbox pane: what agents wrote while review is on, waiting for a decision (rows from
the app's ``inbox_sources``, read in a thread job); marked rows are decided together."""

from __future__ import annotations

from collections import Counter
from functools import partialmethod
from typing import TYPE_CHECKING, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType

from memtui.app.curator import inbox_decide, inbox_edit
from memtui.app.format import local_time
from memtui.app.inbox_sources import InboxEntry, Outcome
from memtui.app.panes.base import DETAIL_BINDINGS
from memtui.app.panes.list_pane import ListPane
from memtui.app.widgets.line_list import ItemList, LineList
from memtui.engine.review import InboxItem
from memtui.errors import MemtuiError
from memtui.store.models import Memory
from memtui.textsafe import one_line

if TYPE_CHECKING:
    from memtui.app.messages import Written

MARK = "●"
LABEL_WIDTH = 7
WHERE_WIDTH = 18
LOAD_GROUP = "inbox-load"
GEMINI_WORDS = ("Gemini CLI's proposed memory changes (its .inbox patches, when its auto "
                "memory is on) are listed here too.")
EMPTY_REVIEW_ON = ("Nothing waits for review. What agents write (the extractor, imports, the "
                   "service, MCP) lands here until you approve it. " + GEMINI_WORDS)
EMPTY_REVIEW_OFF = ("Nothing waits for review — review is off, so what agents write is used "
                    "at once. Turn on review_new_memories in Settings (6) or with /memory "
                    "review on, and new memories from agents wait here for you. "
                    + GEMINI_WORDS)
BROKEN_WORD = "broken  "
Loaded = tuple[list[InboxEntry], bool, list[str]]
"""What a read of the inbox found: the rows, whether review is on, why a source failed."""


class InboxPane(ListPane[ItemList[InboxEntry]]):
    """Pending memories (and other agents' pending changes), approve / edit / reject."""

    PANE_ID = "inbox"
    TITLE = "Inbox"
    READ_WHEN_SHOWN = True
    """Gemini CLI writes its patches without memtui knowing."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "approve",
                tooltip="Approve the selected or marked rows (a correction replaces its "
                "target; a Gemini CLI patch is applied, after a confirm)",
                id="inbox.approve"),
        Binding("e", "edit_approve", "edit+approve",
                tooltip="Edit the selected row's text, then approve it", id="inbox.edit"),
        Binding("x", "reject", "reject",
                tooltip="Reject the selected or marked rows: deleted for good (asks; a "
                "Gemini CLI patch is dismissed)",
                id="inbox.reject"),
        Binding("space", "toggle_mark", "mark", tooltip="Mark / unmark for a bulk decision",
                id="inbox.mark"),
        Binding("asterisk", "mark_all", "mark all", show=False,
                tooltip="Mark every row (again: unmark all)", id="inbox.mark_all"),
        Binding("escape", "clear_marks", "clear marks", show=False, tooltip="Clear the marks",
                id="inbox.clear_marks"),
        Binding("c", "copy", "copy", show=False, tooltip="Copy the selected row's text",
                id="inbox.copy"),
        *DETAIL_BINDINGS,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.marked: set[str] = set()
        self.review_on = False
        self.loaded = False

    def current(self) -> InboxEntry | None:
        """The row under the cursor."""
        return self.item_list.current()

    def chosen(self) -> list[InboxEntry]:
        """The marked rows, else the row under the cursor."""
        current = self.current()
        return [entry for entry in self.item_list.items if entry.key in self.marked] or (
            [current] if current is not None else [])

    def selected_memory(self) -> Memory | None:
        """The selected pending memory (``/memory show``, completion of approve/reject)."""
        entry = self.current()
        payload = entry.payload if entry is not None else None
        return payload.memory if isinstance(payload, InboxItem) else None

    def copy_text(self) -> tuple[str, str] | None:
        """The selected row's text."""
        entry = self.current()
        return None if entry is None else (f"inbox {entry.key}", entry.text)

    def _row(self, entry: InboxEntry, width: int) -> Text:
        marked = entry.key in self.marked
        return Text.assemble(
            (MARK if marked else " ", "bold yellow" if marked else ""), " ",
            (f"{one_line(entry.label, LABEL_WIDTH):<{LABEL_WIDTH}} ", "bold"),
            (f"{one_line(entry.where, WHERE_WIDTH):<{WHERE_WIDTH}} ", "dim"),
            (BROKEN_WORD, "bold red") if entry.problem is not None else
            ("correct ", "yellow") if entry.correction else ("new     ", "green"),
            (f"{local_time(entry.created_at, self.memtui.tz, with_year=False)} ", "dim"),
            (one_line(entry.text), "" if entry.can_act and entry.problem is None else "dim"),
            ("" if entry.can_act else "  read only", "dim italic"),
            no_wrap=True, overflow="ellipsis")

    def refresh_data(self) -> None:
        """Read the inbox again in a worker (the cursor stays on the same row)."""
        super().refresh_data()
        engine, sources = self.memtui.engine, self.memtui.inbox_sources.sources

        def load() -> Loaded:
            entries: list[InboxEntry] = []
            errors: list[str] = []
            for source in sources:
                try:
                    entries += source.entries(engine)
                except MemtuiError as error:
                    errors.append(f"{source.name}: {error.message}")
            try:
                review_on = bool(engine.settings.get().get("review_new_memories"))
            except MemtuiError:
                review_on = False
            return entries, review_on, errors

        self.run_job(LOAD_GROUP, load, self._loaded)

    def _loaded(self, loaded: Loaded | None, failed: str | None) -> None:
        if loaded is None:
            self.memtui.say(f"Could not read the inbox: {failed}", severity="error")
            return
        entries, self.review_on, errors = loaded
        self.loaded = True
        self.marked &= {entry.key for entry in entries}
        self.item_list.empty_text = EMPTY_REVIEW_ON if self.review_on else EMPTY_REVIEW_OFF
        self.item_list.set_items(entries, key=lambda entry: entry.key)
        for error in errors:
            self.memtui.say(f"Could not read the inbox: {error}", severity="error")
        self._update_title()
        self._update_preview()

    def _update_title(self) -> None:
        entries = self.item_list.items
        title = Text("Inbox", style="bold")
        title.append(f" · {len(entries)} waiting")
        for origin, count in Counter(entry.origin for entry in entries).items():
            nouns = self.memtui.inbox_sources.named(origin).nouns
            if nouns is not None:
                title.append(f" (incl. {count} {nouns[count != 1]})")
        corrections = sum(1 for entry in entries if entry.correction)
        if corrections:
            title.append(f" · {corrections} correction{'s' if corrections != 1 else ''}",
                         style="dim")
        if self.marked:
            title.append(f" · {len(self.marked)} marked", style="bold")
        title.append(" · review " + ("on" if self.review_on else "off"), style="dim")
        self.show_title(title)

    def preview(self) -> RenderableType:
        """The selected row in full."""
        entry = self.current()
        if entry is None:
            return Text(self.item_list.empty_text, style="dim") if self.loaded else ""
        return self._detail(entry)

    def _detail(self, entry: InboxEntry) -> Text:
        return self.memtui.inbox_sources.named(entry.origin).detail(entry, self.memtui.tz)

    def on_line_list_opened(self, message: LineList.Opened) -> None:
        """Enter: the selected row in a scrollable window (not the base's memory detail)."""
        message.stop()
        message.prevent_default()
        entry = self.current()
        if entry is None:
            return
        from memtui.app.modals.text import TextModal

        self.memtui.push_screen(TextModal(f"Inbox · {one_line(entry.key, 60)}",
                                          self._detail(entry), copy_text=entry.text))

    def action_toggle_mark(self) -> None:
        """Mark or unmark the selected row, then move down."""
        entry = self.current()
        if entry is not None:
            self._mark(self.marked ^ {entry.key})
            self.item_list.action_move(1)

    def action_mark_all(self) -> None:
        """Mark every row (when all are marked: unmark them)."""
        keys = {entry.key for entry in self.item_list.items}
        self._mark(set() if keys and keys <= self.marked else keys)

    def action_clear_marks(self) -> None:
        """Unmark everything."""
        if self.marked:
            self._mark(set())

    def _mark(self, marked: set[str]) -> None:
        self.marked = marked
        self.item_list.refresh()
        self._update_title()

    def _actionable(self, entries: list[InboxEntry]) -> list[InboxEntry] | None:
        if not entries:
            self.memtui.say("Nothing to decide on: the inbox is empty.", severity="warning")
            return None
        allowed = [entry for entry in entries if entry.can_act]
        if not allowed:
            self.memtui.say("You may read this project but not approve or reject its "
                            "memories.", severity="warning")
            return None
        return allowed

    def _decide(self, verb: str) -> None:
        """``a`` / ``x``: approve or reject the marked rows, else the selected one."""
        entries = self._actionable(self.chosen())
        if entries is not None and verb == "approve" and all(
                entry.problem is not None for entry in entries):
            self.memtui.say(f"{one_line(entries[0].name, 80)} cannot be applied: "
                            f"{one_line(entries[0].problem or '', 160)} — x dismisses it.",
                            severity="warning")
        elif entries is not None:
            self.memtui.do(inbox_decide(self.memtui.inbox_sources, verb, entries), self)

    action_approve = partialmethod(_decide, "approve")
    action_reject = partialmethod(_decide, "reject")

    def action_edit_approve(self) -> None:
        """Edit the selected row's text, then approve it."""
        entry = self.current()
        entries = self._actionable([entry] if entry is not None else [])
        if entries is not None:
            self.memtui.do(inbox_edit(self.memtui.inbox_sources, entries[0]))

    def on_written(self, message: Written) -> None:
        """A decision this pane asked for is done: its rows' marks go."""
        outcome = message.change.result
        if isinstance(outcome, Outcome):
            self.marked.difference_update(outcome.done)
            self._update_title()

    def ready(self) -> bool:
        """Whether the rows have been read."""
        return self.loaded
