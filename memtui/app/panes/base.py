"""The base of every pane: an id, a tab title, and ``refresh_data`` to re-read the store;
``JobRunner``, the thread jobs of the panes and the main screen.

A pane re-reads by one rule: when it is ``stale`` and ``shown`` (two reactives). The app only
sets them -- ``stale`` when the store or the pane's target changed, ``shown`` when it
switches panes -- and never calls ``refresh_data`` itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Mount
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from memtui.errors import MemtuiError

if TYPE_CHECKING:
    from memtui.app.app import MemtuiApp
    from memtui.app.widgets.line_list import LineList
    from memtui.store.models import Memory

ResultType = TypeVar("ResultType")

DETAIL_BINDINGS: list[BindingType] = [
    Binding("J", "scroll_detail(1)", "detail↓",
            tooltip="Scroll the details below the list down (half their height)",
            id="pane.detail_down"),
    Binding("K", "scroll_detail(-1)", "detail↑",
            tooltip="Scroll the details below the list up (half their height)",
            id="pane.detail_up"),
]
"""Keys of every pane with a details area below its list (added after its own keys)."""


@dataclass
class JobDone(Message):
    """Run ``done(result, error)`` on the UI thread: a thread job's end (``run_job``), or
    an extraction's progress."""

    done: Callable[[Any, str | None], None]
    result: Any = None
    error: str | None = None


class JobRunner(Widget):
    """Runs thread jobs whose results come back on the UI thread (panes, the main screen)."""

    def run_job(self, group: str, job: Callable[[], ResultType],
                done: Callable[[ResultType | None, str | None], None], *,
                exclusive: bool = True) -> None:
        """Run ``job`` in a thread worker of ``group`` (reading files or the store off the UI
        thread); then ``done(result, None)`` on the UI thread, or ``done(None, why)`` when
        the job raised a ``MemtuiError`` or ``OSError``. A job a newer one of its
        ``exclusive`` group replaced calls nothing."""
        from textual.worker import get_current_worker

        def run() -> None:
            try:
                message = JobDone(done, job())
            except (MemtuiError, OSError) as error:
                message = JobDone(done, error=str(error))
            if not get_current_worker().is_cancelled:
                self.post_message(message)

        self.run_worker(run, thread=True, exclusive=exclusive, group=group, exit_on_error=False)

    @on(JobDone)
    def _job_done(self, message: JobDone) -> None:
        message.stop()
        message.done(message.result, message.error)


class Pane(JobRunner, Vertical):
    """One pane of the app: subclasses set ``PANE_ID`` and ``TITLE``, implement
    ``refresh_data``."""

    PANE_ID: ClassVar[str] = ""
    TITLE: ClassVar[str] = ""
    COPY_LABEL: ClassVar[str] = "memory"
    """What ``c`` calls the selected memory it copies (``memory``, ``version``)."""
    NOTHING_TO_COPY: ClassVar[str] = "Nothing to copy."
    READ_WHEN_SHOWN: ClassVar[bool] = False
    """True for a pane that also shows files outside the store (which change without the
    store knowing): it reads again each time it is shown."""

    DEFAULT_CSS = "Pane { height: 1fr; }"

    stale: reactive[bool] = reactive(True, init=False)
    """What the pane shows may be out of date (the store changed, or what the pane is
    about). A pane on screen re-reads at once; a hidden one when it is next shown."""
    shown: reactive[bool] = reactive(False, init=False)
    """Whether this is the pane on screen (the app sets it when it switches panes)."""
    write_refusal: str | None = None
    """Why the user may not write what the pane shows (None: writes allowed)."""
    WRITE_ACTIONS: ClassVar[frozenset[str]] = frozenset()
    """The pane's actions that write: not offered while ``write_refusal`` is set."""

    def __init__(self) -> None:
        super().__init__(id=f"pane-{self.PANE_ID}", classes="pane")
        self.display = False

    def watch_stale(self, stale: bool) -> None:
        """Marked stale while on screen: re-read now."""
        if stale:
            self._refresh_if_due()

    def watch_shown(self, shown: bool) -> None:
        """Shown or hidden; shown while stale: re-read now."""
        self.display = shown
        if shown:
            self._refresh_if_due()

    @on(Mount)
    def _read_when_mounted(self) -> None:
        """A pane shown before it was mounted is read once its parts are."""
        if self.stale and self.shown:
            self.refresh_data()

    def _refresh_if_due(self) -> None:
        # not while the app shuts down: its widgets are removed children first, so a pane
        # still mounted may have lost the parts it would read into (it stays stale)
        if self.stale and self.shown and self.is_mounted and self.app.is_running:
            self.refresh_data()

    @property
    def memtui(self) -> MemtuiApp:
        """The app, typed."""
        return cast("MemtuiApp", self.app)

    def refresh_data(self) -> None:
        """Re-read what the pane shows from the store (keep selection and scroll)."""
        self.stale = False

    def check_writes(self, project: str | None, *, asked: bool = True) -> None:
        """Set ``write_refusal`` for writes in ``project`` (not ``asked``: nothing to write,
        no refusal); the key bar follows."""
        try:
            refusal = self.memtui.engine.identity.write_refusal(project) if asked else None
        except MemtuiError as error:
            refusal = error.message
        if refusal != self.write_refusal:
            self.write_refusal = refusal
            self.refresh_bindings()

    def focus_target(self) -> Widget | None:
        """The widget that gets focus when the pane is shown."""
        return None

    def selected_memory(self) -> Memory | None:
        """The memory the pane has selected, if any (``/memory show``, copy)."""
        return None

    def copy_text(self) -> tuple[str, str] | None:
        """(what, text) that ``c`` copies, or None: by default the selected memory's text."""
        memory = self.selected_memory()
        return None if memory is None else (f"{self.COPY_LABEL} {memory.id}", memory.content)

    def offers(self, action: str) -> bool:
        """Whether the key bar offers ``action`` here: a write the user's role does not
        allow is not offered (its key still answers, saying why)."""
        return action not in self.WRITE_ACTIONS or self.write_refusal is None

    def unsaved_changes(self) -> bool:
        """Whether the pane holds edits that are not saved (the forms)."""
        return False

    def save_changes(self, then: Callable[[], None]) -> None:
        """Save the unsaved edits and call ``then`` once they are saved (never after a
        refusal: the form shows why next to the field, and the edits stay)."""
        then()

    def discard_changes(self) -> None:
        """Drop the unsaved edits: show what is stored."""

    def show_detail(self, memory_id: str) -> None:
        """A memory's detail view (``enter``)."""
        from memtui.app.modals.detail import memory_detail_view

        self.memtui.do(memory_detail_view(self.memtui.engine, memory_id, self.memtui.tz))

    def on_line_list_opened(self, message: LineList.Opened) -> None:
        """Enter on a list row: the selected memory's detail view (panes may prevent it)."""
        message.stop()
        memory = self.selected_memory()
        if memory is not None:
            self.show_detail(memory.id)

    def ready(self) -> bool:
        """Whether the pane has read what it shows (actions from elsewhere wait for it)."""
        return True

    def forget_selected(self) -> None:
        """Forget what the pane has selected, asking first (default: the last memory)."""
        from memtui.app.curator import Notice, forget

        memory_id = self.memtui.selected_memory_id
        self.memtui.do(forget([memory_id]) if memory_id else Notice("No memory selected."))

    def correct_selected(self) -> None:
        """Correct what the pane has selected (by default: the memory last selected)."""
        from memtui.app.curator import correct_by_id

        self.memtui.do(correct_by_id(self.memtui.engine, self.memtui.current_memory_id()))

    def action_scroll_detail(self, direction: int) -> None:
        """``J`` / ``K``: scroll the details below the list by half their height."""
        from memtui.app.widgets.preview import PreviewScroll

        scroll = next(iter(self.query(PreviewScroll)), None)
        if scroll is None:
            return
        step = max(1, scroll.size.height // 2)
        scroll.scroll_relative(y=direction * step, animate=False)

    def action_copy(self) -> None:
        """``c``: copy what ``copy_text`` names, or say ``NOTHING_TO_COPY``."""
        what = self.copy_text()
        if what is None:
            self.memtui.say(self.NOTHING_TO_COPY, severity="warning")
            return
        self.memtui.copy_text(what[1], what[0])


class FormPane(Pane):
    """A pane that is a form (Profile, Settings): tab moves between fields, escape leaves."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "next_field(1)", "next field", show=False,
                tooltip="Next field (never a button: typing stays in the fields)",
                id="form.next"),
        Binding("shift+tab", "next_field(-1)", "previous field", show=False,
                tooltip="Previous field", id="form.previous"),
        Binding("escape", "leave_form", "leave form", show=False,
                tooltip="Leave the form (then 0–9 and tab switch panes)", id="form.leave"),
    ]
    FIELDS: ClassVar[str] = "Input, TextArea, Checkbox, Select"
    """What tab moves between: the fields, never a button (letters typed after a tab
    would press it, or reach the app's keys)."""
    STORED: ClassVar[str] = ""
    """What the form shows, for people: ``the profile``, ``the settings``."""

    def read_stored(self) -> None:
        """Read what is stored into the pane (MemtuiError when it cannot be read)."""
        raise NotImplementedError

    def show_stored(self) -> None:
        """Show what ``read_stored`` read in the fields."""
        raise NotImplementedError

    def refresh_data(self) -> None:
        """Read what is stored and show it; when it cannot be read, say why."""
        super().refresh_data()
        try:
            self.read_stored()
        except MemtuiError as error:
            self.memtui.say(f"Could not read {self.STORED}: {error.message}", severity="error")
            return
        self.show_stored()

    def action_next_field(self, step: int) -> None:
        """Tab / shift+tab: the next or previous field of the form (round the end)."""
        fields = [widget for widget in self.query(self.FIELDS) if widget.focusable]
        if not fields:
            return
        focused = self.screen.focused
        here = next((index for index, widget in enumerate(fields)
                     if focused is not None and widget in focused.ancestors_with_self), None)
        if here is None:
            target = fields[0] if step > 0 else fields[-1]
        else:
            target = fields[(here + step) % len(fields)]
        target.focus()

    def action_leave_form(self) -> None:
        """Escape: leave the form so the pane keys (0–9, tab) work again."""
        self.screen.set_focus(None)

    SCOPED_CSS = False
    DEFAULT_CSS = """
    .form { height: 1fr; padding: 0 1; }
    .form-error { height: auto; color: $text-error; text-style: bold; }
    """
