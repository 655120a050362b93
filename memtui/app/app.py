"""``MemtuiApp``: the panes and the keys that switch them, live refresh, the store writes;
``MainScreen``: the header and status line around the panes, and the extraction worker."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar, TypeGuard, cast
from zoneinfo import ZoneInfo

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import get_current_worker

from memtui.app.background import ExtractionRunner
from memtui.app.format import zone
from memtui.app.palette import MemoryCommands
from memtui.app.panes import PANES, Pane
from memtui.app.panes.base import JobRunner
from memtui.app.panes.memories import MemoriesPane
from memtui.app.textual_compat import app_keymap
from memtui.app.widgets.key_bar import KeyBar
from memtui.app.widgets.paint_hold import paint_hold
from memtui.app.widgets.pane_bar import PaneBar, PaneLabel
from memtui.app.widgets.status import HeaderCounts, HeaderInfo, StatusHeader, StatusLine
from memtui.engine.api import Engine
from memtui.engine.jobs import ROUND
from memtui.errors import MemtuiError, StoreError, Unchanged
from memtui.store.backend import StoreBackend

if TYPE_CHECKING:
    from textual.message_pump import MessagePump
    from textual.widget import AwaitMount

    from memtui.app.clipboard import Clipboard
    from memtui.app.curator import Step, UndoStep, Write
    from memtui.app.inbox_sources import InboxSources
    from memtui.app.messages import WriteRefused, Written
    from memtui.app.widgets.command_line import CommandLine
    from memtui.engine.purge import PurgeStatus

WRITE_GROUP = "store-write"
"""The worker group of store writes (and of the reads a forget's question needs)."""
POLL_INTERVAL_SECONDS = 0.75
"""How often the app asks SQLite whether another connection wrote (``data_version``)."""
WORKER_INTERVAL_SECONDS = 60.0
"""How often the background worker runs an extraction round on its own."""
TOAST_SECONDS = 4.0
GC_YOUNG_THRESHOLD = 10_000
"""The collector's youngest-generation threshold once the app has started (Python's default,
700, collected several times inside a typed key's frame)."""
PANE_KEYS = "1234567890"
"""The keys that show the panes, in pane order (the tenth pane is ``0``)."""
START_PANE = "user"
HISTORY_PANE = "history"
INBOX_PANE = "inbox"
PURGE_GROUP = "purge"
HEADER_GROUP = "header-counts"
"""The worker group of the header's store reads (inbox count, gen/use, last run)."""
COMMAND_LINE_ID = "command-line"
START_MESSAGE = "Press ? for keys, : for /memory commands, ctrl+p for the palette"
TALL_ROWS = 40
"""From this many rows the screen gets the ``-tall`` class (bigger previews)."""
SPECS = {spec.PANE_ID: spec for spec in PANES}
"""The panes by id, in tab order."""


def style_paths() -> list[str | PurePath]:
    """The app's TCSS files, from the ``memtui.styles`` package."""
    import memtui.styles

    folder = Path(memtui.styles.__file__).parent
    return [path for path in sorted(folder.iterdir()) if path.suffix == ".tcss"]


def system_copy(text: str) -> None:
    """Copy to the system clipboard with pyperclip (raises where there is none)."""
    import pyperclip

    pyperclip.copy(text)


@dataclass
class AppConfig:
    """Tuning and test hooks. ``None`` intervals switch a timer off (the snapshot tests do)."""

    poll_interval: float | None = POLL_INTERVAL_SECONDS
    worker_interval: float | None = WORKER_INTERVAL_SECONDS
    keymap_path: Path | None = None
    load_keymap: bool = True
    system_clipboard: Callable[[str], None] | None = system_copy
    start_pane: str = START_PANE
    store_label: str | None = None
    """Shown in the header instead of the store path (tests: a path that never changes)."""
    codex_home: Path | None = None
    """The agents' homes (``--codex-home`` ...; None: the agent's own default)."""
    claude_home: Path | None = None
    gemini_home: Path | None = None
    remember_theme: bool = True
    """Start with the theme last chosen and remember a new choice (``ui_config.py``)."""
    ui_config_path: Path | None = None
    """The file of remembered choices (None: ``$MEMTUI_APP_CONFIG`` or ~/.config/memtui)."""


def pane_key(pane_id: str) -> str | None:
    """The key that shows a pane (None past the tenth)."""
    return dict(zip(SPECS, PANE_KEYS, strict=False)).get(pane_id)


def pane_labels() -> list[PaneLabel]:
    """The pane bar's names: ``1 Profile`` … (the key first where a key shows the pane)."""
    return [PaneLabel(spec.PANE_ID, f"{key} {spec.TITLE}"
                      if (key := pane_key(spec.PANE_ID)) else spec.TITLE) for spec in PANES]


class MainScreen(JobRunner, Screen[None]):
    """Header, the pane bar, the pane shown, the command line, the status line, the key
    bar; the header's counts and the extraction and purge jobs (its workers)."""

    AUTO_FOCUS = ""
    """The app focuses the start pane's own target (its list, not its search box)."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "app.next_pane(1)", "next pane", show=False,
                tooltip="Next pane (in a form: next field)", id="app.next_pane"),
        Binding("shift+tab", "app.next_pane(-1)", "previous pane", show=False,
                tooltip="Previous pane (in a form: previous field)", id="app.previous_pane"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.header_counts = HeaderCounts()
        """What the header shows from the store (``header_worker``)."""
        self.closing = threading.Event()

    @property
    def memtui(self) -> MemtuiApp:
        """The app, typed."""
        return cast(MemtuiApp, self.app)

    def compose(self) -> ComposeResult:
        """The layout."""
        app = self.memtui
        yield StatusHeader(self.header_info(), id="header")
        yield PaneBar(pane_labels(), app.active_pane_id, id="pane-bar")
        with Container(id="panes"):
            start = SPECS[app.active_pane_id]()
            start.shown = True
            yield start  # the others (and the command line) are mounted when first used
        yield StatusLine(START_MESSAGE, id="status")
        yield KeyBar(id="keys")

    def on_unmount(self) -> None:
        """Closing: the paint hold, the worker (between transactions), the purge retry."""
        paint_hold(self.app).close()  # first: the stop below may raise
        self.closing.set()
        self.memtui.runner.stop()

    def on_screen_suspend(self) -> None:
        """A dialog opened: toasts go, so none covers it (the status line keeps the last)."""
        self.app.clear_notifications()

    def header_info(self) -> HeaderInfo:
        """What the header says now (reads nothing from the store)."""
        app, counts = self.memtui, self.header_counts
        label = app.config.store_label or app.store.location
        return HeaderInfo(user=app.engine.actor, project=app.project,
                          store_path=f"{label} (read-only)" if app.store.read_only else label,
                          worker=app.runner.status(app.tz),
                          worker_short=app.runner.status(app.tz, short=True),
                          busy=app.runner.state.running, inbox=counts.inbox or 0,
                          generate=counts.generate, use=counts.use)

    def show_header(self) -> None:
        """Draw the header again (not before it is mounted, nor while shutting down)."""
        with suppress(NoMatches):
            self.query_one(StatusHeader).set_info(self.header_info())

    def header_worker(self) -> None:
        """Read the header's counts from the store in a thread job (``_header_read``)."""
        from memtui.app.background import last_recorded_run

        app = self.memtui
        engine = app.engine

        def read() -> HeaderCounts:
            try:
                inbox: int | None = app.inbox_sources.count(engine)  # the Gemini home too
            except MemtuiError:
                inbox = None
            try:
                settings = engine.settings.get()
                generate: bool | None = bool(settings["generate_memories"])
                use: bool | None = bool(settings["use_memories"])
            except (MemtuiError, KeyError):
                generate = use = None
            return HeaderCounts(inbox, generate, use, last_recorded_run(engine))

        self.run_job(HEADER_GROUP, read, self._header_read)

    def _header_read(self, read: HeaderCounts | None, _error: str | None) -> None:
        """Show the counts read (one that could not be read keeps the last) and the badge."""
        if read is None:
            return
        known = {name: value for name, value in vars(read).items() if value is not None}
        self.header_counts = counts = replace(self.header_counts, **known)
        if counts.last_run is not None:
            self.memtui.runner.show_recorded_run(counts.last_run)
        self.query_one(PaneBar).set_badge(INBOX_PANE, f"({counts.inbox})" if counts.inbox else "")
        self.show_header()

    def purge(self) -> None:
        """Erase forgotten text left in the write-ahead log in a thread job (one at a time;
        none once closing; a failure waits for the next forget or the next start)."""
        from memtui.engine.worker import retry_purges

        if self.closing.is_set():
            return
        store, closing = self.memtui.store, self.closing

        def erase() -> PurgeStatus:
            worker = get_current_worker()
            return retry_purges(store, lambda: closing.is_set() or worker.is_cancelled)

        self.run_job(PURGE_GROUP, erase, self._purged)

    def _purged(self, status: PurgeStatus | None, _error: str | None) -> None:
        """The purge job erased forgotten text that readers had kept in the WAL."""
        if status is not None and status.cleared and status.purged:
            self.memtui.say("Forgotten text is now erased from the database files too.")


class MemtuiApp(App[None]):
    """See and curate memories: panes, live refresh, messages, store writes (``do``)."""

    TITLE = "memtui"
    VERTICAL_BREAKPOINTS = [(0, "-short"), (TALL_ROWS, "-tall")]
    CSS_PATH = style_paths()
    COMMANDS = {MemoryCommands}
    """memtui's palette provider also offers Textual's system commands, after memtui's."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "quit", tooltip="Quit (the worker stops between transactions)",
                id="app.quit"),
        Binding("question_mark", "help", "help", tooltip="Keys and commands", id="app.help"),
        Binding("g", "toggle_setting('generate_memories')", "gen",
                tooltip="Toggle generate_memories", id="app.generate"),
        Binding("u", "toggle_setting('use_memories')", "use", tooltip="Toggle use_memories",
                id="app.use"),
        Binding("r", "run_round(False)", "run", tooltip="Run an extraction round now",
                id="app.run"),
        Binding("R", "run_round(True)", "force",
                tooltip="Run a round now with force (skips the idle and size gates)",
                id="app.run_force"),
        Binding("colon", "command_line", "/memory", show=False,
                tooltip="Open the /memory command line", id="app.command_line"),
        Binding("ctrl+z", "undo", "undo", show=False,
                tooltip="Undo the last change (forget is final)", id="app.undo"),
        *(Binding(key, f"app.show_pane('{pane.PANE_ID}')", pane.TITLE.lower(), show=False,
                  tooltip=f"Show the {pane.TITLE} pane", id=f"pane.{pane.PANE_ID}")
          for key, pane in zip(PANE_KEYS, PANES, strict=False)),
    ]

    selected_memory_id: reactive[str | None] = reactive(None, init=False, repaint=False)
    """The memory last selected in a memory pane (the History pane's target while
    ``history_memory_id`` is None). No repaint: an app reactive that repaints redraws the
    whole screen."""
    history_memory_id: reactive[str | None] = reactive(None, init=False, repaint=False)
    """The memory whose chain the History pane shows (None: the last selected one)."""

    def __init__(self, store: StoreBackend, actor: str, project: str | None = None, *,
                 config: AppConfig | None = None) -> None:
        super().__init__()
        self.store = store
        self.engine = Engine(store, actor)
        self.config = config or AppConfig()
        self.project = project
        start = self.config.start_pane
        self.active_pane_id = start if start in SPECS else START_PANE
        """The id of the pane shown (mounted on first show)."""
        self.tz: ZoneInfo = ZoneInfo("UTC")
        self.runner = ExtractionRunner(self, store, self.engine.actor)
        self.undo_steps: list[UndoStep] = []
        """What ``ctrl+z`` can take back, newest last (``curator.record``)."""
        self.keymap_problems: list[str] = []
        self._data_version: int | None = None
        self._poll_failed = False
        self._clipboards: Clipboard | None = None
        self._mounting: dict[str, AwaitMount] = {}
        self._command_line_mounted: AwaitMount | None = None

    def run(self, **kwargs: Any) -> Any:
        """Run the app, the objects made so far frozen out of the garbage collector (a full
        collection over them would land in the first frame), which runs from here on."""
        gc.freeze()
        gc.enable()
        return super().run(**kwargs)

    def get_default_screen(self) -> Screen[Any]:
        """The main screen."""
        return MainScreen()

    def on_mount(self) -> None:
        """Load the time zone, start the timers; the rest comes after the first frame."""
        with suppress(MemtuiError):  # (else UTC)
            self.tz = zone(self.engine.identity.profile().timezone)
        with suppress(StoreError):
            self._data_version = self.store.data_version()
        if self.config.poll_interval:
            self.set_interval(self.config.poll_interval, self._poll, name="data-version")
        if self.config.worker_interval and not self.store.read_only:
            self.set_interval(self.config.worker_interval, lambda: self.runner.start(
                ROUND, quiet=True), name="worker-round")
        self.call_after_refresh(self._started)

    def _started(self) -> None:
        self.get_screen_main().header_worker()  # first: read while the rest is made
        self.command_line()  # hidden until ``:``; made now, off the first frame
        if self.store.read_only:
            from memtui.store.database import READ_ONLY_REASON

            self.say(f"Opened read-only: {READ_ONLY_REASON}", severity="warning")
        else:
            self.get_screen_main().purge()  # a forget left pending by an earlier run is finished
        self._load_keymap()
        if self.config.remember_theme:
            from memtui.app.ui_config import remember_theme

            remember_theme(self)
        # the start pane's target takes focus, unless a key already opened something
        self._show_current(focus=self.get_screen_main().focused is None)
        self.call_after_refresh(freeze_startup_objects)

    def _load_keymap(self) -> None:
        if not self.config.load_keymap:
            return
        from memtui.app.keymap import keymap_conflicts, load_keymap

        loaded = load_keymap(self.config.keymap_path, known_ids=all_binding_ids())
        loaded.problems += keymap_conflicts(loaded.keymap, all_bindings())
        self.keymap_problems = loaded.problems
        if loaded.keymap:
            self.set_keymap(loaded.keymap)
        if loaded.problems:
            self.say(f"Keymap {loaded.path}: {'; '.join(loaded.problems)}", severity="warning")

    def get_screen_main(self) -> MainScreen:
        """The main screen (also while a modal is open)."""
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        raise RuntimeError("the main screen is not mounted")

    def _mounted_pane(self, pane_id: str) -> Pane | None:
        """A pane by id, if it was mounted (composed or being mounted)."""
        try:
            return self.get_screen_main().query_one(f"#pane-{pane_id}", Pane)
        except NoMatches:
            return None

    def pane(self, pane_id: str) -> Pane:
        """A pane by id (mounted here on first use: only the start pane is composed)."""
        pane = self._mounted_pane(pane_id)
        if pane is not None:
            return pane
        pane = SPECS[pane_id]()  # a known id: show_pane checks
        pane.shown = pane_id == self.active_pane_id
        container = self.get_screen_main().query_one("#panes", Container)
        self._mounting[pane_id] = container.mount(pane)
        return pane

    def panes(self) -> list[Pane]:
        """Every pane mounted so far (the others are read when first shown)."""
        return list(self.get_screen_main().query(Pane))

    def current_pane(self) -> Pane | None:
        """The pane being shown (None until it is mounted)."""
        pane = self._mounted_pane(self.active_pane_id)
        return pane if pane is not None and pane.is_mounted else None

    def show_pane(self, pane_id: str) -> None:
        """Switch to a pane; leaving a form with unsaved changes asks first."""
        if pane_id not in SPECS:
            return
        leaving = self.current_pane() if pane_id != self.active_pane_id else None
        if leaving is not None and leaving.unsaved_changes():
            from memtui.app.modals.unsaved import ask_unsaved

            ask_unsaved(self, [leaving], "leaving it", lambda: self.show_pane(pane_id))
            return
        if pane_id != self.active_pane_id:
            self.active_pane_id = pane_id
            self.get_screen_main().query_one(PaneBar).active = pane_id
            with self.batch_update():
                for pane in self.panes():
                    if pane.PANE_ID == pane_id and pane.READ_WHEN_SHOWN:
                        pane.stale = True  # still hidden: read once, by the next line
                    pane.shown = pane.PANE_ID == pane_id  # a stale one re-reads now
        self._show_current()

    action_show_pane = show_pane  # keys 1-9 and 0

    def action_next_pane(self, step: int) -> None:
        """Tab / shift+tab: the next or previous pane."""
        ids = list(SPECS)
        index = ids.index(self.active_pane_id)  # also while that pane is still mounting
        self.show_pane(ids[(index + step) % len(ids)])

    def on_pane_bar_selected(self, message: PaneBar.Selected) -> None:
        """A click on the pane bar."""
        message.stop()
        self.show_pane(message.pane_id)

    def _show_current(self, *, focus: bool = False) -> None:
        pane = self.pane(self.active_pane_id)
        main = self.get_screen_main()
        focused = main.focused
        if not pane.is_mounted:  # mounted on first show: read it once it is composed
            if focused is not None and not is_command_line(focused):
                # keys must not go to a widget of the pane just hidden while this one
                # is being mounted
                main.set_focus(None)
            self.call_later(self._show_when_mounted, pane, focus)
            return
        target = pane.focus_target()
        inside = focused is not None and pane in focused.ancestors_with_self
        if target is not None and (focus or not (inside or is_command_line(focused))):
            main.set_focus(target)  # at once: a closing modal restores this focus

    async def _show_when_mounted(self, pane: Pane, focus: bool) -> None:
        waiting = self._mounting.pop(pane.PANE_ID, None)
        if waiting is not None:
            await waiting
        if pane.is_mounted and self.current_pane() is pane:
            # focus inside a pane that was just mounted is Textual's, not the person's
            self._show_current(focus=focus or not is_command_line(self.get_screen_main().focused))

    def current_memory_id(self) -> str | None:
        """The memory selected in the pane on screen, else the last one selected."""
        pane = self.current_pane() if self.is_running else None
        memory = pane.selected_memory() if pane is not None else None
        return memory.id if memory is not None else self.selected_memory_id

    def show_history(self, memory_id: str) -> None:
        """The History pane for a memory."""
        self.history_memory_id = memory_id
        self.show_pane(HISTORY_PANE)

    def _poll(self) -> None:
        try:
            version = self.store.data_version()
        except Exception as error:  # a vanished or broken file must not crash the app
            if not self._poll_failed:
                self._poll_failed = True
                message = error.message if isinstance(error, MemtuiError) else str(error)
                self.say(f"Cannot watch the store: {message}", severity="error")
            return
        self._poll_failed = False
        if version != self._data_version:
            self._data_version = version
            self.store_changed()

    def store_changed(self, *, wrote: bool = False) -> None:
        """The store changed (``wrote``: by this app, so the poll does not report it again):
        every pane is stale and the header's counts are read again (not while shutting
        down: a worker started then would outlive the widgets)."""
        if wrote:
            with suppress(MemtuiError):
                self._data_version = self.store.data_version()
        if not self.is_running:
            return
        for pane in self.panes():
            pane.stale = True
        main = self.get_screen_main()
        main.show_header()
        main.header_worker()

    @cached_property
    def inbox_sources(self) -> InboxSources:
        """Where the Inbox's rows come from (``inbox_sources``)."""
        from memtui.app.inbox_sources import inbox_sources

        return inbox_sources(self.config.gemini_home)

    def do(self, step: Step, asker: MessagePump | None = None) -> None:
        """Take one step of a store change (``curator.py``): say a notice, show a dialog, ask
        and write on yes, or write now; the result goes to ``asker`` (else the app)."""
        from memtui.app.curator import Ask, Notice, Write

        if isinstance(step, Notice):
            self.say(step.text, severity=step.severity)
        elif isinstance(step, Write):
            self.write_worker(step, asker)
        elif isinstance(step, Ask):
            from memtui.app.modals.confirm import ConfirmModal

            def answered(yes: bool | None) -> None:
                if yes:
                    self.write_worker(step.write, asker)
                else:
                    self.say(step.declined)

            self.push_screen(ConfirmModal(step.title, step.body, step.label), answered)
        else:
            self.push_screen(step)

    @work(thread=True, group=WRITE_GROUP, exit_on_error=False, name="store-write")
    def write_worker(self, write: Write, asker: MessagePump | None = None) -> None:
        """One store write (or a read the next step needs); posts Written or WriteRefused."""
        from memtui.app.messages import WriteRefused, Written

        message: Written | WriteRefused
        try:
            message = Written(write, write.work(self.engine), asker)
        except Unchanged as error:
            message = WriteRefused(write, error.message, unchanged=True)
        except MemtuiError as error:
            message = WriteRefused(write, error.message)
        except Exception as error:  # never crash on a write
            message = WriteRefused(write, f"{error.__class__.__name__}: {error}")
        (asker or self).post_message(message)

    def on_written(self, message: Written) -> None:
        """A write is done: refresh, keep its undo step, follow what it made, say so."""
        from memtui.app.curator import record

        change = message.change
        self.inbox_sources.memories_changed()  # before the header counts again
        if message.write.changes_store:
            self.store_changed(wrote=True)
        if self.selected_memory_id in change.removed:
            self.selected_memory_id = None
        if self.history_memory_id in change.removed:
            self.history_memory_id = None
        if change.memory is not None:  # selected in the memory pane on screen once loaded
            self.selected_memory_id = change.memory.id
            pane = self.current_pane()
            if isinstance(pane, MemoriesPane):
                pane.memory_list.select_when_loaded(change.memory.id)
            if change.replaced is not None and self.history_memory_id == change.replaced:
                self.history_memory_id = change.memory.id
        if words := record(self.undo_steps, change):
            self.say(words, severity=change.severity)
        if change.unpurged:
            self.get_screen_main().purge()
        if change.next is not None:
            self.do(change.next(), message.asker)

    def on_write_refused(self, message: WriteRefused) -> None:
        """A write was refused (no toast for a form: it shows why itself)."""
        failed = "" if message.unchanged else " failed"
        self.say(f"{message.write.label}{failed}: {message.error}",
                 "information" if message.unchanged else "error", message.write.form is None)

    def say(self, text: str, severity: str = "information", toast: bool = True) -> None:
        """Show a message (never markup) on the status line, and as a toast."""
        try:
            main = self.get_screen_main()
            main.query_one(StatusLine).say(text, severity)
        except Exception:  # before mount or after unmount: no screen to cover either
            main = None
        if toast and (main is None or self.screen is main):
            self.notify(text, severity=severity,  # type: ignore[arg-type]
                        timeout=TOAST_SECONDS, markup=False)

    def copy_text(self, text: str, what: str) -> None:
        """Copy to the terminal's clipboard (OSC 52) and the system one, saying which."""
        if self._clipboards is None:
            from memtui.app.clipboard import Clipboard

            self._clipboards = Clipboard(self.copy_to_clipboard, self.config.system_clipboard)
        result = self._clipboards.copy(text)
        self.say(f"{result.describe()} ({what})",
                 severity="information" if result.ok else "warning")

    def action_toggle_setting(self, name: str) -> None:
        """``g`` / ``u``: switch generate_memories / use_memories."""
        from memtui.app.curator import toggle

        self.do(toggle(self.engine, name))

    def action_run_round(self, force: bool) -> None:
        """``r``: an extraction round now; ``R``: with force."""
        self.runner.start(ROUND, force)

    def action_undo(self) -> None:
        """``ctrl+z``: undo the last change (forget is final)."""
        from memtui.app.curator import undo

        self.do(undo(self.undo_steps, self.engine))

    def action_help(self) -> None:
        """``?``: the keys and the commands (never a second help on top)."""
        from memtui.app.modals.help import HelpModal

        if not isinstance(self.screen, HelpModal):
            self.push_screen(HelpModal(binding_classes(), app_keymap(self)))

    action_show_help_panel = action_help  # memtui's one help screen, not Textual's panel

    def binding_owners(self) -> list[tuple[str, type]]:
        """``binding_classes()`` for the palette, which cannot import this module."""
        return binding_classes()

    def command_line(self) -> CommandLine:
        """The ``/memory`` command line (mounted, hidden, on first use)."""
        from memtui.app.widgets.command_line import CommandLine

        main = self.get_screen_main()
        try:
            return main.query_one(f"#{COMMAND_LINE_ID}", CommandLine)
        except NoMatches:
            line = CommandLine(self.current_memory_id, id=COMMAND_LINE_ID)
            line.display = False
            self._command_line_mounted = main.mount(line, before=main.query_one(StatusLine))
            return line

    async def action_command_line(self) -> None:
        """``:``: the ``/memory`` command line."""
        line = self.command_line()
        if not line.is_mounted and self._command_line_mounted is not None:
            await self._command_line_mounted
        line.open()

    def on_command_line_closed(self, message: CommandLine.Closed) -> None:
        """The command line closed: back to the pane."""
        message.stop()
        self._show_current(focus=True)

    async def action_quit(self) -> None:
        """``q``: ask first when a form holds unsaved changes; stop the worker, then quit."""
        def quit_now() -> None:
            self.runner.stop()
            self.exit()

        unsaved = [pane for pane in self.panes() if pane.unsaved_changes()]
        if unsaved:
            from memtui.app.modals.unsaved import ask_unsaved

            ask_unsaved(self, unsaved, "quitting", quit_now)
        else:
            quit_now()


def freeze_startup_objects() -> None:
    """Move what the app built while starting out of the garbage collector's reach; what is
    made later is collected less often (``GC_YOUNG_THRESHOLD``)."""
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])


def is_command_line(widget: object) -> TypeGuard[CommandLine]:
    """Whether ``widget`` is the ``/memory`` command line."""
    from memtui.app.widgets.command_line import CommandLine

    return isinstance(widget, CommandLine)


def binding_classes() -> list[tuple[str, type]]:
    """(where, class) of everything in the app that has key bindings, in help order."""
    from memtui.app.modals import confirm, detail, editor, picker, project, text, unsaved
    from memtui.app.modals.filter import FilterModal
    from memtui.app.modals.help import HelpModal
    from memtui.app.panes import agents, bundles, codex, extraction_log, history, inbox, injection
    from memtui.app.panes.base import FormPane
    from memtui.app.panes.memories import MemoriesPane, ProjectMemoriesPane
    from memtui.app.panes.profile import ProfilePane
    from memtui.app.panes.settings import SettingsPane
    from memtui.app.widgets import command_line, line_list, memory_list

    return [("everywhere", MemtuiApp), ("everywhere", MainScreen), ("lists", line_list.LineList),
            ("memory lists", memory_list.MemoryList), ("memory panes", MemoriesPane),
            ("project pane", ProjectMemoriesPane), ("history", history.HistoryPane),
            ("extraction log", extraction_log.ExtractionLogPane),
            ("injection preview", injection.InjectionPane), ("inbox", inbox.InboxPane),
            ("bundles", bundles.BundlesPane), ("codex", codex.CodexPane),
            ("agents", agents.AgentsPane), ("profile", ProfilePane),
            ("settings", SettingsPane), ("profile, settings", FormPane),
            ("command line", command_line.CommandLine), ("editor", editor.MemoryEditor),
            ("confirm", confirm.ConfirmModal), ("memory detail", detail.MemoryDetailModal),
            ("filter", FilterModal), ("picker", picker.PickerModal), ("help", HelpModal),
            ("text view", text.TextModal), ("unsaved changes", unsaved.UnsavedModal),
            ("new project", project.ProjectDialog)]


def all_bindings() -> list[tuple[str, str, str]]:
    """(where, default keys, binding id) of every binding in the app."""
    return [(where, binding.key, binding.id) for where, owner in binding_classes()
            for binding in owner.__dict__.get("BINDINGS", [])
            if isinstance(binding, Binding) and binding.id]


def all_binding_ids() -> set[str]:
    """Every binding id in the app (for checking a keymap file)."""
    return {binding_id for _where, _keys, binding_id in all_bindings()}
