"""The Pilot harness of the app tests (Pilot and snapshot tests alike): build the app on a
fresh deterministic demo store and let it settle.

The demo store has a fixed clock (it stands at DEMO_NOW) and sequential ids; the app runs
with its timers off (no data_version poll, no timed worker rounds), no keymap file, no
system clipboard, a fixed store label in the header, no animations, and no cursor blinking
once settled.
"""

from __future__ import annotations

import asyncio
import functools
import io
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from memtui.app.app import AppConfig, MemtuiApp
from memtui.app.main import create_app
from memtui.engine.demo import DEMO_PROJECT, DEMO_USER, build_demo_store
from memtui.store.database import Store

STORE_LABEL = "~/demo/memtui.db"
SMALL = (80, 24)
WIDE = (160, 48)
MAX_SETTLE_ROUNDS = 50


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


async def settle(pilot: Pilot[Any], *, animations: bool = False) -> None:
    """Wait until workers are done and every message they posted is handled (no sleeps).
    ``animations`` also waits for scheduled animations (before a screenshot)."""
    app = pilot.app
    for _ in range(MAX_SETTLE_ROUNDS):
        await pilot.pause()
        if not any(worker.is_running for worker in app.workers):
            await pilot.pause()
            if not any(worker.is_running for worker in app.workers):
                break
        await app.workers.wait_for_complete()
    if animations:
        await pilot.wait_for_scheduled_animations()
    for widget in app.screen.query(Input):
        widget.cursor_blink = False
    for area in app.screen.query(TextArea):
        area.cursor_blink = False


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """Press keys one by one, settling after each."""
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


def app_test(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async Pilot test in its own event loop (no async pytest plugin needed)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


def screen_text(app: App[Any]) -> str:
    """What the terminal shows now, as plain text (modals included)."""
    width, _height = app.size
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None,
                      legacy_windows=False, force_terminal=False)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


def status_text(app: App[Any]) -> str:
    """The status line's text."""
    return str(app.get_screen_main().query_one("#status-message").render())
