"""Textual's private names are used in one module only (``memtui/app/textual_compat.py``),
which refuses any Textual but the one it was written for."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import textual

from memtui.app import textual_compat

ROOT = Path(__file__).resolve().parents[2]
COMPAT = ROOT / "memtui" / "app" / "textual_compat.py"
STDLIB_OWNERS = {"os", "sys"}
"""Modules whose private names the scan leaves alone."""
_DEFINED = (re.compile(r"def (_[a-z]\w*)"), re.compile(r"self\.(_[a-z]\w*)\s*[:=]"),
            re.compile(r"^\s+(_[a-z]\w*)\s*[:=]", re.M))


def private_names(folder: Path) -> set[str]:
    """Every single-underscore name the Python files under ``folder`` define."""
    names: set[str] = set()
    for path in folder.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for pattern in _DEFINED:
            names.update(pattern.findall(text))
    return names


def uses_of_textual_privates(path: Path, textual_private: set[str], own: set[str]
                             ) -> list[str]:
    """``file:line name`` for each private Textual name ``path`` reads, calls, overrides or
    imports (a name memtui defines itself counts as memtui's)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in STDLIB_OWNERS:
                continue  # os._exit, sys._getframe: not Textual's
            name = node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name = node.name if node.name in textual_private and node.name.startswith(
                "_on_") else None
            if name:  # an override of a private Textual handler
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} def {name}")
            continue
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("textual._") or ".textual._" in node.module:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} import {node.module}")
            elif node.module.split(".")[0] == "textual":
                found += [f"{path.relative_to(ROOT)}:{node.lineno} import {alias.name}"
                          for alias in node.names
                          if alias.name.startswith("_") and not alias.name.startswith("__")]
            continue
        if name and name.startswith("_") and not name.startswith("__") \
                and name in textual_private and name not in own:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    return found


def test_no_private_textual_name_outside_the_compat_module() -> None:
    textual_private = private_names(Path(textual.__file__).parent)
    own = private_names(ROOT / "memtui")
    offenders = [use for path in sorted((ROOT / "memtui").rglob("*.py")) if path != COMPAT
                 for use in uses_of_textual_privates(path, textual_private, own)]
    assert offenders == []


def test_the_compat_module_refuses_another_textual() -> None:
    textual_compat.check_textual_version(textual_compat.TEXTUAL_VERSION)
    with pytest.raises(textual_compat.TextualVersionError) as caught:
        textual_compat.check_textual_version("8.2.6")
    message = str(caught.value)
    assert "\n" not in message
    assert message == ("memtui needs Textual 8.2.8 (found 8.2.6): "
                       "pip install 'textual==8.2.8'")


def test_the_pin_matches_the_compat_module() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'"textual=={textual_compat.TEXTUAL_VERSION}"' in pyproject
    assert textual.__version__ == textual_compat.TEXTUAL_VERSION
