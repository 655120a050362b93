"""The Pilot harness of the app tests (Pilot and snapshot tests alike): build the app on a
fresh deterministic demo store and let it settle.

The demo store has a fixed clock (it stands at DEMO_NOW) and sequential ids; the app runs
with its timers off (no data_version poll, no timed worker rounds), no keymap file, no
system clipboard, a fixed store label in the header, no animations, and no cursor blinking
once settled.

A Pilot test opens the app with ``opened`` (inside an ``app_test`` function), then acts and
checks with the helpers here (``press``, ``fill``, ``asks``, ``type_text``, ``top_screen``,
``status_text``, ``screen_text``...).

Settling (``settle``) waits for what the tests can name: no worker running (a memory
list's loader, which lives as long as its list, counts once it has nothing to do), every
message queued on any screen in the stack handled, every screen painted. Pilot's own pauses also
wait for the process to be idle, by sleeping in windows until one used under a twentieth of
its time on the processor; the window is 2 ms here instead of Textual's 20 ms
(``IDLE_WINDOW_SECONDS``, the same ratio for "idle"): the app tests take about a third of
the time they took.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import re
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import textual._wait
from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from memtui.app.app import AppConfig, MemtuiApp
from memtui.app.main import create_app
from memtui.app.widgets.memory_list import LOADER_GROUP, worker_is_working
from memtui.engine.demo import DEMO_PROJECT, DEMO_USER, build_demo_store
from memtui.store.database import Store

if TYPE_CHECKING:
    from memtui.app.panes.memories import MemoriesPane

STORE_LABEL = "~/demo/memtui.db"
SMALL = (80, 24)
WIDE = (160, 48)
MAX_SETTLE_ROUNDS = 50
SETTLE_TIMEOUT_SECONDS = 60
"""How long the messages of one settling round may take to be handled (a safety net: the
test fails instead of hanging)."""
IDLE_WINDOW_SECONDS = 0.002
"""Pilot's idle window (``textual._wait.SLEEP_GRANULARITY``, 20 ms in Textual); the process
counts as idle in a window where it used under a twentieth of it on the processor."""
LOADER_POLL_SECONDS = 0.005
"""How often settling looks whether a busy list loader is done."""
textual._wait.SLEEP_GRANULARITY = IDLE_WINDOW_SECONDS
textual._wait.SLEEP_IDLE = IDLE_WINDOW_SECONDS / 20


class CopySpy:
    """A stand-in system clipboard that remembers what was copied."""

    def __init__(self, fail: bool = False) -> None:
        self.copied: list[str] = []
        self.fail = fail

    def __call__(self, text: str) -> None:
        if self.fail:
            raise RuntimeError("no system clipboard")
        self.copied.append(text)


def app_config(**overrides: Any) -> AppConfig:
    """The app's configuration for tests: no timers, no keymap file, fixed label."""
    options: dict[str, Any] = {"poll_interval": None, "worker_interval": None,
                               "load_keymap": False, "system_clipboard": None,
                               "remember_theme": False,
                               "store_label": STORE_LABEL,
                               # never the machine's own ~/.codex: snapshots must not depend on it
                               "codex_home": Path("/nonexistent/codex-home"),
                               "claude_home": Path("/nonexistent/claude-home"),
                               "gemini_home": Path("/nonexistent/gemini-home")}
    options.update(overrides)
    return AppConfig(**options)


def demo_store(folder: Path) -> Store:
    """A new demo store in ``folder``."""
    return build_demo_store(folder / "demo.db")


def demo_app(folder: Path, *, user: str = DEMO_USER, project: str | None = DEMO_PROJECT,
             store: Store | None = None, **config: Any) -> MemtuiApp:
    """The app on a new demo store (or ``store``), acting as ``user``; animations off (they
    would otherwise slow the tests and move in snapshots)."""
    app = create_app(store or demo_store(folder), user, project, config=app_config(**config),
                     cwd=folder)
    app.animation_level = "none"
    return app


def agents_app(homes: Path, **config: Any) -> MemtuiApp:
    """The demo app in ``homes`` whose agent homes are the ones there (``.claude``,
    ``.gemini``, ``.codex``)."""
    return demo_app(homes, claude_home=homes / ".claude", gemini_home=homes / ".gemini",
                    codex_home=homes / ".codex", **config)


def demo_app_with_matches(folder: Path,
                          text: str = "ruff rule number {} is enabled") -> MemtuiApp:
    """The demo app with more memories matching "r", "ru", "ruf"... than a page holds
    (``text`` with each memory's number), the newest."""
    from memtui.app.widgets.paged_source import PAGE_SIZE

    app = demo_app(folder)
    for number in range(PAGE_SIZE + 20):
        app.engine.identity.add_memory(text.format(number))
    return app


async def open_user_search(app: MemtuiApp, pilot: Pilot[Any]) -> MemoriesPane:
    """The User memories pane, settled, with its search box open."""
    from memtui.app.panes.memories import MemoriesPane

    await settle(pilot)
    pane = app.pane("user")
    assert isinstance(pane, MemoriesPane)
    await press(pilot, "slash")
    return pane


def keys_wait_for_their_queries(monkeypatch: Any) -> None:
    """Every typed key's rows come from its query, never from the rows on screen
    (``IdentityApi.narrowed_rows`` answers nothing): for tests of the query's path (its
    worker, the paint hold, the interrupt)."""
    from memtui.engine.identity import IdentityApi

    monkeypatch.setattr(IdentityApi, "narrowed_rows", lambda *args, **kwargs: None)


async def settle(pilot: Pilot[Any], *, animations: bool = False) -> None:
    """Wait until workers are done and every message they posted is handled (no sleeps):
    on every screen of the stack (a dialog's background too), each then painted.
    ``animations`` also waits for scheduled animations (before a screenshot)."""
    app = pilot.app
    for _ in range(MAX_SETTLE_ROUNDS):
        await _pause(pilot)
        if not any(worker_is_working(worker) for worker in app.workers):
            await _pause(pilot)
            if not any(worker_is_working(worker) for worker in app.workers):
                break
        others = [worker for worker in app.workers if worker.group != LOADER_GROUP]
        if others:  # (an empty list would wait for every worker, the loaders too)
            await app.workers.wait_for_complete(others)
        await _loaders_idle(app)
    if animations:
        await pilot.wait_for_scheduled_animations()
    for widget in app.screen.query(Input):
        widget.cursor_blink = False
    for area in app.screen.query(TextArea):
        area.cursor_blink = False


async def _loaders_idle(app: App[Any]) -> None:
    """Wait until every list's loader has nothing to do (a load's count waits for typing
    to pause, up to half a second), polled; at most ``SETTLE_TIMEOUT_SECONDS``."""
    for _ in range(round(SETTLE_TIMEOUT_SECONDS / LOADER_POLL_SECONDS)):
        if not any(worker_is_working(worker) for worker in app.workers
                   if worker.group == LOADER_GROUP):
            return
        await asyncio.sleep(LOADER_POLL_SECONDS)
    raise TimeoutError(f"a list's loader still busy after {SETTLE_TIMEOUT_SECONDS} s")


async def _pause(pilot: Pilot[Any]) -> None:
    """Pilot's pause, then every message queued on any screen of the stack handled and
    each screen painted (Pilot waits for the top screen alone)."""
    await pilot.pause()
    app = pilot.app
    handled: list[asyncio.Event] = []
    for node in [app, *(child for screen in app.screen_stack
                        for child in screen.walk_children(with_self=True))]:
        event = asyncio.Event()
        if node.call_later(event.set):
            handled.append(event)
    if handled:
        failed = asyncio.ensure_future(app._exception_event.wait())
        done = asyncio.ensure_future(asyncio.gather(*(event.wait() for event in handled)))
        await asyncio.wait([done, failed], timeout=SETTLE_TIMEOUT_SECONDS,
                           return_when=asyncio.FIRST_COMPLETED)
        timed_out = not (done.done() or failed.done())
        for future in (done, failed):
            future.cancel()
        if timed_out:
            raise TimeoutError(f"messages still waiting after {SETTLE_TIMEOUT_SECONDS} s")
    for screen in app.screen_stack:
        if screen.is_running:
            screen._on_timer_update()


UNTIL_ROUNDS = 3000
"""Short pauses ``until`` lets the app run (bounded by count, generous for a busy machine)."""


async def until(pilot: Pilot[Any], condition: Callable[[], bool],
                rounds: int = UNTIL_ROUNDS) -> bool:
    """Let the app run until ``condition()`` holds, at most ``rounds`` short pauses."""
    for _ in range(rounds):
        if condition():
            return True
        await pilot.pause(0.01)
    return condition()


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """Press keys one by one, settling after each."""
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def asks(pilot: Pilot[Any], *keys: str) -> str:
    """Press ``keys`` (``press``): a confirm must then be on screen; what the screen shows."""
    from memtui.app.modals.confirm import ConfirmModal

    await press(pilot, *keys)
    assert isinstance(pilot.app.screen, ConfirmModal)
    return screen_text(pilot.app)


async def fill(pilot: Pilot[Any], selector: str, value: str, *keys: str) -> Input:
    """Focus the input ``selector`` on the screen, set its value to ``value`` and settle,
    then press ``keys`` (``press``)."""
    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    field.value = value
    await settle(pilot)
    await press(pilot, *keys)
    return field


def app_test(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async Pilot test in its own event loop (no async pytest plugin needed)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


@contextlib.asynccontextmanager
async def opened(app: App[Any] | Path, *keys: str, size: tuple[int, int] = SMALL,
                 **config: Any) -> AsyncIterator[tuple[Any, Pilot[Any]]]:
    """Run ``app`` (a folder: the demo app on a new store there, ``config`` as in
    ``demo_app``) in a terminal of ``size``, settled, then ``keys`` pressed one by one
    (``press``): ``async with opened(tmp_path, "3") as (app, pilot):``. The one way the
    Pilot tests open an app."""
    if isinstance(app, Path):
        app = demo_app(app, **config)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, *keys)
        yield app, pilot


def screen_text(app: App[Any]) -> str:
    """What the terminal shows now, as plain text (modals included)."""
    width, _height = app.size
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None,
                      legacy_windows=False, force_terminal=False)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


ScreenT = TypeVar("ScreenT")


def top_screen(app: App[Any], kind: type[ScreenT]) -> ScreenT:
    """The screen on top of the stack, which must be a ``kind`` (a dialog's class)."""
    screen = app.screen
    assert isinstance(screen, kind), screen
    return screen


def status_text(app: App[Any]) -> str:
    """The status line's text."""
    return str(app.get_screen_main().query_one("#status-message").render())


TYPED_KEYS = {" ": "space", ".": "full_stop"}
"""The keys ``type_text`` presses for characters that are not their own key's name."""


async def type_text(pilot: Pilot[Any], text: str) -> None:
    """Type ``text`` key by key, then settle."""
    for key in text:
        await pilot.press(TYPED_KEYS.get(key, key))
    await settle(pilot)


async def run_palette(pilot: Pilot[Any], name: str) -> None:
    """Choose a command in the palette: ctrl+p, its name typed, enter."""
    await press(pilot, "ctrl+p")
    await type_text(pilot, name)
    await press(pilot, "enter")


def header_text(app: App[Any]) -> str:
    """The header line's text."""
    return str(app.get_screen_main().query_one("#header").render())


def inbox_count(app: App[Any]) -> int:
    """The count of rows waiting in the inbox, as the header shows it (0: not shown)."""
    found = re.search(r"inbox (\d+)", header_text(app))
    return int(found.group(1)) if found else 0


LOADER_READ_TIMEOUT_S = 30
"""A held loader read gives up waiting for its test after this long (only if it broke)."""


class HeldReads:
    """Holds the memory lists' loader reads that ``holds(source, plan)`` picks until
    ``open()`` (the rest go through), and records them: ``reads``, every read off the UI
    thread as (search, page, method, limit); ``held``, the searches of the held ones;
    ``on_ui_thread``, the searches read on the UI thread."""

    def __init__(self, monkeypatch: Any, holds: Callable[[Any, Any], bool]) -> None:
        import threading

        from memtui.app.widgets.paged_source import PagedSource

        self._open = threading.Event()
        self.waiting = threading.Event()
        self.reads: list[tuple[str | None, int, str, int]] = []
        self.held: list[str | None] = []
        self.on_ui_thread: list[str] = []
        fetch = PagedSource.fetch
        gate = self

        def recorded(source: PagedSource, plan: Any) -> Any:
            search = source.filter.search
            if threading.current_thread() is threading.main_thread():
                if search:
                    gate.on_ui_thread.append(search)
                return fetch(source, plan)
            gate.reads.append((search, plan.page, plan.method, plan.limit))
            if holds(source, plan):
                gate.held.append(search)
                gate.waiting.set()
                gate._open.wait(timeout=LOADER_READ_TIMEOUT_S)
            return fetch(source, plan)

        monkeypatch.setattr(PagedSource, "fetch", recorded)

    def open(self) -> None:
        """Let the held read (and every later one) go on."""
        self._open.set()

    def close(self) -> None:
        """Hold the next read again."""
        self.waiting.clear()
        self._open.clear()


def loader_reads_fail(monkeypatch: Any, when: Callable[[Any, Any], bool]) -> None:
    """The memory lists' loader reads that ``when(source, plan)`` picks fail as a broken
    disk would (``StoreError``); reads on the UI thread go through."""
    import threading

    from memtui.app.widgets.paged_source import PagedSource
    from memtui.errors import StoreError

    fetch = PagedSource.fetch

    def broken(source: PagedSource, plan: Any) -> Any:
        if threading.current_thread() is not threading.main_thread() and when(source, plan):
            raise StoreError("the disk went away")
        return fetch(source, plan)

    monkeypatch.setattr(PagedSource, "fetch", broken)


async def press_until_read_fails(pilot: Pilot[Any], memory_list: Any, key: str) -> None:
    """Press ``key`` in an open search box whose reads fail (``loader_reads_fail``) and wait
    until the list says why, every worker done."""
    await pilot.press(key)
    assert await until(pilot, lambda: memory_list.error is not None)
    await settle(pilot)
    assert "the disk went away" in (memory_list.error or "")


class NoEngine:
    """An engine that must not be used: any use of it fails the test."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the store was asked for {name}")


def listed_ids(memory_list: Any, rows: int) -> list[str]:
    """The ids of a memory list's first ``rows`` rows held by its source (none are read)."""
    source = memory_list.source
    assert source is not None
    found = [source.get(index) for index in range(rows)]
    return [memory.id for memory in found if memory is not None]


def ruff_memories(count: int, start: int = 0) -> list[Any]:
    """``count`` user memories of "ann" ("ruff N"), one second apart, oldest first; never
    stored."""
    from memtui.store.models import Memory

    return [Memory(id=f"mem_{n}", scope="user", owner="ann", project=None, kind="fact",
                   content=f"ruff {n}", status="active", superseded_by=None, source="manual",
                   source_thread_id=None, created_at=f"2026-01-01T00:00:{n:02d}Z",
                   updated_at="2026-01-01T00:00:00Z", usage_count=0, last_used_at=None)
            for n in range(start, start + count)]


def calls_to(monkeypatch: Any, owner: type, name: str) -> list[tuple[Any, tuple[Any, ...]]]:
    """From now on, every call of the method ``owner.name``, in order, as (the object, the
    positional arguments); each still runs the method."""
    calls: list[tuple[Any, tuple[Any, ...]]] = []
    method = getattr(owner, name)

    def spied(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append((self, args))
        return method(self, *args, **kwargs)

    monkeypatch.setattr(owner, name, spied)
    return calls


def on_ui_thread(monkeypatch: Any, owner: type, name: str) -> list[bool]:
    """From now on, for every call of the method ``owner.name``, in order, whether it ran
    on the UI (main) thread; each still runs the method."""
    import threading

    threads: list[bool] = []
    method = getattr(owner, name)

    def spied(self: Any, *args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        return method(self, *args, **kwargs)

    monkeypatch.setattr(owner, name, spied)
    return threads
