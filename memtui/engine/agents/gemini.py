"""Read a Gemini CLI home, read-only: the global ``GEMINI.md`` (every bullet a fact; older
versions' ``## Gemini Added Memories`` section too), each project's ``tmp/<slug>/memory/``,
``projects.json`` (slug clashes reported), project ``GEMINI.md`` files, the ``.inbox``
patches, the switches, and the secrets in all of it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from memtui.engine.agents.errors import AGENT_FILES, AgentFileProblem
from memtui.engine.agents.folders import read_memory_folder
from memtui.engine.agents.gemini_projects import (
    MEMORY_DIR,
    SWITCH_AUTO_MEMORY,
    GeminiProject,
    global_names,
    project_folders,
    read_projects,
)
from memtui.engine.agents.inbox import list_inbox
from memtui.engine.agents.instructions import InstructionScan, read_instruction
from memtui.engine.agents.models import (
    AGENT_GEMINI,
    AgentProject,
    InboxPatch,
    InstructionFile,
    MemoryFile,
    Problem,
    ProjectRows,
    SecretFinding,
    Switch,
    find_secrets,
)
from memtui.engine.agents.paths import resolve_gemini_home
from memtui.engine.agents.settings_json import (
    DEFAULT_CONTEXT_FILE,
    SETTINGS_FILE,
    SWITCH_FILE_NAME,
    context_names,
    context_path,
    dotted,
    read_settings,
)
from memtui.engine.safe_files import FileStamp, folder_cache, real_root, with_folder_cache
from memtui.jsonable import JsonMixin

ADDED_MEMORIES_HEADING = "## Gemini Added Memories"
GLOBAL_KEY = "global"
MAX_SUBFOLDER_DEPTH = 3
MAX_SUBFOLDERS = 200
SKIPPED_FOLDERS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", "dist",
                             "build", "target"})


@dataclass(frozen=True)
class GeminiHome(JsonMixin, ProjectRows):
    """A Gemini CLI home as read."""

    home: str
    home_found: bool
    auto_memory: bool
    switches: tuple[Switch, ...]
    context_files: tuple[str, ...]
    added_memories: tuple[str, ...]
    """The bullets under ``## Gemini Added Memories`` (what the old ``save_memory`` wrote)."""
    projects: tuple[AgentProject, ...]
    """The global tier first (key ``global``), then one row per project folder."""
    instructions: tuple[InstructionFile, ...]
    secrets: tuple[SecretFinding, ...]
    """Secrets in project instruction files (memory files' are on each row)."""
    problems: tuple[Problem, ...]
    global_memories: tuple[str, ...] = ()
    """Every bullet of the global file(s) outside code blocks (``global_memory_lines``)."""

    @property
    def inbox(self) -> tuple[InboxPatch, ...]:
        """Every pending patch of every row."""
        return tuple(patch for row in self.projects for patch in row.inbox)


FENCES = ("```", "~~~")
BULLETS = ("- ", "* ")


def added_memories(text: str) -> list[str]:
    """The bullets under the ``## Gemini Added Memories`` heading (to the next ``## ``)."""
    facts: list[str] = []
    inside = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped == ADDED_MEMORIES_HEADING:
            inside = True
            continue
        if inside and stripped.startswith("#") and not stripped.startswith("###"):
            inside = False
        if inside and stripped.startswith(BULLETS):
            facts.append(stripped[2:].strip())
    return facts


def global_memory_lines(text: str) -> list[tuple[int, str]]:
    """(0-based line, text) of every ``- `` / ``* `` bullet of a global file outside code blocks."""
    facts: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(text.split("\n")):
        stripped = line.strip()
        marker = next((mark for mark in FENCES if stripped.startswith(mark)), None)
        if marker is not None and (fence is None or marker == fence):
            fence = None if fence else marker
            continue
        if fence is None and stripped.startswith(BULLETS) and stripped[2:].strip():
            facts.append((number, stripped[2:].strip()))
    return facts


def _project_instructions(scan: InstructionScan, item: GeminiProject) -> None:
    """Read the context files Gemini CLI reads for a trusted project: in the folders from the
    nearest one above it with a boundary marker (``.git``) down to it, then in its
    sub-folders; a name leading out of the folder is not read."""
    project, names = Path(str(item.project)), item.names
    inside = [name for name in names if context_path(project, name) is not None]
    for name in (name for name in names if name not in inside):
        scan.problems.append(Problem(str(project), f"{SWITCH_FILE_NAME} {name[:80]!r} leads "
                                                   "outside the project; not read"))
    above = list(project.parents)
    ceiling = next((number for number, folder in enumerate(above) if any(
        os.path.lexists(folder / marker) for marker in item.markers)), None)
    if not any(os.path.lexists(project / marker) for marker in item.markers) and \
            ceiling is not None:
        for folder in reversed(above[:ceiling + 1]):
            for name in inside:
                read_instruction(scan, folder / name.lstrip("/"), "parent")
    for name in inside:
        read_instruction(scan, project / name.lstrip("/"), "project")
    queue = [(project, 0)]
    seen = 0
    while queue and seen < MAX_SUBFOLDERS:
        folder, depth = queue.pop(0)
        try:
            children = sorted(os.scandir(folder), key=lambda item: item.name)
        except OSError:
            continue
        for child in children:
            if (not child.is_dir(follow_symlinks=False) or child.name in SKIPPED_FOLDERS
                    or child.name.startswith(".")):
                continue
            seen += 1
            for name in inside:
                candidate = Path(child.path) / name.lstrip("/")
                if candidate.is_file():
                    read_instruction(scan, candidate, "subfolder")
            if depth + 1 < MAX_SUBFOLDER_DEPTH:
                queue.append((Path(child.path), depth + 1))


def global_files(home: Path, root: Path, names: tuple[str, ...], problems: list[Problem]
                 ) -> Iterator[tuple[str, Path, str, FileStamp]]:
    """(name, path, text, stamp) of each global context file of the home that can be read."""
    for name in names:
        path = context_path(home, name)
        if path is None:
            problems.append(Problem(name, f"{SWITCH_FILE_NAME} leads outside {home}; not read"))
            continue
        if not os.path.lexists(path):
            continue
        try:
            text, stamp = AGENT_FILES.read_text_stamped(path, root)
        except AgentFileProblem as error:
            problems.append(Problem(str(path), error.reason))
            continue
        yield name, path, text, stamp


def _global_row(home: Path, root: Path, names: tuple[str, ...], enabled: bool,
                switches: tuple[Switch, ...]) -> AgentProject:
    files: list[MemoryFile] = []
    secrets: list[SecretFinding] = []
    problems: list[Problem] = []
    for name, path, text, stamp in global_files(home, root, names, problems):
        files.append(MemoryFile(str(path), name, "global", stamp.size, body=text))
        secrets.extend(find_secrets(str(path), text))
    inbox = list_inbox(home / MEMORY_DIR, root, None, problems)
    return AgentProject(agent=AGENT_GEMINI, key=GLOBAL_KEY, project=None,
                        memory_dir=str(home), files=tuple(files), secrets=tuple(secrets),
                        inbox=tuple(inbox), switches=switches, auto_memory=enabled,
                        problems=tuple(problems))


def _project_row(item: GeminiProject, root: Path, enabled: bool,
                 switches: tuple[Switch, ...]) -> AgentProject:
    folder = item.folder
    problems = [problem for problem in (item.problem,) if problem is not None]
    if item.clash:
        problems.append(Problem(str(folder), f"slug {folder.name!r} is claimed by "
                                             f"{len(item.clash)} projects in projects.json"))
    memory = folder / MEMORY_DIR
    scan = read_memory_folder(memory, root, limited=False, legacy_names=item.names)
    problems.extend(scan.problems)
    real = memory.is_dir() and not memory.is_symlink()
    inbox = list_inbox(memory, root, folder.name, problems) if real else []
    own = item.switches(switches)
    on = next((s.value for s in own if s.name == SWITCH_AUTO_MEMORY), enabled) is True
    return AgentProject(agent=AGENT_GEMINI, key=folder.name, project=item.project,
                        memory_dir=str(memory) if real else None,
                        files=tuple(scan.files), index=scan.index,
                        secrets=tuple(scan.secrets), inbox=tuple(inbox),
                        other_files=scan.other_files, switches=own,
                        auto_memory=on, problems=tuple(problems))


@with_folder_cache
def read_gemini_home(home: str | os.PathLike[str] | None = None, *,
                     env: Mapping[str, str] | None = None,
                     instructions: bool = True) -> GeminiHome:
    """Read a Gemini CLI home (default: ``resolve_gemini_home``); each bad item is a problem."""
    environ = os.environ if env is None else env
    home_path = resolve_gemini_home(home, environ)
    if not home_path.is_dir():
        return GeminiHome(str(home_path), False, False, (), (DEFAULT_CONTEXT_FILE,), (), (),
                          (), (), (Problem(str(home_path), "Gemini CLI home not found (give "
                                           "--gemini-home PATH or set GEMINI_CLI_HOME)"),))
    problems: list[Problem] = []
    root = real_root(home_path)
    settings_path = home_path / SETTINGS_FILE
    settings, _stamp, problem = read_settings(settings_path, root, blank_ok=False)
    if problem is not None:
        problems.append(problem)
    raw_enabled = dotted(settings, SWITCH_AUTO_MEMORY)
    enabled = raw_enabled is True
    switches = [Switch(SWITCH_AUTO_MEMORY, raw_enabled, str(settings_path))
                if isinstance(raw_enabled, bool) else
                Switch(SWITCH_AUTO_MEMORY, False, "default (off)")]
    projects = read_projects(home_path, root, settings, problems, environ)
    names = global_names(context_names(settings), projects)
    if dotted(settings, SWITCH_FILE_NAME) is not None:
        switches.append(Switch(SWITCH_FILE_NAME, list(context_names(settings)),
                               str(settings_path)))
    frozen = tuple(switches)
    rows = [_global_row(home_path, root, names, enabled, frozen)]
    texts = [item.body for item in rows[0].files]
    scan = InstructionScan()
    for item in projects:
        rows.append(_project_row(item, root, enabled, frozen))
        if instructions and item.project and item.trusted and Path(item.project).is_dir():
            _project_instructions(scan, item)
    problems.extend(scan.problems)
    return GeminiHome(str(home_path), True, enabled, frozen, names,
                      tuple(fact for text in texts for fact in added_memories(text)),
                      tuple(rows), tuple(scan.files), tuple(scan.secrets), tuple(problems),
                      tuple(fact for text in texts for _line, fact in global_memory_lines(text)))


@dataclass(frozen=True)
class GeminiInbox:
    """The patches waiting in every inbox of a Gemini CLI home (global tier first)."""

    home: str
    home_found: bool
    patches: tuple[InboxPatch, ...]
    projects: Mapping[str, str]
    """Project folder slug -> the project's path, where ``.project_root`` or projects.json
    names it."""


def read_gemini_inbox(home: str | os.PathLike[str] | None = None, *,
                      env: Mapping[str, str] | None = None) -> GeminiInbox:
    """Every pending patch of a Gemini CLI home, reading only the inbox folders and what names
    the projects (no project's settings); a folder that cannot be read is left out."""
    environ = os.environ if env is None else env
    home_path = resolve_gemini_home(home, environ)
    if not home_path.is_dir():
        return GeminiInbox(str(home_path), False, (), {})
    problems: list[Problem] = []
    with folder_cache():
        root = real_root(home_path)
        patches = list_inbox(home_path / MEMORY_DIR, root, None, problems)
        projects: dict[str, str] = {}
        for folder, project, _clash in project_folders(home_path, root, problems):
            if project:
                projects[folder.name] = project
            memory = folder / MEMORY_DIR
            if memory.is_dir() and not memory.is_symlink():
                patches.extend(list_inbox(memory, root, folder.name, problems))
    return GeminiInbox(str(home_path), True, tuple(patches), projects)


def list_gemini_inbox(home: str | os.PathLike[str] | None = None) -> list[InboxPatch]:
    """Every pending patch of a Gemini CLI home."""
    return list(read_gemini_inbox(home).patches)
