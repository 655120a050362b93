"""Codex's own memory settings, from ``$CODEX_HOME/config.toml`` (read-only): the
``[memories]`` table and ``[features] memories``. A missing file means Codex's defaults; a file
that is not TOML, or a value of the wrong type, is one ``Problem`` each and is skipped.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtui.engine.codex.errors import CODEX_FILES, FileProblemError
from memtui.engine.codex.models import Problem
from memtui.engine.codex.paths import CONFIG_FILE, resolve_codex_sqlite_home
from memtui.engine.safe_files import real_root
from memtui.jsonable import JsonMixin

MEMORIES_TABLE = "memories"
FEATURES_TABLE = "features"
SQLITE_HOME_KEY = "sqlite_home"
MCP_SERVERS_TABLE = "mcp_servers"

BOOLEAN_KEYS = ("generate_memories", "use_memories", "disable_on_external_context",
                "dedicated_tools")
NUMBER_KEYS = ("max_raw_memories_for_consolidation", "max_unused_days", "max_rollout_age_days",
               "max_rollouts_per_startup", "min_rollout_idle_hours",
               "min_rate_limit_remaining_percent")
TEXT_KEYS = ("extract_model", "consolidation_model")
ALIASES = {"no_memories_if_mcp_or_web_search": "disable_on_external_context"}
"""Other spellings Codex accepts, and the setting each one means."""
KNOWN_KEYS = (*BOOLEAN_KEYS, *NUMBER_KEYS, *TEXT_KEYS)
_LINE = re.compile(r"at line (\d+)")
MAX_SHOWN_TEXT = 200


@dataclass(frozen=True)
class CodexMemoryConfig(JsonMixin):
    """What ``config.toml`` says about memories. ``settings`` holds only the keys that were
    set (by their canonical names); a key not set means Codex's default."""

    path: str
    feature_enabled: bool | None = None
    """``[features] memories``: None when the file does not say."""
    settings: dict[str, Any] = field(default_factory=dict)
    unknown_keys: tuple[str, ...] = ()
    """Keys of ``[memories]`` this version of memtui does not know (shown, not judged)."""
    sqlite_home: str | None = None
    """The top-level ``sqlite_home``: where Codex keeps its databases (None when unset)."""
    mcp_servers: tuple[str, ...] = ()
    """The names of ``[mcp_servers.<name>]``: tool namespaces that are MCP servers."""


def _type_problem(key: str, value: Any) -> str | None:
    """Why the value's type does not fit the key, else None."""
    if key in BOOLEAN_KEYS:
        return None if isinstance(value, bool) else "should be true or false"
    if key in NUMBER_KEYS:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return None if number else "should be a number"
    return None if isinstance(value, str) else "should be text"


def parse_codex_config(text: str, path: str) -> tuple[CodexMemoryConfig, list[Problem]]:
    """Read the memory settings out of ``config.toml``'s text; never raises."""
    problems: list[Problem] = []
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = _LINE.search(str(error))
        line = int(found.group(1)) if found else None
        return CodexMemoryConfig(path), [Problem(path, f"not valid TOML ({error})", line)]
    feature: bool | None = None
    features = data.get(FEATURES_TABLE)
    if isinstance(features, dict) and MEMORIES_TABLE in features:
        if isinstance(features[MEMORIES_TABLE], bool):
            feature = features[MEMORIES_TABLE]
        else:
            problems.append(Problem(path, "[features] memories should be true or false"))
    memories = data.get(MEMORIES_TABLE, {})
    if not isinstance(memories, dict):
        problems.append(Problem(path, "[memories] should be a table"))
        memories = {}
    settings: dict[str, Any] = {}
    unknown: list[str] = []
    for raw_key, value in memories.items():
        key = ALIASES.get(raw_key, raw_key)
        if key not in KNOWN_KEYS:
            unknown.append(raw_key)
            continue
        why = _type_problem(key, value)
        if why is not None:
            problems.append(Problem(path, f"[memories] {raw_key} {why}"))
        elif key not in settings or raw_key not in ALIASES:  # the canonical spelling wins
            settings[key] = value[:MAX_SHOWN_TEXT] if isinstance(value, str) else value
    sqlite_home = data.get(SQLITE_HOME_KEY)
    if sqlite_home is not None and not isinstance(sqlite_home, str):
        problems.append(Problem(path, f"{SQLITE_HOME_KEY} should be text"))
        sqlite_home = None
    servers = data.get(MCP_SERVERS_TABLE)
    names = tuple(sorted(str(name) for name in servers)) if isinstance(servers, dict) else ()
    return CodexMemoryConfig(path, feature, settings, tuple(sorted(unknown)),
                             sqlite_home or None, names), problems


def read_codex_config(home: Path) -> tuple[CodexMemoryConfig | None, list[Problem]]:
    """``config.toml`` of a home, read safely (None when there is no such file)."""
    path = home / CONFIG_FILE
    if not os.path.lexists(path):
        return None, []
    try:
        text = CODEX_FILES.read_text(path, real_root(home))
    except FileProblemError as error:
        return None, [Problem(str(path), error.reason)]
    return parse_codex_config(text, str(path))


def codex_sqlite_home(home: Path) -> Path:
    """Where a home's databases are (``paths.resolve_codex_sqlite_home`` with its config)."""
    config, _problems = read_codex_config(home)
    return resolve_codex_sqlite_home(home, config_sqlite_home=config.sqlite_home if config
                                     else None)


def config_reasons(config: CodexMemoryConfig | None) -> list[str]:
    """Settings that explain why Codex makes or uses no memories; [] when none does."""
    if config is None:
        return []
    reasons: list[str] = []
    if config.feature_enabled is False:
        reasons.append("Codex's memories feature is off in config.toml "
                       "([features] memories = false): it neither writes nor uses memories")
    if config.settings.get("generate_memories") is False:
        reasons.append("generate_memories = false in config.toml: Codex writes no new "
                       "memories (nothing new reaches stage 1 or consolidation)")
    if config.settings.get("use_memories") is False:
        reasons.append("use_memories = false in config.toml: Codex does not put memories "
                       "into new sessions")
    return reasons


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def describe_config(config: CodexMemoryConfig | None, *, home_found: bool = True) -> list[str]:
    """The memory settings as ``key = value`` lines, in Codex's order, for people ([] when
    there is no Codex home to speak of)."""
    if not home_found:
        return []
    if config is None:
        return [f"no {CONFIG_FILE}: Codex uses its defaults"]
    lines: list[str] = []
    if config.feature_enabled is not None:
        lines.append(f"[features] memories = {_toml_value(config.feature_enabled)}")
    lines += [f"{key} = {_toml_value(config.settings[key])}" for key in KNOWN_KEYS
              if key in config.settings]
    if config.unknown_keys:
        lines.append("not known to memtui: " + ", ".join(config.unknown_keys))
    return lines or [f"{CONFIG_FILE} sets nothing about memories: Codex uses its defaults"]
