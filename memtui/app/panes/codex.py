"""The Codex pane (read-only): one row per thread of a Codex home, the selected thread and
the home's diagnosis below, read in a thread job; curation is ``memtui codex``'s."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial, partialmethod
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType

from memtui.app.format import local_time
from memtui.app.panes.agents_text import TEXT_CHARS, in_folder, problem_lines, tilde
from memtui.app.panes.base import DETAIL_BINDINGS
from memtui.app.panes.list_pane import ListPane
from memtui.app.widgets.line_list import ItemList
from memtui.app.widgets.preview import selection_preview
from memtui.engine.codex.config import config_reasons, describe_config
from memtui.textsafe import one_line

if TYPE_CHECKING:  # the Codex engine is imported when the pane is first read (not at start)
    from memtui.engine.codex.browse import CodexThread
    from memtui.engine.codex.models import CodexHome

DB_WAIT_SECONDS = 0.25
"""Longest wait for a ``memories_1.sqlite`` another process holds locked."""
MAX_THREADS = 500
"""Most thread rows the list shows (Codex keeps far fewer)."""
MAX_SECTION_ROWS = 30
"""Most lines per section below the list (groups, notes, jobs, problems)."""
THREAD_COLUMN = 38
USED_COLUMN = 6
EMPTY_TEXT = ("No Codex threads here — Codex keeps its memories in ~/.codex "
              "(start with --codex-home PATH or set CODEX_HOME).")
READING_TEXT = "Reading the Codex home…"
READ_GROUP = "codex-read"
"""The worker group of the pane's reads of the Codex home."""
T = TypeVar("T")


def _section(text: Text, title: str, items: Sequence[T]) -> Iterator[T]:
    """Write the section's title, yield its first ``MAX_SECTION_ROWS`` items to write, then
    say how many more there are."""
    text.append(f"\n{title} ({len(items)})\n", style="bold")
    yield from items[:MAX_SECTION_ROWS]
    if len(items) > MAX_SECTION_ROWS:
        text.append(f"… {len(items) - MAX_SECTION_ROWS} more (memtui codex show --json lists "
                    "all)\n", style="dim")


class CodexPane(ListPane[ItemList["CodexThread"]]):  # the engine type is not imported at start
    """A Codex home, read-only: threads, consolidation diagnosis, groups, notes, jobs."""

    PANE_ID = "codex"
    TITLE = "Codex"
    EMPTY_TEXT = READING_TEXT
    DETAIL_HEIGHT = "2fr"
    """The home's details (a long diagnosis) take two thirds of the height."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "reload", "reload", id="codex.reload"),
        Binding("c", "copy", "copy id", id="codex.copy"),
        *DETAIL_BINDINGS,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.codex: CodexHome | None = None
        self.reading = False
        """A read of the home is under way (the title says so)."""

    def _row(self, thread: CodexThread, width: int) -> Text:
        row = Text(no_wrap=True, overflow="ellipsis")
        row.append(f"{one_line(thread.thread_id, THREAD_COLUMN - 2):<{THREAD_COLUMN}}")
        used = "—" if thread.usage_count is None else str(thread.usage_count)
        row.append(f"{used:>{USED_COLUMN - 2}}  ", style="dim")
        if thread.job_status and thread.job_status != "done":
            row.append(f"[job {one_line(thread.job_status, 12)}] ", style="bold red")
        if thread.memory_mode and thread.memory_mode != "enabled":
            row.append(f"[{one_line(thread.memory_mode, 12)}] ", style="yellow")
        row.append(one_line(thread.description or thread.cwd or "", TEXT_CHARS))
        return row

    def home(self) -> Path:
        """The Codex home shown: the app config's ``codex_home``, else the default."""
        from memtui.engine.codex.paths import resolve_codex_home

        return resolve_codex_home(self.memtui.config.codex_home)

    def copy_text(self) -> tuple[str, str] | None:
        """The selected thread's id."""
        thread = self.item_list.current()
        return None if thread is None else (f"thread {thread.thread_id}", thread.thread_id)

    def refresh_data(self, *, reload: bool = False) -> None:
        """Read the Codex home again in a worker (the rows on screen stay until then)."""
        super().refresh_data()
        self.reading = True
        self._update_title()
        home, now, engine = self.home(), self.memtui.store.clock(), self.memtui.engine

        def read() -> tuple[CodexHome, list[CodexThread]]:
            from memtui.engine.codex.browse import codex_threads

            codex = engine.codex.browse(home, now, db_busy_timeout_s=DB_WAIT_SECONDS)
            return codex, codex_threads(codex)[:MAX_THREADS]

        self.run_job(READ_GROUP, read, partial(self._read_done, reload))

    def _read_done(self, reload: bool, read: tuple[CodexHome, list[CodexThread]] | None,
                   error: str | None) -> None:
        self.reading = False
        if read is None:
            self._update_title()
            if self.codex is None:
                self.item_list.empty_text = EMPTY_TEXT
                self.item_list.refresh()
            self.memtui.say(f"Could not read the Codex home: {error}", severity="error")
            return
        self.codex, threads = read
        self.item_list.empty_text = EMPTY_TEXT
        self.item_list.set_items(threads, key=lambda thread: thread.thread_id)
        self._update_title()
        self._update_preview()
        if reload:
            self.memtui.say("Read the Codex home again.", toast=False)

    def _update_title(self) -> None:
        codex = self.codex
        title = Text("Codex ", style="bold")
        title.append(one_line(tilde(str(self.home())), 60), style="bold")
        if codex is None:
            title.append(" · reading…" if self.reading else " · could not be read",
                         style="dim")
            self.show_title(title)
            return
        if codex.diagnosis:
            title.append(" · consolidation stuck", style="bold red")
        title.append(f" · {len(self.item_list.items)} threads · {len(codex.notes)} notes · "
                     "read-only · " + ("reading…" if self.reading else "o reloads"),
                     style="dim")
        self.show_title(title)

    def _thread_text(self, text: Text, thread: CodexThread) -> None:
        tz = self.memtui.tz
        text.append(one_line(thread.thread_id), style="bold")
        text.append(f"\nused {thread.usage_count if thread.usage_count is not None else '—'}"
                    f" times · last use {local_time(thread.last_usage, tz)} · updated "
                    f"{local_time(thread.updated_at, tz)}")
        if thread.cwd:
            text.append(f"\ncwd {one_line(thread.cwd, TEXT_CHARS)}")
        if thread.git_branch or thread.source or thread.memory_mode:
            text.append(f"\nbranch {one_line(thread.git_branch or '—', 40)} · source "
                        f"{one_line(thread.source or '—', 20)} · memory "
                        f"{one_line(thread.memory_mode or '—', 12)}",
                        style="" if thread.memory_mode in (None, "enabled") else "yellow")
        if thread.rollout_path:
            where = in_folder(thread.rollout_path, self.codex.home if self.codex else None)
            text.append(f"\nrollout {one_line(where, 2 * TEXT_CHARS)}", style="dim")
        if thread.description:
            text.append(f"\n{one_line(thread.description, 2 * TEXT_CHARS)}")
        if thread.job_status:
            text.append(f"\nstage-1 job: {one_line(thread.job_status, 20)}")
            if thread.job_error:
                text.append(f" — {one_line(thread.job_error, 2 * TEXT_CHARS)}", style="red")
        if not thread.in_database and self.codex is not None and self.codex.database_read:
            text.append("\nno stage-1 output in Codex's database", style="dim")

    def _overview(self, text: Text, codex: CodexHome) -> None:
        if codex.layout is not None:
            text.append("\n\nCodex database: ", style="bold")
            text.append(f"{one_line(codex.layout.description, 2 * TEXT_CHARS)} "
                        f"({codex.layout.schema_words})",
                        style="" if codex.layout.supported else "yellow")
        text.append("\n\nWhy is consolidation stuck?\n", style="bold")
        if codex.diagnosis:
            for reason in codex.diagnosis[:MAX_SECTION_ROWS]:
                text.append(f"- {one_line(reason, 3 * TEXT_CHARS)}\n", style="red")
        elif codex.database_read:
            text.append("Nothing stuck: no job is failing or holding an expired lease.\n")
        else:
            text.append("Unknown: Codex's memory database could not be read (see "
                        "problems).\n", style="dim")
        for reason in config_reasons(codex.config):
            text.append(f"- {one_line(reason, 3 * TEXT_CHARS)}\n", style="yellow")
        settings = describe_config(codex.config, home_found=codex.home_found)
        if settings:
            text.append("\nCodex's memory settings (config.toml)\n", style="bold")
        for line in settings:
            text.append(f"- {one_line(line, 2 * TEXT_CHARS)}\n")
        for group in _section(text, "Task groups", codex.task_groups):
            text.append(f"- {one_line(group.name, TEXT_CHARS)} · {len(group.tasks)} tasks · "
                        f"{one_line(group.cwd or group.applies_to, TEXT_CHARS)}\n")
        for note in _section(text, "Ad-hoc notes", codex.notes):
            text.append(f"- {one_line(note.file_name, TEXT_CHARS)}: ", style="dim")
            text.append(f"{one_line(note.text.strip(), TEXT_CHARS)}\n")
        for job in _section(text, "Jobs", codex.jobs):
            line = f"- {one_line(job.kind_word, 30)} {one_line(job.status, 20)}"
            if not job.is_consolidation:
                line += f" {one_line(job.job_key, 60)}"
            text.append(line + job.state_words + "\n", style="red" if job.status == "error"
                        or job.running_past_lease else "")
        for problem in _section(text, "Problems", codex.problems):
            problem_lines(text, [problem], codex.home, 1)

    def preview(self) -> RenderableType:
        """The selected thread, then the home's overview."""
        return selection_preview(self.codex, self.item_list.current(), self.item_list.items,
                                 self._thread_text, self._overview, EMPTY_TEXT,
                                 "No thread selected.")

    action_reload = partialmethod(refresh_data, reload=True)
