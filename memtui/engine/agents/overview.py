"""One view of every agent store on the machine (Claude Code, Gemini CLI, Codex): a row per
agent and project with its counts, size, switches, secrets and index load; a missing home
is one line, not an error.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.engine.agents.claude import ClaudeHome, read_claude_home
from memtui.engine.agents.gemini import GeminiHome, read_gemini_home
from memtui.engine.agents.gemini_trust import FolderTrust, read_folder_trust
from memtui.engine.agents.models import (
    AGENT_CLAUDE,
    AGENT_CODEX,
    AGENT_GEMINI,
    AgentProject,
    IndexLoad,
    InstructionFile,
    Problem,
    SecretFinding,
    Switch,
    find_secrets,
)
from memtui.engine.agents.versions import AgentVersion, agent_version
from memtui.jsonable import JsonMixin

if TYPE_CHECKING:
    from memtui.engine.agent_setup import InstalledEntry

CODEX_DB_WAIT_SECONDS = 0.25
"""Longest wait for a ``memories_1.sqlite`` a running Codex holds locked."""
SETUP_NAMES = {AGENT_CLAUDE: "claude-code"}
"""The agent's name in ``memtui hooks`` where it differs from the store's."""
AGENT_TITLES = {AGENT_CLAUDE: "Claude Code", AGENT_GEMINI: "Gemini CLI", AGENT_CODEX: "Codex"}


@dataclass(frozen=True)
class AgentRow(JsonMixin):
    """One agent's memory for one project (``project`` None: the user/global tier)."""

    agent: str
    key: str
    project: str | None
    memory_dir: str | None
    files: int
    size: int
    auto_memory: bool | None
    switches: tuple[Switch, ...]
    secrets: tuple[SecretFinding, ...]
    index: IndexLoad | None
    """The index's load meter (its JSON: ``IndexLoad.meter_json``, without the entries)."""
    inbox: int = 0
    transcripts: int = 0
    worktree_of: str | None = None
    problems: tuple[Problem, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The row; its index as the load meter (counts, limits, the names past the limit)."""
        data = super().to_json()
        data["index"] = self.index.meter_json() if self.index else None
        return data

    @property
    def title(self) -> str:
        """The agent's name for people."""
        return AGENT_TITLES.get(self.agent, self.agent)

    @property
    def label(self) -> str:
        """The project path, else the folder key."""
        return self.project or self.key


@dataclass(frozen=True)
class AgentHomeInfo(JsonMixin):
    """One agent's home: where, whether found, its switches and home-level problems."""

    agent: str
    home: str
    found: bool
    auto_memory: bool | None
    switches: tuple[Switch, ...]
    instructions: tuple[InstructionFile, ...]
    secrets: tuple[SecretFinding, ...]
    problems: tuple[Problem, ...]
    version: AgentVersion | None = None
    layout: str | None = None
    connection: tuple[InstalledEntry, ...] = ()
    """memtui's entries in the agent's settings (read for the default home only)."""
    folder_trust: FolderTrust | None = None

    @property
    def instruction_files(self) -> tuple[InstructionFile, ...]:
        """The instruction files that exist."""
        return tuple(item for item in self.instructions if item.exists)

    @property
    def broken_commands(self) -> tuple[InstalledEntry, ...]:
        """The installed memtui commands that would not start."""
        return tuple(item for item in self.connection if not item.check.ok)


@dataclass(frozen=True)
class AgentsOverview(JsonMixin):
    """Every agent home and every row."""

    homes: tuple[AgentHomeInfo, ...]
    rows: tuple[AgentRow, ...]

    def to_json(self) -> dict[str, Any]:
        """Homes, rows and totals."""
        data = super().to_json()
        data["totals"] = {"rows": len(self.rows),
                          "files": sum(row.files for row in self.rows),
                          "bytes": sum(row.size for row in self.rows),
                          "secrets": sum(len(row.secrets) for row in self.rows)
                          + sum(len(home.secrets) for home in self.homes),
                          "over_limit": sum(1 for row in self.rows
                                            if row.index and row.index.over_limit),
                          "problems": sum(len(row.problems) for row in self.rows)
                          + sum(len(home.problems) for home in self.homes)}
        return data


def _row(item: AgentProject) -> AgentRow:
    return AgentRow(agent=item.agent, key=item.key, project=item.project,
                    memory_dir=item.memory_dir, files=item.topics, size=item.size,
                    auto_memory=item.auto_memory, switches=item.switches,
                    secrets=item.secrets, index=item.index,
                    inbox=len(item.inbox), transcripts=item.transcripts,
                    worktree_of=item.worktree_of, problems=item.problems)


def claude_rows(home: ClaudeHome) -> tuple[AgentHomeInfo, list[AgentRow]]:
    """The Claude Code home's info and rows (those with a memory folder or problem first)."""
    info = AgentHomeInfo(AGENT_CLAUDE, home.home, home.home_found, home.auto_memory,
                         home.switches, home.instructions, home.secrets, home.problems)
    rows = [_row(item) for item in home.projects]
    rows.sort(key=lambda row: (row.memory_dir is None and not row.problems, row.label))
    return info, rows


def gemini_rows(home: GeminiHome, env: dict[str, str] | None = None
                ) -> tuple[AgentHomeInfo, list[AgentRow]]:
    """The Gemini CLI home's info and rows (the global tier first)."""
    projects = [row.project for row in home.projects if row.project]
    trust = read_folder_trust(home.home, projects, env=env) if home.home_found else None
    info = AgentHomeInfo(AGENT_GEMINI, home.home, home.home_found, home.auto_memory,
                         home.switches, home.instructions, home.secrets, home.problems,
                         folder_trust=trust)
    rows = [_row(item) for item in home.projects]
    rows[1:] = sorted(rows[1:], key=lambda row: row.label)
    return info, rows


def codex_rows(home: Path) -> tuple[AgentHomeInfo, list[AgentRow]]:
    """A Codex home's threads by project (``cwd``), their secrets and config.toml's switches."""
    from memtui.engine.codex.browse import codex_threads
    from memtui.engine.codex.reader import read_codex_home

    codex = read_codex_home(home, db_busy_timeout_s=CODEX_DB_WAIT_SECONDS)
    switches: list[Switch] = []
    config = codex.config
    enabled: bool | None = None
    if codex.home_found:
        feature = config.feature_enabled if config else None
        generate = config.settings.get("generate_memories") if config else None
        where = config.path if config else str(home / "config.toml")
        switches.append(Switch("features.memories", feature if feature is not None else
                               "default", where if feature is not None else "default"))
        if generate is not None:
            switches.append(Switch("memories.generate_memories", generate, where))
        enabled = feature is not False and generate is not False
    problems = codex.problems if codex.home_found else codex.problems[:1]
    layout = codex.layout.description if codex.layout else None
    info = AgentHomeInfo(AGENT_CODEX, codex.home, codex.home_found, enabled, tuple(switches),
                         (), (), problems, layout=layout)
    if not codex.home_found:
        return info, []
    secrets: dict[str, list[SecretFinding]] = defaultdict(list)
    sizes: dict[str, int] = defaultdict(int)
    for output in codex.stage1_outputs:
        text = output.raw_memory + "\n" + output.rollout_summary
        where = f"{codex.sqlite_path}#{output.thread_id}"
        secrets[output.thread_id].extend(find_secrets(where, text))
        sizes[output.thread_id] += len(text.encode("utf-8"))
    groups: dict[str, list[str]] = defaultdict(list)
    for thread in codex_threads(codex):
        groups[thread.cwd or ""].append(thread.thread_id)
    rows = [AgentRow(agent=AGENT_CODEX, key=cwd or "(no cwd)", project=cwd or None,
                     memory_dir=codex.memories_dir, files=len(ids),
                     size=sum(sizes[item] for item in ids), auto_memory=enabled,
                     switches=tuple(switches),
                     secrets=tuple(finding for item in ids for finding in secrets[item]),
                     index=None)
            for cwd, ids in sorted(groups.items())]
    return info, rows


def agents_overview(claude_home: str | os.PathLike[str] | None = None,
                    gemini_home: str | os.PathLike[str] | None = None,
                    codex_home: str | os.PathLike[str] | None = None, *,
                    env: dict[str, str] | None = None,
                    instructions: bool = True) -> AgentsOverview:
    """Read every agent home (each from its flag, its variable, or its default)."""
    from memtui.engine.codex.paths import resolve_codex_home

    homes: list[AgentHomeInfo] = []
    rows: list[AgentRow] = []
    given = {AGENT_CLAUDE: claude_home, AGENT_GEMINI: gemini_home, AGENT_CODEX: codex_home}
    for info, found in (claude_rows(read_claude_home(claude_home, env=env,
                                                     instructions=instructions)),
                        gemini_rows(read_gemini_home(gemini_home, env=env,
                                                     instructions=instructions), env),
                        codex_rows(resolve_codex_home(codex_home, env))):
        homes.append(with_versions(info, default_home=given[info.agent] is None, env=env))
        rows.extend(found)
    return AgentsOverview(tuple(homes), tuple(rows))


def with_versions(info: AgentHomeInfo, *, default_home: bool,
                  env: dict[str, str] | None = None) -> AgentHomeInfo:
    """``info`` with the agent's versions and, for the agent's own home (``default_home``),
    memtui's installed entries checked (not run)."""
    from memtui.engine.agent_setup import installed_entries

    path_env = (env or os.environ).get("PATH")
    version = agent_version(info.agent, Path(info.home) if info.found else None, path_env)
    connection = tuple(installed_entries(SETUP_NAMES.get(info.agent, info.agent))
                       ) if default_home else ()
    return replace(info, version=version, connection=connection)
