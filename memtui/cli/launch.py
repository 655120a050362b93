"""Opening the app from the command line (``memtui``, ``memtui --demo``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from rich.text import Text

from memtui.cli.context import CliContext
from memtui.engine.demo import DEMO_USER, build_demo_store
from memtui.errors import StoreError


def prepare_demo(ctx: CliContext) -> Path:
    """Build the demo store (a temporary file, or the PATH given to ``--demo``) and return it."""
    given = ctx.args.demo
    if given:
        path = Path(given).expanduser()
        if path.exists() and path.stat().st_size > 0:
            return path  # reopen an existing demo store
    else:
        folder = Path(tempfile.mkdtemp(prefix="memtui-demo-"))
        path = folder / "demo.db"
    store = build_demo_store(path)
    store.close()
    return path


def launch_app(ctx: CliContext) -> int:
    """Open the app on the chosen store (the demo store with ``--demo``)."""
    if ctx.args.demo is not None:
        ctx.args.db = str(prepare_demo(ctx))
        if not ctx.args.user:
            ctx.args.user = DEMO_USER
    try:
        from memtui.app.main import run_app
    except ImportError:
        ctx.console.print(Text(f"memtui store: {ctx.db_path} (user {ctx.user})\n"
                               "The app is not installed in this build; use `memtui --help`."))
        return 0
    try:
        ctx.store  # noqa: B018 - open and check the store before the screen switches
    except StoreError:
        raise
    return run_app(ctx)
