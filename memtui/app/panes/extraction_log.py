"""The Extraction log pane: one row per task of the user, why it was or was not remembered;
enter opens the task, ``m`` the memory it made."""

from __future__ import annotations

from typing import Any, ClassVar
from zoneinfo import ZoneInfo

from rich.console import RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType

from memtui.app.format import OUTCOME_WORDS, local_time, reason_words
from memtui.app.panes.base import DETAIL_BINDINGS
from memtui.app.panes.list_pane import ListPane
from memtui.app.widgets.detail import task_fields
from memtui.app.widgets.line_list import LineList
from memtui.app.widgets.log_list import LogList
from memtui.errors import MemtuiError
from memtui.store.models import LogEntry
from memtui.textsafe import one_line

EMPTY_TEXT = ("No extraction yet — turn on generate with g, then r runs a round now "
              "(R forces past the idle and size gates).")
OUTCOME_STYLE = {"extracted": "green", "superseded_previous": "green", "skipped": "",
                 "error": "bold red"}


def log_row(entry: LogEntry, width: int, tz: ZoneInfo) -> Text:
    """One log row: when, task, outcome, reason in words, forced, memory."""
    row = Text(no_wrap=True, overflow="ellipsis")
    row.append(f"{local_time(entry.at, tz, with_year=False):<12}", style="dim")
    row.append(f"{one_line(entry.task_id, 14):<15}")
    outcome = OUTCOME_WORDS.get(entry.outcome, one_line(entry.outcome, 16))
    row.append(f"{outcome:<15}", style=OUTCOME_STYLE.get(entry.outcome, ""))
    words = reason_words(entry.reason)
    if entry.memory_id:
        words = (words + " " if words else "") + f"→ {one_line(entry.memory_id, 20)}"
    row.append(words)
    if entry.detail:
        row.append(f" — {one_line(entry.detail, 200)}", style="dim")
    if entry.retry_at:
        row.append(f" · next try {local_time(entry.retry_at, tz, with_year=False)}",
                   style="bold")
    if entry.forced:
        row.append("  forced", style="bold")
    row.truncate(width, overflow="ellipsis")
    return row


def ledger_text(ledger: dict[str, Any]) -> Text:
    """The whole ledger: today and the month against the caps, then per day, round, task."""
    text = Text()
    for span in ("today", "month"):
        row = ledger[span]
        text.append(f"{span:<7}", style="bold")
        text.append(f"{row['calls']} calls, {row['tokens_in']:,} tokens in, "
                    f"{row['tokens_out']:,} out (cap {row['cap']:,})\n")
    for name in ("day", "round", "task"):
        text.append(f"\nper {name}\n", style="bold")
        for row in ledger[f"by_{name}"] or [{"key": "none yet"}]:
            text.append(f"  {one_line(row['key'], 30):<32}")
            if "calls" in row:
                text.append(f"{row['calls']:>5} calls {row['tokens_in']:>10,} in "
                            f"{row['tokens_out']:>9,} out")
            text.append("\n")
    return text


def ledger_words(ledger: dict[str, Any]) -> Text:
    """Tokens today and this month against the caps (nothing without calls this month)."""
    if not ledger["month"]["calls"]:
        return Text("")
    words = Text(" · model tokens ")
    for span in ("today", "month"):
        used = ledger[span]["tokens_in"] + ledger[span]["tokens_out"]
        cap = ledger[span]["cap"]
        words.append(f"{span} {used:,}/{cap:,} ", style="bold red" if used >= cap else "")
    return words


class ExtractionLogPane(ListPane[LogList]):
    """The user's extraction log, newest scan first."""

    PANE_ID = "log"
    TITLE = "Log"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "open_task", "task",
                tooltip="Open the task (goal, times, result)", id="log.task"),
        Binding("m", "open_memory", "memory", tooltip="Open the memory it made", id="log.memory"),
        Binding("c", "copy", "copy", show=False, tooltip="Copy the row", id="log.copy"),
        Binding("$", "show_cost", "cost", tooltip="The model cost ledger: tokens per day, "
                "round and task", id="log.cost"),
        *DETAIL_BINDINGS,
    ]

    EMPTY_TEXT = EMPTY_TEXT
    LIST_CLASS = LogList

    def _row(self, entry: LogEntry, width: int) -> Text:
        return log_row(entry, width, self.memtui.tz)

    def copy_text(self) -> tuple[str, str] | None:
        """The selected row as a line of text."""
        entry = self.item_list.current()
        if entry is None:
            return None
        return (f"log row {entry.task_id}",
                f"{entry.at} {entry.task_id} {entry.outcome} {entry.reason or ''} "
                f"{'forced ' if entry.forced else ''}{entry.memory_id or ''}".strip())

    def refresh_data(self) -> None:
        """Read the log again (paged), keeping the cursor on the same task."""
        super().refresh_data()
        try:
            self.item_list.show(self.memtui.engine)
            counts = self.memtui.engine.extraction.log_counts()
            ledger = self.memtui.engine.extraction.cost_summary()
        except MemtuiError as error:
            self.memtui.say(f"Could not read the extraction log: {error.message}",
                            severity="error")
            return
        title = Text("Extraction log", style="bold")
        title.append(f" · {self.item_list.count or 0:,} tasks")
        for outcome in ("extracted", "superseded_previous", "skipped", "error"):
            count = counts.get(outcome, 0)
            if count:
                title.append(f" · {OUTCOME_WORDS.get(outcome, outcome)} {count}", style="dim")
        title.append(ledger_words(ledger))
        self.show_title(title)
        self._update_preview()

    def preview(self) -> RenderableType:
        """The selected row's task."""
        entry = self.item_list.current()
        if entry is None:
            return ""
        try:
            task = self.memtui.engine.tasks.get_task(entry.task_id)
        except MemtuiError as error:
            return Text(f"{entry.task_id}: {error.message}", style="dim")
        return task_fields(task, self.memtui.tz, entry)

    def on_line_list_opened(self, message: LineList.Opened) -> None:
        """Enter: open the task."""
        message.stop()
        self.action_open_task()

    def action_open_task(self) -> None:
        """The task of the selected row, in full."""
        from memtui.app.modals.text import TextModal

        entry = self.item_list.current()
        if entry is None:
            return
        try:
            task = self.memtui.engine.tasks.get_task(entry.task_id)
        except MemtuiError as error:
            self.memtui.say(error.message, severity="warning")
            return
        self.memtui.push_screen(TextModal(f"Task {task.id}",
                                          task_fields(task, self.memtui.tz, entry),
                                          copy_text=task.result))

    def action_show_cost(self) -> None:
        """The model cost ledger in a dialog."""
        from memtui.app.modals.text import TextModal

        try:
            ledger = self.memtui.engine.extraction.cost()
        except MemtuiError as error:
            self.memtui.say(error.message, severity="warning")
            return
        self.memtui.push_screen(TextModal("Model cost ledger", ledger_text(ledger)))

    def action_open_memory(self) -> None:
        """The memory the selected row made."""
        entry = self.item_list.current()
        if entry is None:
            return
        if not entry.memory_id:
            self.memtui.say("This task made no memory.", severity="warning")
            return
        self.show_detail(entry.memory_id)
