"""What the Codex readers return, a home's database layout in words among it: frozen
dataclasses with ``to_json()``, times in memtui's stored form (or None)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from memtui.engine.codex.paths import memories_dir_name
from memtui.engine.codex.timefmt import as_utc, parse_datetime, unix_to_iso
from memtui.jsonable import JsonMixin
from memtui.store.codex_models import (
    CONSOLIDATE_JOB_KIND,
    LAYOUT_MEMORIES_DB,
    LAYOUT_MEMORIES_V2,
    LAYOUT_NONE,
    LAYOUT_OLD,
    LAYOUT_STATE_DB,
    LAYOUT_UNKNOWN,
    STAGE1_JOB_KIND,
    TIME_ANNOTATION,
    CodexLayout,
    JobRow,
    Stage1Row,
    ThreadRow,
)
from memtui.store.timeutil import format_time

if TYPE_CHECKING:
    from memtui.engine.codex.config import CodexMemoryConfig

MEMORY_MODE_ENABLED = "enabled"
"""``threads.memory_mode`` of a thread Codex may remember (else ``disabled``/``polluted``)."""
HISTORY_MODE_LEGACY = "legacy"

STATUS_PENDING = "pending"
STATUS_RUNNING = "running"
STATUS_DONE = "done"
STATUS_ERROR = "error"
CONSOLIDATION_COOLDOWN = timedelta(hours=6)
"""Codex claims the global consolidation at most this long after its last success
(``PHASE2_SUCCESS_COOLDOWN_SECONDS``)."""

LAYOUT_WORDS = {
    LAYOUT_MEMORIES_V2: "memories in memories_v2_1.sqlite and memories_v2/, threads in "
                        "state_5.sqlite (Codex 0.169 to 0.171)",
    LAYOUT_UNKNOWN: "a layout memtui does not know (a newer Codex); read where its tables "
                    "are the known ones, never written",
    LAYOUT_MEMORIES_DB: "memories in memories_1.sqlite, threads in state_5.sqlite "
                        "(Codex since 2026-05-26)",
    LAYOUT_STATE_DB: "memories inside state_5.sqlite (Codex 2026-02-10 to 2026-05-26)",
    LAYOUT_OLD: "older than Codex 2026-02 (thread_memory / memory_phase1_jobs tables); "
                "not supported",
    LAYOUT_NONE: "no Codex database found",
}
"""One line per layout, as ``codex show`` and the Codex pane print it."""


@dataclass(frozen=True)
class Problem(JsonMixin):
    """One item that could not be read and was skipped (or read with a defect)."""

    path: str
    reason: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.reason}"


@dataclass(frozen=True)
class SummarySection(JsonMixin):
    """A ``## <title>`` section of ``memory_summary.md`` with its markdown body."""

    title: str
    body: str


@dataclass(frozen=True)
class SummaryTopic(JsonMixin):
    """A ``- <topic>: kw1, kw2`` entry of "What's in Memory", under ``### scope``/``#### day``."""

    scope: str
    day: str
    topic: str
    keywords: tuple[str, ...]
    desc: str = ""
    learnings: str = ""


@dataclass(frozen=True)
class Summary(JsonMixin):
    """``memory_summary.md``: the v1 check, its sections and its parsed topic map."""

    valid_v1: bool
    sections: tuple[SummarySection, ...]
    topics: tuple[SummaryTopic, ...] = ()
    older_topics: tuple[str, ...] = ()

    def section(self, title: str) -> str | None:
        """The body of the first section with this title (case-insensitive), else None."""
        wanted = title.casefold()
        return next((item.body for item in self.sections if item.title.casefold() == wanted),
                    None)


@dataclass(frozen=True)
class RolloutSummaryLink(JsonMixin):
    """A bullet of a task's ``### rollout_summary_files``: the file and its details."""

    path: str
    details: str = ""
    thread_id: str | None = None


@dataclass(frozen=True)
class Task(JsonMixin):
    """A ``## Task <n>: <title>`` section of a MEMORY.md task group."""

    number: int
    title: str
    rollout_summary_files: tuple[RolloutSummaryLink, ...]
    keywords: tuple[str, ...]
    extra: str = ""
    """Any other lines of the task (unknown ``###`` subsections), verbatim."""


@dataclass(frozen=True)
class TaskGroup(JsonMixin):
    """A ``# Task Group:`` block of MEMORY.md."""

    name: str
    scope: str
    applies_to: str
    cwd: str | None
    reuse_rule: str | None
    tasks: tuple[Task, ...]
    preferences: tuple[str, ...] = ()
    knowledge: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()
    line: int = 0


@dataclass(frozen=True)
class RawMemory(JsonMixin):
    """One ``## Thread `<id>``` entry of ``raw_memories.md``."""

    thread_id: str
    updated_at: str | None
    cwd: str | None
    rollout_path: str | None
    rollout_summary_file: str | None
    front_matter: dict[str, str]
    body: str


@dataclass(frozen=True)
class RolloutSummary(JsonMixin):
    """One file of ``rollout_summaries/``: header lines and the summary markdown."""

    thread_id: str
    updated_at: str | None
    rollout_path: str | None
    cwd: str | None
    git_branch: str | None
    body: str
    file: str


@dataclass(frozen=True)
class Note(JsonMixin):
    """An ad-hoc note in ``extensions/ad_hoc/notes/``."""

    file_name: str
    created_at: str | None
    text: str


@dataclass(frozen=True)
class Stage1Output(Stage1Row[str], JsonMixin):
    """A row of ``stage1_outputs``, times as ISO text; ``cwd`` from the raw memory's header."""

    cwd: str | None = None

    @classmethod
    def from_row(cls, row: Stage1Row[int], cwd: str | None = None) -> Stage1Output:
        """Convert a store row (unix seconds) to this model."""
        return cls(**{**_iso_times(row), "rollout_slug": row.rollout_slug or None}, cwd=cwd)


@dataclass(frozen=True)
class ThreadMeta(ThreadRow[str], JsonMixin):
    """A row of ``state_5.sqlite`` ``threads`` (times as ISO text): the truth for a thread's
    ``cwd``, rollout, branch, source and whether Codex may remember it."""

    history_gates_memory: bool = True
    """Whether ``history_mode`` decides if Codex uses the memory: so before the v2 layout;
    Codex 0.169 writes ``paginated`` threads and extracts their memory all the same."""

    @classmethod
    def from_row(cls, row: ThreadRow[int], *, history_gates_memory: bool = True) -> ThreadMeta:
        """Convert a store row (unix seconds; milliseconds after state migration 25)."""
        return cls(**{**_iso_times(row), "updated_at": unix_to_iso(_seconds(row.updated_at))},
                   history_gates_memory=history_gates_memory)

    @property
    def memory_usable(self) -> bool:
        """Whether Codex uses this thread's memory (``memory_mode`` enabled or not recorded,
        and -- where the history gates it -- history ``legacy`` or not recorded)."""
        return (self.memory_mode in (None, MEMORY_MODE_ENABLED)
                and (not self.history_gates_memory
                     or self.history_mode in (None, HISTORY_MODE_LEGACY)))


MILLIS_THRESHOLD = 1_577_836_800_000
"""Codex's own cut (state migration 25): a time at or above it is in milliseconds."""


def _iso_times(row: object) -> dict[str, Any]:
    """A store row's fields by name, its times (unix seconds) as ISO text."""
    return {item.name: unix_to_iso(getattr(row, item.name)) if item.type == TIME_ANNOTATION
            else getattr(row, item.name) for item in fields(cast(Any, row))}


def _seconds(value: int | None) -> int | None:
    return value // 1000 if value is not None and value >= MILLIS_THRESHOLD else value


def _after(text: str | None, now: datetime) -> bool:
    moment = parse_datetime(text)
    return moment is not None and moment > now


@dataclass(frozen=True)
class Job(JobRow[str], JsonMixin):
    """A row of ``jobs`` with the flags that say why consolidation is stuck, as they hold at
    ``evaluated_at`` (``at(now)`` recomputes them)."""

    evaluated_at: str | None = None
    lease_held: bool = False
    """Running with a lease that has not expired: a worker owns it right now."""
    running_past_lease: bool = False
    """Still ``running`` but the lease expired: the worker most likely died; the next
    Codex start may claim it again."""
    retries_exhausted: bool = False
    """A stage-1 job in ``error`` with no retries left: Codex tries again only when the
    thread changes. Never set for the global job (Codex does not count its retries)."""
    retry_pending: bool = False
    """In ``error`` and Codex will try again (at ``retry_at``, or at its next start)."""
    retry_waiting: bool = False
    """``retry_at`` is still in the future: no claim before then."""
    cooldown_until: str | None = None
    """Global job that succeeded within ``CONSOLIDATION_COOLDOWN``: not claimed before."""
    is_stage1: bool = False
    is_consolidation: bool = False

    @classmethod
    def from_row(cls, row: JobRow[int], now: datetime) -> Job:
        """Convert a store row (unix seconds) and derive the flags at ``now``."""
        return cls(**_iso_times(row)).at(now)

    @property
    def kind_word(self) -> str:
        """The job's kind for people: ``stage-1``, ``global`` or Codex's own name."""
        return "stage-1" if self.is_stage1 else "global" if self.is_consolidation else self.kind

    @property
    def state_words(self) -> str:
        """`` · lease expired`` and `` · <n> retries left``, where they hold."""
        return ((" · lease expired" if self.running_past_lease else "")
                + (f" · {self.retry_remaining} retries left"
                   if self.retry_remaining is not None else ""))

    def at(self, now: datetime) -> Job:
        """This job with its derived flags recomputed at ``now`` (Codex's claim rules)."""
        now = as_utc(now)
        running = self.status == STATUS_RUNNING
        errored = self.status == STATUS_ERROR
        stage1 = self.kind == STAGE1_JOB_KIND
        global_job = self.kind == CONSOLIDATE_JOB_KIND
        exhausted = stage1 and errored and (self.retry_remaining or 0) <= 0
        cooldown = None
        finished = parse_datetime(self.finished_at)
        if global_job and self.last_error is None and finished is not None:
            until = finished + CONSOLIDATION_COOLDOWN
            if until > now and not running:
                cooldown = format_time(until)
        leased = _after(self.lease_until, now)
        return replace(self, evaluated_at=format_time(now), lease_held=running and leased,
                       running_past_lease=running and not leased, retries_exhausted=exhausted,
                       retry_pending=errored and not exhausted,
                       retry_waiting=_after(self.retry_at, now), cooldown_until=cooldown,
                       is_stage1=stage1, is_consolidation=global_job)


@dataclass(frozen=True)
class LayoutInfo(JsonMixin):
    """A home's layout for people and ``--json``: its name, words, files and versions."""

    name: str
    description: str
    supported: bool
    state_path: str
    state_version: int | None
    """The newest state migration applied (``_sqlx_migrations``), None without one."""
    memories_path: str
    memories_version: int | None
    memory_db: str | None
    """The file that holds ``stage1_outputs`` and ``jobs`` (None when none does)."""
    memories_folder: str = "memories"
    """The name of the memory files' folder in the home (``memories_v2`` in the v2 layout)."""
    unknown_files: tuple[str, ...] = ()
    writable: bool = True
    """Whether memtui may write this layout (with the explicit flag)."""

    @property
    def jobs_complete(self) -> bool:
        """False for a layout memtui does not know or the oldest one: the jobs read (if any)
        may not be all there is, so "nothing stuck" cannot be said."""
        return self.name not in (LAYOUT_UNKNOWN, LAYOUT_OLD)

    @property
    def summary_always_written(self) -> bool:
        """False in the v2 layout, where Codex writes ``memory_summary.md`` only once a
        consolidation succeeded (before that its absence is no problem)."""
        return self.name != LAYOUT_MEMORIES_V2

    @property
    def schema_words(self) -> str:
        """``state schema 40, memories schema 1`` (the parts known)."""
        parts = [f"{name} schema {version}" for name, version in
                 (("state", self.state_version), ("memories", self.memories_version))
                 if version is not None]
        return ", ".join(parts) or "schema version unknown"


def describe_layout(layout: CodexLayout) -> LayoutInfo:
    """The engine's view of a detected layout."""
    unknown = tuple(info.path for info in layout.unknown)
    description = LAYOUT_WORDS.get(layout.name, layout.name)
    if unknown:
        description = f"{', '.join(Path(path).name for path in unknown)}: {description}"
    memory_db = next((info for info in (layout.memories_v2, *layout.unknown)
                      if info is not None and info.path == layout.memory_db_path),
                     layout.memories)
    return LayoutInfo(layout.name, description, layout.supported, layout.state.path,
                      layout.state.version, memory_db.path, memory_db.version,
                      layout.memory_db_path, memories_dir_name(layout), unknown, layout.supported)


ThreadMemory = tuple[Stage1Output | None, RawMemory | None, RolloutSummary | None]
"""A thread's stage-1 row, raw memory and rollout summary (None for each one missing)."""


@dataclass(frozen=True)
class CodexHome(JsonMixin):
    """Everything read from one Codex home, with one ``Problem`` per item that was skipped."""

    home: str
    memories_dir: str
    sqlite_path: str
    summary: Summary | None
    task_groups: tuple[TaskGroup, ...]
    raw_memories: tuple[RawMemory, ...]
    rollout_summaries: tuple[RolloutSummary, ...]
    notes: tuple[Note, ...]
    instructions: str | None
    skills: tuple[str, ...]
    stage1_outputs: tuple[Stage1Output, ...]
    jobs: tuple[Job, ...]
    consolidation_max_thread_count: int | None
    diagnosis: tuple[str, ...]
    problems: tuple[Problem, ...]
    database_read: bool = False
    """True when ``memories_1.sqlite`` was read (its lists are then authoritative)."""
    config: CodexMemoryConfig | None = None
    """Codex's memory settings from ``config.toml`` (None when there is no such file)."""
    home_found: bool = True
    layout: LayoutInfo | None = None
    """Which database layout the home has (None when no database was looked at)."""
    threads: tuple[ThreadMeta, ...] = ()
    sqlite_home: str = ""

    def threads_by_id(self) -> dict[str, ThreadMeta]:
        """The ``threads`` rows by thread id."""
        return {item.thread_id: item for item in self.threads}

    def memory_by_thread(self) -> dict[str, ThreadMemory]:
        """Every thread id seen in the database, raw memories or rollout summaries (sorted),
        with its stage-1 row, raw memory and rollout summary (None for each one missing)."""
        stage1 = {item.thread_id: item for item in self.stage1_outputs}
        raw = {item.thread_id: item for item in self.raw_memories}
        summaries = {item.thread_id: item for item in self.rollout_summaries}
        return {key: (stage1.get(key), raw.get(key), summaries.get(key))
                for key in sorted({*stage1, *raw, *summaries})}
