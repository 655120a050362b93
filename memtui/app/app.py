"""``MemtuiApp``: the panes, the keys, the header and status line, live refresh, the worker.

The app is a thin front end: every read and write goes through ``Engine``; the store is
watched with ``data_version`` (cheap) so writes from other processes show within a second.
Store-changing flows live in ``curator.py``, the extraction worker in ``background.py``.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass, field
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
from textual.widgets import Input

from memtui.app.background import (
    JOB_WORDS,
    PURGE_GROUP,
    WORKER_GROUP,
    ExtractionRunner,
    PurgeRetry,
)
from memtui.app.format import local_time, zone
from memtui.app.palette import MemoryCommands
from memtui.app.panes import PANES, Pane
from memtui.app.panes.memories import MemoriesPane, ProjectMemoriesPane
from memtui.app.textual_compat import app_keymap
from memtui.app.widgets.key_bar import KeyBar
from memtui.app.widgets.paint_hold import paint_hold
from memtui.app.widgets.pane_bar import PaneBar, PaneLabel
from memtui.app.widgets.status import HeaderCounts, HeaderInfo, StatusHeader, StatusLine
from memtui.engine.api import Engine
from memtui.engine.jobs import BACKFILL, CONSOLIDATE, ROUND
from memtui.errors import MemtuiError, StoreError, Unchanged
from memtui.store.backend import StoreBackend
from memtui.textsafe import one_line

if TYPE_CHECKING:
    from textual.widget import AwaitMount

    from memtui.app.clipboard import Clipboard
    from memtui.app.curator import Curator
    from memtui.app.inbox_sources import InboxSources
    from memtui.app.messages import (
        ExtractionFinished,
        ExtractionProgress,
        ForgetSizes,
        HeaderRead,
        PurgeFinished,
        WriteFailed,
        WriteFinished,
        WriteRequest,
    )
    from memtui.app.widgets.command_line import CommandLine
    from memtui.engine.worker import BackgroundLoop

WRITE_GROUP = "store-write"
"""The worker group of store writes (``Curator.perform``)."""
READ_GROUP = "store-read"
"""The worker group of reads that can take a while (chain sizes before a forget)."""
POLL_INTERVAL_SECONDS = 0.75
"""How often the app asks SQLite whether another connection wrote (``data_version``)."""
WORKER_INTERVAL_SECONDS = 60.0
"""How often the background worker runs an extraction round on its own."""
TOAST_SECONDS = 4.0
GC_YOUNG_THRESHOLD = 10_000
"""The collector's youngest-generation threshold once the app has started (Python's default
is 700). A frame makes thousands of short-lived objects; at 700 a typed key paid for four or
five collections inside its frame, and the slowest key of the search benchmark at a million
memories went from 22.5-26 ms (two runs) to 19.2 ms at 10,000 (one run; the search
benchmark's own driver, one machine)."""
PANE_KEYS = "1234567890"
"""The keys that show the panes, in pane order (the tenth pane is ``0``)."""
START_PANE = "user"
HISTORY_PANE = "history"
INBOX_PANE = "inbox"
HEADER_GROUP = "header-counts"
"""The worker group of the header's store reads (inbox count, gen/use, last run)."""
COMMAND_LINE_ID = "command-line"
START_MESSAGE = "Press ? for keys, : for /memory commands, ctrl+p for the palette"
TALL_ROWS = 40
"""From this many rows the screen gets the ``-tall`` class (bigger previews)."""


def style_paths() -> list[str | PurePath]:
    """The app's TCSS files, from the ``memtui.styles`` package (works from a wheel; Textual
    reads them as files, so the package is a folder, never a zip: ``importlib.resources``
    would cost 2 ms of start for nothing)."""
    import memtui.styles

    folder = Path(memtui.styles.__file__).parent
    return [path for path in sorted(folder.iterdir()) if path.suffix == ".tcss"]


def system_copy(text: str) -> None:
    """Copy to the system clipboard with pyperclip (raises where there is none)."""
    from memtui.app.clipboard import pyperclip_copy

    pyperclip_copy(text)


@dataclass
class AppConfig:
    """Tuning and test hooks. ``None`` intervals switch a timer off (the snapshot tests do)."""

    poll_interval: float | None = POLL_INTERVAL_SECONDS
    worker_interval: float | None = WORKER_INTERVAL_SECONDS
    keymap_path: Path | None = None
    load_keymap: bool = True
    system_clipboard: Callable[[str], None] | None = field(default=system_copy)
    start_pane: str = START_PANE
    store_label: str | None = None
    """Shown in the header instead of the store path (tests: a path that never changes)."""
    codex_home: Path | None = None
    """The Codex home the Codex pane shows (``--codex-home``; else $CODEX_HOME, ~/.codex)."""
    claude_home: Path | None = None
    """The Claude Code home the Agents pane shows (``--claude-home``; else
    $CLAUDE_CONFIG_DIR, ~/.claude)."""
    gemini_home: Path | None = None
    """The Gemini CLI home the Agents pane shows and whose inbox patches the Inbox lists
    (``--gemini-home``; else $GEMINI_CLI_HOME, ~/.gemini)."""
    remember_theme: bool = True
    """Start with the theme last chosen and remember a new choice (``ui_config.py``)."""
    ui_config_path: Path | None = None
    """The file of remembered choices (None: ``$MEMTUI_APP_CONFIG`` or ~/.config/memtui)."""


def pane_key(pane_id: str) -> str | None:
    """The key that shows a pane (None past the tenth)."""
    ids = [spec.PANE_ID for spec in PANES]
    index = ids.index(pane_id) if pane_id in ids else len(PANE_KEYS)
    return PANE_KEYS[index] if index < len(PANE_KEYS) else None


def pane_labels() -> list[PaneLabel]:
    """The pane bar's names: ``1 Profile`` … (the key first where a key shows the pane)."""
    labels = []
    for spec in PANES:
        key = pane_key(spec.PANE_ID)
        labels.append(PaneLabel(spec.PANE_ID, f"{key} {spec.TITLE}" if key else spec.TITLE))
    return labels


def _pane_bindings() -> list[BindingType]:
    return [Binding(key, f"app.show_pane('{pane.PANE_ID}')", pane.TITLE.lower(),
                    show=False, tooltip=f"Show the {pane.TITLE} pane", id=f"pane.{pane.PANE_ID}")
            for key, pane in zip(PANE_KEYS, PANES, strict=False)]


class MainScreen(Screen[None]):
    """Header, the pane bar, the pane shown, the command line, the status line, the
    key bar."""

    AUTO_FOCUS = ""
    """The app focuses the start pane's own target (its list, not its search box)."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "app.next_pane(1)", "next pane", show=False,
                tooltip="Next pane (in a form: next field)", id="app.next_pane"),
        Binding("shift+tab", "app.next_pane(-1)", "previous pane", show=False,
                tooltip="Previous pane (in a form: previous field)", id="app.previous_pane"),
    ]

    def compose(self) -> ComposeResult:
        """The layout."""
        app = cast(MemtuiApp, self.app)
        yield StatusHeader(app.header_info(), id="header")
        yield PaneBar(pane_labels(), app.active_pane_id, id="pane-bar")
        deck = Container(id="panes")
        with deck:
            start = next(spec for spec in PANES if spec.PANE_ID == app.active_pane_id)()
            start.shown = True
            yield start  # the others are mounted when first shown
        # the /memory command line is mounted (hidden) after the first frame: see
        # MemtuiApp.command_line
        yield StatusLine(START_MESSAGE, id="status")
        yield KeyBar(id="keys")

    def on_unmount(self) -> None:
        """Closing: stop the worker between transactions, and the purge retry; a paint
        hold, and its garbage-collector pause, end."""
        paint_hold(self.app).close()  # first: the stops below may raise
        cast(MemtuiApp, self.app).runner.stop()
        cast(MemtuiApp, self.app).purges.stop()


class MemtuiApp(App[None]):
    """See and curate memories. Build it with ``memtui.app.main.create_app``."""

    TITLE = "memtui"
    VERTICAL_BREAKPOINTS = [(0, "-short"), (TALL_ROWS, "-tall")]
    CSS_PATH = style_paths()
    COMMANDS = {MemoryCommands}
    """memtui's palette provider also offers Textual's system commands, after memtui's."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "quit", tooltip="Quit (the worker stops between transactions)",
                id="app.quit"),
        Binding("question_mark", "help", "help", tooltip="Keys and commands", id="app.help"),
        Binding("g", "toggle_generate", "gen", tooltip="Toggle generate_memories",
                id="app.generate"),
        Binding("u", "toggle_use", "use", tooltip="Toggle use_memories", id="app.use"),
        Binding("r", "run_now", "run", tooltip="Run an extraction round now", id="app.run"),
        Binding("R", "run_force", "force",
                tooltip="Run a round now with force (skips the idle and size gates)",
                id="app.run_force"),
        Binding("colon", "command_line", "/memory", show=False,
                tooltip="Open the /memory command line", id="app.command_line"),
        Binding("ctrl+z", "undo", "undo", show=False,
                tooltip="Undo the last change (forget is final)", id="app.undo"),
        *_pane_bindings(),
    ]

    selected_memory_id: reactive[str | None] = reactive(None, init=False, repaint=False)
    """The memory last selected in a memory pane (no repaint: nothing on screen draws it;
    an app reactive that repaints redraws the whole screen, on every cursor move). While ``history_memory_id`` is None it is
    the History pane's target: a change marks that pane stale."""
    history_memory_id: reactive[str | None] = reactive(None, init=False, repaint=False)
    """The memory whose chain the History pane shows (None: the last selected one). A
    change marks the History pane stale: it reads the chain when next shown (at once when
    it is on screen)."""
    header_counts: reactive[HeaderCounts] = reactive(HeaderCounts, init=False, repaint=False)
    """What the header shows from the store, read by a worker after the first frame and
    after every change (the first frame waits for none of it). A change redraws the header
    and the Inbox badge."""

    def __init__(self, store: StoreBackend, actor: str, project: str | None = None, *,
                 config: AppConfig | None = None) -> None:
        super().__init__()
        self.store = store
        self.engine = Engine(store, actor)
        self.config = config or AppConfig()
        self.project = project
        known = {spec.PANE_ID for spec in PANES}
        self.active_pane_id = self.config.start_pane if self.config.start_pane in known \
            else START_PANE
        """The id of the pane shown (mounted on first show)."""
        self.tz: ZoneInfo = ZoneInfo("UTC")
        self.runner = ExtractionRunner(self, store, self.engine.actor)
        self.purges = PurgeRetry(self, store)
        self._data_version: int | None = None
        self._poll_failed = False
        self._quiet_job = False
        self.keymap_problems: list[str] = []
        self._mounting: dict[str, AwaitMount] = {}
        self._command_line_mounted: AwaitMount | None = None

    def run(self, **kwargs: Any) -> Any:
        """Run the app (``App.run``'s arguments). The objects made so far -- modules,
        classes, the store -- are frozen out of the garbage collector first: they live as
        long as the process, and a full collection over them otherwise lands in the first
        frame (about 12 ms on a 2-core machine), and later in scrolling. The collector runs
        from here on (the command line pauses it while the app starts)."""
        gc.freeze()
        gc.enable()
        return super().run(**kwargs)

    @cached_property
    def clipboards(self) -> Clipboard:
        """The terminal's clipboard (OSC 52) and the system one (made on first copy)."""
        from memtui.app.clipboard import Clipboard

        return Clipboard(self.copy_to_clipboard, self.config.system_clipboard)

    @cached_property
    def curator(self) -> Curator:
        """The store-changing flows (made on first use: its modals are not needed for the
        first frame)."""
        from memtui.app.curator import Curator

        return Curator(self)

    def get_default_screen(self) -> Screen[Any]:
        """The main screen."""
        return MainScreen()

    # ---- start ------------------------------------------------------------------------

    def on_mount(self) -> None:
        """Load the time zone, start the timers; the rest comes after the first frame
        (``_started``)."""
        self._load_zone()
        try:
            self._data_version = self.store.data_version()
        except StoreError:
            self._data_version = None
        if self.config.poll_interval:
            self.set_interval(self.config.poll_interval, self._poll, name="data-version")
        if self.config.worker_interval and not self.store.read_only:
            self.set_interval(self.config.worker_interval, self._timed_round,
                              name="worker-round")
        self.screen_change_signal.subscribe(self, self._screen_changed)
        self.call_after_refresh(self._started)

    def _screen_changed(self, screen: Screen[Any]) -> None:
        """A dialog opened: toasts said before it go (the status line keeps the last one),
        so none covers the dialog."""
        if not isinstance(screen, MainScreen):
            self.clear_notifications()

    def _started(self) -> None:
        self.header_worker()  # the header's counts, first: read while the rest is made
        self.command_line()  # hidden until ``:``; made now, off the first frame
        if self.store.read_only:
            from memtui.store.database import READ_ONLY_REASON

            self.say(f"Opened read-only: {READ_ONLY_REASON}", severity="warning")
        else:
            self.purges.start()  # a forget left pending by an earlier run is finished
        self._load_keymap()
        self._load_theme()
        # the start pane's target takes focus, unless a key already opened something
        self._show_current(focus=self.get_screen_main().focused is None)
        self.call_after_refresh(self._freeze_startup_objects)

    @staticmethod
    def _freeze_startup_objects() -> None:
        """Move what the app built while starting (the widget tree, styles, caches) out of
        the garbage collector's reach, as ``run`` does for the modules: they live as long as
        the app, and a full collection walking them lands in a frame while typing (up to
        50 ms at a million memories). What is made later is collected, less often
        (``GC_YOUNG_THRESHOLD``)."""
        gc.freeze()
        gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])

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
            self.say(f"Keymap {loaded.path}: {'; '.join(loaded.problems)}",
                     severity="warning")

    def _load_theme(self) -> None:
        """Start with the theme chosen last time, then remember each new choice."""
        if not self.config.remember_theme:
            return
        from memtui.app.ui_config import load_ui_config

        self._ui_config = load_ui_config(self.config.ui_config_path)
        if self._ui_config.problem:
            self.say(f"Settings file {self._ui_config.path}: {self._ui_config.problem}",
                     severity="warning")
        theme = self._ui_config.theme
        if theme and theme != self.theme:
            if theme in self.available_themes:
                self.theme = theme
            else:
                self.say(f"Theme {one_line(theme, 40)!r} (remembered in "
                         f"{self._ui_config.path}) is not available.", severity="warning")
        self.theme_changed_signal.subscribe(self, self._theme_chosen)

    def _theme_chosen(self, theme: Any) -> None:
        from memtui.app.ui_config import save_choice

        config = getattr(self, "_ui_config", None)
        if config is None or config.theme == theme.name:
            return
        try:
            save_choice(config, "theme", theme.name)
        except OSError as error:
            self.say(f"Could not remember the theme: {error}", severity="warning", toast=False)

    def _load_zone(self) -> None:
        try:
            self.tz = zone(self.engine.identity.profile().timezone)
        except MemtuiError:
            self.tz = ZoneInfo("UTC")

    # ---- panes ------------------------------------------------------------------------

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
        """A pane by id. Only the start pane is composed at start (the first frame comes
        sooner); the others are mounted here, on first use."""
        pane = self._mounted_pane(pane_id)
        if pane is not None:
            return pane
        pane_class = next((cls for cls in PANES if cls.PANE_ID == pane_id), None)
        if pane_class is None:
            raise NoMatches(f"No pane {pane_id!r}")
        pane = pane_class()
        pane.shown = pane_id == self.active_pane_id
        container = self.get_screen_main().query_one("#panes", Container)
        self._mounting[pane_id] = container.mount(pane)
        return pane

    def panes(self) -> list[Pane]:
        """Every pane mounted so far (the others are read when first shown)."""
        return list(self.get_screen_main().query(Pane))

    def pane_titles(self) -> list[tuple[str, str]]:
        """(id, title) of every pane, in order."""
        return [(pane.PANE_ID, pane.TITLE) for pane in PANES]

    def current_pane(self) -> Pane | None:
        """The pane being shown (None until it is mounted)."""
        pane = self._mounted_pane(self.active_pane_id)
        return pane if pane is not None and pane.is_mounted else None

    def show_pane(self, pane_id: str) -> None:
        """Switch to a pane (mounted now if it is shown for the first time). Leaving a
        form with unsaved changes asks first: save, discard or stay."""
        if pane_id not in {pane.PANE_ID for pane in PANES}:
            return
        leaving = self.current_pane() if pane_id != self.active_pane_id else None
        if leaving is not None and leaving.unsaved_changes():
            self.ask_unsaved([leaving], "leaving it", lambda: self.show_pane(pane_id))
            return
        if pane_id != self.active_pane_id:
            self.active_pane_id = pane_id
            main = self.get_screen_main()
            main.query_one(PaneBar).active = pane_id
            with self.batch_update():
                for pane in self.panes():
                    if pane.PANE_ID == pane_id and pane.READ_WHEN_SHOWN:
                        pane.stale = True  # still hidden: read once, by the next line
                    pane.shown = pane.PANE_ID == pane_id  # a stale one re-reads now
        self._show_current()

    def action_show_pane(self, pane_id: str) -> None:
        """Keys 1–9 and 0: switch to a pane."""
        self.show_pane(pane_id)

    def action_next_pane(self, step: int) -> None:
        """Tab / shift+tab: the next or previous pane."""
        ids = [pane.PANE_ID for pane in PANES]
        index = ids.index(self.active_pane_id)  # also while that pane is still mounting
        self.show_pane(ids[(index + step) % len(ids)])

    def on_pane_bar_selected(self, message: PaneBar.Selected) -> None:
        """A click on the pane bar."""
        message.stop()
        self.show_pane(message.pane_id)

    def _show_current(self, *, focus: bool = False) -> None:
        pane = self.pane(self.active_pane_id)
        if not pane.is_mounted:  # mounted on first show: read it once it is composed
            main = self.get_screen_main()
            if main.focused is not None and not is_command_line(main.focused):
                # keys must not go to a widget of the pane just hidden while this one
                # is being mounted
                main.set_focus(None)
            self.call_later(self._show_when_mounted, pane, focus)
            return
        target = pane.focus_target()
        main = self.get_screen_main()
        focused = main.focused
        inside = focused is not None and pane in focused.ancestors_with_self
        if target is not None and (focus or not (inside or is_command_line(focused))):
            main.set_focus(target)  # at once: a closing modal restores this focus

    async def _show_when_mounted(self, pane: Pane, focus: bool) -> None:
        waiting = self._mounting.pop(pane.PANE_ID, None)
        if waiting is not None:
            await waiting
        if pane.is_mounted and self.current_pane() is pane:
            # focus inside a pane that was just mounted is Textual's, not the person's
            focused = self.get_screen_main().focused
            self._show_current(focus=focus or not is_command_line(focused))

    # ---- refresh ----------------------------------------------------------------------

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

    def store_changed(self) -> None:
        """The store changed: every pane is stale (the one on screen re-reads at once, the
        others when shown); the header's counts are read again. Not while the app shuts
        down: its widgets are being removed, and a worker started now would outlive them."""
        if not self.is_running:
            return
        for pane in self.panes():
            pane.stale = True
        self._update_header()
        self.header_worker()

    @cached_property
    def inbox_sources(self) -> InboxSources:
        """Where the Inbox's rows come from: memtui's pending memories and the patches of
        the Gemini CLI home (``config.gemini_home``, else $GEMINI_CLI_HOME, ~/.gemini)."""
        from memtui.app.inbox_sources import inbox_sources

        return inbox_sources(self.config.gemini_home)

    def agent_files_changed(self) -> None:
        """memtui wrote to another agent's files (the Agents pane, a Gemini patch applied
        from the Inbox): every pane reads again when shown, the inbox is counted again."""
        self.store_changed()

    @property
    def inbox_count(self) -> int:
        """Rows waiting in the review inbox, every source (as the header worker last
        counted them; 0 before it reports)."""
        return self.header_counts.inbox or 0

    def on_header_read(self, message: HeaderRead) -> None:
        """The header's counts arrived (a count that could not be read keeps the last
        one)."""
        old, new = self.header_counts, message.counts
        self.header_counts = HeaderCounts(
            inbox=new.inbox if new.inbox is not None else old.inbox,
            generate=new.generate if new.generate is not None else old.generate,
            use=new.use if new.use is not None else old.use,
            last_run=new.last_run or old.last_run)

    def watch_header_counts(self, counts: HeaderCounts) -> None:
        """Show the counts: the Inbox badge on the pane bar, the header's words."""
        if counts.last_run is not None:
            self.runner.show_recorded_run(counts.last_run)
        try:
            bar = self.get_screen_main().query_one(PaneBar)
        except Exception:  # not mounted yet or shutting down
            return
        bar.set_badge(INBOX_PANE, f"({counts.inbox})" if counts.inbox else "")
        self._update_header()

    def after_write(self) -> None:
        """This app wrote: refresh now (and do not refresh again for the same change)."""
        try:
            self._data_version = self.store.data_version()
        except MemtuiError:
            pass
        self.store_changed()

    def profile_changed(self) -> None:
        """The time zone may have changed: every time on screen is redrawn."""
        self._load_zone()
        self.store_changed()

    def forgot(self, memory_ids: tuple[str, ...]) -> None:
        """Memories are gone: drop them from the selection."""
        if self.selected_memory_id in memory_ids:
            self.selected_memory_id = None
        if self.history_memory_id in memory_ids:
            self.history_memory_id = None

    def _update_header(self) -> None:
        try:
            header = self.get_screen_main().query_one(StatusHeader)
        except Exception:  # not mounted yet or shutting down
            return
        header.set_info(self.header_info())

    def header_info(self) -> HeaderInfo:
        """What the header says now: who, which project, which store, the worker's state,
        and the counts the header worker read (none before it reports: this reads nothing
        from the store, so the first frame waits for no query)."""
        label = self.config.store_label or self.store.location
        counts = self.header_counts
        return HeaderInfo(user=self.engine.actor, project=self.project,
                          store_path=f"{label} (read-only)" if self.store.read_only else label,
                          worker=self.worker_status(),
                          worker_short=self.worker_status(short=True),
                          busy=self.runner.state.running, inbox=counts.inbox or 0,
                          generate=counts.generate, use=counts.use)

    def worker_status(self, *, short: bool = False) -> str:
        """The worker's state in a few words (``short``: fewer)."""
        state = self.runner.state
        if state.running:
            words = JOB_WORDS.get(state.job or "", state.job or "")
            forced = " (forced)" if state.forced and not short else ""
            if state.total:
                return f"running {words}{forced} {state.done}/{state.total}"
            return f"running {words}{forced}…"
        if state.last_job is None:
            return "idle"
        when = local_time(state.last_at, self.tz, with_year=False)
        if state.last_error:
            return f"idle · last {when} failed"
        if short:
            return f"idle · last {when}"
        return f"idle · last {when}: {state.last_result}"

    # ---- messages from workers --------------------------------------------------------

    def on_purge_finished(self, message: PurgeFinished) -> None:
        """The purge worker erased forgotten text that readers had kept in the WAL."""
        if message.purged:
            self.say("Forgotten text is now erased from the database files too.")

    def on_extraction_progress(self, message: ExtractionProgress) -> None:
        """A job reported progress."""
        self.runner.progress(message)
        self.get_screen_main().query_one(StatusLine).progress(message.done, message.total)
        self._update_header()

    def on_extraction_finished(self, message: ExtractionFinished) -> None:
        """A job ended: say how, refresh what is shown."""
        self.runner.finished(message)
        self.get_screen_main().query_one(StatusLine).progress(None, None)
        words = JOB_WORDS.get(message.job, message.job)
        quiet, self._quiet_job = self._quiet_job, False
        if message.error:
            self.say(f"{words.capitalize()} failed: {message.error}", severity="error")
        else:
            stopped = " (stopped early)" if message.stopped else ""
            made = (message.summary or {}).get("extracted", 0) or \
                (message.summary or {}).get("superseded", 0)
            self.say(f"{words.capitalize()}{stopped}: {self.runner.state.last_result}",
                     toast=not quiet or bool(made))
        self.after_write()

    # ---- the thread workers (they post typed messages; never touch a widget) -----------

    @work(thread=True, group=HEADER_GROUP, exclusive=True, exit_on_error=False,
          name="header-counts")
    def header_worker(self) -> None:
        """Read what the header shows from the store: the inbox count (every source), the
        generate/use settings, the last recorded run (posts HeaderRead; a newer read
        replaces this one)."""
        from textual.worker import get_current_worker

        from memtui.app.background import last_recorded_run
        from memtui.app.messages import HeaderRead

        engine = self.engine
        try:
            inbox: int | None = self.inbox_sources.count(engine)  # the Gemini home too
        except MemtuiError:
            inbox = None
        try:
            settings = engine.settings.get()
            generate: bool | None = bool(settings["generate_memories"])
            use: bool | None = bool(settings["use_memories"])
        except (MemtuiError, KeyError):
            generate = use = None
        counts = HeaderCounts(inbox, generate, use, last_recorded_run(engine))
        if not get_current_worker().is_cancelled:
            self.post_message(HeaderRead(counts))

    @work(thread=True, group=WORKER_GROUP, exit_on_error=False, name="extraction")
    def extraction_worker(self, runner: ExtractionRunner, loop: BackgroundLoop, job: str,
                          force: bool) -> None:
        """A round, a backfill or a consolidation (posts ExtractionProgress / Finished)."""
        runner.work(loop, job, force)

    @work(thread=True, group=PURGE_GROUP, exclusive=True, exit_on_error=False, name="purge",
          description="erase forgotten text")
    def purge_worker(self, purges: PurgeRetry) -> None:
        """Erase forgotten text left in the write-ahead log (posts PurgeFinished)."""
        purges.work()

    @work(thread=True, group=WRITE_GROUP, exit_on_error=False, name="store-write")
    def write_worker(self, request: WriteRequest) -> None:
        """One store write: engine calls only; posts WriteFinished or WriteFailed."""
        from memtui.app.messages import WriteFailed, WriteFinished

        try:
            result = request.work()
        except Unchanged as error:
            self.post_message(WriteFailed(request, error.message, unchanged=True))
        except MemtuiError as error:
            self.post_message(WriteFailed(request, error.message))
        except Exception as error:  # never crash on a write
            self.post_message(WriteFailed(request, f"{error.__class__.__name__}: {error}"))
        else:
            self.post_message(WriteFinished(request, result))

    @work(thread=True, group=READ_GROUP, exit_on_error=False, name="forget-sizes")
    def forget_sizes_worker(self, memory_ids: tuple[str, ...],
                            on_done: Callable[[tuple[str, ...]], None] | None) -> None:
        """What a forget's question needs: the memories, whether the user may forget them,
        the versions each would remove (posts ForgetSizes)."""
        from memtui.app.curator import read_forget

        self.post_message(read_forget(self.engine, memory_ids, on_done))

    def on_forget_sizes(self, message: ForgetSizes) -> None:
        """What a forget's question needs arrived: ask it."""
        self.curator.confirm_forget(message)

    def on_write_finished(self, message: WriteFinished) -> None:
        """A store write is done: the flow that asked for it goes on."""
        self.curator.write_finished(message.request, message.result)

    def on_write_failed(self, message: WriteFailed) -> None:
        """A store write failed: the flow that asked for it says why."""
        self.curator.write_failed(message.request, message.error, message.unchanged)

    # ---- the worker -------------------------------------------------------------------

    def start_extraction(self, job: str, force: bool = False, *, quiet: bool = False) -> None:
        """Start a round, a backfill or a consolidation in the worker thread."""
        if self.runner.start(job, force):
            self._quiet_job = quiet
            if not quiet:
                forced = " with force" if force else ""
                self.say(f"Started {JOB_WORDS.get(job, job)}{forced}…", toast=False)
            self.get_screen_main().query_one(StatusLine).progress(0, None)
            self._update_header()
        elif not quiet:
            self.say("The worker is busy; try again when it is idle.", severity="warning")

    def _timed_round(self) -> None:
        if not self.runner.state.running:
            self.start_extraction(ROUND, quiet=True)

    def action_run_now(self) -> None:
        """``r``: an extraction round now."""
        self.start_extraction(ROUND)

    def action_run_force(self) -> None:
        """``R``: a round now with force (skips the idle and size gates only)."""
        self.start_extraction(ROUND, force=True)

    def action_backfill(self) -> None:
        """Work through every past completed task."""
        self.start_extraction(BACKFILL)

    def action_consolidate(self) -> None:
        """Supersede duplicate active memories."""
        self.start_extraction(CONSOLIDATE)

    # ---- messages to the person -------------------------------------------------------

    def say(self, text: str, severity: str = "information", toast: bool = True) -> None:
        """Show a message on the status line (and as a toast). Never markup."""
        try:
            self.get_screen_main().query_one(StatusLine).say(text, severity)
        except Exception:  # before mount or after unmount
            pass
        if toast and self._main_screen_on_top():
            # no toast over a dialog: the status line below it says the same
            self.notify(text, severity=severity,  # type: ignore[arg-type]
                        timeout=TOAST_SECONDS, markup=False)

    def _main_screen_on_top(self) -> bool:
        """Whether no dialog is open (toasts would cover it; the status line says it)."""
        try:
            return self.screen is self.get_screen_main()
        except Exception:  # before mount or after unmount: no screen to cover
            return True

    def copy_text(self, text: str, what: str) -> None:
        """Copy to the clipboard(s); the status line says which were used."""
        result = self.clipboards.copy(text)
        self.say(f"{result.describe()} ({what})",
                 severity="information" if result.ok else "warning")

    # ---- selection, scope, project ----------------------------------------------------

    def current_memory_id(self) -> str | None:
        """The memory selected in the pane on screen, else the last one selected."""
        pane = self.current_pane() if self.is_running else None
        memory = pane.selected_memory() if pane is not None else None
        return memory.id if memory is not None else self.selected_memory_id

    def current_scope_project(self) -> str | None:
        """Where a note goes: the project on the Project pane, else the user's memories."""
        pane = self.current_pane()
        return self.project if isinstance(pane, ProjectMemoriesPane) else None

    def select_memory(self, memory_id: str) -> None:
        """Select a memory in the memory pane on screen once its list has reloaded."""
        self.selected_memory_id = memory_id
        pane = self.current_pane()
        if isinstance(pane, MemoriesPane):
            pane.memory_list.select_when_loaded(memory_id)

    def history_target(self) -> str | None:
        """The memory whose chain the History pane shows: the one asked for, else the last
        one selected."""
        return self.history_memory_id or self.selected_memory_id

    def watch_history_memory_id(self) -> None:
        """A new History target: the pane goes stale (it re-reads when shown)."""
        self._history_target_changed()

    def watch_selected_memory_id(self) -> None:
        """A new selection is the History pane's target while none was asked for."""
        if self.history_memory_id is None:
            self._history_target_changed()

    def _history_target_changed(self) -> None:
        try:
            history = self._mounted_pane(HISTORY_PANE)
        except RuntimeError:  # no main screen yet (set before the app runs)
            return
        if history is not None:  # one mounted later reads the target anyway
            history.stale = True

    def show_history(self, memory_id: str) -> None:
        """The History pane for a memory."""
        self.history_memory_id = memory_id
        self.show_pane(HISTORY_PANE)

    def choose_project(self) -> None:
        """Pick the current project among the readable ones."""
        try:
            projects = self.engine.identity.list_projects()
        except MemtuiError as error:
            self.say(error.message, severity="error")
            return
        if not projects:
            self.say("You are not a member of any project yet.", severity="warning")
            return
        choices = [(project.id, f"{project.id} — {project.name} ({role})")
                   for project, role in projects]

        def chosen(project_id: str | None) -> None:
            if project_id:
                self.set_project(project_id)

        from memtui.app.modals.picker import PickerModal

        self.push_screen(PickerModal("Current project", choices, self.project), chosen)

    def set_project(self, project_id: str) -> None:
        """Make a project current."""
        if project_id == self.project:
            return
        self.project = project_id
        project_pane = self._mounted_pane(ProjectMemoriesPane.PANE_ID)
        if isinstance(project_pane, MemoriesPane) and project_pane.is_mounted:
            project_pane.reset()
        self.store_changed()
        self.say(f"Current project: {project_id}", toast=False)

    # ---- actions (keys and palette) ---------------------------------------------------

    def action_toggle_generate(self) -> None:
        """``g``: switch generate_memories."""
        self.curator.toggle("generate_memories")

    def action_toggle_use(self) -> None:
        """``u``: switch use_memories."""
        self.curator.toggle("use_memories")

    def action_undo(self) -> None:
        """``ctrl+z``: undo the last change (forget is final)."""
        self.curator.undo()

    def action_help(self) -> None:
        """``?``: the keys and the commands (searchable). Never a second help on top."""
        from memtui.app.modals.help import HelpModal

        if isinstance(self.screen, HelpModal):
            return
        self.push_screen(HelpModal(binding_classes(), dict(app_keymap(self))))

    def binding_owners(self) -> list[tuple[str, type]]:
        """(where, class) of everything with key bindings, in help order (for the help and
        the palette, which cannot import this module back)."""
        return binding_classes()

    def action_show_help_panel(self) -> None:
        """The palette's "Keys": memtui's one help screen, not Textual's key panel."""
        self.action_help()

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

    def on_input_submitted(self, message: Input.Submitted) -> None:
        """Enter on the command line: parse, then run or say what is wrong."""
        if not is_command_line(message.input):
            return
        message.stop()
        self.run_command_text(message.value, command_line=message.input)

    def run_command_text(self, text: str, command_line: CommandLine | None = None) -> bool:
        """Run one ``/memory`` command line. Returns whether it parsed."""
        from memtui.app.commands import CommandError, parse_command

        try:
            command = parse_command(text)
        except CommandError as error:
            self.say(error.message, severity="error")
            return False
        if command_line is not None:
            command_line.action_close()
        self.curator.run_command(command)
        return True

    def action_forget_selected(self) -> None:
        """Forget the selected (or marked) memories, asking first."""
        pane = self.current_pane()
        if pane is not None and pane.forget_selected():
            return
        if self.selected_memory_id:
            self.curator.forget([self.selected_memory_id])
        else:
            self.say("No memory selected.", severity="warning")

    def action_correct_selected(self) -> None:
        """Correct the selected memory."""
        pane = self.current_pane()
        if pane is not None and pane.correct_selected():
            return
        memory_id = self.current_memory_id()
        if memory_id is None:
            self.say("No memory selected.", severity="warning")
            return
        try:
            self.curator.correct(self.engine.identity.get_memory(memory_id))
        except MemtuiError as error:
            self.say(error.message, severity="error")

    def action_copy(self) -> None:
        """Copy what the pane on screen offers."""
        pane = self.current_pane()
        what = pane.copy_text() if pane is not None else None
        if what is None:
            self.say("Nothing to copy here.", severity="warning")
        else:
            self.copy_text(what[1], what[0])

    def inbox_action(self, action: str) -> None:
        """Approve, edit-and-approve or reject in the Inbox (shown first if it is not)."""
        from memtui.app.panes.inbox import InboxPane

        pane = self.current_pane()
        if isinstance(pane, InboxPane) and pane.loaded:
            actions = {"approve": pane.action_approve, "reject": pane.action_reject,
                       "edit_approve": pane.action_edit_approve}
            actions[action]()
            return
        self.show_pane(INBOX_PANE)
        self.say("The Inbox is open: choose a row, then press the key again.", toast=False)

    def agents_action(self, action: str) -> None:
        """Forget, edit or promote the Agents pane's selected entry (the pane shown first if
        it is not)."""
        from memtui.app.panes.agents import AgentsPane

        pane = self.current_pane()
        if isinstance(pane, AgentsPane) and pane.overview is not None:
            actions = {"forget": pane.action_forget_entry, "edit": pane.action_edit_entry,
                       "promote": pane.action_promote_entry}
            actions[action]()
            return
        self.show_pane(AgentsPane.PANE_ID)
        self.say("The Agents pane is open: enter lists a row's entries; choose one, then "
                 "press the key again.", toast=False)

    def action_new_memory(self) -> None:
        """Add a memory in the current scope."""
        self.curator.add_memory(self.current_scope_project())

    def action_new_note(self) -> None:
        """Add a note in the current scope."""
        self.curator.add_note(self.current_scope_project())

    def ask_unsaved(self, panes: list[Pane], going: str, go_on: Callable[[], None]) -> None:
        """Forms with unsaved changes: ask (save / discard / cancel); save or discard, then
        ``go_on``; cancel stays on the first such form. A refused save stays too (the form
        says why next to the field)."""
        from memtui.app.modals.unsaved import UnsavedAnswer, UnsavedModal

        def answered(answer: UnsavedAnswer | None) -> None:
            if answer == "discard":
                for pane in panes:
                    pane.discard_changes()
                go_on()
            elif answer == "save":
                self._save_in_turn(list(panes), go_on)
            else:
                self.say("Changes kept, not saved.", toast=False)
                self.show_pane(panes[0].PANE_ID)

        self.push_screen(UnsavedModal([pane.TITLE for pane in panes], going), answered)

    def _save_in_turn(self, panes: list[Pane], go_on: Callable[[], None]) -> None:
        if not panes:
            go_on()
            return
        first, rest = panes[0], panes[1:]
        first.save_changes(lambda: self._save_in_turn(rest, go_on))

    async def action_quit(self) -> None:
        """``q``: ask first when a form holds unsaved changes; stop the worker between
        transactions, then quit."""
        unsaved = [pane for pane in self.panes() if pane.unsaved_changes()]
        if unsaved:
            self.ask_unsaved(unsaved, "quitting", self._quit_now)
            return
        self._quit_now()

    def _quit_now(self) -> None:
        self.runner.stop()
        self.exit()


def is_command_line(widget: object) -> TypeGuard[CommandLine]:
    """Whether ``widget`` is the ``/memory`` command line."""
    from memtui.app.widgets.command_line import CommandLine

    return isinstance(widget, CommandLine)


def binding_classes() -> list[tuple[str, type]]:
    """(where, class) of everything in the app that has key bindings, in help order (for
    ``memtui.app.help``; the classes are imported here, when first asked for)."""
    from memtui.app.modals.confirm import ConfirmModal
    from memtui.app.modals.detail import MemoryDetailModal
    from memtui.app.modals.editor import MemoryEditor
    from memtui.app.modals.filter import FilterModal
    from memtui.app.modals.help import HelpModal
    from memtui.app.modals.picker import PickerModal
    from memtui.app.modals.project import ProjectDialog
    from memtui.app.modals.text import TextModal
    from memtui.app.modals.unsaved import UnsavedModal
    from memtui.app.panes.agents import AgentsPane
    from memtui.app.panes.base import FormPane
    from memtui.app.panes.bundles import BundlesPane
    from memtui.app.panes.codex import CodexPane
    from memtui.app.panes.extraction_log import ExtractionLogPane
    from memtui.app.panes.history import HistoryPane
    from memtui.app.panes.inbox import InboxPane
    from memtui.app.panes.injection import InjectionPane
    from memtui.app.panes.memories import MemoriesPane, ProjectMemoriesPane
    from memtui.app.panes.profile import ProfilePane
    from memtui.app.panes.settings import SettingsPane
    from memtui.app.widgets.command_line import CommandLine
    from memtui.app.widgets.line_list import LineList
    from memtui.app.widgets.memory_list import MemoryList

    return [("everywhere", MemtuiApp), ("everywhere", MainScreen), ("lists", LineList),
            ("memory lists", MemoryList), ("memory panes", MemoriesPane),
            ("project pane", ProjectMemoriesPane), ("history", HistoryPane),
            ("extraction log", ExtractionLogPane), ("injection preview", InjectionPane),
            ("inbox", InboxPane),
            ("bundles", BundlesPane), ("codex", CodexPane), ("agents", AgentsPane),
            ("profile", ProfilePane), ("settings", SettingsPane), ("profile, settings", FormPane),
            ("command line", CommandLine), ("editor", MemoryEditor),
            ("confirm", ConfirmModal), ("memory detail", MemoryDetailModal),
            ("filter", FilterModal), ("picker", PickerModal), ("help", HelpModal),
            ("text view", TextModal), ("unsaved changes", UnsavedModal),
            ("new project", ProjectDialog)]


def all_bindings() -> list[tuple[str, str, str]]:
    """(where, default keys, binding id) of every binding in the app."""
    from textual.binding import Binding

    return [(where, binding.key, binding.id) for where, owner in binding_classes()
            for binding in owner.__dict__.get("BINDINGS", [])
            if isinstance(binding, Binding) and binding.id]


def all_binding_ids() -> set[str]:
    """Every binding id in the app (for checking a keymap file)."""
    from memtui.app.help import key_rows

    return {binding_id for _where, _keys, _what, binding_id in key_rows(binding_classes())}
