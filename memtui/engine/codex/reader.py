"""Read a whole Codex home, read-only: memory files, notes and Codex's databases, in every
layout. Every item that cannot be read becomes one ``Problem`` and is skipped.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from memtui.engine.codex.config import read_codex_config
from memtui.engine.codex.diagnosis import diagnose_jobs, layout_reasons
from memtui.engine.codex.errors import CODEX_FILES, MAX_CODEX_FILE_BYTES, FileProblemError
from memtui.engine.codex.models import (
    LAYOUT_WORDS,
    CodexHome,
    Job,
    Note,
    Problem,
    RawMemory,
    RolloutSummary,
    Stage1Output,
    Summary,
    TaskGroup,
    ThreadMeta,
    describe_layout,
)
from memtui.engine.codex.naming import is_valid_note_name, note_created_at
from memtui.engine.codex.parsers import (
    parse_front_matter,
    parse_memory_md,
    parse_memory_summary,
    parse_raw_memories,
    parse_rollout_summary,
)
from memtui.engine.codex.paths import (
    AD_HOC_DIR_PARTS,
    INSTRUCTIONS_FILE,
    MEMORY_MD_FILE,
    MEMORY_SUMMARY_FILE,
    NOTES_DIR_PARTS,
    RAW_MEMORIES_FILE,
    ROLLOUT_SUMMARIES_DIR,
    SKILL_FILE,
    SKILLS_DIR,
    codex_db_path,
    layout_memories_dir,
    resolve_codex_sqlite_home,
)
from memtui.engine.codex.timefmt import as_utc
from memtui.engine.safe_files import real_root
from memtui.store.codex_db import DEFAULT_READ_BUSY_TIMEOUT_S, read_codex_dbs
from memtui.store.codex_models import (
    LAYOUT_MEMORIES_V2,
    LAYOUT_NONE,
    LAYOUT_OLD,
    CodexDbRead,
)
from memtui.store.timeutil import format_time

MARKDOWN_SUFFIX = ".md"
ParsedT = TypeVar("ParsedT")
SafeT = TypeVar("SafeT")


@dataclass
class _Context:
    """The state of one read: the home's real root, the cap, and the problems so far."""

    root: Path
    max_file_bytes: int
    problems: list[Problem] = field(default_factory=list)

    def problem(self, path: Path | str, reason: str, line: int | None = None) -> None:
        self.problems.append(Problem(str(path), reason, line))

    def read(self, path: Path, *, required: bool = True) -> str | None:
        """The text of a file, or None with a problem (absent optional files are silent)."""
        if not os.path.lexists(path):
            if required:
                self.problem(path, "file not found")
            return None
        return self.safely(path, lambda item, root: CODEX_FILES.read_text(
            item, root, self.max_file_bytes))

    def entries(self, folder: Path) -> list[Path]:
        """A folder's entries but the hidden ones (a leading dot), or [] with a problem."""
        found = self.safely(folder, CODEX_FILES.list_folder) or []
        return [path for path in found if not path.name.startswith(".")]

    def safely(self, path: Path, action: Callable[[Path, Path], SafeT]) -> SafeT | None:
        """``action(path, root)`` (a ``CODEX_FILES`` call), or None with the problem it
        raised (``FileProblemError``)."""
        try:
            return action(path, self.root)
        except FileProblemError as error:
            self.problem(path, error.reason)
            return None


def _parsed(ctx: _Context, path: Path,
            parse: Callable[[str, str], tuple[ParsedT, list[Problem]]], *,
            optional: bool = False) -> ParsedT | None:
    """A file parsed, its problems recorded; None when it cannot be read (or, ``optional``,
    is absent)."""
    text = ctx.read(path, required=not optional)
    if text is None:
        return None
    result, problems = parse(text, str(path))
    ctx.problems.extend(problems)
    return result


def _rollout_summaries(ctx: _Context, folder: Path, *, required: bool = True
                       ) -> list[RolloutSummary]:
    if not os.path.lexists(folder):
        if required:
            ctx.problem(folder, "folder not found")
        return []
    return [summary for path in ctx.entries(folder) if path.name.endswith(MARKDOWN_SUFFIX)
            and (summary := _parsed(ctx, path, parse_rollout_summary)) is not None]


def _notes(ctx: _Context, folder: Path) -> list[Note]:
    notes: list[Note] = []
    for path in ctx.entries(folder):
        if not is_valid_note_name(path.name):
            ctx.problem(path, "note name does not follow Codex's rule "
                              "'<YYYY-MM-DDTHH-MM-SS>-<slug>.md' (at most 128 bytes); skipped")
            continue
        text = ctx.read(path)
        if text is not None:
            created = note_created_at(path.name)
            notes.append(Note(path.name, format_time(created) if created else None, text))
    return notes


def _skills(ctx: _Context, folder: Path) -> list[str]:
    return [path.name for path in ctx.entries(folder)
            if ctx.safely(path, CODEX_FILES.check_inside) and (path / SKILL_FILE).is_file()]


def _database(ctx: _Context, sqlite_home: Path, busy_timeout_s: float) -> CodexDbRead:
    read = read_codex_dbs(sqlite_home, busy_timeout_s=busy_timeout_s)
    layout = read.layout
    if layout.name == LAYOUT_OLD:
        ctx.problem(layout.state.path, LAYOUT_WORDS[LAYOUT_OLD])
    elif layout.name == LAYOUT_NONE and not layout.memories.exists and sqlite_home.is_dir():
        ctx.problem(layout.memories.path, "file not found")  # a missing home is said once
    if read.memory_error is not None:
        ctx.problem(layout.memory_db_path or layout.memories.path, read.memory_error)
    if read.threads_error is not None:
        ctx.problem(layout.state.path, read.threads_error)
    for reason in read.skipped_rows:
        ctx.problem(layout.memory_db_path or layout.memories.path, reason)
    return read


UNKNOWN_CWD = "unknown"
"""What the model-written front matter says when it did not know the ``cwd``."""


def _stage1_cwd(raw_memory: str, meta: ThreadMeta | None, entry: RawMemory | None,
                summary: RolloutSummary | None) -> str | None:
    """A stage-1 row's ``cwd``: its thread's, its front matter's, else its files'."""
    if meta is not None and meta.cwd:
        return meta.cwd
    cwd = parse_front_matter(raw_memory).get("cwd")
    if cwd and cwd.strip().lower() != UNKNOWN_CWD:
        return cwd
    return (entry.cwd if entry else None) or (summary.cwd if summary else None)


def read_codex_home(home: str | os.PathLike[str], now: datetime | None = None, *,
                    sqlite_home: str | os.PathLike[str] | None = None,
                    max_file_bytes: int = MAX_CODEX_FILE_BYTES,
                    db_busy_timeout_s: float | None = None) -> CodexHome:
    """Read everything memtui shows of a Codex home; never raises for bad content. ``now``
    is when job leases and retries are judged; ``sqlite_home`` defaults to the home's."""
    moment = as_utc(now) if now is not None else datetime.now(UTC)
    home_path = Path(home).absolute()
    ctx = _Context(real_root(home_path), max_file_bytes)
    config = None
    if home_path.is_dir():
        config, problems = read_codex_config(home_path)
        ctx.problems.extend(problems)
    db_home = (Path(sqlite_home).absolute() if sqlite_home is not None
               else resolve_codex_sqlite_home(
                   home_path, config_sqlite_home=config.sqlite_home if config else None))
    if db_home != home_path and not db_home.is_dir():
        ctx.problem(db_home, "Codex's database folder (sqlite_home) not found")
    read = _database(ctx, db_home, DEFAULT_READ_BUSY_TIMEOUT_S if db_busy_timeout_s is None
                     else db_busy_timeout_s)
    memories = layout_memories_dir(home_path, read.layout)
    files = _memory_files(ctx, home_path, memories,
                          v2=read.layout.name == LAYOUT_MEMORIES_V2)
    db_path = Path(read.layout.memory_db_path or codex_db_path(db_home))
    gated = read.layout.name != LAYOUT_MEMORIES_V2  # 0.169 extracts paginated threads too
    threads = tuple(ThreadMeta.from_row(row, history_gates_memory=gated)
                    for row in read.threads)
    thread_by_id = {item.thread_id: item for item in threads}
    raw_by_id = {item.thread_id: item for item in files.raw_memories}
    summary_by_id = {item.thread_id: item for item in files.rollout_summaries}
    stage1 = tuple(Stage1Output.from_row(row, _stage1_cwd(
        row.raw_memory, thread_by_id.get(row.thread_id), raw_by_id.get(row.thread_id),
        summary_by_id.get(row.thread_id))) for row in read.stage1_outputs)
    jobs = tuple(Job.from_row(row, moment) for row in read.jobs)
    layout = describe_layout(read.layout)
    return CodexHome(
        home=str(home_path), memories_dir=str(memories), sqlite_path=str(db_path),
        **vars(files), stage1_outputs=stage1, jobs=jobs,
        consolidation_max_thread_count=read.max_thread_count,
        diagnosis=(*layout_reasons(layout, read.memory_error),
                   *diagnose_jobs(jobs, moment)),
        problems=tuple(ctx.problems), database_read=read.memory_read, config=config,
        home_found=home_path.is_dir(), layout=layout, threads=threads,
        sqlite_home=str(db_home),
    )


@dataclass(frozen=True)
class _Files:
    """What the memory files' folder holds, as the ``CodexHome`` fields of the same names."""

    summary: Summary | None = None
    task_groups: tuple[TaskGroup, ...] = ()
    raw_memories: tuple[RawMemory, ...] = ()
    rollout_summaries: tuple[RolloutSummary, ...] = ()
    notes: tuple[Note, ...] = ()
    instructions: str | None = None
    skills: tuple[str, ...] = ()


def _memory_files(ctx: _Context, home: Path, memories: Path, *, v2: bool) -> _Files:
    """The memory files of ``memories``; in the v2 layout, where Codex writes no ``MEMORY.md``
    or ``raw_memories.md``, a missing file is no problem."""
    if not home.is_dir():
        ctx.problem(home, "Codex home not found (or not a folder)")
        return _Files()
    if not os.path.lexists(memories):
        ctx.problem(memories, "folder not found (Codex has not written memories here)")
        return _Files()
    if ctx.safely(memories, CODEX_FILES.check_inside) is None:
        return _Files()
    return _Files(
        _parsed(ctx, memories / MEMORY_SUMMARY_FILE, parse_memory_summary, optional=v2),
        tuple(_parsed(ctx, memories / MEMORY_MD_FILE, parse_memory_md, optional=v2) or ()),
        tuple(_parsed(ctx, memories / RAW_MEMORIES_FILE, parse_raw_memories, optional=v2) or ()),
        tuple(_rollout_summaries(ctx, memories / ROLLOUT_SUMMARIES_DIR, required=not v2)),
        tuple(_notes(ctx, memories.joinpath(*NOTES_DIR_PARTS))),
        ctx.read(memories.joinpath(*AD_HOC_DIR_PARTS, INSTRUCTIONS_FILE), required=False),
        tuple(_skills(ctx, memories / SKILLS_DIR)))
