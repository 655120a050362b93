"""One start-to-first-paint run, in a fresh process (the benchmark spawns this file).

``python app_start.py empty`` runs the reference: a Textual app whose screen holds one
``Static``. ``python app_start.py app --db PATH --user ID`` opens the store and builds the
real app with ``memtui.app.main.create_app`` (the real CSS, the real first pane).

Both run headless at the same size (``App.run(headless=True, size=...)``: the whole of
Textual's startup, CSS, layout and compositor run; only the bytes to the terminal are
skipped, the same for both). Both stop at the same kind of moment: the end of the first
compositor refresh (``Screen._compositor_refresh``, one frame) in which the target drew its
content -- the Static's text, or real memory rows of the memory list (not the "Loading…"
line). The process then prints one JSON line (the wall-clock time of that moment, so the
parent can subtract the time it spawned the process) and leaves with ``os._exit``, so
teardown is not measured. The parent reads peak RSS from ``os.wait4``.

The JSON line also has the moments the imports were done (``imported_at``) and the app was
built (``built_at``: for the app, the store opened and ``create_app`` returned), and with
``--list-modules`` every module loaded by the first paint (a test keeps the start lean).

The file is run by path, not as ``-m memtui.bench...``, so the reference imports nothing of
memtui.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

LIST_MODULES = "--list-modules"


def _finish(info: dict) -> None:
    info["painted_at"] = time.time()
    if LIST_MODULES in sys.argv:
        info["modules"] = sorted(sys.modules)
    sys.stdout.write(json.dumps(info) + "\n")
    sys.stdout.flush()
    os._exit(0)


def _hook_frames(done: list[bool], info: dict) -> None:
    """After each frame, exit if the target drew its content in it."""
    from textual.screen import Screen

    original = Screen._compositor_refresh

    def compositor_refresh(self: Screen) -> None:
        original(self)
        if done[0]:
            _finish(info)

    Screen._compositor_refresh = compositor_refresh  # type: ignore[method-assign]


def run_empty(width: int, height: int) -> None:
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

    _hook_frames(done, info)
    app = EmptyApp()
    info["built_at"] = time.time()
    app.run(headless=True, size=(width, height))
    raise SystemExit("the reference app exited before its first paint")


def run_app(db: str, user: str, width: int, height: int) -> None:
    """The real app on a store: exit when the memory list has drawn real rows."""
    from memtui.app.main import create_app
    from memtui.app.widgets.memory_list import MemoryList
    from memtui.store.database import open_store

    info = {"mode": "app", "imported_at": time.time()}
    done = [False]
    original_row_text = MemoryList.row_text

    def row_text(self: MemoryList, index: int, width: int):  # noqa: ANN202
        text = original_row_text(self, index, width)
        if text is not None:
            done[0] = True
        return text

    MemoryList.row_text = row_text  # type: ignore[method-assign]
    store = open_store(db)
    app = create_app(store, user)
    info["built_at"] = time.time()
    _hook_frames(done, info)
    app.run(headless=True, size=(width, height))
    raise SystemExit("the app exited before its memory list painted")


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
    args = parser.parse_args(argv)
    if args.mode == "empty":
        run_empty(args.width, args.height)
    else:
        if not args.db:
            parser.error("app needs --db")
        run_app(args.db, args.user, args.width, args.height)


if __name__ == "__main__":
    main()
