"""The app's remembered choices (the theme) in a small TOML file written atomically: unknown
keys are kept, a broken file is reported and never overwritten."""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.engine.paths import config_file
from memtui.private_files import private_replacement

if TYPE_CHECKING:
    from textual.theme import Theme

    from memtui.app.app import MemtuiApp

APP_CONFIG_ENV = "MEMTUI_APP_CONFIG"
APP_CONFIG_FILE_NAME = "app.toml"
MAX_CONFIG_BYTES = 64 * 1024
"""The largest app config file read (this one, the keymap)."""
HEADER = "# memtui's remembered choices (written by the app; safe to edit or delete)\n"


def default_app_config_path() -> Path:
    """``$MEMTUI_APP_CONFIG``, else ``$XDG_CONFIG_HOME/memtui/app.toml``."""
    return config_file(APP_CONFIG_ENV, APP_CONFIG_FILE_NAME)


def read_config_text(path: Path) -> str | None:
    """A small config file's text (None: no file); ``ValueError`` says why it cannot be read."""
    try:
        if not path.is_file():
            return None
        raw = path.read_bytes()[:MAX_CONFIG_BYTES + 1]
        if len(raw) > MAX_CONFIG_BYTES:
            raise ValueError("the file is too large")
        return raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read it ({error})") from None


@dataclass
class UiConfig:
    """The remembered choices read from ``path`` (``values``), or why they could not be."""

    path: Path
    values: dict[str, str] = field(default_factory=dict)
    problem: str | None = None
    """Why the file could not be read (then it is never written over)."""


def load_ui_config(path: Path | None = None) -> UiConfig:
    """Read the file (missing: no choices yet). Only text values are kept."""
    config = UiConfig(path or default_app_config_path())
    try:
        data = tomllib.loads(read_config_text(config.path) or "")
    except ValueError as error:  # TOMLDecodeError is one too
        config.problem = f"cannot read it ({error})" \
            if isinstance(error, tomllib.TOMLDecodeError) else str(error)
    else:
        config.values = {str(key): value for key, value in data.items() if isinstance(value, str)}
    return config


def save_choice(config: UiConfig, key: str, value: str) -> None:
    """Remember ``key = value`` (atomically, the file's mode kept; the folder is made if
    needed). Raises ``OSError`` when the file cannot be written; refuses to write over a
    broken file."""
    if config.problem is not None:
        raise OSError(f"{config.path}: {config.problem}; not written over")
    config.values[key] = value
    config.path.parent.mkdir(parents=True, exist_ok=True)
    mode = config.path.stat().st_mode & 0o777 if config.path.exists() else None
    with private_replacement(config.path) as out:
        if mode is not None:
            os.chmod(out.fileno(), mode)
        # JSON strings are valid TOML basic strings for the text a theme name holds
        out.write(HEADER + "".join(f"{name} = {json.dumps(text, ensure_ascii=True)}\n"
                                   for name, text in sorted(config.values.items())
                                   if name.replace("_", "").isalnum()))


def remember_theme(app: MemtuiApp) -> None:
    """Start with the theme chosen last, remember each new one (problems said, not raised)."""
    from memtui.textsafe import one_line

    config = load_ui_config(app.config.ui_config_path)
    if config.problem:
        app.say(f"Settings file {config.path}: {config.problem}", severity="warning")
    theme = config.values.get("theme")
    if theme and theme != app.theme:
        if theme in app.available_themes:
            app.theme = theme
        else:
            app.say(f"Theme {one_line(theme, 40)!r} (remembered in {config.path}) is not "
                    "available.", severity="warning")

    def chosen(theme: Theme) -> None:
        if config.values.get("theme") == theme.name:
            return
        try:
            save_choice(config, "theme", theme.name)
        except OSError as error:
            app.say(f"Could not remember the theme: {error}", severity="warning", toast=False)

    app.theme_changed_signal.subscribe(app, chosen)
