"""One start-to-first-paint run, in a fresh process (the benchmark spawns this file by path).

``app_start.py empty`` runs the reference (a Textual app showing one ``Static``);
``app_start.py app --db PATH --user ID`` runs the real ``memtui`` command. Both run
headless and stop at the end of the first compositor refresh that drew their content, then
print one JSON line (the times of import, build and paint, and the peak memory) and leave
with ``os._exit``, so teardown is not measured. The measuring hooks go in as each module is
first imported (a finder on ``sys.meta_path``): nothing is imported here before the start.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

LIST_MODULES = "--list-modules"
LIST_QUERIES = "--list-queries"
_queries: list[str] = []
"""The statements traced so far (with ``--list-queries``)."""
HEADLESS_DRIVER = "textual.drivers.headless_driver:HeadlessDriver"


def peak_rss_kib() -> int | None:
    """This process's peak resident memory in KiB (``VmHWM``; Linux), or None.

    Not ``ru_maxrss`` from the parent's ``wait4``: Linux carries the peak of the memory a
    child was forked from across ``exec``, so a child of a big benchmark process would report
    the parent's peak instead of its own."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _finish(info: dict) -> None:
    info["painted_at"] = time.time()
    info["peak_rss_kib"] = peak_rss_kib()
    if LIST_MODULES in sys.argv:
        info["modules"] = sorted(sys.modules)
    if LIST_QUERIES in sys.argv:
        info["queries"] = list(_queries)
    sys.stdout.write(json.dumps(info) + "\n")
    sys.stdout.flush()
    os._exit(0)


class AfterImport:
    """A ``sys.meta_path`` finder that runs a hook on a module right after it is first
    imported (the module's own finder and loader do the importing)."""

    def __init__(self, hooks: dict[str, Callable[[ModuleType], None]]) -> None:
        self.hooks = dict(hooks)

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        """The real spec of a hooked module, its loader wrapped; None for the others."""
        hook = self.hooks.get(name)
        if hook is None:
            return None
        for finder in sys.meta_path:
            if isinstance(finder, AfterImport) or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        del self.hooks[name]
        loader = spec.loader
        if loader is None:
            return spec
        exec_module = loader.exec_module

        def exec_then_hook(module: ModuleType) -> None:
            exec_module(module)
            hook(module)

        loader.exec_module = exec_then_hook  # type: ignore[method-assign]
        return spec


def _hook_frames(screen_module: ModuleType, done: list[bool], info: dict) -> None:
    """After each frame, exit if the target drew its content in it."""
    from memtui.app.textual_compat import SCREEN_FRAME_METHOD

    screen_class = screen_module.Screen
    original = getattr(screen_class, SCREEN_FRAME_METHOD)

    def compositor_refresh(self: Any) -> None:
        original(self)
        if done[0]:
            _finish(info)

    setattr(screen_class, SCREEN_FRAME_METHOD, compositor_refresh)


def run_empty() -> None:
    """The reference: an empty Textual app that paints one Static."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    info = {"mode": "empty", "imported_at": time.time()}
    done = [False]

    class PaintedStatic(Static):
        def render(self):  # noqa: ANN201 - Textual's visual type
            done[0] = True
            return super().render()

    class EmptyApp(App[None]):
        def compose(self) -> ComposeResult:
            yield PaintedStatic("memtui")

    import textual.screen

    _hook_frames(textual.screen, done, info)
    app = EmptyApp()
    info["built_at"] = time.time()
    app.run()
    raise SystemExit("the reference app exited before its first paint")


def run_app(db: str, user: str) -> None:
    """The real ``memtui`` command on a store: exit when the memory list drew real rows."""
    info: dict[str, Any] = {"mode": "app"}
    done = [False]

    def drawing(original: Callable[..., Any]) -> Callable[..., Any]:
        def draw(self: Any, index: int, width: int) -> Any:
            drawn = original(self, index, width)
            if drawn is not None:  # a real row, as text or straight to segments
                done[0] = True
            return drawn

        return draw

    def hook_list(module: ModuleType) -> None:
        memory_list = module.MemoryList
        memory_list.row_text = drawing(memory_list.row_text)
        memory_list.row_segments = drawing(memory_list.row_segments)

    def hook_imported(_module: ModuleType) -> None:
        info["imported_at"] = time.time()

    def hook_built(module: ModuleType) -> None:
        app_class = module.MemtuiApp
        original_run = app_class.run

        def run(self: Any, **kwargs: Any) -> Any:
            info["built_at"] = time.time()
            return original_run(self, **kwargs)

        app_class.run = run

    def hook_store(module: ModuleType) -> None:
        store_class = module.Store
        original_open = store_class.open_connection

        def open_connection(self: Any) -> Any:  # every connection the store opens
            conn = original_open(self)
            conn.set_trace_callback(_queries.append)
            return conn

        store_class.open_connection = open_connection

    hooks: dict[str, Callable[[ModuleType], None]] = {
        "textual.screen": lambda module: _hook_frames(module, done, info),
        "memtui.app.widgets.memory_list": hook_list,
        "memtui.app.main": hook_imported,
        "memtui.app.app": hook_built,
    }
    if LIST_QUERIES in sys.argv:
        hooks["memtui.store.database"] = hook_store
    sys.meta_path.insert(0, AfterImport(hooks))
    from memtui.cli.main import main as memtui_main

    code = memtui_main(["--db", db, "--user", user])
    raise SystemExit(f"memtui exited ({code}) before its memory list painted")


def headless_environment(width: int, height: int) -> dict[str, str]:
    """The environment variables that make both sides run headless at ``width`` x
    ``height``."""
    return {"TEXTUAL_DRIVER": HEADLESS_DRIVER, "COLUMNS": str(width), "LINES": str(height)}


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and run one start."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("empty", "app"))
    parser.add_argument("--db")
    parser.add_argument("--user", default="alice")
    parser.add_argument("--width", type=int, default=120)
    parser.add_argument("--height", type=int, default=40)
    parser.add_argument(LIST_MODULES, action="store_true",
                        help="also print the modules loaded by the first paint")
    parser.add_argument(LIST_QUERIES, action="store_true",
                        help="also print the SQL statements the first paint ran")
    args = parser.parse_args(argv)
    for name, value in headless_environment(args.width, args.height).items():
        os.environ.setdefault(name, value)
    if args.mode == "empty":
        run_empty()
    else:
        if not args.db:
            parser.error("app needs --db")
        run_app(args.db, args.user)


if __name__ == "__main__":
    main()
