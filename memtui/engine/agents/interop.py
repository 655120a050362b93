"""Claude Code and Gemini CLI stores <-> memtui's store, through the engine's one write path.

Each memory file or bullet becomes one memory (``source = import``, the file as provenance) in
the project holding the folder's path (``ProjectPicker``: created when none fits; no known path:
skipped as ``no_project``; a project the user may only read gets nothing, its memories are the
user's own), redacted again, never twice, a memory forgotten in memtui not brought back. Each
main Claude Code session becomes a completed task (a read-only project's: ``no_project``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from memtui.engine.agents.claude import read_claude_home
from memtui.engine.agents.errors import AgentFileProblem, AgentInputError
from memtui.engine.agents.export_format import (
    CLAUDE_TYPE_TO_KIND,
    ExportMemory,
    ExportProject,
    render_claude,
    render_gemini,
)
from memtui.engine.agents.gemini import read_gemini_home
from memtui.engine.agents.models import AGENT_CLAUDE, AgentProject, MemoryFile, Problem
from memtui.engine.agents.paths import resolve_claude_home
from memtui.engine.agents.transcripts import (
    IMPORT_TASK_SOURCE,
    SUBAGENT_PREFIX,
    read_transcript,
    recorded_session,
    transcript_files,
)
from memtui.engine.codex.export_format import new_folder_refusal, write_export
from memtui.engine.codex.import_memories import note_kind
from memtui.engine.codex.import_report import (
    OUTCOME_ERROR,
    OUTCOME_IMPORTED,
    OUTCOME_SKIPPED,
    REASON_ALREADY,
    REASON_EMPTY,
    REASON_NO_PROJECT,
    Importer,
    ImportItem,
    ImportReport,
    task_gap,
)
from memtui.engine.project_picker import ProjectPicker, usable_cwd
from memtui.engine.safe_files import real_root
from memtui.errors import Conflict, MemtuiError
from memtui.store.models import Memory

REF_CLAUDE = "claude:"
REF_GEMINI = "gemini:"
MAX_REF_CHARS = 240
"""A provenance longer than this keeps its start and a hash of the whole."""
REASON_SUBAGENT = "subagent_session"
KIND_FILE = "file"
KIND_FACT = "fact"
KIND_SESSION = "session"


def provenance(prefix: str, key: str, relative: str) -> str:
    """``<prefix><key>/<relative>``, hashed when too long for a provenance."""
    ref = f"{prefix}{key}/{relative}"
    if len(ref) <= MAX_REF_CHARS:
        return ref
    return f"{ref[:MAX_REF_CHARS - 18]}#{_hash(ref, 16)}"


def fact_ref(text: str) -> str:
    """Provenance of a global Gemini added memory (a hash of its text)."""
    return f"{REF_GEMINI}global:{_hash(text, 20)}"


def memory_text(item: MemoryFile) -> str:
    """A memory file's text for memtui: title and description, then the body."""
    head = item.name or ""
    if item.description and item.description != item.name:
        head = f"{head} — {item.description}" if head else item.description
    body = item.body.strip()
    return f"{head}\n\n{body}".strip() if head else body


class AgentsApi(Importer):
    """Imports Claude Code and Gemini CLI memories and transcripts, and exports memtui in their
    formats, as the engine's user (permissions, redaction, audit)."""

    def _write(self, kind: str, ref: str, text: str, memory_kind: str, cwd: str | None,
               path: str | None, picker: ProjectPicker) -> ImportItem:
        if not text.strip():
            return ImportItem(kind, ref, OUTCOME_SKIPPED, REASON_EMPTY, "no text", path=path)
        return self._write_memory(kind, ref, text, memory_kind, cwd, path, picker)

    def _row_items(self, row: AgentProject, picker: ProjectPicker) -> list[ImportItem]:
        claude = row.agent == AGENT_CLAUDE
        prefix = REF_CLAUDE if claude else REF_GEMINI
        found = [(KIND_FILE, provenance(prefix, row.key, item.relative), memory_text(item),
                  CLAUDE_TYPE_TO_KIND.get(item.type or "", "fact") if claude else
                  note_kind("", item.body), item.path)
                 for item in row.files if item.role not in ("index", "log")]
        index = next((item for item in row.files if item.role == "index"), None)
        if not claude and row.index is not None and index is not None:
            found += [(KIND_FACT, provenance(prefix, row.key, f"MEMORY.md#{_hash(entry.title)}"),
                       entry.title, note_kind("", entry.title), index.path)
                      for entry in row.index.entries if entry.target is None]
        cwd = usable_cwd(row.project)
        if cwd is None:
            return [ImportItem(kind, ref, OUTCOME_SKIPPED, REASON_NO_PROJECT,
                               "the folder's project path is not known", path=path)
                    for kind, ref, _text, _kind, path in found]
        return [self._write(kind, ref, text, memory_kind, cwd, path, picker)
                for kind, ref, text, memory_kind, path in found]

    def import_claude(self, home: str | os.PathLike[str] | None = None) -> ImportReport:
        """Claude Code topic files become memories (see the module doc)."""
        read = read_claude_home(home, instructions=False)
        return self._report("claude_memories_imported", read.home, [], list(read.problems),
                            ProjectPicker(self._engine), read.projects)

    def import_gemini(self, home: str | os.PathLike[str] | None = None) -> ImportReport:
        """Gemini CLI memories become memories (see the module doc)."""
        read = read_gemini_home(home, instructions=False)
        picker = ProjectPicker(self._engine)
        global_files = read.projects[0].files if read.projects else ()
        global_path = global_files[0].path if global_files else None
        items = [self._write(KIND_FACT, fact_ref(fact), fact, note_kind("", fact), None,
                             global_path, picker) for fact in read.global_memories]
        return self._report("gemini_memories_imported", read.home, items, list(read.problems),
                            picker, read.projects[1:])

    def _report(self, action: str, home: str, items: list[ImportItem], problems: list[Problem],
                picker: ProjectPicker, rows: tuple[AgentProject, ...] = ()) -> ImportReport:
        """Import every row's memory files (after ``items``), audit and report."""
        for row in rows:
            problems.extend(row.problems)
            items.extend(self._row_items(row, picker))
        report = ImportReport(home, tuple(items), tuple(problems), tuple(picker.created))
        self._audit(action, report)
        return report

    def import_transcripts(self, home: str | os.PathLike[str] | None = None) -> ImportReport:
        """Claude Code sessions become completed tasks, incrementally (module doc)."""
        home_path = resolve_claude_home(home)
        files, problems = transcript_files(home_path)
        root = real_root(home_path)
        picker = ProjectPicker(self._engine)
        items = [self._import_session(found, root, picker, problems) for found in files]
        return self._report("claude_transcripts_imported", str(home_path), items, problems,
                            picker)

    def _import_session(self, found: Path, root: Path, picker: ProjectPicker,
                        problems: list[Problem]) -> ImportItem:
        """One transcript as a completed task, or why not (its problems added to ``problems``)."""
        path, ref = str(found), found.stem

        def item(outcome: str, reason: str | None = None, detail: str | None = None,
                 target_id: str | None = None, project: str | None = None) -> ImportItem:
            return ImportItem(KIND_SESSION, ref, outcome, reason, detail, target_id, project,
                              path=path)

        if found.name.startswith(SUBAGENT_PREFIX):
            return item(OUTCOME_SKIPPED, REASON_SUBAGENT, "a sub-agent session (agent-*.jsonl)")
        existing = recorded_session(self._engine.tasks, IMPORT_TASK_SOURCE, ref)
        if existing is not None:
            if existing.source == IMPORT_TASK_SOURCE:  # imported before paths were kept
                self._engine.sessions.record_imported(IMPORT_TASK_SOURCE, ref, path, None,
                                                      existing.id)
            return item(OUTCOME_SKIPPED, REASON_ALREADY, None, existing.id, existing.project)
        try:
            task = read_transcript(found, root)
        except AgentFileProblem as error:
            problems.append(Problem(path, error.reason))
            return item(OUTCOME_ERROR, error.code, error.reason)
        problems.extend(task.problems)
        if task.sidechain_only:
            return item(OUTCOME_SKIPPED, REASON_SUBAGENT,
                        "every record is a sub-agent (isSidechain) record")
        gap = task_gap(task.goal, task.result, task.started_at, task.finished_at, task.cwd,
                       "session")
        if gap is not None:
            return item(OUTCOME_SKIPPED, *gap)
        cwd = str(usable_cwd(task.cwd))
        goal, result = task.task_texts()
        try:
            with self._store.transaction():
                project = picker.project_for(cwd)
                if project is None:
                    return item(OUTCOME_SKIPPED, REASON_NO_PROJECT, picker.refusal(cwd))
                added = self._engine.tasks.add_task(
                    project, goal, goal, result, task.started_at, task.finished_at,
                    status="completed", external_context=task.used_external_context,
                    external_tool=task.external_tool,
                    source=IMPORT_TASK_SOURCE, source_ref=ref)
                self._engine.sessions.record_imported(IMPORT_TASK_SOURCE, ref, path, cwd,
                                                      added.id)
        except MemtuiError as error:
            picker.rolled_back()
            if isinstance(error, Conflict):
                return item(OUTCOME_SKIPPED, REASON_ALREADY, "already recorded")
            return item(OUTCOME_ERROR, error.code, error.message)
        picker.committed()
        return item(OUTCOME_IMPORTED, None, None, added.id, added.project)

    def export(self, agent: str, target: str | os.PathLike[str]) -> dict[str, Any]:
        """Write the store in ``agent``'s format into ``target``, a new (or empty) folder."""
        path = Path(target).absolute()
        refusal = new_folder_refusal(path)
        if refusal is not None:
            raise AgentInputError(refusal)

        def convert(items: list[Memory]) -> tuple[ExportMemory, ...]:
            return tuple(ExportMemory(item.id, item.kind, item.content) for item in items)

        active = self._engine.identity.all_active_memories
        with self._store.snapshot():
            projects = [ExportProject(project.id, project.root_path, convert(active(project.id)))
                        for project, _role in sorted(self._engine.identity.list_projects(),
                                                     key=lambda p: p[0].id)]
            user = convert(active(None))
        render = {"claude": render_claude, "gemini": render_gemini}.get(agent)
        if render is None:
            raise AgentInputError(f"unknown agent {agent!r}")
        files, notes = render(projects, user)
        written = write_export(path, files)
        memories = sum(len(project.memories) for project in projects) + len(user)
        return {"path": str(written), "agent": agent, "memories": memories,
                "files": sorted(files), "notes": notes}


def _hash(text: str, chars: int = 12) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:chars]
