"""An agent's settings file read as JSON (comments tolerated, as Gemini CLI allows them);
one that is not a JSON object is a problem (its switches read as defaults, never written).
Also Gemini CLI's context file names (``context.fileName``, and GEMINI.md) and global file path.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from memtui.engine.agents.errors import AGENT_FILES, AgentFileProblem
from memtui.engine.agents.models import Problem
from memtui.engine.json_splice import blank_comments
from memtui.engine.safe_files import FileStamp, real_root
from memtui.errors import UnsafePath

MAX_SETTINGS_BYTES = 2 * 1024 * 1024
SETTINGS_FILE = "settings.json"
DEFAULT_CONTEXT_FILE = "GEMINI.md"
SWITCH_FILE_NAME = "context.fileName"
GEMINI_OWN_FILES = (
    SETTINGS_FILE, "trustedFolders.json", "projects.json", "oauth_creds.json",
    "google_accounts.json", "installation_id", "user_id", "mcp-oauth-tokens.json",
    "a2a-oauth-tokens.json", "gemini-credentials.json", "keybindings.json", "state.json",
    "trusted_hooks.json", "policy_integrity.json", "extension_integrity.json", ".env",
    "commands", "skills", "policies", "agents", "acknowledgments", "extensions", "history",
    "cli-browser-profile", "whisper_models")
"""What Gemini CLI 0.61 keeps in its home besides memory (settings, trust rules, the
project registry, logins, ids, its folders): a context file name may make Gemini CLI read one
as context, but memtui never writes it."""


def parse_settings(text: str) -> dict[str, Any]:
    """The settings object; ``ValueError`` when it is not a JSON object."""
    value = json.loads(blank_comments(text))
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value


def read_settings(path: Path, root: Path, blank_ok: bool = True
                  ) -> tuple[dict[str, Any] | None, FileStamp | None, Problem | None]:
    """(settings, stamp, problem): (None, None, None) when the file does not exist. A blank
    file is ``{}`` when ``blank_ok`` (Claude Code), else not valid JSON (Gemini CLI stops)."""
    if not path.exists() and not path.is_symlink():
        return None, None, None
    try:
        text, stamp = AGENT_FILES.read_text_stamped(path, root, MAX_SETTINGS_BYTES)
    except AgentFileProblem as error:
        return None, None, Problem(str(path), error.reason)
    if not text.strip():
        return ({}, stamp, None) if blank_ok else (None, stamp, Problem(
            str(path), "empty: not valid JSON (Gemini CLI stops at it); its switches are read "
                       "as defaults"))
    try:
        return parse_settings(text), stamp, None
    except (ValueError, RecursionError) as error:
        reason = str(error).split("\n", 1)[0][:120]
        return None, stamp, Problem(str(path), f"not valid JSON ({reason}); its switches are "
                                               "read as defaults and memtui will not write it")


def dotted(settings: dict[str, Any] | None, key: str) -> Any:
    """``settings["a"]["b"]`` for ``"a.b"`` (also a flat ``"a.b"`` key), else None."""
    if settings is None:
        return None
    if key in settings:
        return settings[key]
    value: Any = settings
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def context_names(settings: dict[str, Any] | None) -> tuple[str, ...]:
    """The context file names ``settings`` set (``context.fileName``, a name or a list), then
    ``GEMINI.md``, which Gemini CLI 0.61 reads whatever the setting names."""
    value = dotted(settings, SWITCH_FILE_NAME)
    items = value if isinstance(value, list) else [value]
    names = (os.path.normpath(item.strip()) for item in items
             if isinstance(item, str) and item.strip())
    return tuple(dict.fromkeys([*names, DEFAULT_CONTEXT_FILE]))


def context_file_names(home: str | os.PathLike[str]) -> tuple[str, ...]:
    """The global memory file names of a Gemini CLI home, read from its settings alone."""
    home_path = Path(home)
    if not home_path.is_dir():
        return (DEFAULT_CONTEXT_FILE,)
    settings, _stamp, _problem = read_settings(home_path / SETTINGS_FILE, real_root(home_path))
    return context_names(settings)


def refuse_gemini_own(home: str | os.PathLike[str], path: str | os.PathLike[str]) -> None:
    """``UnsafePath`` when ``path`` is one of Gemini CLI's own files (``GEMINI_OWN_FILES``)."""
    for where in (os.path.abspath, os.path.realpath):
        first = os.path.relpath(where(path), where(home)).split(os.sep)[0]
        if first in GEMINI_OWN_FILES:
            raise UnsafePath(f"{path}: is Gemini CLI's own {first}, not a memory file "
                             "(a context file name points at it); memtui does not write it")


def context_path(home: str | os.PathLike[str], name: str) -> Path | None:
    """Where Gemini CLI keeps the global file ``name``: joined to the home as its
    ``path.join`` joins (an absolute name stays under the home); None when it leads out."""
    base = os.path.normpath(home)
    path = os.path.normpath(f"{base}/{name}")
    return Path(path) if path.startswith(base.rstrip(os.sep) + os.sep) else None
