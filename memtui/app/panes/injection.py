"""The Injection preview pane: exactly what a new first-turn task in the current project
would receive, from the engine's own preview (nothing is written). ``c`` copies it."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Input, Static

from memtui.app.format import block
from memtui.app.panes.base import Pane
from memtui.errors import MemtuiError

REASON_TEXT = {
    "injected": "would be injected",
    "use_off": "Nothing is injected: use_memories is off — press u to turn it on.",
    "no_memories": "Nothing is injected: there are no active memories to inject yet.",
    "failed_open": "Nothing is injected: the preview failed, so a task would run with its "
                   "original text (fail open).",
}


class InjectionPane(Pane):
    """The first turn a new task in the current project would get."""

    PANE_ID = "inject"
    TITLE = "Inject"
    NOTHING_TO_COPY = "Nothing to copy: nothing would be injected."
    DEFAULT_CSS = """
    InjectionPane .inject-scroll { height: 1fr; padding: 0 1; }
    InjectionPane .inject-scroll:focus { background-tint: $foreground 3%; }
    InjectionPane .preview-text { width: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "copy", tooltip="Copy the whole first turn", id="inject.copy"),
        Binding("slash", "edit_prompt", "prompt",
                tooltip="Type an example prompt", id="inject.prompt"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.text = ""

    def compose(self) -> ComposeResult:
        """Title, an example prompt, the text the task would get."""
        yield Static("", classes="pane-title", id="inject-title")
        yield Input(placeholder="/ example prompt (optional; enter to preview)",
                    id="inject-prompt", compact=True, classes="search")
        with VerticalScroll(id="inject-scroll", classes="inject-scroll"):
            yield Static("", id="inject-text", classes="preview-text")

    def focus_target(self) -> Widget | None:
        """The text (so ``c`` copies)."""
        return self.query_one("#inject-scroll", VerticalScroll)

    def copy_text(self) -> tuple[str, str] | None:
        """The whole first turn."""
        return ("injection preview", self.text) if self.text else None

    def refresh_data(self) -> None:
        """Ask the engine for the preview again."""
        super().refresh_data()
        title = self.query_one("#inject-title", Static)
        body = self.query_one("#inject-text", Static)
        project, self.text = self.memtui.project, ""
        if project is None:
            title.update(Text("Injection preview", style="bold"))
            body.update(Text("No current project — you are not a member of any project yet.",
                             style="dim"))
            return
        prompt = self.query_one("#inject-prompt", Input).value
        try:
            result = self.memtui.engine.injection.preview_for_project(project, prompt=prompt)
        except MemtuiError as error:
            body.update(Text(error.message, style="bold"))
            return
        heading = Text(f"Injection preview · new task in {project} · ", style="bold")
        if result.injected:
            self.text = result.prompt
            heading.append(f"{len(result.memory_ids)} memories would be injected",
                           style="bold")
            body.update(block(result.prompt))
        else:
            heading.append("nothing injected", style="dim")
            body.update(Text(REASON_TEXT.get(result.reason, result.reason), style="dim"))
        heading.append(" · c copies", style="dim")
        title.update(heading)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Preview with the typed prompt."""
        event.stop()
        self.refresh_data()
        self.screen.set_focus(self.query_one("#inject-scroll", VerticalScroll))

    def action_edit_prompt(self) -> None:
        """Type an example prompt."""
        self.screen.set_focus(self.query_one("#inject-prompt", Input))
