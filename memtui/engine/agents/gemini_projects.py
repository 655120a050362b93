"""The projects a Gemini CLI home knows (``tmp/<slug>/``, named by ``.project_root`` or
``projects.json``) and the one rule for the context file names Gemini CLI 0.61 reads in each:
``context.fileName`` of the project's own ``.gemini/settings.json`` where Gemini CLI merges
that file over the user's (a trusted folder that is not the home folder itself), else of the
home's ``settings.json``; ``GEMINI.md`` always among them. The project's file may set
``experimental.autoMemory`` for it too. Read-only: a project's settings are never written.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from memtui.engine.agents.errors import AGENT_FILES, AgentFileProblem
from memtui.engine.agents.folders import subfolders
from memtui.engine.agents.gemini_trust import read_folder_trust
from memtui.engine.agents.models import Problem, Switch
from memtui.engine.agents.settings_json import (
    SETTINGS_FILE,
    SWITCH_FILE_NAME,
    context_names,
    dotted,
    read_settings,
)
from memtui.engine.safe_files import real_root

PROJECTS_FILE = "projects.json"
TMP_DIR = "tmp"
MEMORY_DIR = "memory"
WORKSPACE_DIR = ".gemini"
PROJECT_ROOT_FILE = ".project_root"
SWITCH_AUTO_MEMORY = "experimental.autoMemory"
WORKSPACE_KEYS = (SWITCH_AUTO_MEMORY, SWITCH_FILE_NAME)
"""The memory settings memtui reads that a project's own settings override."""
MAX_PROJECT_ROOT_BYTES = 4096
MAX_CLASH_PATHS = 5


MARKERS_KEY = "context.memoryBoundaryMarkers"
DEFAULT_MARKERS = (".git",)


@dataclass(frozen=True)
class GeminiProject:
    """One project folder of the home, and what its own settings decide there."""

    folder: Path
    project: str | None
    """The project's path (``.project_root``, else projects.json), when named."""
    clash: list[str] | None
    """The paths that claim the folder's slug, when two or more do."""
    names: tuple[str, ...]
    """The context file names Gemini CLI reads in the project."""
    own: tuple[Switch, ...] = ()
    """The memory settings the project's own ``.gemini/settings.json`` sets."""
    problem: Problem | None = None
    trusted: bool = True
    """Whether Gemini CLI trusts the project's folder (untrusted: it loads none of its files)."""
    markers: tuple[str, ...] = DEFAULT_MARKERS
    """What marks the folder Gemini CLI stops at looking upward for context files."""

    def switches(self, home: tuple[Switch, ...]) -> tuple[Switch, ...]:
        """``home``'s switches with those the project sets replaced by its own."""
        own = {switch.name: switch for switch in self.own}
        return tuple(own.pop(item.name, item) for item in home) + tuple(own.values())


def read_projects_json(home: Path, root: Path, problems: list[Problem]
                       ) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(path -> slug, slug -> paths when two or more paths claim it)."""
    path = home / PROJECTS_FILE
    settings, _stamp, problem = read_settings(path, root)
    if problem is not None:
        problems.append(problem)
    mapping: dict[str, str] = {}
    raw = dotted(settings, "projects") if settings else None
    if settings is not None and raw is not None and not isinstance(raw, dict):
        problems.append(Problem(str(path), "'projects' is not an object; ignored"))
        raw = None
    for key, value in (raw or {}).items():
        if isinstance(value, str) and value:
            mapping[str(key)] = value
        else:
            problems.append(Problem(str(path), f"project {str(key)[:80]}: slug is not text; "
                                               "ignored"))
    claims: dict[str, list[str]] = defaultdict(list)
    for project, slug in mapping.items():
        claims[slug].append(project)
    clashes = {slug: sorted(paths) for slug, paths in claims.items() if len(paths) > 1}
    for slug, paths in sorted(clashes.items()):
        problems.append(Problem(str(path), f"slug clash: {len(paths)} projects map to "
                                           f"{slug!r} ({', '.join(paths[:MAX_CLASH_PATHS])}); "
                                           "their memories share one folder"))
    return mapping, clashes


def _project_root_file(folder: Path, root: Path) -> str | None:
    marker = folder / PROJECT_ROOT_FILE
    if not marker.is_file():
        return None
    try:
        text, _stamp = AGENT_FILES.read_text_stamped(marker, root, MAX_PROJECT_ROOT_BYTES)
    except AgentFileProblem:
        return None
    value = text.strip()
    return value if value.startswith("/") else None


def _own_file(home_settings: str, project: str | None) -> Path | None:
    """The project's own settings file when it has one that is not the home's."""
    path = Path(project or "") / WORKSPACE_DIR / SETTINGS_FILE
    if not project or not os.path.lexists(path) or os.path.realpath(path) == home_settings:
        return None
    return path


def _own_settings(path: Path | None, trusted: bool
                  ) -> tuple[dict[str, Any] | None, str, Problem | None]:
    """(the project's own settings as Gemini CLI merges them, or None; their path; why they
    cannot be read: Gemini CLI stops there then, trusted or not)."""
    if path is None:
        return None, "", None
    settings, _stamp, problem = read_settings(path, real_root(path.parent.parent), False)
    return (settings if trusted else None), str(path), problem


def project_folders(home: Path, root: Path, problems: list[Problem]
                    ) -> list[tuple[Path, str | None, list[str] | None]]:
    """(folder, the project's path when named, the paths claiming its slug when several do) of
    each project folder under ``tmp/`` of the home."""
    mapping, clashes = read_projects_json(home, root, problems)
    by_slug = {slug: path for path, slug in reversed(mapping.items())}  # the first one wins
    return [(folder, _project_root_file(folder, root) or by_slug.get(folder.name),
             clashes.get(folder.name)) for folder in subfolders(home / TMP_DIR, root, problems)]


def read_projects(home: Path, root: Path, settings: dict[str, Any] | None,
                  problems: list[Problem], env: Mapping[str, str] | None = None,
                  only: str | None = None) -> list[GeminiProject]:
    """Each project folder under ``tmp/`` of the home (``only``: the one of that slug) with the
    context file names Gemini CLI reads in it and the memory settings it sets itself."""
    folders = [item for item in project_folders(home, root, problems)
               if only is None or item[0].name == only]
    home_settings = os.path.realpath(home / SETTINGS_FILE)
    files = {path: _own_file(home_settings, path) for _folder, path, _clash in folders}
    named = [path for path in files if path]
    untrusted = set(read_folder_trust(home, named, env=env).untrusted if named else ())
    found: list[GeminiProject] = []
    for folder, project, clash in folders:
        own, where, problem = _own_settings(files[project], project not in untrusted)
        names = context_names(own if dotted(own, SWITCH_FILE_NAME) is not None else settings)
        markers = boundary_markers(own if dotted(own, MARKERS_KEY) is not None else settings)
        found.append(GeminiProject(folder, project, clash, names, _switches(own, where),
                                   problem, project not in untrusted, markers))
    return found


def boundary_markers(settings: dict[str, Any] | None) -> tuple[str, ...]:
    """``context.memoryBoundaryMarkers`` as Gemini CLI uses it (absolute names and names with
    ``..`` skipped; not a list: ``.git``)."""
    value = dotted(settings, MARKERS_KEY)
    if not isinstance(value, list):
        return DEFAULT_MARKERS
    return tuple(item for item in value if isinstance(item, str) and item
                 and not os.path.isabs(item) and ".." not in item)


def _switches(own: dict[str, Any] | None, where: str) -> tuple[Switch, ...]:
    return tuple(Switch(key, list(context_names(own)) if key == SWITCH_FILE_NAME else value,
                        where) for key in WORKSPACE_KEYS
                 if (value := dotted(own, key)) is not None
                 and (key == SWITCH_FILE_NAME or isinstance(value, bool)))


def project_switches(home: Path, project: str | None, env: Mapping[str, str] | None = None
                     ) -> tuple[Switch, ...]:
    """The memory settings ``project``'s own settings set where Gemini CLI merges them."""
    path = _own_file(os.path.realpath(home / SETTINGS_FILE), project)
    if path is None or not project:
        return ()
    trusted = not read_folder_trust(home, [project], env=env).untrusted
    return _switches(*_own_settings(path, trusted)[:2])


def global_names(home_names: tuple[str, ...], projects: list[GeminiProject]
                 ) -> tuple[str, ...]:
    """The global context files Gemini CLI reads from the home in some project, the home's own
    first (the first is where memtui writes)."""
    return tuple(dict.fromkeys(home_names + tuple(n for p in projects for n in p.names)))


class ContextNames(NamedTuple):
    """The context file names of a Gemini CLI home."""

    global_tier: tuple[str, ...]
    """Every global file Gemini CLI reads from the home in some project (``global_names``)."""
    home: tuple[str, ...]
    """The names the home's own settings decide."""
    projects: dict[str, tuple[str, ...]]
    """Each project folder's names, by slug."""

    def of(self, slug: str | None) -> tuple[str, ...]:
        """The names Gemini CLI reads in project folder ``slug`` (None: the home's own);
        the first is its global memory file (where its global patches apply)."""
        return self.projects.get(slug or "", self.home)


def home_context_names(home: Path, env: Mapping[str, str] | None = None,
                       only: str | None = None) -> ContextNames:
    """The context file names of a Gemini CLI home and of each of its projects (``only``:
    of the project folder of that slug; ``global_tier`` then holds only its names)."""
    if not home.is_dir():
        return ContextNames(context_names(None), context_names(None), {})
    root = real_root(home)
    settings, _stamp, _problem = read_settings(home / SETTINGS_FILE, root)
    projects = read_projects(home, root, settings, [], env, only)
    own = context_names(settings)
    return ContextNames(global_names(own, projects), own,
                        {item.folder.name: item.names for item in projects})
