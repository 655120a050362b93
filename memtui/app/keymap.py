"""User key remapping: the keymap file rebinds any binding id (``[keymap] "list.down" =
"j,down,ctrl+n"``; unknown ids are reported and ignored)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from memtui.app.ui_config import read_config_text
from memtui.engine.paths import config_file

KEYMAP_ENV = "MEMTUI_KEYMAP"
KEYMAP_FILE_NAME = "keymap.toml"


def default_keymap_path() -> Path:
    """``$MEMTUI_KEYMAP``, else ``$XDG_CONFIG_HOME/memtui/keymap.toml``."""
    return config_file(KEYMAP_ENV, KEYMAP_FILE_NAME)


GLOBAL_SCOPE = "everywhere"
"""Where app-wide bindings live (a key there clashes with the same key anywhere)."""


@dataclass
class KeymapFile:
    """A loaded keymap: binding id -> comma-separated keys, and problems found."""

    path: Path | None
    keymap: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def parse_keymap(text: str, known_ids: set[str] | None = None,
                 path: Path | None = None) -> KeymapFile:
    """Parse keymap TOML text (read from ``path``): a ``[keymap]`` table or top-level entries."""
    result = KeymapFile(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        result.problems.append(f"not valid TOML ({error})")
        return result
    table = data.get("keymap", data)
    if not isinstance(table, dict):
        result.problems.append("[keymap] must be a table")
        return result
    for binding_id, keys in table.items():
        if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            keys = ",".join(keys)
        if not isinstance(keys, str) or not keys.strip():
            result.problems.append(f"{binding_id}: keys must be text like \"ctrl+x\"")
            continue
        if known_ids is not None and binding_id not in known_ids:
            result.problems.append(f"{binding_id}: no binding has this id")
            continue
        result.keymap[str(binding_id)] = ",".join(k.strip() for k in keys.split(",") if k.strip())
    return result


def load_keymap(path: Path | None = None, known_ids: set[str] | None = None) -> KeymapFile:
    """Load the keymap file if it exists (a missing file is an empty keymap)."""
    target = path or default_keymap_path()
    try:
        text = read_config_text(target)
    except ValueError as error:
        return KeymapFile(path=target, problems=[str(error)])
    return KeymapFile(path=None) if text is None else parse_keymap(text, known_ids, target)


def keymap_conflicts(keymap: dict[str, str], bindings: list[tuple[str, str, str]]) -> list[str]:
    """One problem per key the keymap gives an action that another has in the same place or
    everywhere. ``bindings``: (where, default keys, binding id)."""
    effective = [(where, binding_id,
                  {key.strip() for key in keymap.get(binding_id, keys).split(",") if key.strip()})
                 for where, keys, binding_id in bindings]
    problems = [f"{binding_id}: {key} is already the key of {other_id}"
                for where, binding_id, keys in effective if binding_id in keymap
                for key in sorted(keys)
                for other_where, other_id, other_keys in effective
                if other_id != binding_id and key in other_keys
                and (where == other_where or GLOBAL_SCOPE in (where, other_where))]
    return list(dict.fromkeys(problems))
