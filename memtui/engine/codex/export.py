"""memtui's store -> a new Codex memories folder: one task group per readable project (its
memories with a source thread become Codex threads, the rest bullets), the actor's user-level
memories in ``memory_summary.md``, notes as ad-hoc notes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memtui.engine.base import EngineArea
from memtui.engine.codex.curation import validate_thread_id
from memtui.engine.codex.errors import CodexInputError
from memtui.engine.codex.export_format import (
    ExportGroup,
    ExportSummary,
    ExportTask,
    ExportThread,
    new_folder_refusal,
    one_line,
    render_export,
    render_raw_memory,
    write_export,
)
from memtui.engine.codex.import_report import IMPORT_SOURCE, NOTE_THREAD_PREFIX
from memtui.engine.codex.models import SummaryTopic
from memtui.engine.codex.naming import (
    is_valid_note_name,
    note_names,
    note_slug,
)
from memtui.engine.codex.parsers import first_line
from memtui.engine.codex.paths import EXPORT_FOLDERS, MEMORIES_DIR, NOTES_DIR_PARTS
from memtui.engine.codex.timefmt import parse_datetime
from memtui.errors import Conflict
from memtui.store.models import Memory, Project

EXPORT_MEMORY_SOURCES = ("auto", "import")
"""Memories with a source thread and one of these sources become Codex threads on export."""
EXPORT_REUSE_RULE = "exported from memtui; applies within this project"
EXPORT_ROLLOUT_PATH = "memtui:memory/{memory_id}"
EXPORT_PROJECT_CWD = "memtui:project/{project_id}"
EXPORT_TASK_OUTCOME = "success"
MAX_NOTE_NAME_ATTEMPTS = 1000


@dataclass(frozen=True)
class ExportPlan:
    """What an export writes: files (path relative to the memories folder) and counts."""

    files: dict[str, str]
    groups: int
    threads: int
    notes: int
    memories: int
    left_out: tuple[str, ...] = ()
    """Why some memories were written as plain bullets instead of threads, one line each."""

    def to_json(self) -> dict[str, Any]:
        """The counts and the file names (not the content)."""
        return {"groups": self.groups, "threads": self.threads, "notes": self.notes,
                "memories": self.memories, "files": sorted(self.files),
                "left_out": list(self.left_out)}


def _moment(stamp: str | None) -> datetime:
    return parse_datetime(stamp) or datetime(1970, 1, 1, tzinfo=UTC)


class Exporter(EngineArea):
    """Render and write the actor's view of the store as a Codex memories folder."""

    def plan_export(self) -> ExportPlan:
        """Render the actor's view of the store in Codex's folder format (nothing written)."""
        builder = _ExportBuilder()
        with self._store.snapshot():
            profile = self._engine.identity.profile()
            projects = sorted(self._engine.identity.list_projects(),
                              key=lambda pair: pair[0].id)
            active = self._engine.identity.all_active_memories
            per_project = [(project, active(project.id)) for project, _ in projects]
            user_memories = active(None)
        for project, memories in per_project:
            builder.add_project(project, memories)
        builder.add_user(profile, user_memories)
        return builder.plan()

    @staticmethod
    def write_plan(plan: ExportPlan, target: str | os.PathLike[str], *,
                   home_layout: bool = False, folder: str = MEMORIES_DIR) -> Path:
        """Write a rendered export into ``target``, a new (or empty) folder, and return it:
        the memories folder itself, or with ``home_layout`` a Codex home holding it as
        ``folder`` (``memories``, or ``memories_v2`` for Codex 0.169)."""
        if folder not in EXPORT_FOLDERS:
            raise CodexInputError(f"{folder!r}: not a Codex memories folder (one of "
                                  f"{', '.join(EXPORT_FOLDERS)})")
        check_export_target(target)
        files = plan.files
        if home_layout:
            files = {f"{folder}/{name}": text for name, text in files.items()}
        return write_export(target, files)


def check_export_target(target: str | os.PathLike[str]) -> None:
    """``CodexInputError`` (nothing written) when ``new_folder_refusal`` refuses the target."""
    refusal = new_folder_refusal(Path(target).absolute())
    if refusal is not None:
        raise CodexInputError(refusal)


def _is_note(memory: Memory) -> bool:
    return memory.source == "note" or (
        memory.source == IMPORT_SOURCE
        and (memory.source_thread_id or "").startswith(NOTE_THREAD_PREFIX))


def _exportable_thread_id(memory: Memory) -> str | None:
    ref = memory.source_thread_id
    if memory.source not in EXPORT_MEMORY_SOURCES or not ref or ref.startswith(NOTE_THREAD_PREFIX):
        return None
    try:
        return validate_thread_id(ref)
    except CodexInputError:
        return None


class _ExportBuilder:
    """Collects groups, threads, notes and the summary, keeping names and ids unique."""

    def __init__(self) -> None:
        self.groups: list[ExportGroup] = []
        self.threads: list[ExportThread] = []
        self.topics: list[SummaryTopic] = []
        self.notes: dict[str, str] = {}
        self.summary = ExportSummary()
        self.memories = 0
        self.left_out: list[str] = []
        self._thread_ids: set[str] = set()
        self._summary_files: set[str] = set()

    def _thread(self, memory: Memory, cwd: str, group: str) -> ExportThread | None:
        thread_id = _exportable_thread_id(memory)
        if thread_id is None:
            return None
        title = first_line(memory.content) or "memory"
        thread = ExportThread(
            thread_id=thread_id, updated_at=_moment(memory.updated_at), cwd=cwd,
            rollout_path=EXPORT_ROLLOUT_PATH.format(memory_id=memory.id),
            raw_memory=render_raw_memory(
                {"description": title, "task": title, "task_group": group,
                 "task_outcome": EXPORT_TASK_OUTCOME, "cwd": cwd,
                 "keywords": f"{memory.kind}, {memory.source}"}, memory.content),
            rollout_summary=memory.content, slug=title)
        if thread_id in self._thread_ids or thread.summary_file_name in self._summary_files:
            self.left_out.append(f"{memory.id}: thread {thread_id} already exported; written "
                                 "as a bullet")
            return None
        self._thread_ids.add(thread_id)
        self._summary_files.add(thread.summary_file_name)
        self.threads.append(thread)
        return thread

    def add_project(self, project: Project, memories: list[Memory]) -> None:
        """One task group for a project and its active memories."""
        cwd = project.root_path or EXPORT_PROJECT_CWD.format(project_id=project.id)
        name = project.id if project.name == project.id else f"{project.name} ({project.id})"
        tasks: list[ExportTask] = []
        preferences: list[str] = []
        knowledge: list[str] = []
        for memory in memories:
            self.memories += 1
            thread = self._thread(memory, cwd, name)
            if thread is not None:
                title = first_line(memory.content) or "memory"
                tasks.append(ExportTask(title, (memory.kind, memory.source), (thread,)))
                self.topics.append(SummaryTopic(cwd, memory.created_at[:10], title,
                                               (memory.kind, memory.source)))
            elif memory.kind == "preference":
                preferences.append(memory.content)
            else:
                knowledge.append(memory.content)
        scope = one_line(project.summary) or f"memtui project {project.id}"
        self.groups.append(ExportGroup(name, scope, cwd, EXPORT_REUSE_RULE, tuple(tasks),
                                       tuple(preferences), tuple(knowledge)))

    def _note_name(self, memory: Memory) -> str:
        ref = memory.source_thread_id or ""
        original = ref[len(NOTE_THREAD_PREFIX):] if ref.startswith(NOTE_THREAD_PREFIX) else ""
        if is_valid_note_name(original) and original not in self.notes:
            return original
        for name in note_names(_moment(memory.created_at), note_slug(memory.content),
                               MAX_NOTE_NAME_ATTEMPTS):
            if name not in self.notes:
                return name
        raise Conflict(f"no free note name for memory {memory.id}")

    def add_user(self, profile: Any, memories: list[Memory]) -> None:
        """The actor's user-level memories: notes, summary preferences and tips, threads."""
        preferences: list[str] = []
        tips: list[str] = []
        for memory in memories:
            self.memories += 1
            if _is_note(memory):
                self.notes[self._note_name(memory)] = memory.content.rstrip("\n") + "\n"
            elif self._thread(memory, "", "user") is not None:
                continue
            elif memory.kind == "preference":
                preferences.append(memory.content)
            else:
                tips.append(memory.content)
        lines = [f"{profile.display_name} ({profile.user_id}); time zone {profile.timezone}."]
        lines += [f"- {key}: {one_line(str(value))}"
                  for key, value in sorted(profile.preferences.items())]
        self.summary = ExportSummary("\n".join(lines), tuple(preferences), tuple(tips),
                                     tuple(self.topics))

    def plan(self) -> ExportPlan:
        """The rendered files and the counts."""
        files = render_export(self.summary, self.groups, self.threads)
        files.update((f"{'/'.join(NOTES_DIR_PARTS)}/{name}", text)
                     for name, text in sorted(self.notes.items()))
        return ExportPlan(files=files, groups=len(self.groups), threads=len(self.threads),
                          notes=len(self.notes), memories=self.memories,
                          left_out=tuple(self.left_out))
