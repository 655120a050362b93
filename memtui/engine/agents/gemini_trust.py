"""Gemini CLI's folder trust, read-only, as Gemini CLI 0.61 reads it: on unless
``security.folderTrust.enabled`` is ``false``; in an untrusted folder every MCP server,
memtui's included, is disabled. The longest rule of ``trustedFolders.json`` covering a folder
decides (``TRUST_PARENT`` trusts the rule path's parent); no rule: not trusted.
``$GEMINI_CLI_TRUST_WORKSPACE`` (``true``/``false``) and ``$GEMINI_RESTRICTED_MODE=true``
override; ``$GEMINI_CLI_TRUSTED_FOLDERS_PATH`` names another rules file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from memtui.engine.agents.errors import AGENT_FILES, AgentFileProblem
from memtui.engine.agents.settings_json import (
    SETTINGS_FILE,
    dotted,
    parse_settings,
    read_settings,
)
from memtui.engine.safe_files import real_root
from memtui.jsonable import JsonMixin

TRUSTED_FOLDERS_FILE = "trustedFolders.json"
TRUSTED_FOLDERS_ENV = "GEMINI_CLI_TRUSTED_FOLDERS_PATH"
TRUST_WORKSPACE_ENV = "GEMINI_CLI_TRUST_WORKSPACE"
RESTRICTED_ENV = "GEMINI_RESTRICTED_MODE"
SWITCH_FOLDER_TRUST = "security.folderTrust.enabled"
TRUST_FOLDER = "TRUST_FOLDER"
TRUST_PARENT = "TRUST_PARENT"
DO_NOT_TRUST = "DO_NOT_TRUST"
TRUST_LEVELS = (TRUST_FOLDER, TRUST_PARENT, DO_NOT_TRUST)
MAX_RULES_BYTES = 1024 * 1024


@dataclass(frozen=True)
class FolderTrust(JsonMixin):
    """Folder trust in one Gemini CLI home, and the project folders it leaves untrusted."""

    enabled: bool
    rules_file: str
    untrusted: tuple[str, ...]
    """Project folders where MCP servers, memtui's included, are disabled."""
    problem: str | None = None
    """Why the rules file could not be read (Gemini CLI refuses to start then)."""

    @property
    def applies(self) -> bool:
        """Whether some project folder loses memtui's MCP server to folder trust."""
        return self.enabled and bool(self.untrusted)


def parse_rules(text: str) -> dict[str, str]:
    """``{path: level}`` of a trust rules file; ``ValueError`` unless an object of known levels."""
    data = parse_settings(text)
    rules: dict[str, str] = {}
    for path, level in data.items():
        if level not in TRUST_LEVELS:
            raise ValueError(f"trust level {str(level)[:40]!r} for {str(path)[:80]} is not "
                             f"one of {', '.join(TRUST_LEVELS)}")
        rules[str(path)] = str(level)
    return rules


def _real(path: str) -> str:
    try:
        return os.path.realpath(path) if os.path.exists(path) else os.path.abspath(path)
    except (OSError, ValueError):
        return path


Resolved = list[tuple[int, str, str]]
"""(length, level, the real folder it covers) of each trust rule."""


def resolve_rules(rules: Mapping[str, str]) -> Resolved:
    """Each rule with the real folder it covers, resolved once for many folders."""
    return [(len(rule), level, _real(os.path.dirname(rule) if level == TRUST_PARENT else rule))
            for rule, level in rules.items()]


def folder_trusted(rules: Resolved, folder: str) -> bool | None:
    """Whether the longest rule covering ``folder`` trusts it (None: no rule covers it)."""
    location = _real(folder)
    best = -1
    level: str | None = None
    for length, found, effective in rules:
        relative = os.path.relpath(location, effective)
        if relative != ".." and not relative.startswith("../") and length > best:
            best, level = length, found
    return None if level is None else level != DO_NOT_TRUST


def read_folder_trust(home: str | os.PathLike[str], folders: Iterable[str], *,
                      env: Mapping[str, str] | None = None) -> FolderTrust:
    """Folder trust of the Gemini CLI home ``home`` for the project ``folders``."""
    environ = os.environ if env is None else env
    home_path = Path(home)
    path = Path(environ.get(TRUSTED_FOLDERS_ENV) or home_path / TRUSTED_FOLDERS_FILE)
    settings = None
    if home_path.is_dir():
        settings, _stamp, _problem = read_settings(home_path / SETTINGS_FILE,
                                                   real_root(home_path))
    enabled = dotted(settings, SWITCH_FOLDER_TRUST) is not False
    wanted = sorted(set(folders))
    forced = environ.get(TRUST_WORKSPACE_ENV)
    if environ.get(RESTRICTED_ENV) == "true" or forced == "false":
        return FolderTrust(True, str(path), tuple(wanted))
    if forced == "true" or not enabled:
        return FolderTrust(enabled and forced != "true", str(path), ())
    rules: dict[str, str] = {}
    problem = None
    if os.path.lexists(path):
        try:
            text, _stamp = AGENT_FILES.read_text_stamped(path, real_root(path.parent),
                                                         MAX_RULES_BYTES)
            rules = parse_rules(text)
        except (AgentFileProblem, ValueError) as error:
            problem = getattr(error, "reason", None) or str(error)
    resolved = resolve_rules(rules)
    untrusted = tuple(folder for folder in wanted if not folder_trusted(resolved, folder))
    return FolderTrust(True, str(path), untrusted, problem)
