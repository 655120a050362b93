"""Opening the app from the command line (``memtui``, ``memtui --demo``)."""

from __future__ import annotations

import shutil
import signal
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memtui.cli.context import CliContext

DEMO_FOLDER_PREFIX = "memtui-demo-"
DEMO_CODEX_SUFFIX = ".codex-home"
"""The demo's Codex home sits beside its store: ``demo.db`` and ``demo.db.codex-home``."""
DEMO_AGENTS_SUFFIX = ".agent-homes"
"""The demo's Claude Code and Gemini CLI homes (``.claude``, ``.gemini``, and the project
folders they name) sit beside its store in ``demo.db.agent-homes``."""


def demo_homes(store_path: Path) -> tuple[Path, Path, Path]:
    """Where the demo's Codex, Claude Code and Gemini CLI homes are, beside the demo store."""
    codex, agents = (store_path.with_name(store_path.name + suffix)
                     for suffix in (DEMO_CODEX_SUFFIX, DEMO_AGENTS_SUFFIX))
    return codex, agents / ".claude", agents / ".gemini"


def _demo_homes(store_path: Path) -> None:
    """Build the demo's Codex, Claude Code and Gemini CLI homes that are missing."""
    from memtui.engine.agents.demo import build_demo_agent_homes
    from memtui.engine.demo_codex import build_demo_codex_home

    codex, claude, _gemini = demo_homes(store_path)
    if not codex.exists():
        build_demo_codex_home(codex)
    if not claude.parent.exists():
        build_demo_agent_homes(claude.parent)


def prepare_demo(ctx: CliContext) -> tuple[Path, Path | None]:
    """Build the demo store and its agent homes (Codex, Claude Code, Gemini CLI; in a new
    temporary folder, or beside the PATH given to ``--demo``). Returns the store's path and
    the temporary folder to remove when the app closes (None for a PATH the person chose: it
    is kept, and reopened next time)."""
    from memtui.engine.demo import build_demo_store, check_demo_store

    given = ctx.args.demo
    folder: Path | None = None
    if given:
        path = Path(given).expanduser()
        if path.exists() and path.stat().st_size > 0:
            check_demo_store(path)  # before anything is made beside it
            _demo_homes(path)
            return path, None  # reopen an existing demo store
    else:
        folder = Path(tempfile.mkdtemp(prefix=DEMO_FOLDER_PREFIX))
        path = folder / "demo.db"
    try:
        build_demo_store(path).close()
        _demo_homes(path)
    except BaseException:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return path, folder


def launch_app(ctx: CliContext) -> int:
    """Open the app on the chosen store; with ``--demo`` on the demo store and its own agent
    homes (unless options say otherwise), its temporary folder removed however the app closes."""
    folder: Path | None = None
    if ctx.args.demo is not None:
        from memtui.engine.demo import DEMO_PROJECT, DEMO_USER

        path, folder = prepare_demo(ctx)
        ctx.args.db = str(path)
        codex, claude, gemini = demo_homes(path)
        for name, value in (("user", DEMO_USER), ("project", DEMO_PROJECT),
                            ("codex_home", str(codex)),
                            ("claude_home", str(claude)), ("gemini_home", str(gemini))):
            if not getattr(ctx.args, name, None):
                setattr(ctx.args, name, value)
    previous = _exit_on_hangup() if folder is not None else {}
    try:
        from memtui.app.main import run_app

        ctx.allow_read_only = True  # a read-only file is browsed; writes say why they fail
        ctx.store  # noqa: B018 - open and check the store before the screen switches
        return run_app(ctx)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if folder is not None:
            ctx.close()
            shutil.rmtree(folder, ignore_errors=True)


def _exit_on_hangup() -> dict[int, Any]:
    """A closed terminal (SIGHUP) or a kill (SIGTERM) ends the demo through ``finally`` (so
    its temporary folder goes too), not in the middle of nowhere. Returns the old handlers."""

    def leave(number: int, _frame: object) -> None:
        raise SystemExit(128 + number)

    previous: dict[int, Any] = {}
    for name in ("SIGHUP", "SIGTERM"):
        number = getattr(signal, name, None)
        if number is None:
            continue
        try:
            previous[number] = signal.signal(number, leave)
        except (ValueError, OSError):  # not the main thread: leave the handlers alone
            continue
    return previous
