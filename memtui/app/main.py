"""The app factory shared by the command line and the tests, and the command-line runner."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.app.app import AppConfig, MemtuiApp
from memtui.engine.api import Engine
from memtui.errors import NotFound

if TYPE_CHECKING:
    from memtui.cli.context import CliContext
    from memtui.store.backend import StoreBackend


def pick_project(engine: Engine, project: str | None = None,
                 cwd: str | os.PathLike[str] | None = None) -> str | None:
    """The project asked for (checked), else ``cwd``'s (``project_for_path``), else the first
    the user made or accepted, else the first readable one, else None."""
    identity = engine.identity
    if project is not None:
        return identity.get_project(project).id  # NotFound when not readable
    found = identity.project_for_path(cwd or Path.cwd())
    if found is not None:
        return found.id
    ids = [p.id for p in identity.chosen_projects()] + [p.id for p, _ in identity.list_projects()]
    return ids[0] if ids else None


def create_app(store: StoreBackend, actor: str, project: str | None = None, *,
               config: AppConfig | None = None,
               cwd: str | os.PathLike[str] | None = None) -> MemtuiApp:
    """Build the app on an open store, acting as ``actor``, on ``project`` (``pick_project``)."""
    engine = Engine(store, actor)
    return MemtuiApp(store, engine.actor, pick_project(engine, project, cwd), config=config)


def run_app(ctx: CliContext) -> int:
    """Run the app for a command-line context (``memtui``, ``memtui --demo``)."""
    project = getattr(ctx.args, "project", None)
    try:
        def home(name: str) -> Path | None:
            value = getattr(ctx.args, name, None)
            return Path(value).expanduser() if value else None

        config = AppConfig(codex_home=home("codex_home"), claude_home=home("claude_home"),
                           gemini_home=home("gemini_home"))
        app = create_app(ctx.store, ctx.user, project, config=config)
    except NotFound as error:
        raise NotFound(f"{error.message} (or you are not a member): see memtui project list") \
            from None
    app.run()
    return app.return_code or 0
