"""The app's remembered choices (the theme), in ``$MEMTUI_APP_CONFIG``, else
``$XDG_CONFIG_HOME/memtui/app.toml``: small TOML written atomically; unknown keys are kept, a
broken file is reported and never overwritten.
"""

from __future__ import annotations

import json
import os
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.engine.paths import config_file

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

    @property
    def theme(self) -> str | None:
        """The theme last chosen, if any."""
        return self.values.get("theme")


def load_ui_config(path: Path | None = None) -> UiConfig:
    """Read the file (missing: no choices yet). Only text values are kept."""
    target = path or default_app_config_path()
    config = UiConfig(path=target)
    try:
        data = tomllib.loads(read_config_text(target) or "")
    except tomllib.TOMLDecodeError as error:
        config.problem = f"cannot read it ({error})"
        return config
    except ValueError as error:
        config.problem = str(error)
        return config
    config.values = {str(key): value for key, value in data.items() if isinstance(value, str)}
    return config


def save_choice(config: UiConfig, key: str, value: str) -> None:
    """Remember ``key = value`` (atomically; the folder is made if needed). Raises
    ``OSError`` when the file cannot be written; refuses to write over a broken file."""
    if config.problem is not None:
        raise OSError(f"{config.path}: {config.problem}; not written over")
    config.values[key] = value
    folder = config.path.parent
    folder.mkdir(parents=True, exist_ok=True)
    # JSON strings are valid TOML basic strings for the text a theme name holds
    body = HEADER + "".join(f"{name} = {json.dumps(text, ensure_ascii=True)}\n"
                            for name, text in sorted(config.values.items())
                            if name.replace("_", "").isalnum())
    handle, temp = tempfile.mkstemp(prefix=".app.", suffix=".toml", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(body)
        if config.path.exists():
            os.chmod(temp, config.path.stat().st_mode & 0o777)
        os.replace(temp, config.path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def remember_theme(app: MemtuiApp) -> None:
    """Start with the theme chosen last time, then remember each new choice (problems are
    said, never raised)."""
    from memtui.textsafe import one_line

    config = load_ui_config(app.config.ui_config_path)
    if config.problem:
        app.say(f"Settings file {config.path}: {config.problem}", severity="warning")
    theme = config.theme
    if theme and theme != app.theme:
        if theme in app.available_themes:
            app.theme = theme
        else:
            app.say(f"Theme {one_line(theme, 40)!r} (remembered in {config.path}) is not "
                    "available.", severity="warning")

    def chosen(theme: Theme) -> None:
        if config.theme == theme.name:
            return
        try:
            save_choice(config, "theme", theme.name)
        except OSError as error:
            app.say(f"Could not remember the theme: {error}", severity="warning", toast=False)

    app.theme_changed_signal.subscribe(app, chosen)
