"""Layering: the store and the engine never import Textual; only the store runs SQL."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "memtui"
BELOW_THE_APP = ("store", "engine")
SQL_CALLS = ("execute", "executemany", "executescript")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_store_and_engine_sources_never_import_textual() -> None:
    offenders = []
    for layer in BELOW_THE_APP:
        for path in (PACKAGE / layer).rglob("*.py"):
            if any(name == "textual" or name.startswith("textual.") for name in _imports(path)):
                offenders.append(str(path.relative_to(PACKAGE)))
    assert offenders == []


def test_importing_the_whole_engine_loads_no_textual() -> None:
    modules = [f"memtui.{p.relative_to(PACKAGE).with_suffix('').as_posix().replace('/', '.')}"
               for layer in BELOW_THE_APP for p in (PACKAGE / layer).rglob("*.py")]
    modules = [m.removesuffix(".__init__") for m in modules]
    code = ("import importlib, sys\n"
            f"for name in {modules!r}:\n    importlib.import_module(name)\n"
            "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
            "print(','.join(bad))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == ""


def test_only_the_store_runs_sql() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] in ("store", "bench"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in SQL_CALLS):
                target = ast.unparse(node.func.value)
                if "store" in target or "conn" in target or "db" in target or "cursor" in target:
                    offenders.append(f"{relative}:{node.lineno} {ast.unparse(node.func)}")
    assert offenders == []
