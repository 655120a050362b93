"""Layering: imports go one way (store <- engine <- front ends), no module imports itself
round a circle, the store and the engine never import Textual, only the store runs SQL, and
front ends reach the store only through the engine."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "memtui"
BELOW_THE_APP = ("store", "engine")
SQL_CALLS = ("execute", "executemany", "executescript")
FRONT_ENDS = ("app", "cli", "service", "mcp")
SHARED = ("memtui", "memtui.errors", "memtui.jsonable", "memtui.private_files", "memtui.textsafe")
"""Imported by every layer; they import no other memtui module."""
TOOLS = ("bench", "__main__")
"""Above every layer: the benchmark drives the app, the service and the command line;
``python -m memtui`` is the command line."""
ALLOWED_BETWEEN_FRONT_ENDS = {
    ("memtui.cli.launch", "memtui.app.main"): "the memtui command opens the app",
    ("memtui.cli.cmd_service", "memtui.service.server"): "memtui service start runs it",
    ("memtui.cli.cmd_service", "memtui.service.client"): "memtui service status asks it",
    ("memtui.cli.cmd_service", "memtui.service.protocol"): "its errors, shown by the CLI",
    ("memtui.app.main", "memtui.cli.context"): "run_app's argument type (annotation only)",
    ("memtui.cli.cmd_agents", "memtui.mcp.server"): "memtui mcp runs the MCP server",
}
"""The only imports from one front end into another, and why (docs/ARCHITECTURE.md)."""
STORE_FOR_FRONT_ENDS = ("memtui.store", "memtui.store.database", "memtui.store.backend",
                        "memtui.store.models", "memtui.store.timeutil", "memtui.store.codex_db",
                        "memtui.store.search_terms")
"""What a front end may import from the store: opening it, its interface (whichever backend
it is), its models, time text, the Codex-database-locked error, and the words a typed search
is made of (``search_terms``: no SQL; the list highlights the words its search asked for).
Repositories are the engine's. (An import under
``TYPE_CHECKING`` may name any store type, e.g. the ``QueryLane`` that ``engine.query_lane()``
returns.)"""
STORE_INTERNALS = ("memories", "identity", "audit", "tasks", "recall", "codex", "conn",
                   "execute", "transaction", "snapshot")
"""Store attributes a front end must not reach for (``engine.store.memories`` ...)."""


@dataclass(frozen=True)
class Import:
    """One import statement's target, as seen from the importing module."""

    source: str
    target: str
    type_checking: bool  # inside ``if TYPE_CHECKING:`` (annotations only)
    line: int


@cache
def _tree(path: Path) -> ast.Module:
    """A source file's syntax tree (parsed once for all the tests here)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _targets(module: str, path: Path, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        anchor = package[:len(package) - (node.level - 1)]
        base = ".".join([*anchor, *([node.module] if node.module else [])])
    for alias in node.names:
        full = f"{base}.{alias.name}"
        yield full if full in MODULES else base


@cache
def module_imports(module: str, path: Path) -> tuple[Import, ...]:
    """Every import of ``module`` (top level, inside functions and classes), each marked
    when it sits under ``if TYPE_CHECKING:``."""
    found: list[Import] = []

    def visit(node: ast.AST, type_checking: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for part in child.body:
                    visit_one(part, True)
                for part in child.orelse:
                    visit_one(part, type_checking)
            else:
                visit_one(child, type_checking)

    def visit_one(node: ast.AST, type_checking: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.extend(Import(module, target, type_checking, node.lineno)
                         for target in _targets(module, path, node))
        visit(node, type_checking)

    visit(_tree(path), False)
    return tuple(found)


def _with_packages(source: str, target: str) -> set[str]:
    """``target`` and the packages importing it runs first (not the importer's own)."""
    own = {".".join(source.split(".")[:n]) for n in range(1, source.count(".") + 2)}
    parts = target.split(".")
    return {name for name in (".".join(parts[:n]) for n in range(1, len(parts) + 1))
            if name in MODULES and name not in own}


def import_graph(*, with_type_checking: bool) -> dict[str, set[str]]:
    """memtui module -> the memtui modules importing it runs."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        edges: set[str] = set()
        for item in module_imports(module, path):
            if item.target.startswith("memtui") and (with_type_checking or
                                                     not item.type_checking):
                edges |= _with_packages(module, item.target)
        graph[module] = edges - {module}
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return groups


def _layer(module: str) -> str:
    if module in SHARED:
        return "shared"
    part = module.split(".")[1]
    if part in TOOLS:
        return "tools"
    return "front end" if part in FRONT_ENDS else part


def _all_imports() -> Iterator[Import]:
    for module, path in MODULES.items():
        for item in module_imports(module, path):
            if item.target.startswith("memtui.") or item.target == "memtui":
                yield item


def test_the_import_graph_sees_imports_in_functions_and_type_checking_blocks() -> None:
    app = {(i.target, i.type_checking) for i in module_imports("memtui.app.app",
                                                               MODULES["memtui.app.app"])}
    assert ("memtui.app.curator", True) in app  # under TYPE_CHECKING
    assert ("memtui.app.curator", False) in app  # inside a method (made on first use)
    assert "memtui.engine.api" in import_graph(with_type_checking=False)["memtui.app.app"]
    assert {"memtui.store", "memtui.store.database"} <= import_graph(
        with_type_checking=False)["memtui.engine.api"] | _with_packages(
        "memtui.engine.api", "memtui.store.database")


def test_cycles_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    """No module imports itself round a circle at run time (an import under
    ``TYPE_CHECKING`` only names types and is left out)."""
    assert cycles(import_graph(with_type_checking=False)) == []


def test_imports_go_one_way() -> None:
    """store <- engine <- front ends (app, cli, service, mcp) <- tools; the shared modules
    (errors, textsafe) import nothing of memtui. Annotation-only imports count too."""
    may_import = {
        "shared": set(),
        "store": {"shared", "store"},
        "engine": {"shared", "store", "engine"},
        "front end": {"shared", "store", "engine", "front end"},
        "tools": {"shared", "store", "engine", "front end", "tools"},
    }
    offenders = [f"{i.source}:{i.line} imports {i.target}" for i in _all_imports()
                 if i.target in MODULES and _layer(i.target) not in may_import[_layer(i.source)]]
    assert offenders == []


def test_front_ends_do_not_import_each_other_but_for_the_documented_few() -> None:
    crossing = set()
    for item in _all_imports():
        if (item.target in MODULES and _layer(item.source) == _layer(item.target) == "front end"
                and item.source.split(".")[1] != item.target.split(".")[1]):
            crossing.add((item.source, item.target))
    assert crossing == set(ALLOWED_BETWEEN_FRONT_ENDS)


def test_front_ends_reach_the_store_only_through_the_engine() -> None:
    """A front end opens the store and uses its models; every read and write goes through
    the engine (no repository, transaction or connection of the store in a front end)."""
    offenders = []
    for item in _all_imports():
        if (_layer(item.source) == "front end" and item.target in MODULES
                and not item.type_checking  # naming a type the engine hands out is fine
                and _layer(item.target) == "store" and item.target not in STORE_FOR_FRONT_ENDS
                and not item.target.startswith("memtui.store.models.")):
            offenders.append(f"{item.source}:{item.line} imports {item.target}")
    for module, path in MODULES.items():
        if _layer(module) != "front end":
            continue
        for node in ast.walk(_tree(path)):
            if (isinstance(node, ast.Attribute) and node.attr in STORE_INTERNALS
                    and isinstance(node.value, ast.Attribute | ast.Name)
                    and (getattr(node.value, "attr", None) or getattr(node.value, "id", ""))
                    in ("store", "_store")):
                offenders.append(f"{module}:{node.lineno} {ast.unparse(node)}")
    assert offenders == []


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(_tree(path)):
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
        for node in ast.walk(_tree(path)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in SQL_CALLS):
                target = ast.unparse(node.func.value)
                if "store" in target or "conn" in target or "db" in target or "cursor" in target:
                    offenders.append(f"{relative}:{node.lineno} {ast.unparse(node.func)}")
    assert offenders == []
