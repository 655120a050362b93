"""The names of Gemini CLI's global memory file: ``context.fileName`` in its settings
(a name or a list), else ``GEMINI.md``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memtui.engine.agents.settings_json import dotted, read_settings
from memtui.engine.safe_files import real_root

SETTINGS_FILE = "settings.json"
DEFAULT_CONTEXT_FILE = "GEMINI.md"
SWITCH_FILE_NAME = "context.fileName"


def context_names(settings: dict[str, Any] | None) -> tuple[str, ...]:
    """The global file names ``settings`` set (``context.fileName``), else ``GEMINI.md``."""
    value = dotted(settings, SWITCH_FILE_NAME)
    if isinstance(value, str) and value.strip():
        return (value.strip(),)
    if isinstance(value, list):
        names = tuple(item.strip() for item in value if isinstance(item, str) and item.strip())
        if names:
            return names
    return (DEFAULT_CONTEXT_FILE,)


def context_file_names(home: str | os.PathLike[str]) -> tuple[str, ...]:
    """The global memory file names of a Gemini CLI home (``context.fileName``, else
    ``GEMINI.md``), read from its settings alone."""
    home_path = Path(home)
    if not home_path.is_dir():
        return (DEFAULT_CONTEXT_FILE,)
    settings, _stamp, _problem = read_settings(home_path / SETTINGS_FILE, real_root(home_path))
    return context_names(settings)
