"""The header line (who, which project, which store, the worker's state) and the status line
(what the last action did, a progress bar while a job runs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from memtui.app.widgets.text_line import TextLine
from memtui.textsafe import one_line

if TYPE_CHECKING:
    from memtui.app.background import RecordedRun

MIN_PATH_CELLS = 12


def shorten_path(path: str, width: int) -> str:
    """A path cut from the left to ``width`` cells (``…/demo.db``), home shown as ``~``."""
    from pathlib import Path

    home = str(Path.home())
    if home != "/" and path.startswith(home + "/"):
        path = "~" + path[len(home):]
    return path if len(path) <= width else "…" + path[-max(1, width - 1):]


@dataclass(frozen=True)
class HeaderCounts:
    """What the header shows from the store (``None``: not read yet, or it could not be)."""

    inbox: int | None = None
    generate: bool | None = None
    use: bool | None = None
    last_run: RecordedRun | None = None


@dataclass
class HeaderInfo:
    """What the header shows."""

    user: str = ""
    project: str | None = None
    store_path: str = ""
    worker: str = "idle"
    worker_short: str = ""
    """A shorter worker state for narrow terminals (empty: cut ``worker``)."""
    busy: bool = False
    inbox: int = 0
    generate: bool | None = None
    use: bool | None = None
    """The switches (None: unknown, not shown)."""

    def flags_text(self) -> str:
        """``gen+use on``, ``gen on use off`` (words, not only a color)."""
        if self.generate is None or self.use is None:
            return ""
        if self.generate == self.use:
            return f"gen+use {'on' if self.generate else 'off'}"
        return f"gen {'on' if self.generate else 'off'} use {'on' if self.use else 'off'}"


class StatusHeader(TextLine):
    """One line: app, acting user, current project, store path, worker state."""

    DEFAULT_CSS = """
    StatusHeader { height: 1; background: $panel; color: $foreground; }
    """

    def __init__(self, info: HeaderInfo | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.info = info or HeaderInfo()

    def set_info(self, info: HeaderInfo) -> None:
        """Show new information."""
        self.info = info
        self.refresh()

    @staticmethod
    def _identity(info: HeaderInfo, *, with_labels: bool) -> Text:
        """Who, which project, the inbox count and the generate/use switches."""
        left = Text()
        left.append(" memtui ", style="bold reverse")
        left.append(" ")
        left.append(one_line(info.user, 24), style="bold")
        left.append(" · ")
        project = one_line(info.project, 24) if info.project else "—"
        left.append(f"project {project}" if with_labels else project)
        if info.inbox:
            left.append(" · ")
            left.append(f"inbox {info.inbox}", style="bold")
        flags = info.flags_text()
        if flags:
            left.append(" · ")
            left.append(flags, style="bold" if info.generate or info.use else "dim")
        return left

    def render(self) -> Text:
        """The line, fitted to the width (the store path gives way first, then the word
        "project")."""
        info = self.info
        width = self.size.width or 80
        left = self._identity(info, with_labels=True)
        worker_short = "worker " + one_line(info.worker_short or info.worker, 40)
        if left.cell_len + 1 + len(worker_short) > width:  # narrow: no "project" label
            left = self._identity(info, with_labels=False)
        separator = " · "
        style = "bold" if info.busy else ""
        path = shorten_path(info.store_path, 10_000)
        worker = Text("worker " + one_line(info.worker, 90), style=style)
        room = width - left.cell_len - len(separator) - worker.cell_len - 3
        if room < len(path) and info.worker_short:
            worker = Text("worker " + one_line(info.worker_short, 40), style=style)
            room = width - left.cell_len - len(separator) - worker.cell_len - 3
        if room >= MIN_PATH_CELLS:
            left.append(separator)
            left.append(shorten_path(info.store_path, room), style="dim")
        else:
            worker.truncate(max(10, width - left.cell_len - 1), overflow="ellipsis")
        left.append(" " * max(1, width - left.cell_len - worker.cell_len))
        left.append_text(worker)
        left.truncate(width, overflow="ellipsis")
        return left


class StatusLine(Horizontal):
    """The last message (literal text) and, while a job runs, its progress bar."""

    DEFAULT_CSS = """
    StatusLine { height: auto; max-height: 3; background: $panel; }
    StatusLine > #status-message { width: 1fr; height: auto; max-height: 3; }
    StatusLine > ProgressBar { width: 40; height: 1; display: none; }
    StatusLine.-busy > ProgressBar { display: block; }
    """

    def __init__(self, message: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._first_message = message

    def compose(self) -> ComposeResult:
        """The message."""
        yield Static(self.message_text(self._first_message), id="status-message")

    @staticmethod
    def message_text(text: str, severity: str = "information") -> Text:
        """A message as shown: literal, one paragraph, colored (and bold) by severity."""
        style = {"error": "bold red", "warning": "bold yellow"}.get(severity, "")
        return Text(" " + one_line(text), style=style) if text else Text("")

    def say(self, text: str, severity: str = "information") -> None:
        """Show a message (store text inside is shown literally)."""
        self.query_one("#status-message", Static).update(self.message_text(text, severity))

    def progress(self, done: int | None, total: int | None) -> None:
        """Show progress (``done`` None hides the bar)."""
        if done is None:
            self.remove_class("-busy")
            return
        from textual.widgets import ProgressBar

        bars = self.query(ProgressBar)
        if bars:
            bar = bars.first()
        else:
            bar = ProgressBar(id="status-progress", show_eta=False)
            self.mount(bar)
        self.add_class("-busy")
        bar.update(total=total if total else None, progress=done)
