"""Render every pane of the real app on the demo store into ``screenshots/`` (SVG, and PNG
when the system's librsvg and cairo libraries are there — no Python package needed).

    python scripts/screenshots.py [--size 100x32] [--out screenshots] [--only NAME ...]

The demo store has a fixed clock and sequential ids, so the pictures only change when the
app does. Timers are off and workers are awaited before each picture.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import ctypes.util
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.app.app import AppConfig, MemtuiApp
from memtui.app.main import create_app
from memtui.app.panes import PANES
from memtui.app.widgets.memory_list import LOADER_GROUP, worker_is_working
from memtui.engine.demo import DEMO_PROJECT, DEMO_USER, build_demo_store
from memtui.engine.demo_codex import build_demo_codex_home

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SIZE = (100, 32)
STORE_LABEL = "~/.local/share/memtui/memtui.db"
HISTORY_HEAD = "mem_0009"
"""The demo's three-version memory (shown in the History pane)."""
MAX_SETTLE_ROUNDS = 50
LOADER_POLL_SECONDS = 0.05
"""How often settling looks again whether the lists' loaders are idle."""
PNG_SCALE = 1.0
AGENT_HOMES_DIR = "memtui-screenshot-home"
AGENT_ENV = ("CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "CODEX_HOME", "CODEX_SQLITE_HOME",
             "CLAUDE_CODE_DISABLE_AUTO_MEMORY", "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")


@dataclass(frozen=True)
class Shot:
    """One picture: a file name, the pane it starts on, the keys pressed first."""

    name: str
    pane: str
    keys: tuple[str, ...] = ()


def shots() -> list[Shot]:
    """Every pane, then a few dialogs."""
    panes = [Shot(f"{number:02d}-{pane.PANE_ID}", pane.PANE_ID)
             for number, pane in enumerate(PANES, start=1)]
    return panes + [
        Shot("20-memory-detail", "project", ("enter",)),
        Shot("21-correct", "user", ("j", "e")),
        Shot("22-forget-confirm", "user", ("j", "d")),
        Shot("23-search", "project", ("slash", "s", "t", "r", "i", "p", "e")),
        Shot("24-command-line", "user", ("colon", "s", "t")),
        Shot("25-memory-status", "user", ("colon", "s", "t", "a", "t", "u", "s", "enter")),
        Shot("26-help", "user", ("question_mark",)),
        Shot("27-inbox-reject", "inbox", ("space", "space", "x")),
        Shot("28-inbox-gemini-apply", "inbox", ("G", "a")),
        Shot("27-agents-redact", "agents", ("j", "s")),
        Shot("28-agents-entries", "agents", ("j", "j", "enter", "j", "j", "j")),
        Shot("29-agents-promote", "agents", ("j", "j", "enter", "j", "j", "j", "P")),
    ]


async def _settle(pilot: Any) -> None:
    """Wait until no worker works (twice in a row: a message handled may start one), then
    for animations; a picture is never taken of a screen still loading."""
    app = pilot.app
    for _ in range(MAX_SETTLE_ROUNDS):
        await pilot.pause()
        if not any(worker_is_working(worker) for worker in app.workers):
            await pilot.pause()
            if not any(worker_is_working(worker) for worker in app.workers):
                break
        others = [worker for worker in app.workers if worker.group != LOADER_GROUP]
        if others:  # (an empty list would wait for every worker, the loaders too)
            await app.workers.wait_for_complete(others)
        await asyncio.sleep(LOADER_POLL_SECONDS)  # a loader's count waits for a pause
    else:
        raise TimeoutError(f"still loading after {MAX_SETTLE_ROUNDS} rounds")
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def agent_homes() -> Path:
    """Demo Claude Code and Gemini CLI homes in a fixed folder, which is also ``$HOME``
    while the pictures are taken (paths show as ``~/…``, the same on every machine)."""
    from memtui.engine.agents.demo import build_demo_agent_homes

    folder = Path(tempfile.gettempdir()) / AGENT_HOMES_DIR
    shutil.rmtree(folder, ignore_errors=True)
    build_demo_agent_homes(folder)
    os.environ["HOME"] = str(folder)
    # no agent program on PATH: the Agents pane's version lines read the same everywhere
    (folder / "bin").mkdir(exist_ok=True)
    os.environ["PATH"] = str(folder / "bin")
    for name in AGENT_ENV:
        os.environ.pop(name, None)
    return folder


async def render(shot: Shot, folder: Path, size: tuple[int, int]) -> str:
    """Build a fresh demo store and app, press the keys, return the SVG."""
    store = build_demo_store(folder / f"{shot.name}.db")
    homes = Path(os.environ["HOME"])
    # the demo's, never the machine's; under the fixed $HOME, so it shows as ~/… and the
    # pictures are the same on every run (a temporary folder's name is random)
    codex_home = homes / "codex-homes" / shot.name
    shutil.rmtree(codex_home, ignore_errors=True)
    build_demo_codex_home(codex_home)
    config = AppConfig(poll_interval=None, worker_interval=None, load_keymap=False,
                       system_clipboard=None, start_pane=shot.pane, store_label=STORE_LABEL,
                       claude_home=homes / ".claude", gemini_home=homes / ".gemini",
                       codex_home=codex_home, remember_theme=False)
    app: MemtuiApp = create_app(store, DEMO_USER, DEMO_PROJECT, config=config, cwd=folder)
    app.history_memory_id = HISTORY_HEAD
    async with app.run_test(size=size) as pilot:
        await _settle(pilot)
        for key in shot.keys:
            await pilot.press(key)
            await _settle(pilot)
        for widget in app.screen.query("Input, TextArea"):
            widget.cursor_blink = False  # type: ignore[attr-defined]
        await pilot.pause()
        svg = app.export_screenshot(title=f"memtui — {shot.name.split('-', 1)[1]}")
    store.close()
    return svg


def png_ready_svg(svg: str) -> str:
    """The SVG as librsvg must see it to draw every cell: Textual pads each run of text with
    no-break spaces, and librsvg drops those at the ends of a ``<text>`` (the header read
    "gen+use onworker idle"); plain spaces under ``xml:space="preserve"`` are kept."""
    return svg.replace("<svg ", '<svg xml:space="preserve" ', 1).replace("&#160;", " ")


def svg_to_png(svg: Path, png: Path, scale: float = PNG_SCALE) -> bool:
    """Convert with the system's librsvg + cairo through ctypes (of ``png_ready_svg``'s
    copy); False when unavailable."""
    with tempfile.TemporaryDirectory(prefix="memtui-png-") as scratch:
        ready = Path(scratch) / svg.name
        ready.write_text(png_ready_svg(svg.read_text(encoding="utf-8")), encoding="utf-8")
        return _rsvg_to_png(ready, png, scale)


def _rsvg_to_png(svg: Path, png: Path, scale: float) -> bool:
    names = {"rsvg": ctypes.util.find_library("rsvg-2") or "librsvg-2.so.2",
             "cairo": ctypes.util.find_library("cairo") or "libcairo.so.2",
             "gobject": ctypes.util.find_library("gobject-2.0") or "libgobject-2.0.so.0"}
    try:
        rsvg, cairo, gobject = (ctypes.CDLL(names[key]) for key in ("rsvg", "cairo", "gobject"))
    except OSError:
        return False

    class Dimensions(ctypes.Structure):
        _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int),
                    ("em", ctypes.c_double), ("ex", ctypes.c_double)]

    pointer = ctypes.c_void_p
    rsvg.rsvg_handle_new_from_file.restype = pointer
    rsvg.rsvg_handle_new_from_file.argtypes = [ctypes.c_char_p, pointer]
    rsvg.rsvg_handle_get_dimensions.argtypes = [pointer, ctypes.POINTER(Dimensions)]
    rsvg.rsvg_handle_render_cairo.argtypes = [pointer, pointer]
    cairo.cairo_image_surface_create.restype = pointer
    cairo.cairo_create.restype = pointer
    cairo.cairo_create.argtypes = [pointer]
    cairo.cairo_scale.argtypes = [pointer, ctypes.c_double, ctypes.c_double]
    cairo.cairo_surface_write_to_png.argtypes = [pointer, ctypes.c_char_p]
    cairo.cairo_destroy.argtypes = [pointer]
    cairo.cairo_surface_destroy.argtypes = [pointer]
    gobject.g_object_unref.argtypes = [pointer]
    handle = rsvg.rsvg_handle_new_from_file(str(svg).encode(), None)
    if not handle:
        return False
    size = Dimensions()
    rsvg.rsvg_handle_get_dimensions(handle, ctypes.byref(size))
    surface = cairo.cairo_image_surface_create(0, int(size.width * scale),
                                               int(size.height * scale))
    context = cairo.cairo_create(surface)
    cairo.cairo_scale(context, scale, scale)
    ok = bool(rsvg.rsvg_handle_render_cairo(handle, context))
    status = cairo.cairo_surface_write_to_png(surface, str(png).encode())
    cairo.cairo_destroy(context)
    cairo.cairo_surface_destroy(surface)
    gobject.g_object_unref(handle)
    return ok and status == 0


def main(argv: list[str] | None = None) -> int:
    """Write every picture; print what was written."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default=f"{DEFAULT_SIZE[0]}x{DEFAULT_SIZE[1]}",
                        help="terminal size, COLUMNSxROWS")
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument("--no-png", action="store_true", help="SVG only")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="only these pictures (e.g. 08-inbox)")
    args = parser.parse_args(argv)
    width, height = (int(part) for part in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    png_ok = not args.no_png
    agent_homes()
    with tempfile.TemporaryDirectory(prefix="memtui-shots-") as scratch:
        for shot in shots():
            if args.only and shot.name not in args.only:
                continue
            svg = asyncio.run(render(shot, Path(scratch), (width, height)))
            svg_path = args.out / f"{shot.name}.svg"
            svg_path.write_text(svg, encoding="utf-8")
            written = [svg_path.name]
            if png_ok:
                png_ok = svg_to_png(svg_path, svg_path.with_suffix(".png"))
                if png_ok:
                    written.append(svg_path.with_suffix(".png").name)
                else:
                    print("PNG: librsvg/cairo not found; writing SVG only", file=sys.stderr)
            print(" ".join(written))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
