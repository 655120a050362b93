"""Switch an agent's auto memory off or on in its own settings file, keeping every other
key (Claude Code's ``autoMemoryEnabled``, Gemini CLI's ``experimental.autoMemory``), in the
file where the switch takes effect. A file that is not JSON, or holds comments a rewrite
would lose, is refused; a missing one is created with the one key.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from memtui.engine.agents import claude, settings_json
from memtui.engine.agents.errors import AGENT_FILES, AgentInputError
from memtui.engine.agents.gemini_projects import SWITCH_AUTO_MEMORY, project_switches
from memtui.engine.agents.models import AGENT_GEMINI
from memtui.engine.agents.plans import WritePlan, file_change
from memtui.engine.agents.settings_json import MAX_SETTINGS_BYTES, parse_settings
from memtui.engine.json_splice import comments
from memtui.engine.safe_files import real_root

CLAUDE_SWITCH = ("autoMemoryEnabled",)
GEMINI_SWITCH = ("experimental", "autoMemory")
JSON_INDENT = 2


def _set(settings: dict[str, Any], keys: tuple[str, ...], value: bool) -> dict[str, Any]:
    """``settings`` with ``keys`` (a path of nested objects) set to ``value``."""
    node = settings
    for key in keys[:-1]:
        if node.get(key) is None:
            node[key] = {}
        node = node[key]
        if not isinstance(node, dict):
            raise AgentInputError(f"settings key {key!r} is not an object; not changed")
    node[keys[-1]] = value
    return settings


def plan_switch(settings_path: Path, root: Path, keys: tuple[str, ...], on: bool
                ) -> WritePlan:
    """Set the auto-memory switch ``keys`` to ``on`` in ``settings_path`` (inside ``root``)."""
    name = ".".join(keys)
    word = "on" if on else "off"
    real = real_root(root)
    if not os.path.lexists(settings_path):
        text = json.dumps(_set({}, keys, on), indent=JSON_INDENT) + "\n"
        return WritePlan("switch", f"create {settings_path} with {name} = {str(on).lower()}",
                         str(real), (file_change(settings_path, None, None, text),))
    old, stamp = AGENT_FILES.read_text_stamped(settings_path, real, MAX_SETTINGS_BYTES)
    try:
        settings = parse_settings(old) if old.strip() else {}
    except (ValueError, RecursionError):
        raise AgentInputError(f"{settings_path}: not valid JSON; memtui will not rewrite it "
                              f"(set {name} by hand)") from None
    if comments(old):
        raise AgentInputError(f"{settings_path}: holds comments a rewrite would lose; set "
                              f"{name} to {str(on).lower()} by hand")
    new = json.dumps(_set(settings, keys, on), indent=JSON_INDENT, ensure_ascii=False) + "\n"
    if new == old:
        raise AgentInputError(f"{settings_path}: {name} is already {word}")
    return WritePlan("switch", f"turn auto memory {word} ({name} = {str(on).lower()}) in "
                     f"{settings_path}, keeping every other key", str(real),
                     (file_change(settings_path, stamp, old, new),))


def plan_auto_memory(agent: str, home: Path, on: bool, project: str | None = None,
                     with_user: bool = True) -> WritePlan:
    """Switch ``agent``'s auto memory ``on`` (or off) where it takes effect: Gemini CLI's home
    settings (not for a project that sets it itself), Claude Code's ``claude.switch_file``."""
    if agent == AGENT_GEMINI:
        for own in project_switches(home, project):
            if own.name == SWITCH_AUTO_MEMORY:
                raise AgentInputError(f"{own.where} sets {own.name} for this project and "
                                      "memtui never writes a project's settings; change it "
                                      "there by hand")
        return plan_switch(home / settings_json.SETTINGS_FILE, home, GEMINI_SWITCH, on)
    target = claude.switch_file(home, on, project, with_user)
    return plan_switch(target, target.parent, CLAUDE_SWITCH, on)
