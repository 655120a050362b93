"""Codex home ↔ memtui store: import memories and rollouts, export the store (spec/40).

``CodexImporter(engine)`` acts as the engine's user and goes through the engine's own rules:

- ``import_memories(home)``: each thread's stage-1 output (raw memory and rollout summary)
  becomes one memory, and each ad-hoc note one memory, with ``source = import`` and
  ``source_thread_id`` = the thread id (``codex-note:<file name>`` for a note). A thread goes
  to the project whose root holds its ``cwd`` and that the actor can write (the deepest root
  wins); with none, a project is created from the ``cwd`` (id from the folder name, made
  unique, the actor its owner). A note, or a thread without a usable ``cwd``, becomes a
  user-level memory. Every text is redacted again (``IdentityApi.add_memory``), cut to the
  memory size limit with a visible marker (the report lists what was cut), and written as
  ``fact`` unless it is clearly a preference. Importing twice adds nothing: a thread that
  already has an imported memory the actor can see is skipped, and so is one whose memory
  was forgotten in memtui (the tombstone of spec/10). When ``memories_1.sqlite`` was read,
  its stage-1 rows are authoritative: a thread left only in the markdown files (for
  example one forgotten in Codex; ``raw_memories.md`` is regenerated later) is skipped.
- ``import_rollouts(home)``: each session rollout becomes a completed task (``source =
  codex``, ``source_ref`` = the thread id), with ``external_context`` set when it used MCP
  tools or web search so gate 4 of the extractor skips it. A rollout without a thread id,
  a user request, a result, both times, or a ``cwd`` that gives a project is *not*
  imported: it is reported as skipped with the reason (a rollout still running has no
  result yet, and is picked up by a later import once it has one). A rollout whose thread
  already has an imported memory (or whose imported memory was forgotten) is never
  extracted: the extractor matches ``source_ref`` against memory provenance and tombstones.
- ``export_store(target)``: the store as Codex's folder format in a new folder.
- ``browse(home)``: the Codex home, read-only.

Every per-item failure is one entry of the report; none stops the rest.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from memtui.engine import permissions as perm
from memtui.engine.base import EngineArea
from memtui.engine.codex.curation import validate_thread_id
from memtui.engine.codex.errors import CodexInputError
from memtui.engine.codex.export_format import (
    ExportGroup,
    ExportSummary,
    ExportTask,
    ExportThread,
    ExportTopic,
    one_line,
    render_export,
    render_raw_memory,
)
from memtui.engine.codex.export_writer import write_export
from memtui.engine.codex.models import CodexHome, JsonMixin, Problem
from memtui.engine.codex.naming import (
    DEFAULT_NOTE_SLUG_CHARS,
    NOTE_NAME_RE,
    is_valid_note_name,
    note_file_name,
    note_slug,
)
from memtui.engine.codex.parse_raw_memories import (
    FRONT_MATTER_FENCE,
    MAX_FRONT_MATTER_LINES,
    parse_front_matter,
)
from memtui.engine.codex.paths import MEMORIES_DIR, NOTES_DIR_PARTS
from memtui.engine.codex.reader import read_codex_home
from memtui.engine.codex.rollouts import MAX_ROLLOUT_FILES, RolloutTask, read_rollouts
from memtui.engine.codex.timefmt import parse_datetime
from memtui.engine.identity import MAX_LIST_LIMIT
from memtui.engine.redaction import redact
from memtui.engine.tasks import MAX_TASK_TEXT_BYTES
from memtui.engine.validation import ID_PATTERN, MAX_CONTENT_BYTES
from memtui.errors import Conflict, MemtuiError
from memtui.store.models import Memory, PageCursor, Project

if TYPE_CHECKING:
    from memtui.engine.api import Engine

IMPORT_SOURCE = "import"
"""``source`` of every memory imported from a Codex home."""
ROLLOUT_TASK_SOURCE = "codex"
"""``source`` of every task imported from a Codex rollout (``source_ref`` = thread id)."""
NOTE_THREAD_PREFIX = "codex-note:"
"""``source_thread_id`` of an imported ad-hoc note: this prefix and the note's file name."""
TRUNCATION_MARKER = "\n\n[… cut by memtui's Codex import: {omitted} more bytes not kept]"
"""Appended to a text cut to the size limit (``omitted`` is the number of bytes left out)."""
ROLLOUT_SUMMARY_HEADING = "Rollout summary:"
FALLBACK_TITLE = "Codex thread {thread_id}"
FALLBACK_PROJECT_ID = "codex-project"
"""Project id used when a ``cwd``'s folder name gives no valid id."""
MAX_PROJECT_ID_CHARS = 64
MAX_PROJECT_NAME_CHARS = 200
MAX_UNIQUE_PROJECT_ATTEMPTS = 1000
_PROJECT_ID_JUNK = re.compile(r"[^a-z0-9._-]+")
_PREFERENCE_RE = re.compile(
    r"^\s*(?:(?:the\s+)?user\s+|i\s+)?(?:prefers?|likes?|dislikes?|wants?|would\s+rather)\b",
    re.IGNORECASE)
"""A first line that clearly states a preference ("prefers uv", "I like ...")."""
PREFERENCE_SLUG_PREFIX = "prefer"
"""A note whose file-name slug starts so is a preference too (``...-prefer-uv-over-pip.md``)."""

OUTCOME_IMPORTED = "imported"
OUTCOME_SKIPPED = "skipped"
OUTCOME_ERROR = "error"
REASON_ALREADY = "already_imported"
REASON_FORGOTTEN = "forgotten"
REASON_NOT_IN_DB = "not_in_database"
REASON_EMPTY = "empty"
REASON_NO_THREAD = "no_thread_id"
REASON_NO_GOAL = "no_goal"
REASON_NO_RESULT = "missing_result"
REASON_NO_TIMES = "missing_times"
REASON_NO_PROJECT = "no_project"
REASON_DB_UNREADABLE = "database_unreadable"
KIND_THREAD = "thread"
KIND_NOTE = "note"
KIND_ROLLOUT = "rollout"

DB_LOCKED_WORDS = "locked"
"""In the reader's problem for a database another process holds locked (``CodexDbLocked``)."""

EXPORT_MEMORY_SOURCES = ("auto", "import")
"""Memories with a source thread and one of these sources become Codex threads on export."""
EXPORT_REUSE_RULE = "exported from memtui; applies within this project"
EXPORT_ROLLOUT_PATH = "memtui:memory/{memory_id}"
EXPORT_PROJECT_CWD = "memtui:project/{project_id}"
EXPORT_TASK_OUTCOME = "success"


# ---- reports ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportItem(JsonMixin):
    """What happened to one thread, note or rollout.

    ``outcome`` is ``imported``, ``skipped`` (with a ``reason`` code) or ``error`` (with the
    error's code as ``reason`` and its message as ``detail``). ``target_id`` is the memory or
    task written (or the one that already exists).
    """

    kind: str
    ref: str
    outcome: str
    reason: str | None = None
    detail: str | None = None
    target_id: str | None = None
    project: str | None = None
    truncated: bool = False
    path: str | None = None


@dataclass(frozen=True)
class ImportReport(JsonMixin):
    """The result of one import: every item, the read problems, the projects created."""

    home: str
    items: tuple[ImportItem, ...]
    problems: tuple[Problem, ...]
    created_projects: tuple[str, ...] = ()
    database_error: str | None = None
    """Why ``memories_1.sqlite`` could not be read although it exists (threads then wait)."""

    @property
    def database_locked(self) -> bool:
        """True when a running Codex held the database locked past the wait."""
        return self.database_error is not None and DB_LOCKED_WORDS in self.database_error

    @property
    def imported(self) -> int:
        """How many items were written."""
        return sum(1 for item in self.items if item.outcome == OUTCOME_IMPORTED)

    @property
    def skipped(self) -> dict[str, int]:
        """Skipped items by reason code."""
        return dict(sorted(Counter(item.reason or "unknown" for item in self.items
                                   if item.outcome == OUTCOME_SKIPPED).items()))

    @property
    def errors(self) -> int:
        """How many items failed (each with its reason)."""
        return sum(1 for item in self.items if item.outcome == OUTCOME_ERROR)

    @property
    def truncated(self) -> tuple[str, ...]:
        """Refs of the items whose text was cut to the size limit."""
        return tuple(item.ref for item in self.items if item.truncated)

    def to_json(self) -> dict[str, Any]:
        """Counts first, then the items, problems and created projects."""
        return {"home": self.home, "imported": self.imported, "skipped": self.skipped,
                "errors": self.errors, "truncated": list(self.truncated),
                "created_projects": list(self.created_projects),
                "database_error": self.database_error,
                "items": [item.to_json() for item in self.items],
                "problems": [problem.to_json() for problem in self.problems]}


@dataclass(frozen=True)
class CodexThread(JsonMixin):
    """One thread of a Codex home, merged from the database, raw memories and summaries."""

    thread_id: str
    cwd: str | None
    updated_at: str | None
    description: str | None
    usage_count: int | None
    last_usage: str | None
    generated_at: str | None
    in_database: bool
    has_raw_memory: bool
    rollout_summary_file: str | None
    job_status: str | None
    job_error: str | None


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


# ---- text helpers ------------------------------------------------------------------------------


def bound_text(text: str, max_bytes: int) -> tuple[str, bool]:
    """``text`` cut to at most ``max_bytes`` UTF-8 bytes with a marker; (text, was_cut)."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text, False
    reserve = len(TRUNCATION_MARKER.format(omitted=len(data)).encode("utf-8"))
    if reserve * 2 > max_bytes:  # no room for a marker: a plain cut
        return data[:max_bytes].decode("utf-8", "ignore"), True
    kept = data[:max_bytes - reserve].decode("utf-8", "ignore").rstrip()
    omitted = len(data) - len(kept.encode("utf-8", "surrogatepass"))
    return kept + TRUNCATION_MARKER.format(omitted=omitted), True


def strip_front_matter(body: str) -> str:
    """A raw memory without its leading ``---`` front matter block (if it has one)."""
    lines = body.lstrip("\n").splitlines()
    if not lines or lines[0].strip() != FRONT_MATTER_FENCE:
        return body.strip()
    for index, line in enumerate(lines[1:MAX_FRONT_MATTER_LINES], start=1):
        if line.strip() == FRONT_MATTER_FENCE:
            return "\n".join(lines[index + 1:]).strip()
    return body.strip()


def thread_memory_text(thread_id: str, raw_memory: str, rollout_summary: str) -> str:
    """The memory text of a thread: a title line, the raw memory, then the rollout summary."""
    front = parse_front_matter(raw_memory)
    title = one_line(front.get("description") or front.get("task") or "") \
        or FALLBACK_TITLE.format(thread_id=thread_id)
    parts = [title]
    body = strip_front_matter(raw_memory)
    if body:
        parts.append(body)
    if rollout_summary.strip():
        parts.append(f"{ROLLOUT_SUMMARY_HEADING}\n{rollout_summary.strip()}")
    return "\n\n".join(parts)


def note_kind(file_name: str, text: str) -> str:
    """``preference`` when a note clearly states one (slug or first line), else ``fact``."""
    match = NOTE_NAME_RE.match(file_name)
    if match and match.group(2).startswith(PREFERENCE_SLUG_PREFIX):
        return "preference"
    first = next((line for line in text.splitlines() if line.strip()), "")
    return "preference" if _PREFERENCE_RE.match(first) else "fact"


def project_id_from_folder(name: str) -> str:
    """A valid project id from a folder name (lowercase, ``[a-z0-9._-]``), never empty."""
    slug = _PROJECT_ID_JUNK.sub("-", name.lower()).strip("-._")[:MAX_PROJECT_ID_CHARS]
    slug = slug.rstrip("-._")
    return slug if slug and ID_PATTERN.match(slug) else FALLBACK_PROJECT_ID


def usable_cwd(cwd: str | None) -> str | None:
    """An absolute, non-root working directory, else None (then no project is chosen)."""
    if not cwd or "\x00" in cwd:
        return None
    path = PurePosixPath(cwd.strip())
    if not path.is_absolute() or not path.name:
        return None
    return str(path)


def _title(content: str) -> str:
    return next((line.strip() for line in content.splitlines() if line.strip()), "memory")


def _moment(stamp: str | None) -> datetime:
    return parse_datetime(stamp) or datetime(1970, 1, 1, tzinfo=UTC)


# ---- projects ----------------------------------------------------------------------------------


class _ProjectPicker:
    """Maps a ``cwd`` to a writable project, creating one when none fits (cached per run)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._cache: dict[str, str] = {}
        self.created: list[str] = []
        self._fresh: str | None = None

    def _writable_for(self, cwd: str) -> Project | None:
        identity = self._engine.identity
        found = identity.project_for_path(cwd)
        if found is not None and identity.can_write(found.id):
            return found
        target = Path(cwd).expanduser().resolve()
        best: Project | None = None
        for project, role in identity.list_projects():
            if not project.root_path or perm.CREATE_TASK not in perm.ROLE_PERMISSIONS.get(
                    role, frozenset()):
                continue
            root = Path(project.root_path)
            if (target == root or root in target.parents) and (
                    best is None or len(project.root_path) > len(best.root_path or "")):
                best = project
        return best

    def _free_id(self, base: str) -> str:
        store = self._engine.store
        for attempt in range(1, MAX_UNIQUE_PROJECT_ATTEMPTS + 1):
            suffix = "" if attempt == 1 else f"-{attempt}"
            candidate = base[:MAX_PROJECT_ID_CHARS - len(suffix)] + suffix
            if store.identity.get_project(candidate) is None:
                return candidate
        raise Conflict(f"no free project id for {base!r}")

    def project_for(self, cwd: str) -> str:
        """The project for this ``cwd`` (created if needed, inside the caller's transaction)."""
        self._fresh = None
        if cwd in self._cache:
            return self._cache[cwd]
        found = self._writable_for(cwd)
        if found is not None:
            self._cache[cwd] = found.id
            return found.id
        name = PurePosixPath(cwd).name
        project_id = self._free_id(project_id_from_folder(name))
        self._engine.identity.create_project(project_id, name[:MAX_PROJECT_NAME_CHARS] or None,
                                             cwd)
        self._cache[cwd] = project_id
        self._fresh = cwd
        self.created.append(project_id)
        return project_id

    def rolled_back(self) -> None:
        """The caller's transaction rolled back: forget a project created in it."""
        if self._fresh is not None:
            project_id = self._cache.pop(self._fresh, None)
            if project_id in self.created:
                self.created.remove(project_id)
            self._fresh = None

    def committed(self) -> None:
        """The caller's transaction committed."""
        self._fresh = None


# ---- the importer ------------------------------------------------------------------------------


@dataclass
class _ThreadSource:
    """What a home holds for one thread, from the database or the markdown files."""

    thread_id: str
    raw_memory: str = ""
    rollout_summary: str = ""
    cwd: str | None = None
    path: str | None = None
    in_database: bool = False


@dataclass
class _Run:
    """The state of one import run."""

    items: list[ImportItem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class CodexImporter(EngineArea):
    """Import a Codex home into memtui and export memtui as a Codex folder, as the engine's
    user and through the engine's rules (permissions, redaction, validation, audit)."""

    # ---- browse -----------------------------------------------------------------------------

    @staticmethod
    def browse(home: str | os.PathLike[str], now: datetime | None = None, *,
               sqlite_home: str | os.PathLike[str] | None = None) -> CodexHome:
        """The Codex home, read-only (``read_codex_home``)."""
        return read_codex_home(home, now, sqlite_home=sqlite_home)

    # ---- memories ---------------------------------------------------------------------------

    def import_memories(self, home: str | os.PathLike[str], *,
                        sqlite_home: str | os.PathLike[str] | None = None,
                        db_busy_timeout_s: float | None = None,
                        codex: CodexHome | None = None) -> ImportReport:
        """Stage-1 outputs and ad-hoc notes of a home become memories (see the module doc).

        ``codex`` is an already read home (else it is read now, waiting at most
        ``db_busy_timeout_s`` for a database locked by a running Codex). When
        ``memories_1.sqlite`` exists but cannot be read (locked, corrupt), no thread is
        imported (the report's ``database_error`` says why; the markdown files may hold
        threads Codex has since dropped); notes are imported all the same.
        """
        if codex is None:
            options: dict[str, Any] = {"sqlite_home": sqlite_home}
            if db_busy_timeout_s is not None:
                options["db_busy_timeout_s"] = db_busy_timeout_s
            codex = read_codex_home(home, **options)
        run = _Run(problems=list(codex.problems))
        picker = _ProjectPicker(self._engine)
        db_error = database_problem(codex)
        for source in _thread_sources(codex):
            if db_error is not None:
                run.items.append(ImportItem(
                    KIND_THREAD, source.thread_id, OUTCOME_SKIPPED, REASON_DB_UNREADABLE,
                    "memories_1.sqlite could not be read (see problems); import again "
                    "when it can", path=source.path))
                continue
            run.items.append(self._import_thread(source, codex.database_read, picker))
        for note in codex.notes:
            path = str(Path(codex.memories_dir).joinpath(*NOTES_DIR_PARTS[1:], note.file_name))
            run.items.append(self._import_note(note.file_name, note.text, path))
        report = ImportReport(codex.home, tuple(run.items), tuple(run.problems),
                              tuple(picker.created), db_error)
        self._audit("codex_memories_imported", report)
        return report

    def _visible_import(self, thread_id: str) -> Memory | None:
        ids = self._store.memories.ids_for_thread(thread_id)
        for memory in self._store.memories.get_many(ids):
            if memory.source == IMPORT_SOURCE and perm.can_see(self._store, memory, self.actor):
                return memory
        return None

    def _skip_known(self, kind: str, ref: str, path: str | None) -> ImportItem | None:
        if self._store.memories.is_forgotten_source(ref):
            return ImportItem(kind, ref, OUTCOME_SKIPPED, REASON_FORGOTTEN,
                              "its memory was forgotten in memtui", path=path)
        existing = self._visible_import(ref)
        if existing is not None:
            return ImportItem(kind, ref, OUTCOME_SKIPPED, REASON_ALREADY, target_id=existing.id,
                              project=existing.project, path=path)
        return None

    def _write_memory(self, kind: str, ref: str, text: str, memory_kind: str,
                      cwd: str | None, path: str | None,
                      picker: _ProjectPicker | None) -> ImportItem:
        try:
            with self._store.transaction():
                known = self._skip_known(kind, ref, path)
                if known is not None:
                    return known
                project = picker.project_for(cwd) if picker is not None and cwd else None
                content, cut = bound_text(redact(text.strip()), MAX_CONTENT_BYTES)
                memory = self._engine.identity.add_memory(
                    content, memory_kind, project, source=IMPORT_SOURCE, source_thread_id=ref)
        except MemtuiError as error:
            if picker is not None:
                picker.rolled_back()
            return ImportItem(kind, ref, OUTCOME_ERROR, error.code, error.message, path=path)
        if picker is not None:
            picker.committed()
        return ImportItem(kind, ref, OUTCOME_IMPORTED, target_id=memory.id,
                          project=memory.project, truncated=cut, path=path)

    def _import_thread(self, source: _ThreadSource, database_read: bool,
                       picker: _ProjectPicker) -> ImportItem:
        ref, path = source.thread_id, source.path
        if database_read and not source.in_database:
            return ImportItem(KIND_THREAD, ref, OUTCOME_SKIPPED, REASON_NOT_IN_DB,
                              "only in the markdown files, not in memories_1.sqlite (forgotten "
                              "or not yet indexed by Codex)", path=path)
        if not source.raw_memory.strip() and not source.rollout_summary.strip():
            return ImportItem(KIND_THREAD, ref, OUTCOME_SKIPPED, REASON_EMPTY,
                              "no raw memory and no rollout summary", path=path)
        text = thread_memory_text(ref, source.raw_memory, source.rollout_summary)
        return self._write_memory(KIND_THREAD, ref, text, "fact", usable_cwd(source.cwd), path,
                                  picker)

    def _import_note(self, file_name: str, text: str, path: str) -> ImportItem:
        ref = f"{NOTE_THREAD_PREFIX}{file_name}"
        if not text.strip():
            return ImportItem(KIND_NOTE, ref, OUTCOME_SKIPPED, REASON_EMPTY, "the note is empty",
                              path=path)
        return self._write_memory(KIND_NOTE, ref, text, note_kind(file_name, text), None, path,
                                  None)

    # ---- rollouts ---------------------------------------------------------------------------

    def import_rollouts(self, home: str | os.PathLike[str], *,
                        max_files: int = MAX_ROLLOUT_FILES) -> ImportReport:
        """Session rollouts become completed tasks for the extractor (see the module doc)."""
        home_path = Path(home).absolute()
        scan = read_rollouts(home_path, max_files)
        run = _Run(problems=list(scan.problems))
        picker = _ProjectPicker(self._engine)
        for task in scan.tasks:
            run.problems.extend(task.problems)
            run.items.append(self._import_rollout(task, picker))
        report = ImportReport(str(home_path), tuple(run.items), tuple(run.problems),
                              tuple(picker.created))
        self._audit("codex_rollouts_imported", report)
        return report

    def _rollout_gaps(self, task: RolloutTask) -> ImportItem | None:
        ref, path = task.thread_id or Path(task.file).name, task.file

        def skip(reason: str, detail: str) -> ImportItem:
            return ImportItem(KIND_ROLLOUT, ref, OUTCOME_SKIPPED, reason, detail, path=path)

        if not task.thread_id:
            return skip(REASON_NO_THREAD, "no session id in the rollout or its file name")
        if not (task.goal or "").strip():
            return skip(REASON_NO_GOAL, "no user request in the rollout")
        if not (task.result or "").strip():
            return skip(REASON_NO_RESULT, "no assistant answer yet (still running?); "
                                          "import again once it has one")
        if not task.started_at or not task.finished_at:
            return skip(REASON_NO_TIMES, "the rollout's records carry no usable times")
        if usable_cwd(task.cwd) is None:
            return skip(REASON_NO_PROJECT, "no absolute working directory to pick a project")
        return None

    def _import_rollout(self, task: RolloutTask, picker: _ProjectPicker) -> ImportItem:
        gap = self._rollout_gaps(task)
        if gap is not None:
            return gap
        ref, path = str(task.thread_id), task.file
        cwd = str(usable_cwd(task.cwd))
        tasks = self._engine.tasks
        texts = [bound_text(redact(value or ""), MAX_TASK_TEXT_BYTES)
                 for value in (task.goal, task.prompt, task.result)]
        try:
            with self._store.transaction():
                existing = tasks.find_by_source_ref(ROLLOUT_TASK_SOURCE, ref)
                if existing is not None:
                    return ImportItem(KIND_ROLLOUT, ref, OUTCOME_SKIPPED, REASON_ALREADY,
                                      target_id=existing.id, project=existing.project,
                                      path=path)
                project = picker.project_for(cwd)
                added = tasks.add_task(
                    project, texts[0][0], texts[1][0], texts[2][0], task.started_at,
                    task.finished_at, status="completed",
                    external_context=task.used_external_context, source=ROLLOUT_TASK_SOURCE,
                    source_ref=ref)
        except Conflict:
            picker.rolled_back()
            return ImportItem(KIND_ROLLOUT, ref, OUTCOME_SKIPPED, REASON_ALREADY,
                              "already recorded", path=path)
        except MemtuiError as error:
            picker.rolled_back()
            return ImportItem(KIND_ROLLOUT, ref, OUTCOME_ERROR, error.code, error.message,
                              path=path)
        picker.committed()
        return ImportItem(KIND_ROLLOUT, ref, OUTCOME_IMPORTED, target_id=added.id,
                          project=added.project, truncated=any(cut for _text, cut in texts),
                          path=path)

    def _audit(self, action: str, report: ImportReport) -> None:
        if not report.items:
            return
        detail = {"imported": report.imported, "skipped": report.skipped,
                  "errors": report.errors, "created_projects": list(report.created_projects)}
        with self._store.transaction():
            self._store.audit.append(self.actor, action, None, detail)

    # ---- export -----------------------------------------------------------------------------

    def _all_active(self, project: str | None) -> list[Memory]:
        memories: list[Memory] = []
        after: PageCursor | None = None
        while True:
            page = self._engine.identity.list_memories(project, status="active",
                                                       limit=MAX_LIST_LIMIT, after=after)
            memories.extend(page)
            if len(page) < MAX_LIST_LIMIT:
                break
            after = PageCursor(page[-1].created_at, page[-1].id)
        memories.sort(key=lambda item: (item.created_at, item.id))
        return memories

    def plan_export(self) -> ExportPlan:
        """Render the actor's view of the store in Codex's folder format (nothing written).

        One task group per readable project: its active memories with a source thread
        (``auto`` or ``import``) are tasks with a thread each (``raw_memories.md`` and one
        rollout summary file); its other active memories are bullets (preferences, reusable
        knowledge). The actor's user-level memories fill ``memory_summary.md`` (preferences,
        general tips); notes (``source = note``, or imported notes) become ad-hoc notes.
        """
        builder = _ExportBuilder()
        with self._store.snapshot():
            profile = self._engine.identity.profile()
            projects = sorted(self._engine.identity.list_projects(),
                              key=lambda pair: pair[0].id)
            per_project = [(project, self._all_active(project.id)) for project, _ in projects]
            user_memories = self._all_active(None)
        for project, memories in per_project:
            builder.add_project(project, memories)
        builder.add_user(profile, user_memories)
        return builder.plan()

    def export_store(self, target: str | os.PathLike[str], *,
                     home_layout: bool = False) -> Path:
        """Write the export into ``target``, a new (or empty) folder; returns it.

        ``target`` becomes the memories folder (``memory_summary.md`` at its top); with
        ``home_layout`` it becomes a Codex home (``target/memories/...``) that ``read_codex_home``
        and ``memtui codex show --codex-home`` open directly. An existing non-empty folder
        (a Codex memory folder above all) is refused and nothing is written.
        """
        return self.write_plan(self.plan_export(), target, home_layout=home_layout)

    @staticmethod
    def write_plan(plan: ExportPlan, target: str | os.PathLike[str], *,
                   home_layout: bool = False) -> Path:
        """Write a rendered export into a new folder (see ``export_store``)."""
        check_export_target(target)
        files = plan.files
        if home_layout:
            files = {f"{MEMORIES_DIR}/{name}": text for name, text in files.items()}
        return write_export(target, files)


def check_export_target(target: str | os.PathLike[str]) -> Path:
    """The absolute target of an export; ``CodexInputError`` (nothing written) when it is a
    symlink, a file, or a folder that is not empty (an existing Codex memory folder above
    all)."""
    path = Path(target).absolute()
    if path.is_symlink():
        raise CodexInputError(f"{path}: is a symlink; an export only goes into a new folder")
    if path.exists():
        if not path.is_dir():
            raise CodexInputError(f"{path}: exists and is not a folder; an export only goes "
                                  "into a new folder")
        if any(path.iterdir()):
            raise CodexInputError(f"{path}: folder is not empty (an existing Codex memory "
                                  "folder?); an export only goes into a new folder")
    return path


# ---- export builder ------------------------------------------------------------------------------


def _is_note(memory: Memory) -> bool:
    return memory.source == "note" or (
        memory.source == IMPORT_SOURCE
        and (memory.source_thread_id or "").startswith(NOTE_THREAD_PREFIX))


def _exportable_thread_id(memory: Memory) -> str | None:
    if memory.source not in EXPORT_MEMORY_SOURCES or not memory.source_thread_id:
        return None
    if memory.source_thread_id.startswith(NOTE_THREAD_PREFIX):
        return None
    try:
        return validate_thread_id(memory.source_thread_id)
    except CodexInputError:
        return None


class _ExportBuilder:
    """Collects groups, threads, notes and the summary, keeping names and ids unique."""

    def __init__(self) -> None:
        self.groups: list[ExportGroup] = []
        self.threads: list[ExportThread] = []
        self.topics: list[ExportTopic] = []
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
        title = _title(memory.content)
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
                title = _title(memory.content)
                tasks.append(ExportTask(title, (memory.kind, memory.source), (thread,)))
                self.topics.append(ExportTopic(cwd, memory.created_at[:10], title,
                                               (memory.kind, memory.source)))
            elif memory.kind == "preference":
                preferences.append(memory.content)
            else:
                knowledge.append(memory.content)
        scope = one_line(project.summary) or f"memtui project {project.id}"
        self.groups.append(ExportGroup(name=name, scope=scope, cwd=cwd,
                                       reuse_rule=EXPORT_REUSE_RULE, tasks=tuple(tasks),
                                       preferences=tuple(preferences),
                                       knowledge=tuple(knowledge)))

    def _note_name(self, memory: Memory) -> str:
        ref = memory.source_thread_id or ""
        original = ref[len(NOTE_THREAD_PREFIX):] if ref.startswith(NOTE_THREAD_PREFIX) else ""
        if is_valid_note_name(original) and original not in self.notes:
            return original
        moment = _moment(memory.created_at)
        slug = note_slug(memory.content, DEFAULT_NOTE_SLUG_CHARS)
        for name in _note_names(moment, slug):
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
        self.summary = ExportSummary(user_profile="\n".join(lines),
                                     preferences=tuple(preferences), general_tips=tuple(tips),
                                     topics=tuple(self.topics))

    def plan(self) -> ExportPlan:
        """The rendered files and the counts."""
        files = render_export(self.summary, self.groups, self.threads)
        notes_folder = "/".join(NOTES_DIR_PARTS[1:])
        for name, text in sorted(self.notes.items()):
            files[f"{notes_folder}/{name}"] = text
        return ExportPlan(files=files, groups=len(self.groups), threads=len(self.threads),
                          notes=len(self.notes), memories=self.memories,
                          left_out=tuple(self.left_out))


def _note_names(moment: datetime, slug: str) -> Iterator[str]:
    yield note_file_name(moment, slug)
    for attempt in range(2, MAX_UNIQUE_PROJECT_ATTEMPTS + 1):
        name = f"{slug[:DEFAULT_NOTE_SLUG_CHARS]}-{attempt}"
        yield note_file_name(moment, name)


def database_problem(codex: CodexHome) -> str | None:
    """Why an existing ``memories_1.sqlite`` could not be read, else None (read, or absent)."""
    if codex.database_read or not os.path.lexists(codex.sqlite_path):
        return None
    reasons = [problem.reason for problem in codex.problems if problem.path == codex.sqlite_path]
    return reasons[0] if reasons else "could not be read"


def _thread_sources(codex: CodexHome) -> Iterable[_ThreadSource]:
    """Every thread of a home with its texts: database rows first, then the files."""
    raw = {item.thread_id: item for item in codex.raw_memories}
    summaries = {item.thread_id: item for item in codex.rollout_summaries}
    stage1 = {item.thread_id: item for item in codex.stage1_outputs}
    memories = Path(codex.memories_dir)
    for thread_id in codex.thread_ids():
        row, entry, summary = stage1.get(thread_id), raw.get(thread_id), summaries.get(thread_id)
        summary_path = str(memories / "rollout_summaries" / summary.file) if summary else None
        if row is not None:
            yield _ThreadSource(thread_id, row.raw_memory, row.rollout_summary,
                                row.cwd or (entry.cwd if entry else None)
                                or (summary.cwd if summary else None),
                                codex.sqlite_path, in_database=True)
            continue
        yield _ThreadSource(
            thread_id, entry.body if entry else "", summary.body if summary else "",
            (entry.cwd if entry else None) or (summary.cwd if summary else None),
            str(memories / "raw_memories.md") if entry else summary_path)


def codex_threads(codex: CodexHome) -> list[CodexThread]:
    """The threads of a home for browsing, newest first (usage from the database, the job's
    status and error, the raw memory's description)."""
    raw = {item.thread_id: item for item in codex.raw_memories}
    summaries = {item.thread_id: item for item in codex.rollout_summaries}
    stage1 = {item.thread_id: item for item in codex.stage1_outputs}
    jobs = {job.job_key: job for job in codex.jobs if job.is_stage1}
    threads: list[CodexThread] = []
    for thread_id in sorted(set(codex.thread_ids()) | set(jobs)):
        row, entry, summary = stage1.get(thread_id), raw.get(thread_id), summaries.get(thread_id)
        job = jobs.get(thread_id)
        front = parse_front_matter(row.raw_memory if row else entry.body if entry else "")
        updated = ((row.source_updated_at if row else None) or (entry.updated_at if entry
                                                                else None)
                   or (summary.updated_at if summary else None))
        threads.append(CodexThread(
            thread_id=thread_id,
            cwd=(row.cwd if row else None) or (entry.cwd if entry else None)
            or (summary.cwd if summary else None),
            updated_at=updated, description=front.get("description") or None,
            usage_count=row.usage_count if row else None,
            last_usage=row.last_usage if row else None,
            generated_at=row.generated_at if row else None, in_database=row is not None,
            has_raw_memory=entry is not None, rollout_summary_file=summary.file if summary
            else None, job_status=job.status if job else None,
            job_error=job.last_error if job else None))
    threads.sort(key=lambda item: (item.updated_at or "", item.thread_id), reverse=True)
    return threads


__all__ = ["CodexImporter", "CodexThread", "ExportPlan", "ImportItem", "ImportReport",
           "IMPORT_SOURCE", "NOTE_THREAD_PREFIX", "ROLLOUT_TASK_SOURCE", "bound_text",
           "check_export_target", "codex_threads", "database_problem", "note_kind", "project_id_from_folder", "thread_memory_text",
           "usable_cwd"]
