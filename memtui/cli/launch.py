"""Opening the app from the command line (``memtui``, ``memtui --demo``)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.cli.context import CliContext


def prepare_demo(ctx: CliContext) -> Path:
    """Build the demo store (a temporary file, or the PATH given to ``--demo``) and return it."""
    from memtui.engine.demo import build_demo_store

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
    """Open the app on the chosen store (the demo store with ``--demo``: acting user alice,
    project webshop unless ``--user`` / ``--project`` say otherwise)."""
    if ctx.args.demo is not None:
        from memtui.engine.demo import DEMO_PROJECT, DEMO_USER

        ctx.args.db = str(prepare_demo(ctx))
        if not ctx.args.user:
            ctx.args.user = DEMO_USER
        if not getattr(ctx.args, "project", None):
            ctx.args.project = DEMO_PROJECT
    from memtui.app.main import run_app

    ctx.allow_read_only = True  # a read-only file is browsed; writes say why they fail
    ctx.store  # noqa: B018 - open and check the store before the screen switches
    return run_app(ctx)
