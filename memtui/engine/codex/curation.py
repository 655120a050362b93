"""Forget one Codex thread's memory the way Codex forgets, only with an explicit write flag:
one database transaction (``store.codex_db.forget_thread_memory``), then its rollout summary
file(s). Never touches ``.git``, ``phase2_workspace_diff.md`` or ``raw_memories.md``.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memtui.engine.codex.config import codex_sqlite_home
from memtui.engine.codex.errors import (
    CODEX_FILES,
    CodexError,
    CodexInputError,
    CodexWriteRefused,
    FileProblemError,
)
from memtui.engine.codex.models import Problem
from memtui.engine.codex.parsers import read_headers
from memtui.engine.codex.paths import (
    MEMORY_MD_FILE,
    MEMORY_SUMMARY_FILE,
    PHASE2_DIFF_FILE,
    PROTECTED_MEMORY_NAMES,
    RAW_MEMORIES_FILE,
    ROLLOUT_SUMMARIES_DIR,
    codex_db_path,
    layout_memories_dir,
)
from memtui.engine.safe_files import real_root
from memtui.errors import AgentFileWriteFailed, UnsafePath
from memtui.jsonable import JsonMixin
from memtui.store.codex_db import (
    DEFAULT_WRITE_BUSY_TIMEOUT_S,
    POLLUTED,
    CodexDbError,
    CodexDbMissing,
    CodexDbReadOnly,
    detect_layout,
    forget_thread_memory,
    plan_forget_thread_memory,
    unknown_layout_refusal,
)
from memtui.store.codex_models import LAYOUT_UNKNOWN, CodexLayout, ForgetRows

MAX_THREAD_ID_CHARS = 200
HEADER_READ_BYTES = 64 * 1024
"""Bytes of a rollout summary read to find its ``thread_id:`` header."""
MARKDOWN_SUFFIX = ".md"
CONSOLIDATED_READ_BYTES = 16 * 1024 * 1024
"""Bytes of a consolidated file searched for a forgotten thread's traces."""
_THREAD_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")


CONSOLIDATED_FILES = (MEMORY_MD_FILE, MEMORY_SUMMARY_FILE, RAW_MEMORIES_FILE, PHASE2_DIFF_FILE)
"""Files Codex's consolidation writes; they keep a forgotten thread's text until its next run."""


@dataclass(frozen=True)
class ForgetResult(JsonMixin):
    """What forgetting a thread changed (or, for a plan, would change)."""

    thread_id: str
    stage1_rows: int
    job_rows: int
    summary_files: tuple[str, ...]
    written: bool
    problems: tuple[Problem, ...] = ()
    layout: str | None = None
    thread_found: bool = False
    """The thread has a row in ``state_5.sqlite`` ``threads``."""
    memory_mode: str | None = None
    """Its ``memory_mode`` before the forget."""
    marked_polluted: bool = False
    selected_for_phase2: bool = False
    """Its stage-1 row was part of the last consolidation."""
    consolidation_enqueued: bool = False
    still_in: tuple[str, ...] = ()
    """Consolidated files that still hold the thread's text until Codex's next run."""

    @property
    def found(self) -> bool:
        """True when there was anything of this thread to forget (a thread already marked
        polluted, with no rows and no file left, has nothing)."""
        return bool(self.stage1_rows or self.job_rows or self.summary_files
                    or self.marked_polluted
                    or (not self.written and self.thread_found
                        and self.memory_mode != POLLUTED))


def validate_thread_id(thread_id: str) -> str:
    """A thread id safe to match against rows and headers; raises ``CodexInputError``."""
    if (not isinstance(thread_id, str) or len(thread_id) > MAX_THREAD_ID_CHARS
            or not _THREAD_ID_RE.match(thread_id)):
        raise CodexInputError(f"not a Codex thread id: {str(thread_id)[:60]!r}")
    return thread_id


def _summary_files(home: Path, memories: Path, thread_id: str, problems: list[Problem]
                   ) -> list[Path]:
    folder = memories / ROLLOUT_SUMMARIES_DIR
    root = real_root(home)
    try:
        entries = CODEX_FILES.list_folder(folder, root)
    except FileProblemError as error:
        problems.append(Problem(str(folder), error.reason))
        return []
    found = []
    for path in entries:
        if (not path.name.endswith(MARKDOWN_SUFFIX) or path.name in PROTECTED_MEMORY_NAMES
                or path.is_symlink()):
            continue
        if path.name == f"{thread_id}{MARKDOWN_SUFFIX}":
            found.append(path)
            continue
        try:
            head = CODEX_FILES.read_prefix(path, root, HEADER_READ_BYTES)
        except FileProblemError as error:
            problems.append(Problem(str(path), error.reason))
            continue
        if read_headers(head.decode("utf-8", "replace")).get("thread_id") == thread_id:
            found.append(path)
    return found


def _still_in(home: Path, memories: Path, thread_id: str, summary_names: list[str]
              ) -> tuple[str, ...]:
    """Consolidated files that mention the thread (its id or its summary file's name)."""
    root = real_root(home)
    needles = [thread_id.encode(), *(name.encode() for name in summary_names)]
    found = []
    for name in CONSOLIDATED_FILES:
        path = memories / name
        if not path.is_file():
            continue
        try:
            data = CODEX_FILES.read_prefix(path, root, CONSOLIDATED_READ_BYTES)
        except FileProblemError:
            continue
        if any(needle in data for needle in needles) or name == MEMORY_SUMMARY_FILE:
            found.append(str(path))
    return tuple(found)


def _forget_paths(home: str | os.PathLike[str], thread_id: str,
                  sqlite_home: str | os.PathLike[str] | None
                  ) -> tuple[Path, Path, Path, CodexLayout]:
    """The home, its database folder, its layout's memory folder and layout (id checked)."""
    validate_thread_id(thread_id)
    home_path = Path(home).absolute()
    db_home = (Path(sqlite_home).absolute() if sqlite_home is not None
               else codex_sqlite_home(home_path))
    layout = detect_layout(db_home)
    return home_path, db_home, layout_memories_dir(home_path, layout), layout


def plan_forget_thread(home: str | os.PathLike[str], thread_id: str, *,
                       sqlite_home: str | os.PathLike[str] | None = None) -> ForgetResult:
    """What ``forget_thread`` would change, read-only (a dry run); ``written`` is False."""
    home_path, db_home, memories, layout = _forget_paths(home, thread_id, sqlite_home)
    problems: list[Problem] = []
    files = _summary_files(home_path, memories, thread_id, problems)
    if layout.name == LAYOUT_UNKNOWN:
        problems.append(Problem(str(db_home), unknown_layout_refusal(layout).message))
    try:
        plan = plan_forget_thread_memory(db_home, thread_id)
    except CodexDbError as error:
        problems.append(Problem(str(codex_db_path(db_home)), error.message))
        plan = ForgetRows(False, None, 0, 0, False, layout=layout.name)
    return _result(thread_id, plan, files, False, problems, _still_in(
        home_path, memories, thread_id, [path.name for path in files]))


def _result(thread_id: str, rows: ForgetRows, files: list[Path], written: bool,
            problems: list[Problem], still_in: tuple[str, ...]) -> ForgetResult:
    return ForgetResult(
        thread_id, rows.stage1_rows, rows.job_rows, tuple(str(path) for path in files), written,
        tuple(problems), layout=rows.layout, thread_found=rows.thread_found,
        memory_mode=rows.memory_mode, marked_polluted=rows.marked_polluted,
        selected_for_phase2=rows.selected_for_phase2,
        consolidation_enqueued=rows.selected_for_phase2, still_in=still_in)


def _remove_file(path: Path, home: Path, memories: Path) -> None:
    if (path.name in PROTECTED_MEMORY_NAMES
            or path.parent != memories / ROLLOUT_SUMMARIES_DIR):
        raise UnsafePath(f"{path}: refusing to remove a file Codex owns")
    try:
        CODEX_FILES.check_inside(path, real_root(home))
        info = path.lstat()
    except FileProblemError as error:
        raise UnsafePath(f"{path}: {error.reason}") from None
    except FileNotFoundError:
        return
    if not stat.S_ISREG(info.st_mode):
        raise UnsafePath(f"{path}: not a regular file; not removed")
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError as error:
        raise AgentFileWriteFailed(f"{path}: cannot remove ({error.strerror or error}); "
                                   "nothing was removed") from None


def forget_thread(home: str | os.PathLike[str], thread_id: str, write: bool, *,
                  sqlite_home: str | os.PathLike[str] | None = None,
                  busy_timeout_s: float | None = None,
                  now: datetime | None = None) -> ForgetResult:
    """Forget one thread's memory the way Codex forgets, only when ``write`` is True; a lock
    held past ``busy_timeout_s`` or an unsupported layout changes nothing (``CodexError``)."""
    if write is not True:
        raise CodexWriteRefused("refusing to change the Codex home without an explicit "
                                "write flag (nothing was changed)")
    home_path, db_home, memories, layout = _forget_paths(home, thread_id, sqlite_home)
    problems: list[Problem] = []
    if layout.name == LAYOUT_UNKNOWN:
        raise CodexError(f"{unknown_layout_refusal(layout).message}; nothing was changed")
    files = _summary_files(home_path, memories, thread_id, problems)
    moment = int((now or datetime.now(UTC)).timestamp())
    try:
        result = forget_thread_memory(db_home, thread_id, moment, busy_timeout_s=(
            DEFAULT_WRITE_BUSY_TIMEOUT_S if busy_timeout_s is None else busy_timeout_s))
    except CodexDbMissing as error:
        problems.append(Problem(str(codex_db_path(db_home)), error.message))
        result = ForgetRows(False, None, 0, 0, False)
    except CodexDbReadOnly as error:
        raise AgentFileWriteFailed(f"{error.message}; nothing was changed") from None
    except CodexDbError as error:
        raise CodexError(f"{error.message}; nothing was changed") from None
    still_in = _still_in(home_path, memories, thread_id, [path.name for path in files])
    for path in files:
        _remove_file(path, home_path, memories)
    return _result(thread_id, result, files, True, problems, still_in)
