"""The Agents pane: Claude Code, Gemini CLI and Codex memory on the machine, one row per
agent and project; ``enter`` lists a row's entries. Every write is shown as a diff and
confirmed first, and goes through the engine's plan and safe write."""

from __future__ import annotations

from functools import partial, partialmethod
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, cast

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widget import Widget

from memtui.app.panes.agents_text import (
    TEXT_CHARS,
    confirm_body,
    confirm_title,
    describe_entry,
    editor_context,
    ending,
    entry_row,
    human_size,
    in_folder,
    problem_lines,
    short_reason,
    tilde,
)
from memtui.app.panes.base import DETAIL_BINDINGS
from memtui.app.panes.list_pane import ListPane
from memtui.app.widgets.line_list import ItemList, LineList
from memtui.app.widgets.preview import selection_preview
from memtui.textsafe import one_line, safe_text

if TYPE_CHECKING:  # the agents engine is imported when the pane first reads
    from memtui.app.modals.editor import MemoryDraft, MemoryEditor, SubmitDialog
    from memtui.engine.agents.curation import EditSource
    from memtui.engine.agents.entries import MemoryEntry, RowEntries
    from memtui.engine.agents.overview import AgentRow, AgentsOverview
    from memtui.engine.agents.plans import WritePlan

DETAIL_HEIGHT = "2fr"
"""The rows take a third of the height, the details the rest."""
ENTRY_DETAIL_HEIGHT = "1fr"
"""A row's entries and the selected entry's details share the height."""
AGENT_COLUMN = 7
METER_CELLS = 10
NARROW_METER_CELLS = 4
METER_COUNT = 10
FIXED_COLUMNS = 1 + 5 + 1 + 8 + 1 + 4 + METER_COUNT
"""Files, size, switch and the meter's count after the project (plus the meter's cells)."""
EXTRA_COLUMN = 20
NARROW_EXTRA_COLUMN = 10
"""Room kept at the end for secrets, inbox and problem counts."""
MIN_LABEL_CHARS = 12
NARROW_WIDTH = 110
"""Below this row width the meter and the counts take fewer cells."""
FULL_CELL = "█"
EMPTY_CELL = "░"
MAX_SECTION_ROWS = 30
MAX_DIFF_LINES = 14
TITLE_LABEL_CHARS = 40
AGENTS_WITH_ENTRIES = ("claude", "gemini")
ENTRY_KEYS = {"forget": "d", "edit": "e", "promote": "P"}
EMPTY_TEXT = ("No agent memory found — Claude Code keeps it in ~/.claude, Gemini CLI in "
              "~/.gemini (start with --claude-home / --gemini-home).")


def agent_home(agent: str, homes: tuple[Path | None, ...]) -> Path:
    """The Claude Code or Gemini CLI home of ``homes`` (the app's, None: the default)."""
    from memtui.engine.agents.paths import resolve_claude_home, resolve_gemini_home

    return resolve_claude_home(homes[0]) if agent == "claude" else \
        resolve_gemini_home(homes[1])


def meter(row: AgentRow, cells: int = METER_CELLS, pad: bool = True) -> Text:
    """``████████░░ 174/250``: the share of the index loaded at session start (``pad``:
    always ``cells + METER_COUNT`` wide)."""
    text = Text()
    index = row.index
    width = cells + METER_COUNT if pad else 0
    if index is None or index.lines == 0:
        return text.append(f"{'—':<{width}}", style="dim")
    filled = round(cells * index.loaded_lines / index.lines)
    style = "yellow" if index.over_limit else "green"
    text.append(FULL_CELL * filled, style=style)
    text.append(EMPTY_CELL * (cells - filled), style="dim")
    count = f" {index.loaded_lines}/{index.lines}"
    text.append(f"{count:<{METER_COUNT}}" if pad else count,
                style=style if index.over_limit else "")
    return text


class AgentsPane(ListPane[ItemList["AgentRow"]]):
    """Claude Code, Gemini CLI and Codex memory, one row per agent and project."""

    PANE_ID = "agents"
    TITLE = "Agents"
    EMPTY_TEXT = EMPTY_TEXT
    DETAIL_HEIGHT = DETAIL_HEIGHT
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back", tooltip="Back from a row's entries to the rows",
                id="agents.back"),
        Binding("e", "edit_entry", "edit", tooltip="Edit the selected entry's text (an "
                "editor, then the diff to confirm; the text is redacted)", id="agents.edit"),
        Binding("d", "forget_entry", "forget", tooltip="Forget the selected entry: a memory "
                "file with its index line, or an added memory (asks first)",
                id="agents.forget"),
        Binding("P", "promote_entry", "promote", tooltip="Promote the selected project "
                "memory to the user/global tier (asks first)", id="agents.promote"),
        Binding("o", "reload", "reload", tooltip="Read every agent home again",
                id="agents.reload"),
        Binding("c", "copy", "copy path", tooltip="Copy the row's memory folder (on an "
                "entry: its file)", id="agents.copy"),
        Binding("x", "row_write('fix')", "fix index", tooltip="Repair the row's index: drop broken "
                "links, list missing files, fit the limit (shows the change first)",
                id="agents.fix_index"),
        Binding("s", "row_write('redact')", "redact", tooltip="Redact the secrets of the row's "
                "files (shows the change first)", id="agents.redact"),
        Binding("m", "row_write('switch')", "auto memory", tooltip="Switch the agent's auto "
                "memory on or off in its own settings (shows the change first)",
                id="agents.switch"),
        Binding("p", "row_write('inbox', True)", "apply patch", show=False,
                id="agents.inbox_apply"),
        Binding("D", "row_write('inbox', False)", "dismiss patch", show=False,
                id="agents.inbox_dismiss"),
        *DETAIL_BINDINGS,
    ]

    ENTRY_ACTIONS: ClassVar[frozenset[str]] = frozenset(
        {"back", "edit_entry", "forget_entry", "promote_entry"})
    """Actions of a row's entries: offered while the entries are listed."""

    def __init__(self) -> None:
        super().__init__()
        self.overview: AgentsOverview | None = None
        self.loading = False
        self.opened: AgentRow | None = None
        """The row whose entries are listed (None: the rows are)."""
        self.entries: RowEntries | None = None
        self.entries_error: str | None = None
        self._editor: MemoryEditor | None = None
        """The open entry editor (its save waits for the plan and the confirm)."""
        self._editing: tuple[AgentRow, MemoryEntry, EditSource] | None = None
        """The entry the editor is open on (its row, what was read)."""

    def compose(self) -> ComposeResult:
        """Title, the rows (or one row's entries), the selected row's (entry's) details."""
        title, rows, preview = super().compose()
        entries: ItemList[MemoryEntry] = ItemList(entry_row, id="agents-entries",
                                                  empty_text="Reading the entries…")
        entries.display = False
        yield from (title, rows, entries, preview)

    @property
    def entry_list(self) -> ItemList[MemoryEntry]:
        """The opened row's entries."""
        return self.query_one("#agents-entries", ItemList)

    def focus_target(self) -> Widget | None:
        """The rows, or the entries while a row's are listed."""
        return self.entry_list if self.opened is not None else self.item_list

    def offers(self, action: str) -> bool:
        """The entry keys, while a row's entries are listed, where they fit the entry."""
        if action not in self.ENTRY_ACTIONS:
            return True
        if self.opened is None:
            return False
        entry = self.entry_list.current()
        if action == "back" or entry is None:
            return action == "back"
        unsupported = {"forget_entry": ("index", "link"), "edit_entry": ("link",),
                       "promote_entry": ("index", "link", "fact")}
        return entry.kind not in unsupported[action]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``esc`` goes back only from a row's entries (elsewhere it is not this pane's)."""
        return action != "back" or self.opened is not None

    def homes(self) -> tuple[Path | None, Path | None, Path | None]:
        """The Claude Code, Gemini CLI and Codex homes the app was given (None: default)."""
        config = self.memtui.config
        return config.claude_home, config.gemini_home, config.codex_home

    def refresh_data(self) -> None:
        """Read every agent home again in a worker (read-only)."""
        super().refresh_data()
        self.loading = True
        if self.overview is None:
            self.show_title(Text("Agents · reading…", style="bold"))
        homes = self.homes()

        def read() -> AgentsOverview:
            from memtui.engine.agents.overview import agents_overview

            return agents_overview(*homes)

        self.run_job("agents-read", read, self._read_done)

    def _read_done(self, overview: AgentsOverview | None, error: str | None) -> None:
        self.loading = False
        if overview is None:
            self.memtui.say(f"Could not read the agent homes: {error}", severity="error")
            return
        self.overview = overview
        self.item_list.set_items(overview.rows, key=lambda row: (row.agent, row.key))
        if self.opened is not None:
            opened = (self.opened.agent, self.opened.key)
            row = next((item for item in overview.rows if (item.agent, item.key) == opened),
                       None)
            if row is None:
                self.memtui.say("That row is gone (read again); back to the rows.",
                                severity="warning")
                self._close_row()
            else:
                self.opened = row
                entry = self.entry_list.current()
                self._read_entries(row, entry.identity if entry else None)
        self._title()
        self._update_preview()

    def _title(self) -> None:
        overview = self.overview
        if self.opened is not None:
            self.show_title(self._entries_title(self.opened))
            return
        if overview is None:
            return
        data = overview.to_json()["totals"]
        title = Text("Agents", style="bold")
        title.append(f" · {data['rows']} rows · {data['files']} files · "
                     f"{human_size(data['bytes'])}", style="dim")
        if data["secrets"]:
            plural = "s" if data["secrets"] > 1 else ""
            title.append(f" · {data['secrets']} secret{plural}", style="bold red")
        if data["over_limit"]:
            title.append(f" · {data['over_limit']} index over the limit", style="yellow")
        title.append(" · enter lists a row's entries · writes ask first", style="dim")
        self.show_title(title)

    def _entries_title(self, row: AgentRow) -> Text:
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append("Agents › ", style="bold")
        title.append(f"{row.agent} ", style="bold")
        title.append(ending(tilde(row.label), TITLE_LABEL_CHARS), style="bold")
        entries = self.entries
        if entries is None:
            title.append(" · reading…" if self.entries_error is None else " · not read",
                         style="dim")
        else:
            count = len(entries.entries)
            title.append(f" · {count} entr{'y' if count == 1 else 'ies'}", style="dim")
            if entries.problems:
                title.append(f" · {len(entries.problems)} problem"
                             f"{'s' if len(entries.problems) > 1 else ''}", style="yellow")
        title.append(" · esc back to the rows", style="dim")
        return title

    def _row(self, row: AgentRow, width: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{row.agent:<{AGENT_COLUMN}}", style="bold")
        narrow = width < NARROW_WIDTH
        cells = NARROW_METER_CELLS if narrow else METER_CELLS
        extra = NARROW_EXTRA_COLUMN if narrow else EXTRA_COLUMN
        room = max(MIN_LABEL_CHARS, width - AGENT_COLUMN - FIXED_COLUMNS - cells - extra)
        label = tilde(row.label) + (" (worktree)" if row.worktree_of and not narrow else "")
        text.append(f"{ending(label, room):<{room}}")
        text.append(f" {row.files:>5} {human_size(row.size):>8} ", style="dim")
        state = "—" if row.auto_memory is None else "on" if row.auto_memory else "off"
        text.append(f"{state:<4}", style="green" if row.auto_memory else "yellow")
        text.append_text(meter(row, cells))
        if row.secrets:
            word = "" if narrow else " secret" + ("s" if len(row.secrets) > 1 else "")
            text.append(f"  {len(row.secrets)}{word}", style="bold red")
        if row.inbox:
            text.append(f"  {row.inbox}{'' if narrow else ' inbox'}", style="cyan")
        if row.problems:
            text.append(f"  {len(row.problems)}!", style="yellow")
        return text

    def _row_text(self, text: Text, row: AgentRow) -> None:
        text.append(f"{row.title} · {one_line(tilde(row.label), TEXT_CHARS)}", style="bold")
        if row.worktree_of:
            text.append(f"\nworktree of {one_line(tilde(row.worktree_of), TEXT_CHARS)}")
        text.append(f"\nmemory folder {one_line(tilde(row.memory_dir) or '—', TEXT_CHARS)}"
                    f" · {row.files} file(s), {human_size(row.size)}")
        if row.transcripts:
            text.append(f" · {row.transcripts} transcript(s)")
        for switch in row.switches:
            mark = "" if switch.effective else " (overridden)"
            text.append(f"\n{one_line(switch.name, 40)} = {one_line(switch.value_text, 40)}"
                        f" — {one_line(tilde(switch.where), TEXT_CHARS)}{mark}", style="dim")
        index = row.index
        if index is not None:
            text.append("\n\nLoaded at session start ", style="bold")
            text.append_text(meter(row, pad=False))
            text.append(f" lines · {human_size(index.loaded_bytes)} of "
                        f"{human_size(index.bytes)} (limit {index.max_lines} lines / "
                        f"{human_size(index.max_bytes)})" if index.max_lines < 1 << 20
                        else " lines (the index loads the files it names)")
            if index.over_limit:
                text.append(f"\nNot loaded ({len(index.dropped)}): ", style="yellow")
                text.append(one_line(", ".join(index.dropped[:MAX_SECTION_ROWS]), 10 *
                                     TEXT_CHARS) + (" …" if len(index.dropped) >
                                                    MAX_SECTION_ROWS else ""))
            if index.dangling:
                text.append(f"\nDangling links: {one_line(', '.join(index.dangling), 400)}",
                            style="yellow")
            if index.unindexed:
                text.append(f"\nNot in the index: {one_line(', '.join(index.unindexed), 400)}",
                            style="yellow")
        if row.secrets:
            text.append(f"\n\nSecrets ({len(row.secrets)}) — never shown, only where and what "
                        "kind; s redacts them\n", style="bold red")
            for finding in row.secrets[:MAX_SECTION_ROWS]:
                where = in_folder(finding.path, row.memory_dir)
                text.append(f"- {one_line(where, TEXT_CHARS)}:{finding.line}  {finding.kind}\n")
        if row.inbox:
            text.append(f"\nInbox: {row.inbox} patch(es) waiting — p applies, D dismisses the "
                        "first\n", style="cyan")
        if row.problems:
            text.append(f"\nProblems ({len(row.problems)})\n", style="bold")
            problem_lines(text, row.problems, row.memory_dir, MAX_SECTION_ROWS)

    def _homes_text(self, text: Text, overview: AgentsOverview) -> None:
        from memtui.engine.agents.overview import AGENT_TITLES

        text.append("\n\nHomes\n", style="bold")
        for home in overview.homes:
            state = "found" if home.found else "not found"
            auto = "—" if home.auto_memory is None else "on" if home.auto_memory else "off"
            text.append(f"- {AGENT_TITLES.get(home.agent, home.agent)}: "
                        f"{one_line(tilde(home.home), TEXT_CHARS)} ({state}) · auto memory "
                        f"{auto} · {len(home.instruction_files)} instruction file(s)\n")
            if home.version is not None:
                text.append(f"  version: {one_line(home.version.words, TEXT_CHARS)}\n",
                            style="dim")
            if home.layout:
                text.append(f"  layout: {one_line(home.layout, 2 * TEXT_CHARS)}\n", style="dim")
            for item in home.broken_commands[:MAX_SECTION_ROWS]:
                text.append(f"  memtui's {item.what} entry will not start: "
                            f"{one_line(tilde(item.check.problem or ''), 2 * TEXT_CHARS)} "
                            "— run `memtui hooks install … --write` again\n", style="red")
            for finding in home.secrets[:MAX_SECTION_ROWS]:
                text.append(f"  secret: {one_line(tilde(finding.path), TEXT_CHARS)}:"
                            f"{finding.line} {finding.kind}\n", style="red")
            for problem in home.problems[:MAX_SECTION_ROWS]:
                text.append(f"  {one_line(tilde(problem.path), TEXT_CHARS)}: "
                            f"{one_line(tilde(problem.reason), 2 * TEXT_CHARS)}\n",
                            style="yellow")

    def preview(self) -> RenderableType:
        """The selected entry, else the selected row, then the homes."""
        if self.opened is not None:
            return self._entry_text(self.opened)
        return selection_preview(self.overview, self.item_list.current(), self.item_list.items,
                                 self._row_text, self._homes_text, EMPTY_TEXT,
                                 "No row selected.")

    def on_line_list_cursor_moved(self, message: LineList.CursorMoved) -> None:
        """Show the selected row (or entry); the key bar offers what fits the entry."""
        message.stop()
        self._update_preview()
        if message.line_list is self.entry_list:
            self.refresh_bindings()

    def on_line_list_opened(self, message: LineList.Opened) -> None:
        """Enter on a row lists its entries; on an entry, shows its whole text."""
        from memtui.app.modals.text import TextModal

        message.stop()
        entry = self.entry_list.current() if message.line_list is self.entry_list else None
        row = self.item_list.current() if message.line_list is self.item_list else None
        if entry is not None:
            body = Text(safe_text(entry.shown) if entry.shown else "(empty)")
            self.app.push_screen(TextModal(f"{entry.kind} {one_line(entry.name, 60)} "
                                           "(secrets masked)", body))
        elif row is not None:
            self._open_row(row)

    def copy_text(self) -> tuple[str, str] | None:
        """The selected entry's file (an added memory: its text), else the row's folder."""
        if self.opened is not None:
            entry = self.entry_list.current()
            if entry is None:
                return None
            if entry.kind == "fact":
                return ("added memory (secrets masked)", entry.shown)
            return ("memory file", entry.path)
        row = self.item_list.current()
        path = row.memory_dir or row.project if row is not None else None
        return ("memory folder", path) if path else None

    def _open_row(self, row: AgentRow) -> None:
        """List ``row``'s entries (read in a worker)."""
        if row.agent not in AGENTS_WITH_ENTRIES:
            self.memtui.say(f"{row.title} memory is browsed in its own pane and curated with "
                            f"memtui {row.agent} …; it has no entries here.",
                            severity="warning")
            return
        same = self.opened is not None and (self.opened.agent, self.opened.key) == \
            (row.agent, row.key)
        self.opened = row
        if not same:
            self.entries = self.entries_error = None
            self.entry_list.empty_text = "Reading the entries…"
            self.entry_list.set_items([])
            self.entry_list.move_cursor(0)
        self._show_list()
        self._read_entries(row, None)

    def _close_row(self) -> None:
        self.opened = self.entries = self.entries_error = None
        self._show_list()

    def _show_list(self) -> None:
        """The rows, or the opened row's entries, with the details below."""
        opened = self.opened is not None
        self.item_list.display = not opened
        self.entry_list.display = opened
        self.query_one("#agents-scroll").styles.height = \
            ENTRY_DETAIL_HEIGHT if opened else DETAIL_HEIGHT
        (self.entry_list if opened else self.item_list).focus()
        self.refresh_bindings()
        self._title()
        self._update_preview()

    def _read_entries(self, row: AgentRow, keep: tuple[str, str, str] | None) -> None:
        """List ``row``'s entries in a worker; the cursor stays on ``keep`` (an identity)."""
        homes = self.homes()

        def read() -> RowEntries:
            from memtui.engine.agents.entries import row_entries

            return row_entries(row.agent, agent_home(row.agent, homes), row.key,
                               row.memory_dir)

        self.run_job("agents-entries", read,
                     partial(self._entries_read, (row.agent, row.key), keep))

    def _entries_read(self, read_for: tuple[str, str], keep: tuple[str, str, str] | None,
                      entries: RowEntries | None, error: str | None) -> None:
        opened = self.opened
        if opened is None or (opened.agent, opened.key) != read_for:
            return  # the user went back (or to another row) meanwhile
        if entries is None:
            self.entries = None
            self.entries_error = error or "not read"
            self.entry_list.empty_text = f"Could not list the entries: {self.entries_error}"
            self.entry_list.set_items([])
            self.memtui.say(f"Could not list the entries: {one_line(self.entries_error, 200)}",
                            severity="error")
        else:
            self.entries = entries
            self.entries_error = None
            self.entry_list.empty_text = "No memory entries here (see below)." \
                if entries.problems else "No memory entries here."
            self.entry_list.set_items(entries.entries, key=lambda entry: entry.identity,
                                      keep=keep)
        self._title()
        self._update_preview()

    def _entry_text(self, row: AgentRow) -> Text:
        text = Text()
        entries = self.entries
        entry = self.entry_list.current()
        if entries is None:
            text.append("Reading the entries…" if self.entries_error is None else
                        f"Could not list the entries: {one_line(self.entries_error, 200)}",
                        style="dim")
            return text
        if entry is not None:
            describe_entry(text, row, entry)
        else:
            text.append("No entry here.", style="dim")
        if entries.problems:
            text.append(f"\n\nProblems ({len(entries.problems)})\n", style="bold")
            problem_lines(text, entries.problems, row.memory_dir, MAX_SECTION_ROWS,
                          at_line=False)
        return text

    def action_row_write(self, action: str, extra: bool = False) -> None:
        """``x`` / ``s`` / ``m`` / ``p`` / ``D`` on the selected row (see BINDINGS): each
        shows the change to confirm first."""
        row = self.item_list.current()
        if row is None:
            self.memtui.say("Nothing selected.", severity="warning")
            return
        homes = self.homes()

        def plan() -> WritePlan:
            from memtui.engine.agents.entries import plan_row

            return plan_row(action, row, agent_home(row.agent, homes), extra)

        self.run_job("agents-write", plan, self._planned)

    def _planned(self, plan: WritePlan | None, error: str | None) -> None:
        if plan is None or not plan.changes:
            said = "; ".join((plan.summary, *plan.notes)) if plan else error or "nothing to do"
            self.memtui.say(one_line(said, 200), severity="warning")
            return
        body = Text()
        body.append(f"memtui will {one_line(plan.summary, 300)}.\n", style="bold")
        lines = plan.diff().splitlines()
        for line in lines[:MAX_DIFF_LINES]:
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
            body.append(one_line(tilde(line), 200) + "\n", style=style)  # diff(): masked
        if len(lines) > MAX_DIFF_LINES:
            body.append(f"… {len(lines) - MAX_DIFF_LINES} more diff lines\n", style="dim")
        for note in plan.notes:
            body.append(f"note: {one_line(note, 200)}\n", style="yellow")
        body.append("Refused if the agent changes the file meanwhile.", style="dim")
        self._confirm("Change the agent's files?", body, "Write", plan)

    def _confirm(self, title: str, body: Text, label: str, plan: WritePlan,
                 action: str | None = None) -> None:
        """Ask before writing ``plan`` (``action``: an entry's, else a row's write), then
        write it in a worker."""
        from memtui.app.modals.confirm import ConfirmModal

        editor = self._editor if action == "edit" else None

        def write() -> None:
            from memtui.engine.agents.plans import apply_plan

            apply_plan(plan, True)

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_job("agents-apply", write, partial(self._written, plan.summary, action),
                             exclusive=False)
            elif editor is not None:
                editor.failed("Not written. Change the text and save again, or esc to cancel.")
            elif action is not None:
                self.memtui.say("Nothing written.", toast=False)

        self.app.push_screen(ConfirmModal(title, body, label), answered)

    def _written(self, summary: str, action: str | None, _result: None,
                 error: str | None) -> None:
        editor = self._editor if action == "edit" else None
        if error is not None:
            reason = self._reason(error) if action is not None else one_line(error, 200)
            if editor is not None:
                editor.failed(f"Nothing written: {reason}")
            self.memtui.say(f"Nothing written: {reason}", severity="error")
        else:
            if editor is not None:
                self._editor = None
                editor.dismiss(None)
            done = tilde(summary) if action is not None else summary
            self.memtui.say(f"Done: {one_line(done, 200)}")
        # every pane reads again (this one keeps a row's entries open); the inbox is recounted
        self.memtui.store_changed()

    def _entry_action(self, action: str) -> None:
        """Plan ``action`` on the opened row's selected entry (an edit: read it for the
        editor first), then confirm it; on the rows, list the selected row's entries."""
        if self.opened is None:
            row = self.item_list.current()
            if row is None:
                self.memtui.say("Nothing selected.", severity="warning")
            elif row.agent not in AGENTS_WITH_ENTRIES:
                self.memtui.say("That works on Claude Code and Gemini CLI entries only.",
                                severity="warning")
            else:
                self._open_row(row)
                self.memtui.say(f"The row's entries: choose one, then press "
                                f"{ENTRY_KEYS[action]} to {action} it.", toast=False)
            return
        row, entry = self.opened, self.entry_list.current()
        if entry is None:
            self.memtui.say("No entry selected." if self.entries is not None else
                            "The entries are still being read.", severity="warning")
        elif action != "edit":
            self._plan_entry(action, row, entry)
        else:
            homes = self.homes()

            def read() -> EditSource:
                from memtui.engine.agents.entries import entry_edit_source

                return entry_edit_source(agent_home(row.agent, homes), entry)

            self.run_job("agents-entry", read, partial(self._edit_read, entry))

    action_forget_entry = partialmethod(_entry_action, "forget")
    action_promote_entry = partialmethod(_entry_action, "promote")
    action_edit_entry = partialmethod(_entry_action, "edit")

    def action_back(self) -> None:
        """``esc``: from a row's entries back to the rows."""
        if self.opened is not None:
            self._close_row()

    forget_selected = action_forget_entry
    correct_selected = action_edit_entry

    def ready(self) -> bool:
        """Whether the agent homes have been read."""
        return self.overview is not None

    def _edit_read(self, entry: MemoryEntry, source: EditSource | None,
                   error: str | None) -> None:
        from memtui.app.modals.editor import MemoryEditor

        row = self.opened
        if source is None:
            self.memtui.say(f"Cannot edit: {self._reason(error or 'not read')}",
                            severity="warning")
            return
        if row is None:
            return
        self._editing = (row, entry, source)

        def closed(_result: object) -> None:
            self._editor = None

        name = entry.name if entry.kind != "fact" else "added memory"
        self.app.push_screen(MemoryEditor(f"Edit {one_line(name, 60)}", content=source.text,
                                          show_kind=False, asker=self,
                                          context=editor_context(row, entry, source)),
                             closed)

    def on_submit_dialog_submitted(self, message: SubmitDialog.Submitted) -> None:
        """Save in the entry's editor: plan the edit (then confirm the diff)."""
        if self._editing is None:
            return
        row, entry, source = self._editing
        self._editor = cast("MemoryEditor", message.dialog)
        self._plan_entry("edit", row, entry, cast("MemoryDraft", message.draft).content, source)

    def _plan_entry(self, action: str, row: AgentRow, entry: MemoryEntry,
                    text: str | None = None, source: EditSource | None = None) -> None:
        """Plan an entry action in a worker (then confirm it)."""
        homes = self.homes()

        def plan() -> WritePlan:
            from memtui.engine.agents.entries import plan_entry

            return plan_entry(action, row.agent, agent_home(row.agent, homes), entry, text=text,
                              expected=source.stamp if source is not None else None)

        self.run_job("agents-entry", plan,
                     partial(self._entry_planned, action, entry, source))

    def _entry_planned(self, action: str, entry: MemoryEntry, source: EditSource | None,
                       plan: WritePlan | None, error: str | None) -> None:
        editor = self._editor if action == "edit" else None
        if action == "edit" and editor is None:
            return  # the editor was closed while the plan was made: nothing to confirm
        if plan is None or all(change.old_text == change.new_text for change in plan.changes):
            reason = ("No change: the file already holds this text; nothing to write."
                      if plan is not None else
                      f"Nothing written: {self._reason(error or 'nothing to do')}")
            if editor is not None:
                editor.failed(reason)
            self.memtui.say(reason, severity="warning")
            return
        row = self.opened
        if row is None:
            return
        title, label = confirm_title(action, row.agent)
        body = confirm_body(action, row, plan, entry, source,
                            (self.app.size.width, self.app.size.height))
        self._confirm(title, body, label, plan, action)

    def _reason(self, error: str) -> str:
        """An engine's refusal in one line (the opened row's files by their names)."""
        return short_reason(error, self.opened.memory_dir if self.opened else None)

    def action_reload(self) -> None:
        """Read every agent home again (they change outside memtui)."""
        self.refresh_data()
        self.memtui.say("Reading the agent homes again.", toast=False)
