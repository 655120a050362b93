"""The Settings pane: the user's auto-memory settings and per-task flags; switches apply at
once, numbers and model names on Enter (a refusal shows under the field)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, Select, Static

from memtui.app.curator import change_settings, task_flags
from memtui.app.panes.base import FormPane
from memtui.app.widgets.error_line import ErrorLine
from memtui.engine.task_flags import FOLLOW, flag_word
from memtui.errors import MemtuiError
from memtui.store.models import Task
from memtui.textsafe import one_line

if TYPE_CHECKING:
    from memtui.app.messages import WriteRefused, Written

TASK_CHOICES = 50
"""How many of the user's latest tasks the per-task flag picker offers."""
ENDPOINT_GROUP = "settings-endpoint"
FLAG_CHOICES: list[tuple[str, str]] = [("follow my setting", FOLLOW), ("on", "on"),
                                       ("off", "off")]
_SWITCH = "switch"
_TEXT_KINDS = ("model", "url", "env_name")


class SettingsPane(FormPane):
    """Auto-memory settings and per-task overrides."""

    SCOPED_CSS = False
    DEFAULT_CSS = """
    .setting-row { height: 1; }
    .setting-switch, .setting-input { width: 14; }
    .setting-name { width: 34; padding-left: 1; }
    .setting-meaning { width: 1fr; height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    .section-title { margin-top: 1; height: 1; }
    #flag-task { width: 1fr; }
    .flag-label { width: 10; }
    #flag-use, #flag-generate { width: 24; }
    .field-help { height: 2; padding: 0 1; border-top: hkey $primary 50%; color: $text-muted; }
    """

    PANE_ID = "settings"
    TITLE = "Settings"
    STORED = "the settings"

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, Any] = {}
        self._shown: dict[str, str] = {}
        """What each text field showed when last filled from the store."""
        self._tasks: dict[str, Task] = {}
        self._then: Callable[[], None] | None = None
        """What a save asked for on leaving the form does once the settings are stored."""

    def compose(self) -> ComposeResult:
        """One line per setting, then the per-task flags, then help for the focused field."""
        yield Static(self._title(), classes="pane-title", id="settings-title")
        with VerticalScroll(id="settings-form", classes="form"):
            for spec in self.memtui.engine.settings.specs():
                with Horizontal(classes="setting-row", id=f"row-{spec.name}"):
                    if spec.kind == _SWITCH:
                        yield Checkbox("", id=f"set-{spec.name}", compact=True,
                                       classes="setting-switch")
                    else:
                        yield Input(id=f"set-{spec.name}", compact=True,
                                    # text, never "integer": Textual's integer field
                                    # drops what it does not accept (1.5 became 15);
                                    # the engine checks what was typed and says why
                                    type="text",
                                    classes="setting-input",
                                    placeholder="none" if spec.kind in _TEXT_KINDS else "")
                    yield Label(spec.name, classes="setting-name")
                    yield Static(Text(f"default {self._default(spec)} · {spec.meaning}",
                                      style="dim"), classes="setting-meaning")
                yield ErrorLine(id=f"err-{spec.name}", classes="form-error")
            yield Static("", id="endpoint-status", classes="setting-row")
            yield Static(Text("Per-task flags (override the switches for one task)",
                              style="bold"), classes="section-title")
            yield Select[str]([], id="flag-task", prompt="choose one of your tasks",
                              compact=True)
            with Horizontal(classes="setting-row"):
                yield Label("use", classes="flag-label")
                yield Select[str](FLAG_CHOICES, id="flag-use", allow_blank=False,
                                  value=FOLLOW, compact=True)
                yield Label("generate", classes="flag-label")
                yield Select[str](FLAG_CHOICES, id="flag-generate", allow_blank=False,
                                  value=FOLLOW, compact=True)
            yield ErrorLine(id="err-flags", classes="form-error")
        yield Static("", id="settings-help", classes="field-help")

    def _title(self) -> Text:
        title = Text.assemble(("Settings", "bold"))
        modified = self._modified()
        if modified:
            what = modified[0] if len(modified) == 1 else f"{len(modified)} fields"
            title.append(f" · modified: {what} (enter applies)", style="bold reverse")
        else:
            title.append(" · switches apply at once (space), numbers on enter", style="dim")
        return title

    def _modified(self) -> list[str]:
        """The fields whose text differs from the stored value (typed, not applied)."""
        if not self.is_mounted:
            return []
        return [name for name, shown in self._shown.items()
                if self.query_one(f"#set-{name}", Input).value != shown]

    def _show_title(self) -> None:
        self.query_one("#settings-title", Static).update(self._title())

    def unsaved_changes(self) -> bool:
        """Numbers or model names typed and not applied."""
        return bool(self._modified())

    def save_changes(self, then: Callable[[], None]) -> None:
        """Apply every typed field at once (all or nothing); ``then`` once applied. A field
        the engine refuses says why under it, and nothing is applied."""
        changes: dict[str, Any] = {}
        for name in self._modified():
            try:
                changes[name] = self.memtui.engine.settings.parse_typed(
                    name, self.query_one(f"#set-{name}", Input).value)
            except MemtuiError as error:
                self._error(name, error.message)
                self.query_one(f"#set-{name}", Input).focus()
                return
        if not changes:
            then()
            return
        self._then = then
        self.memtui.do(change_settings(self.memtui.engine, changes, form="settings"), self)

    def on_written(self, message: Written) -> None:
        """A change this pane asked for is stored: show it; a save on leaving goes on."""
        for name in message.change.result or ():
            self._shown.pop(name, None)
        self.refresh_data()
        then, self._then = self._then, None
        if then is not None and message.write.form == "settings":
            then()

    def on_write_refused(self, message: WriteRefused) -> None:
        """Refused: why, under the field (a whole save and a flag: under the flags)."""
        self._then = None
        form = message.write.form or "flags"
        self._error("flags" if form == "settings" else form, message.error)

    def discard_changes(self) -> None:
        """Put the stored values back in the fields."""
        for name, shown in self._shown.items():
            self.query_one(f"#set-{name}", Input).value = shown
            self._error(name, "")
        self._show_title()

    def on_input_changed(self, event: Input.Changed) -> None:
        """Typing marks the pane modified."""
        event.stop()
        self._show_title()

    @staticmethod
    def _default(spec: Any) -> str:
        if spec.kind == _SWITCH:
            return "on" if spec.default else "off"
        return "none" if spec.default is None else str(spec.default)

    def on_descendant_focus(self, event: Any) -> None:
        """Explain the focused setting in full on the help line."""
        widget_id = getattr(event.widget, "id", None) or ""
        spec = {s.name: s for s in self.memtui.engine.settings.specs()}.get(
            widget_id.removeprefix("set-"))
        help_line = self.query_one("#settings-help", Static)
        if spec is None:
            help_line.update("")
            return
        help_line.update(Text(f"{spec.name}: {spec.meaning} (default {self._default(spec)})"))

    def focus_target(self) -> Widget | None:
        """The first switch."""
        return self.query(Checkbox).first() if self.query(Checkbox) else None

    def read_stored(self) -> None:
        """The stored settings."""
        self.values = self.memtui.engine.settings.get()

    def show_stored(self) -> None:
        """The stored settings (a field being edited keeps what was typed)."""
        for spec in self.memtui.engine.settings.specs():
            value = self.values.get(spec.name)
            if spec.kind == _SWITCH:
                switch = self.query_one(f"#set-{spec.name}", Checkbox)
                with switch.prevent(Checkbox.Changed):
                    switch.value = bool(value)
                switch.label = "on" if value else "off"
            else:
                field = self.query_one(f"#set-{spec.name}", Input)
                shown = "" if value is None else str(value)
                # a field holding typed, unapplied text keeps it
                if spec.name not in self._shown or field.value == self._shown[spec.name]:
                    with field.prevent(Input.Changed):
                        field.value = shown
                    self._shown[spec.name] = shown
        self._show_title()
        self._refresh_tasks()
        status = self.query_one("#endpoint-status", Static)
        status.display = bool(self.values.get("model_base_url"))
        if status.display:
            status.update(Text(" model endpoint: asking…", style="dim"))
            # whether it answers: a short timeout, off the UI thread
            self.run_job(ENDPOINT_GROUP, self.memtui.engine.settings.endpoint_status,
                         self._endpoint_checked)

    def _endpoint_checked(self, words: str | None, error: str | None) -> None:
        words = f"could not ask: {error}" if error is not None else words or ""
        style = "green" if words.startswith("answers") else "bold red"
        self.query_one("#endpoint-status", Static).update(
            Text.assemble(" model endpoint: ", (one_line(words, 200), style)))

    def _refresh_tasks(self) -> None:
        picker = self.query_one("#flag-task", Select)
        try:
            tasks = self.memtui.engine.tasks.list_tasks(limit=TASK_CHOICES, mine=True)
        except MemtuiError as error:
            self.query_one("#err-flags", Static).update(Text(error.message))
            return
        self._tasks = {task.id: task for task in tasks}
        chosen = picker.value if picker.value in self._tasks else Select.NULL
        with picker.prevent(Select.Changed):
            picker.set_options([(Text(f"{task.id} · {one_line(task.goal or task.prompt, 50)}"),
                                 task.id) for task in tasks])
            picker.value = chosen
        self._show_flags()

    def _show_flags(self) -> None:
        picker = self.query_one("#flag-task", Select)
        task = self._tasks.get(picker.value) if isinstance(picker.value, str) else None
        for name, attribute in (("use", "use_memories"), ("generate", "generate_memories")):
            select = self.query_one(f"#flag-{name}", Select)
            with select.prevent(Select.Changed):
                select.value = flag_word(getattr(task, attribute) if task else None)
            select.disabled = task is None

    def _error(self, name: str, message: str) -> None:
        """Say why under the field (an empty message hides the line)."""
        self.query_one(f"#err-{name}", Static).update(Text(one_line(message), style="bold"))

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        """A switch applies at once."""
        event.stop()
        name = (event.checkbox.id or "").removeprefix("set-")
        event.checkbox.label = "on" if event.value else "off"
        self._apply(name, int(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """A number or model name applies on Enter."""
        event.stop()
        name = (event.input.id or "").removeprefix("set-")  # every Input here is a setting's
        try:
            value = self.memtui.engine.settings.parse_typed(name, event.value)
        except MemtuiError as error:
            self._error(name, error.message)
            return
        self._apply(name, value)

    def _apply(self, name: str, value: Any) -> None:
        self._error(name, "")
        if self.values.get(name) == value:  # show the stored value (as stored), unmarked
            self._shown.pop(name, None)
            self.refresh_data()
            self.memtui.say(f"{name} is {'none' if value is None else value} already: "
                            "nothing changed.", toast=False)
            return
        self.memtui.do(change_settings(self.memtui.engine, {name: value}, form=name), self)

    def on_select_changed(self, event: Select.Changed) -> None:
        """Choosing a task shows its flags; changing a flag applies it."""
        event.stop()
        if event.select.id == "flag-task":
            self._show_flags()
            return
        picker = self.query_one("#flag-task", Select)
        if not isinstance(picker.value, str) or not isinstance(event.value, str):
            return
        name = (event.select.id or "").removeprefix("flag-")
        self._error("flags", "")
        self.memtui.do(task_flags(self.memtui.engine, picker.value, **{name: event.value}),
                       self)
