"""The Profile pane: display name, time zone, preferences (a JSON object); a refused save
says why under the form and everything typed stays."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Static, TextArea

from memtui.app.format import local_time, zone
from memtui.app.panes.base import FormPane
from memtui.app.widgets.error_line import ErrorLine
from memtui.engine.validation import parse_preferences
from memtui.errors import MemtuiError
from memtui.store.models import Profile
from memtui.textsafe import safe_text

if TYPE_CHECKING:
    from memtui.app.messages import WriteRefused, Written

JSON_INDENT = 2


class ProfilePane(FormPane):
    """Edit the acting user's profile."""

    SCOPED_CSS = False
    DEFAULT_CSS = """
    .field-row { height: auto; min-height: 1; margin-top: 1; }
    .field-label { width: 16; }
    .field-label-wide { margin-top: 1; width: 1fr; }
    .field-row Input { width: 1fr; }
    #profile-prefs { height: 8; min-height: 4; }
    .form-buttons { height: auto; margin-top: 1; }
    .form-buttons Button { margin-right: 2; }
    """

    PANE_ID = "profile"
    TITLE = "Profile"
    STORED = "the profile"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "save", tooltip="Save the profile", id="profile.save"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.profile: Profile | None = None
        self._filled: tuple[str, str, str] | None = None
        """What the fields showed when last filled from the store (to tell edits)."""
        self._then: Callable[[], None] | None = None
        """What a save asked for on leaving the form does once the profile is saved."""

    def compose(self) -> ComposeResult:
        """The three fields, an error line and Save."""
        yield Static("", classes="pane-title", id="profile-title")
        with VerticalScroll(classes="form"):
            with Horizontal(classes="field-row"):
                yield Label("display name", classes="field-label")
                yield Input(id="profile-name", compact=True)
            with Horizontal(classes="field-row"):
                yield Label("time zone", classes="field-label")
                yield Input(id="profile-tz", compact=True, placeholder="e.g. Europe/Berlin")
            yield Label("preferences (a JSON object; no keys naming passwords, tokens or "
                        "secrets)", classes="field-label-wide")
            yield TextArea("", id="profile-prefs", language=None, show_line_numbers=False,
                           tab_behavior="focus")
            yield ErrorLine(id="profile-error", classes="form-error")
            with Horizontal(classes="form-buttons"):
                yield Button("Save (ctrl+s)", id="profile-save", variant="primary")
                yield Button("Revert", id="profile-revert")

    def focus_target(self) -> Widget | None:
        """Save (not a field: the pane keys 0–9 keep working until you tab into one)."""
        return self.query_one("#profile-save", Button)

    def read_stored(self) -> None:
        """The stored profile."""
        self.profile = self.memtui.engine.identity.profile()

    def show_stored(self) -> None:
        """The stored profile, unless the form holds unsaved edits."""
        if self.profile is not None and not self.dirty:
            self._fill(self.profile)
        self._show_title()

    @property
    def dirty(self) -> bool:
        """Whether the fields hold edits that are not saved."""
        return self._filled is not None and self._form() != self._filled

    def _form(self) -> tuple[str, str, str]:
        return (self.query_one("#profile-name", Input).value,
                self.query_one("#profile-tz", Input).value,
                self.query_one("#profile-prefs", TextArea).text)

    def _show_title(self) -> None:
        if self.profile is None:
            return
        title = Text("Profile of ", style="bold")
        title.append(safe_text(self.profile.user_id), style="bold")
        if self.dirty:
            title.append(" · modified (ctrl+s saves)", style="bold reverse")
        title.append(f" · last saved {local_time(self.profile.updated_at, self.memtui.tz)}"
                     if self.profile.updated_at else " · never saved", style="dim")
        self.query_one("#profile-title", Static).update(title)

    def unsaved_changes(self) -> bool:
        """Edits typed and not saved."""
        return self.is_mounted and self.dirty

    def save_changes(self, then: Callable[[], None]) -> None:
        """Save; ``then`` runs once the profile is saved (or found unchanged)."""
        self.action_save(then=then)

    def discard_changes(self) -> None:
        """Show the stored profile again."""
        if self.profile is not None:
            self._fill(self.profile)
        self.query_one("#profile-error", ErrorLine).update("")
        self._show_title()

    def _fill(self, profile: Profile) -> None:
        name = self.query_one("#profile-name", Input)
        zone = self.query_one("#profile-tz", Input)
        prefs = self.query_one("#profile-prefs", TextArea)
        with name.prevent(Input.Changed), zone.prevent(Input.Changed), \
                prefs.prevent(TextArea.Changed):
            name.value = safe_text(profile.display_name)
            zone.value = safe_text(profile.timezone)
            prefs.text = safe_text(json.dumps(profile.preferences, indent=JSON_INDENT,
                                              ensure_ascii=False, sort_keys=True))
        self._filled = self._form()

    @on(Input.Changed)
    @on(TextArea.Changed)
    def _typed(self, event: Input.Changed | TextArea.Changed) -> None:
        """Typing marks the form modified (a refresh no longer overwrites it)."""
        event.stop()
        self._show_title()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a field saves."""
        event.stop()
        self.action_save()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Save or revert."""
        event.stop()
        if event.button.id == "profile-save":
            self.action_save()
        else:
            self.discard_changes()

    def action_save(self, then: Callable[[], None] | None = None) -> None:
        """Check the JSON, then save through the engine (errors shown inline)."""
        from memtui.app.curator import update_profile

        error_line = self.query_one("#profile-error", Static)
        raw = self.query_one("#profile-prefs", TextArea).text
        try:
            preferences = parse_preferences(raw) if raw.strip() else {}
        except MemtuiError as error:
            error_line.update(Text(safe_text(str(error)), style="bold"))
            return
        error_line.update(Text("Saving…", style="dim"))
        self._then = then
        self.memtui.do(update_profile(
            self.memtui.engine, display_name=self.query_one("#profile-name", Input).value,
            timezone=self.query_one("#profile-tz", Input).value.strip(),
            preferences=preferences), self)

    def on_written(self, message: Written) -> None:
        """Saved: the times follow its time zone; a save asked for on leaving goes on."""
        self.memtui.tz = zone(message.change.result.timezone)
        self._saved()

    def on_write_refused(self, message: WriteRefused) -> None:
        """Refused: why, under the form (nothing to change is no refusal)."""
        if message.unchanged:
            self._saved()
            return
        self._then = None
        self.query_one("#profile-error", Static).update(Text(safe_text(message.error),
                                                             style="bold"))

    def _saved(self) -> None:
        self.query_one("#profile-error", Static).update("")
        self._filled = self._form()  # saved: show the stored profile as stored
        self.refresh_data()
        then, self._then = self._then, None
        if then is not None:
            then()
