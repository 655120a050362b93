"""The Agents pane: every agent's memory on the machine (spec/80) — Claude Code, Gemini CLI
and Codex, one row per agent and project.

A row shows the agent, the project, how many memory files and bytes, whether auto memory is
on, a meter of the index loaded at session start (Claude Code loads 200 lines / 25 KB of
MEMORY.md), the secrets found and the inbox patches waiting. Below, the selected row: its
switches and where each is set, its files, the entries that fall past the limit by name,
secrets as file, line and kind (never the value), inbox patches and problems.

Reading happens in a worker thread; writes only after a confirm that shows the change (a
diff with secrets shown by kind): ``x`` repairs the index, ``s`` redacts the secrets of the
row's files, ``m`` switches the agent's auto memory, ``p`` / ``D`` apply or dismiss the
first pending Gemini inbox patch. ``o`` reads everything again, ``c`` copies the memory
folder's path, ``J`` / ``K`` scroll the details.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from memtui.app.panes.base import Pane
from memtui.app.widgets.line_list import ItemList, LineList
from memtui.app.widgets.preview import PreviewScroll
from memtui.errors import MemtuiError
from memtui.textsafe import one_line

if TYPE_CHECKING:  # the agents engine is imported when the pane first reads
    from memtui.engine.agents.overview import AgentRow, AgentsOverview
    from memtui.engine.agents.plans import WritePlan

LIST_HEIGHT = "1fr"
DETAIL_HEIGHT = "2fr"
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
MAX_SLUG_CHARS = 28
"""A Claude Code project folder name (the path with dashes) is shown by its end."""
NARROW_WIDTH = 110
"""Below this row width the meter and the counts take fewer cells."""
FULL_CELL = "█"
EMPTY_CELL = "░"
MAX_SECTION_ROWS = 30
MAX_DIFF_LINES = 14
TEXT_CHARS = 120
KIB = 1024
EMPTY_TEXT = ("No agent memory found — Claude Code keeps it in ~/.claude, Gemini CLI in "
              "~/.gemini (start with --claude-home / --gemini-home).")


def tilde(path: str | None) -> str:
    """A path (or a text naming paths) with the user's home folder shown as ``~``, and
    Claude Code's long path-named folders shortened to their end."""
    if not path:
        return ""
    home = str(Path.home()).rstrip("/")
    text = "~" if path == home else path.replace(home + "/", "~/") if home else path
    parts = text.split("/")
    for number, part in enumerate(parts[:-1]):
        if number and parts[number - 1] == "projects" and len(part) > MAX_SLUG_CHARS:
            parts[number] = "…" + part[-(MAX_SLUG_CHARS - 1):]
    return "/".join(parts)


def human_size(size: int) -> str:
    """``812 B`` / ``24.4 KB``."""
    return f"{size} B" if size < KIB else f"{size / KIB:.1f} KB"


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


@dataclass
class AgentsRead(Message):
    """The worker read every agent home (or failed)."""

    overview: Any
    error: str | None = None


@dataclass
class AgentsPlanned(Message):
    """The worker made a write plan to confirm (or could not)."""

    plan: Any
    error: str | None = None


@dataclass
class AgentsWritten(Message):
    """The worker wrote a confirmed plan (or the write was refused)."""

    summary: str
    error: str | None = None


class AgentsPane(Pane):
    """Claude Code, Gemini CLI and Codex memory, one row per agent and project."""

    PANE_ID = "agents"
    TITLE = "Agents"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "reload", "reload", id="agents.reload"),
        Binding("c", "copy", "copy path", id="agents.copy"),
        Binding("x", "fix_index", "fix index", id="agents.fix_index"),
        Binding("s", "redact", "redact", tooltip="Redact the secrets of the row's files "
                "(shows the change first)", id="agents.redact"),
        Binding("m", "switch", "auto memory", id="agents.switch"),
        Binding("p", "inbox(True)", "apply patch", show=False, id="agents.inbox_apply"),
        Binding("D", "inbox(False)", "dismiss patch", show=False, id="agents.inbox_dismiss"),
        Binding("J", "scroll_detail(1)", "detail down", show=False, id="agents.detail_down"),
        Binding("K", "scroll_detail(-1)", "detail up", show=False, id="agents.detail_up"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.overview: AgentsOverview | None = None
        self.loading = False

    def compose(self) -> ComposeResult:
        """Title, the rows, the selected row's details."""
        yield Static("", classes="pane-title", id="agents-title")
        yield ItemList(self._row, id="agents-list", empty_text=EMPTY_TEXT)
        yield PreviewScroll("agents-preview", id="agents-scroll")

    def on_mount(self) -> None:
        """The rows take a third of the height, the details the rest."""
        self.item_list.styles.height = LIST_HEIGHT
        self.query_one("#agents-scroll").styles.height = DETAIL_HEIGHT

    @property
    def item_list(self) -> ItemList[AgentRow]:
        """The rows."""
        return self.query_one("#agents-list", ItemList)

    def focus_target(self) -> Widget | None:
        """The rows."""
        return self.item_list

    def homes(self) -> tuple[Path | None, Path | None, Path | None]:
        """The Claude Code, Gemini CLI and Codex homes the app was given (None: default)."""
        config = self.memtui.config
        return (getattr(config, "claude_home", None), getattr(config, "gemini_home", None),
                getattr(config, "codex_home", None))

    # ---- reading (worker -> message -> handler) ---------------------------------------

    def refresh_data(self) -> None:
        """Read every agent home again in a worker (read-only)."""
        super().refresh_data()
        self.loading = True
        if self.overview is None:
            self.query_one("#agents-title", Static).update(Text("Agents · reading…",
                                                                style="bold"))
        self._read(*self.homes())

    @work(thread=True, exclusive=True, group="agents-read", exit_on_error=False)
    def _read(self, claude: Path | None, gemini: Path | None, codex: Path | None) -> None:
        from memtui.engine.agents.overview import agents_overview

        try:
            overview = agents_overview(claude, gemini, codex)
        except (MemtuiError, OSError) as error:
            self.post_message(AgentsRead(None, str(error)))
            return
        self.post_message(AgentsRead(overview))

    @on(AgentsRead)
    def _read_done(self, message: AgentsRead) -> None:
        self.loading = False
        if message.error is not None or message.overview is None:
            self.memtui.say(f"Could not read the agent homes: {message.error}",
                            severity="error")
            return
        keep = self.item_list.current()
        self.overview = message.overview
        self.item_list.set_items(
            list(message.overview.rows),
            keep=(lambda r: (r.agent, r.key) == (keep.agent, keep.key)) if keep else None)
        self._title()
        self._update_preview()

    def _title(self) -> None:
        overview = self.overview
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
        title.append(" · writes ask first · o reloads", style="dim")
        self.query_one("#agents-title", Static).update(title)

    # ---- rows and details ------------------------------------------------------------

    def _row(self, row: AgentRow, width: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{row.agent:<{AGENT_COLUMN}}", style="bold")
        narrow = width < NARROW_WIDTH
        cells = NARROW_METER_CELLS if narrow else METER_CELLS
        extra = NARROW_EXTRA_COLUMN if narrow else EXTRA_COLUMN
        room = max(MIN_LABEL_CHARS, width - AGENT_COLUMN - FIXED_COLUMNS - cells - extra)
        label = tilde(row.label) + (" (worktree)" if row.worktree_of and not narrow else "")
        label = one_line(label, 10 * room)
        if len(label) > room:
            label = "…" + label[-(room - 1):]
        text.append(f"{label:<{room}}")
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
        text.truncate(width, overflow="ellipsis")
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
            text.append(f"\n{one_line(switch.name, 40)} = {one_line(str(switch.value), 40)}"
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
                where = self._relative(finding.path, row)
                text.append(f"- {one_line(where, TEXT_CHARS)}:{finding.line}  {finding.kind}\n")
        if row.inbox:
            text.append(f"\nInbox: {row.inbox} patch(es) waiting — p applies, D dismisses the "
                        "first\n", style="cyan")
        if row.problems:
            text.append(f"\nProblems ({len(row.problems)})\n", style="bold")
            for problem in row.problems[:MAX_SECTION_ROWS]:
                where = self._relative(problem.path, row)
                if problem.line:
                    where += f":{problem.line}"
                text.append(f"- {one_line(where, TEXT_CHARS)}: "
                            f"{one_line(tilde(problem.reason), 2 * TEXT_CHARS)}\n",
                            style="yellow")

    @staticmethod
    def _relative(path: str, row: AgentRow) -> str:
        base = row.memory_dir
        if base and path.startswith(base.rstrip("/") + "/"):
            return path[len(base.rstrip("/")) + 1:]
        return tilde(path)

    def _homes_text(self, text: Text, overview: AgentsOverview) -> None:
        from memtui.engine.agents.overview import AGENT_TITLES

        text.append("\n\nHomes\n", style="bold")
        for home in overview.homes:
            state = "found" if home.found else "not found"
            auto = "—" if home.auto_memory is None else "on" if home.auto_memory else "off"
            text.append(f"- {AGENT_TITLES.get(home.agent, home.agent)}: "
                        f"{one_line(tilde(home.home), TEXT_CHARS)} ({state}) · auto memory "
                        f"{auto} · {len(home.instructions)} instruction file(s)\n")
            for finding in home.secrets[:MAX_SECTION_ROWS]:
                text.append(f"  secret: {one_line(tilde(finding.path), TEXT_CHARS)}:"
                            f"{finding.line} {finding.kind}\n", style="red")
            for problem in home.problems[:MAX_SECTION_ROWS]:
                text.append(f"  {one_line(tilde(problem.path), TEXT_CHARS)}: "
                            f"{one_line(tilde(problem.reason), 2 * TEXT_CHARS)}\n",
                            style="yellow")

    def _update_preview(self) -> None:
        preview = self.query_one(PreviewScroll)
        overview = self.overview
        if overview is None:
            preview.show("")
            return
        text = Text()
        row = self.item_list.current()
        if row is not None:
            self._row_text(text, row)
        else:
            text.append(EMPTY_TEXT if not self.item_list.items else "No row selected.",
                        style="dim")
        self._homes_text(text, overview)
        preview.show(text)

    def on_line_list_cursor_moved(self, message: LineList.CursorMoved) -> None:
        """Show the selected row."""
        message.stop()
        self._update_preview()

    def on_line_list_opened(self, message: LineList.Opened) -> None:
        """Enter: the row is already shown below."""
        message.stop()

    def copy_text(self) -> tuple[str, str] | None:
        """The selected row's memory folder (else its project path)."""
        row = self.item_list.current()
        if row is None or not (row.memory_dir or row.project):
            return None
        path = row.memory_dir or row.project or ""
        return ("memory folder", path)

    # ---- writes: plan (worker) -> confirm -> write (worker) ---------------------------

    def _plan_for(self, action: str, row: AgentRow, homes: tuple[Path | None, ...],
                  extra: Any = None) -> WritePlan:
        from memtui.engine.agents import curation, inbox, switches
        from memtui.engine.agents import gemini as gemini_store
        from memtui.engine.agents.errors import AgentInputError
        from memtui.engine.agents.paths import resolve_claude_home, resolve_gemini_home
        from memtui.engine.agents.plans import WritePlan

        claude = resolve_claude_home(homes[0])
        gemini = resolve_gemini_home(homes[1])
        home = claude if row.agent == "claude" else gemini
        if action == "fix":
            if row.memory_dir is None or row.index is None:
                raise AgentInputError("this row has no memory index to repair")
            return curation.plan_fix_index(home, Path(row.memory_dir))
        if action == "redact":
            files = sorted({finding.path for finding in row.secrets})
            if not files:
                raise AgentInputError("no secret found in this row")
            plans = [curation.plan_redact(home, path) for path in files]
            return WritePlan("redact", f"redact {len(row.secrets)} secret(s) in "
                             f"{len(files)} file(s)", plans[0].root,
                             tuple(change for plan in plans for change in plan.changes))
        if action == "switch":
            on = not bool(row.auto_memory)
            winner = next((item for item in reversed(row.switches)
                           if item.effective and item.name in ("autoMemoryEnabled",
                                                               "experimental.autoMemory")),
                          None)
            if winner is not None and winner.where.startswith("$"):
                raise AgentInputError(f"auto memory is set by {winner.where} in the "
                                      "environment; change it there")
            if row.agent == "claude":
                target = Path(winner.where) if winner is not None and \
                    winner.where.endswith(".json") else claude / "settings.json"
                root = claude if target.parent == claude else target.parent.parent
                return switches.plan_switch(target, root, switches.CLAUDE_SWITCH, on)
            return switches.plan_switch(gemini / "settings.json", gemini,
                                        switches.GEMINI_SWITCH, on)
        patches = [patch for patch in gemini_store.list_gemini_inbox(gemini)
                   if (patch.project or "global") == row.key]
        if not patches:
            raise AgentInputError("no inbox patch waiting for this row")
        if extra:
            return inbox.plan_apply_patch(gemini, patches[0].path)
        return inbox.plan_dismiss_patch(gemini, patches[0].path)

    def _start(self, action: str, agents: tuple[str, ...], extra: Any = None) -> None:
        row = self.item_list.current()
        if row is None:
            self.memtui.say("Nothing selected.", severity="warning")
            return
        if row.agent not in agents:
            names = " or ".join(agents)
            self.memtui.say(f"That works on {names} rows only.", severity="warning")
            return
        self._plan(action, row, self.homes(), extra)

    @work(thread=True, exclusive=True, group="agents-write", exit_on_error=False)
    def _plan(self, action: str, row: AgentRow, homes: tuple[Path | None, ...],
              extra: Any) -> None:
        try:
            plan = self._plan_for(action, row, homes, extra)
        except (MemtuiError, OSError) as error:
            self.post_message(AgentsPlanned(None, str(getattr(error, "message", error))))
            return
        self.post_message(AgentsPlanned(plan))

    @on(AgentsPlanned)
    def _planned(self, message: AgentsPlanned) -> None:
        from memtui.app.modals.confirm import ConfirmModal
        from memtui.engine.agents.plans import mask_secrets

        if message.error is not None or message.plan is None:
            self.memtui.say(one_line(message.error or "nothing to do", 200),
                            severity="warning")
            return
        plan: WritePlan = message.plan
        body = Text()
        body.append(f"memtui will {one_line(plan.summary, 300)}.\n", style="bold")
        lines = plan.diff().splitlines()
        for line in lines[:MAX_DIFF_LINES]:
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
            body.append(one_line(tilde(mask_secrets(line)), 200) + "\n", style=style)
        if len(lines) > MAX_DIFF_LINES:
            body.append(f"… {len(lines) - MAX_DIFF_LINES} more diff lines\n", style="dim")
        for note in plan.notes:
            body.append(f"note: {one_line(note, 200)}\n", style="yellow")
        body.append("Refused if the agent changes the file meanwhile.", style="dim")

        def answered(yes: bool | None) -> None:
            if yes:
                self._apply(plan)

        self.app.push_screen(ConfirmModal("Change the agent's files?", body, "Write"), answered)

    @work(thread=True, exclusive=True, group="agents-write", exit_on_error=False)
    def _apply(self, plan: WritePlan) -> None:
        from memtui.engine.agents.plans import apply_plan

        try:
            apply_plan(plan, True)
        except (MemtuiError, OSError) as error:
            self.post_message(AgentsWritten(plan.summary, str(getattr(error, "message",
                                                                          error))))
            return
        self.post_message(AgentsWritten(plan.summary))

    @on(AgentsWritten)
    def _written(self, message: AgentsWritten) -> None:
        if message.error is not None:
            self.memtui.say(f"Nothing written: {one_line(message.error, 200)}",
                            severity="error")
        else:
            self.memtui.say(f"Done: {one_line(message.summary, 200)}")
        self.memtui.agent_files_changed()  # this pane reads again; the inbox is recounted

    def action_fix_index(self) -> None:
        """``x``: repair the selected row's index (after a confirm)."""
        self._start("fix", ("claude", "gemini"))

    def action_redact(self) -> None:
        """``s``: redact the secrets of the selected row's files (after a confirm)."""
        self._start("redact", ("claude", "gemini"))

    def action_switch(self) -> None:
        """``m``: switch the agent's auto memory in its user settings (after a confirm)."""
        self._start("switch", ("claude", "gemini"))

    def action_inbox(self, apply: bool) -> None:
        """``p`` / ``D``: apply or dismiss the first pending inbox patch (after a confirm)."""
        self._start("inbox", ("gemini",), apply)

    def action_reload(self) -> None:
        """Read every agent home again (they change outside memtui)."""
        self.refresh_data()
        self.memtui.say("Reading the agent homes again.", toast=False)

    def action_scroll_detail(self, direction: int) -> None:
        """``J`` / ``K``: scroll the details by half their height."""
        scroll = self.query_one("#agents-scroll", VerticalScroll)
        step = max(1, scroll.size.height // 2)
        scroll.scroll_relative(y=direction * step, animate=False)
