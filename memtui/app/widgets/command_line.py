"""The ``/memory`` command line: an Input with completion, opened with ``:``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from textual.binding import Binding
from textual.message import Message
from textual.suggester import Suggester
from textual.widgets import Input

from memtui.app.commands import PREFIX, USAGE, complete
from memtui.app.textual_compat import input_suggestion

if TYPE_CHECKING:
    from memtui.app.app import MemtuiApp


class CommandSuggester(Suggester):
    """Completes ``/memory`` subcommands, and ``show``/``forget`` with the selected id."""

    def __init__(self, current_id: Callable[[], str | None]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self._current_id = current_id

    async def get_suggestion(self, value: str) -> str | None:
        """The completed line for what was typed, or None."""
        return complete(value, self._current_id)


class CommandLine(Input):
    """A one-line input for ``/memory`` commands: tab completes, Enter runs, Escape closes."""

    DEFAULT_CSS = """
    CommandLine, CommandLine:focus { height: 1; background: $surface; border: none; }
    """

    BINDINGS = [
        Binding("escape", "close", "close", show=False,
                tooltip="Close the command line", id="command.close"),
        Binding("tab", "complete", "complete", show=False,
                tooltip="Take the completion", id="command.complete"),
    ]

    def __init__(self, current_id: Callable[[], str | None], *, id: str | None = None) -> None:
        super().__init__(placeholder=USAGE, suggester=CommandSuggester(current_id), id=id,
                         compact=True, select_on_focus=False)

    def open(self, text: str = PREFIX + " ") -> None:
        """Show the line with ``text`` in it and focus it."""
        self.display = True
        self.value = text
        self.cursor_position = len(text)
        self.screen.set_focus(self)  # at once: typed keys may already be queued

    def action_close(self) -> None:
        """Hide the line (the app puts focus back)."""
        self.display = False
        self.value = ""
        self.post_message(self.Closed(self))

    def on_input_submitted(self, message: Input.Submitted) -> None:
        """Enter: run the command (a wrong one is said, and the line stays open)."""
        from memtui.app.commands import CommandError, parse_command, run

        message.stop()
        app = cast("MemtuiApp", self.app)
        try:
            command = parse_command(message.value)
        except CommandError as error:
            app.say(error.message, severity="error")
            return
        self.action_close()
        run(app, command)

    def action_complete(self) -> None:
        """Take the suggested completion."""
        suggestion = input_suggestion(self)
        if suggestion and suggestion != self.value:
            self.value = suggestion
            self.cursor_position = len(self.value)

    @dataclass
    class Closed(Message):
        """The command line was closed without running anything."""

        command_line: CommandLine
