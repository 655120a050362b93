"""Read a Claude Code home, read-only: every ``projects/*/memory/`` folder, the CLAUDE.md
hierarchy, the auto-memory switches and where each is set, and the secrets in all of it.

A project folder is matched to its project by the ``cwd`` its transcripts record, never by
computing its slug (long slugs and git worktrees are found too).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memtui.engine.agents.errors import AGENT_FILES, AgentFileProblem, AgentInputError
from memtui.engine.agents.folders import read_memory_folder, subfolders
from memtui.engine.agents.instructions import (
    InstructionScan,
    parents_of,
    read_instruction,
    read_rules,
)
from memtui.engine.agents.models import (
    AGENT_CLAUDE,
    AgentProject,
    InstructionFile,
    Problem,
    ProjectRows,
    SecretFinding,
    Switch,
)
from memtui.engine.agents.paths import (
    CLAUDE_DISABLE_ENV,
    CLAUDE_MEMORY_PATH_ENV,
    MANAGED_CLAUDE_DIR,
    claude_slug_matches,
    resolve_claude_home,
)
from memtui.engine.agents.settings_json import SETTINGS_FILE, dotted, read_settings
from memtui.engine.agents.transcripts import PROJECTS_DIR, SUBAGENT_PREFIX, TRANSCRIPT_SUFFIX
from memtui.engine.safe_files import real_root, with_folder_cache
from memtui.jsonable import JsonMixin

MEMORY_DIR = "memory"
LOCAL_SETTINGS_FILE = "settings.local.json"
INSTRUCTIONS_FILE = "CLAUDE.md"
LOCAL_INSTRUCTIONS_FILE = "CLAUDE.local.md"
RULES_DIR = "rules"
PROJECT_CONFIG_DIR = ".claude"
SWITCH_ENABLED = "autoMemoryEnabled"
SWITCH_DIRECTORY = "autoMemoryDirectory"
CWD_PREFIX_BYTES = 32 * 1024
CWD_TRANSCRIPTS = 3
"""Transcripts of a folder tried (newest first) to find its project's ``cwd``."""
_TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
_BOOL_WORDS = dict.fromkeys(_TRUE_WORDS, True) | dict.fromkeys(("0", "false", "no", "off"), False)
GITDIR_PREFIX = "gitdir:"
WORKTREES_MARK = "/.git/worktrees/"


@dataclass(frozen=True)
class ClaudeHome(JsonMixin, ProjectRows):
    """A Claude Code home as read: switches, instructions, projects, secrets, problems."""

    home: str
    home_found: bool
    auto_memory: bool
    """Auto memory as the user settings and environment leave it (projects may differ)."""
    switches: tuple[Switch, ...]
    instructions: tuple[InstructionFile, ...]
    projects: tuple[AgentProject, ...]
    secrets: tuple[SecretFinding, ...]
    """Secrets in instruction files (those in memory files are on each project)."""
    problems: tuple[Problem, ...]


def _bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    return _BOOL_WORDS.get(value.strip().lower()) if isinstance(value, str) else None


def _settings_switches(paths: list[Path], root: Path, switches: list[Switch],
                       problems: list[Problem]) -> None:
    """The switches of each settings file of ``paths``, in order."""
    for path in paths:
        settings, _stamp, problem = read_settings(path, root)
        if problem is not None:
            problems.append(problem)
        enabled = _bool(dotted(settings, SWITCH_ENABLED))
        if enabled is not None:
            switches.append(Switch(SWITCH_ENABLED, enabled, str(path)))
        directory = dotted(settings, SWITCH_DIRECTORY)
        if isinstance(directory, str) and directory.strip():
            switches.append(Switch(SWITCH_DIRECTORY, directory, str(path)))


def _env_switches(env: Mapping[str, str], switches: list[Switch]) -> None:
    value = env.get(CLAUDE_DISABLE_ENV)
    if value is not None and value.strip():
        disabled = value.strip().lower() in _TRUE_WORDS
        switches.append(Switch(SWITCH_ENABLED, not disabled, f"${CLAUDE_DISABLE_ENV}={value}"))
    moved = env.get(CLAUDE_MEMORY_PATH_ENV)
    if moved:
        switches.append(Switch(SWITCH_DIRECTORY, moved, f"${CLAUDE_MEMORY_PATH_ENV}"))


def switch_file(home: Path, on: bool, project: str | None = None, with_user: bool = True
                ) -> Path:
    """Where ``autoMemoryEnabled`` is switched ``on`` (or off): of the settings files Claude
    Code reads in order (user, project, project local), the last that sets it, else the first;
    refused when the environment sets it the other way, or a file that may decide is unread."""
    forced: list[Switch] = []
    _env_switches(os.environ, forced)
    if forced and forced[0].name == SWITCH_ENABLED and forced[0].value != on:
        raise AgentInputError(f"auto memory is set by {forced[0].where} in the environment; "
                              "change it there")
    project_dir = Path(os.path.expanduser(project or ".")).absolute()
    config = project_dir / PROJECT_CONFIG_DIR
    files = ([(home / SETTINGS_FILE, home)] if with_user or not project else []) + (
        [(config / SETTINGS_FILE, project_dir), (config / LOCAL_SETTINGS_FILE, project_dir)]
        if project else [])
    for path, root in reversed(files):  # the last file that sets it decides
        settings, stamp, problem = read_settings(path, real_root(root))
        if problem is not None and stamp is None:  # unread, not merely not JSON
            raise AgentInputError(f"{path}: {problem.reason}; it may decide auto memory, so "
                                  "nothing was written")
        if _bool(dotted(settings, SWITCH_ENABLED)) is not None:
            return path
    return files[0][0]


def resolve_switches(switches: list[Switch]) -> tuple[tuple[Switch, ...], bool]:
    """The switches with each name's winner (the last) marked, and whether auto memory is on."""
    last = {switch.name: index for index, switch in enumerate(switches)}
    marked = tuple(Switch(item.name, item.value, item.where, last[item.name] == index)
                   for index, item in enumerate(switches))
    return marked, bool(switches[last[SWITCH_ENABLED]].value) if SWITCH_ENABLED in last \
        else True


def transcript_cwd(paths: list[Path], root: Path) -> str | None:
    """The ``cwd`` the newest transcripts record (main sessions before sub-agents)."""
    def order(path: Path) -> tuple[bool, float]:
        try:
            mtime = path.stat().st_mtime
        except OSError:
            mtime = 0.0
        return (path.name.startswith(SUBAGENT_PREFIX), -mtime)

    for path in sorted(paths, key=order)[:CWD_TRANSCRIPTS]:
        try:
            head = AGENT_FILES.read_prefix(path, root, CWD_PREFIX_BYTES)
        except AgentFileProblem:
            continue
        for raw in head.split(b"\n")[:-1]:  # the last line may be cut
            try:
                record = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            cwd = record.get("cwd") if isinstance(record, dict) else None
            if isinstance(cwd, str) and cwd.startswith("/"):
                return cwd
    return None


def worktree_main(project: str) -> str | None:
    """The main checkout of a git worktree (its ``.git`` file names it), else None."""
    git = Path(project) / ".git"
    try:
        if not git.is_file() or git.stat().st_size > 4096:
            return None
        text = git.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    gitdir = text.removeprefix(GITDIR_PREFIX).strip()
    if not text.startswith(GITDIR_PREFIX) or WORKTREES_MARK not in gitdir:
        return None
    return gitdir.split(WORKTREES_MARK, 1)[0]


def _project_row(folder: Path, root: Path, user_switches: list[Switch],
                 scan_instructions: bool, instructions: InstructionScan) -> AgentProject:
    slug = folder.name
    problems: list[Problem] = []
    try:
        transcripts = [folder / name for name in os.listdir(folder)
                       if name.endswith(TRANSCRIPT_SUFFIX)]
    except OSError:
        transcripts = []
    cwd = transcript_cwd(transcripts, root)
    if cwd is not None and not claude_slug_matches(slug, cwd):
        # a renamed project or a worktree: the transcripts' cwd wins, the mismatch is told
        problems.append(Problem(str(folder), f"folder name does not match the recorded cwd "
                                             f"{cwd[:120]}; matched by cwd"))
    memory = folder / MEMORY_DIR
    scan = read_memory_folder(memory, root)
    problems.extend(scan.problems)
    from_env = [item for item in user_switches if item.where.startswith("$")]
    switches = [item for item in user_switches if not item.where.startswith("$")]
    if cwd is not None:
        project_dir = Path(cwd)
        config = project_dir / PROJECT_CONFIG_DIR
        if config.is_dir():
            _settings_switches([config / SETTINGS_FILE, config / LOCAL_SETTINGS_FILE],
                               real_root(project_dir), switches, problems)
        if scan_instructions:
            _project_instructions(instructions, project_dir)
    marked, enabled = resolve_switches(switches + from_env)
    exists = memory.is_dir() and not memory.is_symlink()
    return AgentProject(
        agent=AGENT_CLAUDE, key=slug, project=cwd,
        memory_dir=str(memory) if exists else None, files=tuple(scan.files),
        index=scan.index, secrets=tuple(scan.secrets),
        transcripts=len(transcripts), worktree_of=worktree_main(cwd) if cwd else None,
        other_files=scan.other_files, switches=marked, auto_memory=enabled,
        problems=tuple(problems))


def _project_instructions(scan: InstructionScan, project: Path) -> None:
    read_instruction(scan, project / INSTRUCTIONS_FILE, "project")
    read_instruction(scan, project / PROJECT_CONFIG_DIR / INSTRUCTIONS_FILE, "project")
    read_rules(scan, project / PROJECT_CONFIG_DIR / RULES_DIR, "project-rules")
    read_instruction(scan, project / LOCAL_INSTRUCTIONS_FILE, "local")
    for parent in parents_of(project):
        read_instruction(scan, parent / INSTRUCTIONS_FILE, "parent")


@with_folder_cache
def read_claude_home(home: str | os.PathLike[str] | None = None, *,
                     env: Mapping[str, str] | None = None,
                     managed_dir: Path | None = MANAGED_CLAUDE_DIR,
                     instructions: bool = True) -> ClaudeHome:
    """Read a Claude Code home (``instructions``: the CLAUDE.md hierarchy too); each bad item
    is one problem."""
    environ = os.environ if env is None else env
    home_path = resolve_claude_home(home, environ)
    if not home_path.is_dir():
        return ClaudeHome(str(home_path), False, True, (), (), (), (), (Problem(
            str(home_path), "Claude Code home not found (give --claude-home PATH or set "
            "CLAUDE_CONFIG_DIR)"),))
    problems: list[Problem] = []
    root = real_root(home_path)
    user_switches: list[Switch] = []
    _settings_switches([home_path / SETTINGS_FILE], root, user_switches, problems)
    _env_switches(environ, user_switches)
    scan = InstructionScan()
    if instructions:
        if managed_dir is not None:
            read_instruction(scan, managed_dir / INSTRUCTIONS_FILE, "managed")
        read_instruction(scan, home_path / INSTRUCTIONS_FILE, "user", show_missing=True)
        read_rules(scan, home_path / RULES_DIR, "user-rules")
    projects = [_project_row(folder, root, user_switches, instructions, scan)
                for folder in subfolders(home_path / PROJECTS_DIR, root, problems)]
    moved = [item for item in user_switches if item.name == SWITCH_DIRECTORY]
    if moved:
        target = Path(os.path.expanduser(str(moved[-1].value)))
        if target.is_dir() and not any(item.memory_dir == str(target) for item in projects):
            extra = read_memory_folder(target, real_root(target.parent))
            projects.append(AgentProject(
                agent=AGENT_CLAUDE, key=f"{SWITCH_DIRECTORY}:{target}", project=None,
                memory_dir=str(target), files=tuple(extra.files), index=extra.index,
                secrets=tuple(extra.secrets), other_files=extra.other_files,
                problems=tuple(extra.problems)))
    marked, enabled = resolve_switches(user_switches)
    problems.extend(scan.problems)
    return ClaudeHome(str(home_path), True, enabled, marked, tuple(scan.files),
                      tuple(projects), tuple(scan.secrets), tuple(problems))
