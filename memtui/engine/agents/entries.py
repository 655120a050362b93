"""The entries of one agent row the Agents pane lists and curates: the index, topic files,
broken index links, other files, daily logs; for Gemini CLI's global tier, each bullet.
Also the plans of a row's own writes (repair its index, redact, switch, its inbox).

Read-only. Every text shown has its secrets masked (``«kind»``); only a fact's own text is
kept as it is (to find its line again), and it never reaches JSON.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.engine.agents import curation, gemini, inbox, switches
from memtui.engine.agents.curation import EditSource
from memtui.engine.agents.errors import AgentInputError
from memtui.engine.agents.folders import read_memory_folder
from memtui.engine.agents.gemini import GLOBAL_KEY, global_files, global_memory_lines
from memtui.engine.agents.gemini_projects import home_context_names
from memtui.engine.agents.index import INDEX_FILE
from memtui.engine.agents.models import (
    AGENT_CLAUDE,
    AGENT_GEMINI,
    IndexLoad,
    MemoryFile,
    Problem,
    SecretFinding,
    find_secrets,
)
from memtui.engine.agents.overview import AgentRow
from memtui.engine.agents.plans import WritePlan, mask_secrets
from memtui.engine.safe_files import FileStamp, is_within, real_root
from memtui.jsonable import JsonMixin

ENTRY_INDEX = "index"
ENTRY_TOPIC = "topic"
ENTRY_LINK = "link"
"""An index line whose link leads nowhere (no such file) or outside the folder."""
ENTRY_FILE = "file"
"""A memory file that is neither a topic nor a log (Gemini CLI's older ``GEMINI.md``)."""
ENTRY_LOG = "log"
ENTRY_FACT = "fact"
"""One bullet of Gemini CLI's global file (a global memory)."""
ACTION_FORGET = "forget"
ACTION_EDIT = "edit"
ACTION_PROMOTE = "promote"
ENTRY_ACTIONS = (ACTION_FORGET, ACTION_EDIT, ACTION_PROMOTE)
SHOWN_CHARS = 4000
"""Characters of an entry's text kept for showing (after its secrets are masked)."""


@dataclass(frozen=True)
class MemoryEntry(JsonMixin):
    """One selectable thing of an agent row."""

    kind: str
    """``index``, ``topic``, ``link``, ``file``, ``log`` or ``fact``."""
    path: str
    """The file holding it (for a link: the index)."""
    name: str
    """Its name in the folder (a link's target; a fact's global file name)."""
    title: str
    hook: str = ""
    type: str | None = None
    line: int | None = None
    """The index line (1-based) of a topic or link; the line of a fact in its file."""
    loaded: bool | None = None
    """Whether it is loaded at session start; None: the index does not list it."""
    exists: bool = True
    outside: bool = False
    """True for a link leading outside the memory folder (never followed)."""
    secrets: tuple[str, ...] = ()
    size: int = 0
    shown: str = ""
    """Its text with secrets masked, at most ``SHOWN_CHARS``."""
    fact: str | None = None
    """A fact's own text (may hold a secret; never in JSON)."""

    @property
    def identity(self) -> tuple[str, str, str]:
        """What finds this entry again after a reload (kind, file, name or fact)."""
        return (self.kind, self.path, self.fact if self.fact is not None else self.name)

    def to_json(self) -> dict[str, Any]:
        """The entry without a fact's unmasked text."""
        data = super().to_json()
        data.pop("fact", None)
        return data


@dataclass(frozen=True)
class RowEntries(JsonMixin):
    """Every entry of one agent row, and what could not be read."""

    agent: str
    key: str
    memory_dir: str | None
    entries: tuple[MemoryEntry, ...]
    problems: tuple[Problem, ...] = ()


def _masked(text: str, chars: int = SHOWN_CHARS) -> str:
    return mask_secrets(text)[:chars]


def _kinds(findings: list[SecretFinding]) -> tuple[str, ...]:
    return tuple(sorted({finding.kind for finding in findings}))


def _file_entry(item: MemoryFile, kind: str, secrets: list[SecretFinding], *,
                title: str | None = None, hook: str = "", line: int | None = None,
                loaded: bool | None = None) -> MemoryEntry:
    shown_title = item.name or title or Path(item.relative).stem
    return MemoryEntry(kind=kind, path=item.path, name=item.relative,
                       title=_masked(" ".join(shown_title.split()), 200),
                       hook=_masked(" ".join((hook or item.description or "").split()), 300),
                       type=item.type, line=line, loaded=loaded, secrets=_kinds(secrets),
                       size=item.size, shown=_masked(item.body.strip()))


def _index_title(load: IndexLoad, limited: bool) -> str:
    lines = f"{load.lines} line{'' if load.lines == 1 else 's'}"
    if limited and load.over_limit:
        return (f"{lines}; {load.loaded_lines} loaded at session start, "
                f"{load.lines - load.loaded_lines} past the limit")
    return f"{lines}, all loaded at session start"


def folder_entries(folder: Path, root: Path, *, limited: bool = True,
                   legacy_names: tuple[str, ...] = ()) -> tuple[list[MemoryEntry],
                                                                list[Problem]]:
    """The entries of one memory folder inside ``root`` (``limited``: Claude Code's load limit)."""
    scan = read_memory_folder(folder, root, limited=limited, legacy_names=legacy_names)
    secrets: dict[str, list[SecretFinding]] = defaultdict(list)
    for finding in scan.secrets:
        secrets[finding.path].append(finding)
    by_name = {item.relative: item for item in scan.files}
    entries: list[MemoryEntry] = []
    used: set[str] = set()
    index = by_name.get(INDEX_FILE)
    load = scan.index
    if index is not None and load is not None:
        used.add(INDEX_FILE)
        entries.append(_file_entry(index, ENTRY_INDEX, secrets[index.path],
                                   title=_index_title(load, limited),
                                   loaded=not load.over_limit))
        for line in load.entries:
            if line.target is None:
                continue
            item = by_name.get(line.target) if line.exists else None
            if item is not None and line.target not in used:
                used.add(line.target)
                entries.append(_file_entry(item, ENTRY_TOPIC, secrets[item.path],
                                           title=line.title, hook=line.hook, line=line.line,
                                           loaded=line.loaded))
            elif item is None:
                outside = line.target in load.outside
                why = ("leads outside the memory folder; never followed" if outside
                       else "links to a file that does not exist")
                entries.append(MemoryEntry(
                    kind=ENTRY_LINK, path=index.path, name=line.target,
                    title=_masked(line.title or line.target, 200), hook=_masked(line.hook, 300),
                    line=line.line, loaded=line.loaded, exists=False, outside=outside,
                    shown=f"Line {line.line} of the index {why} ({_masked(line.target, 200)}); "
                          "x repairs the index."))
    rest = sorted((item for item in scan.files if item.relative not in used),
                  key=lambda item: item.relative)
    logs = [item for item in rest if item.role == ENTRY_LOG][::-1]  # the newest day first
    others = sorted((item for item in rest if item.role != ENTRY_LOG),
                    key=lambda item: item.role != ENTRY_TOPIC)  # topics, then other files
    entries.extend(_file_entry(item, item.role, secrets[item.path]) for item in others + logs)
    return entries, list(scan.problems)


def global_entries(home: Path, root: Path, names: tuple[str, ...]
                   ) -> tuple[list[MemoryEntry], list[Problem]]:
    """Gemini CLI's global memories: every bullet of the global file(s)."""
    entries: list[MemoryEntry] = []
    problems: list[Problem] = []
    for name, path, text, _stamp in global_files(home, root, names, problems):
        for number, fact in global_memory_lines(text):
            found = find_secrets(str(path), fact)
            entries.append(MemoryEntry(
                kind=ENTRY_FACT, path=str(path), name=name, title=_masked(fact, 300),
                line=number + 1, loaded=True, secrets=_kinds(list(found)),
                size=len(fact.encode("utf-8")), shown=_masked(fact), fact=fact))
    return entries, problems


def row_entries(agent: str, home: str | os.PathLike[str], key: str,
                memory_dir: str | None) -> RowEntries:
    """The entries of the overview's row ``key`` of ``agent``; each bad file is a problem."""
    home_path = Path(home)
    if agent not in (AGENT_CLAUDE, AGENT_GEMINI):
        return RowEntries(agent, key, memory_dir, (), (Problem(key, f"{agent} entries are "
                                                                    "not listed here"),))
    names = home_context_names(home_path, only=None if key == GLOBAL_KEY else key) \
        if agent == AGENT_GEMINI else None
    root = real_root(home_path)
    if agent == AGENT_GEMINI and key == GLOBAL_KEY:
        found, problems = global_entries(home_path, root, names.global_tier if names else ())
        return RowEntries(agent, key, str(home_path), tuple(found), tuple(problems))
    if memory_dir is None:
        return RowEntries(agent, key, None, (), (Problem(key, "no memory folder to list"),))
    if agent == AGENT_CLAUDE and not is_within(memory_dir, root):
        root = real_root(Path(memory_dir).parent)  # autoMemoryDirectory elsewhere
    found, problems = folder_entries(Path(memory_dir), root, limited=agent == AGENT_CLAUDE,
                                     legacy_names=names.of(key) if names else ())
    return RowEntries(agent, key, memory_dir, tuple(found), tuple(problems))


def _link_refusal(entry: MemoryEntry) -> AgentInputError:
    return AgentInputError(f"line {entry.line} of the index links to {entry.name[:80]}, which "
                           "is not a memory file here; x repairs the index")


def entry_edit_source(home: str | os.PathLike[str], entry: MemoryEntry) -> EditSource:
    """The text an edit of ``entry`` starts from (redacted) and the stamp of its file."""
    home_path = Path(home)
    if entry.kind == ENTRY_LINK:
        raise _link_refusal(entry)
    if entry.kind == ENTRY_FACT:
        return curation.fact_edit_source(home_path, entry.fact or "", entry.name)
    return curation.edit_source(home_path, entry.path)


def plan_entry(action: str, agent: str, home: str | os.PathLike[str], entry: MemoryEntry, *,
               text: str | None = None, expected: FileStamp | None = None) -> WritePlan:
    """The plan of ``action`` (forget, edit, promote) on ``entry`` of ``agent``'s home; an
    edit takes the new ``text`` and the ``expected`` stamp it started from."""
    home_path = Path(home)
    if action not in ENTRY_ACTIONS:
        raise AgentInputError(f"unknown action {action[:40]!r}")
    if entry.kind == ENTRY_LINK:
        raise _link_refusal(entry)
    if action == ACTION_EDIT:
        if text is None:
            raise AgentInputError("an edit needs some text")
        if entry.kind == ENTRY_FACT:
            return curation.plan_edit_fact(home_path, entry.fact or "", text, entry.name,
                                           expected)
        return curation.plan_edit(home_path, entry.path, text, expected)
    if entry.kind == ENTRY_FACT:
        if action == ACTION_PROMOTE:
            raise AgentInputError("an added memory is already in the global tier")
        return curation.plan_forget_fact(home_path, entry.fact or "", entry.name)
    if entry.kind == ENTRY_INDEX:
        verb = "forgotten" if action == ACTION_FORGET else "promoted"
        raise AgentInputError(f"the index itself is not {verb}; choose one of the files it "
                              "lists (e edits the index)")
    if action == ACTION_FORGET:
        return curation.plan_forget(home_path, entry.path)
    return (curation.plan_promote_gemini if agent == AGENT_GEMINI
            else curation.plan_promote_claude)(home_path, entry.path)


def plan_row(action: str, row: AgentRow, home: Path, extra: bool = False) -> WritePlan:
    """The plan of a row's own write: ``fix`` its index, ``redact`` its secrets, ``switch``
    its auto memory, or ``inbox``: apply (``extra``) or dismiss its first pending patch."""
    agents = (AGENT_GEMINI,) if action == "inbox" else (AGENT_CLAUDE, AGENT_GEMINI)
    if row.agent not in agents:
        raise AgentInputError(f"That works on {' or '.join(agents)} rows only.")
    if action == "fix":
        if row.memory_dir is None or row.index is None:
            raise AgentInputError("this row has no memory index to repair")
        return curation.plan_fix_index(home, Path(row.memory_dir))
    if action == "redact":
        return curation.plan_redact(home, *sorted({finding.path for finding in row.secrets}),
                                    gemini=row.agent == AGENT_GEMINI)
    if action == "switch":
        return switches.plan_auto_memory(row.agent, home, not row.auto_memory, row.project)
    first = next((patch.path for patch in gemini.list_gemini_inbox(home)
                  if (patch.project or GLOBAL_KEY) == row.key), None)
    if first is None:
        raise AgentInputError("no inbox patch waiting for this row")
    return (inbox.plan_apply_patch if extra else inbox.plan_dismiss_patch)(home, first)
