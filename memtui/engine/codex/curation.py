"""Forget one Codex thread's memory, only with an explicit write flag (spec/40).

Removes the thread's ``stage1_outputs`` row and ``memory_stage1`` job in one transaction
(through ``memtui.store.codex_db``), then its rollout summary file(s). Never touches
``.git``, ``phase2_workspace_diff.md`` or ``raw_memories.md`` (Codex regenerates it).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from memtui.engine.codex.errors import (
    CodexError,
    CodexInputError,
    CodexWriteRefused,
    FileProblemError,
    UnsafePathError,
)
from memtui.engine.codex.models import JsonMixin, Problem
from memtui.engine.codex.parse_rollout_summary import read_headers
from memtui.engine.codex.paths import (
    PROTECTED_MEMORY_NAMES,
    codex_db_path,
    rollout_summaries_dir,
)
from memtui.engine.codex.safe_fs import check_inside, list_entries, read_prefix, real_root
from memtui.store.codex_db import (
    DEFAULT_READ_BUSY_TIMEOUT_S,
    DEFAULT_WRITE_BUSY_TIMEOUT_S,
    CodexDbError,
    CodexDbMissing,
    read_codex_db,
)
from memtui.store.codex_db import forget_thread as db_forget_thread
from memtui.store.codex_models import STAGE1_JOB_KIND

MAX_THREAD_ID_CHARS = 200
HEADER_READ_BYTES = 64 * 1024
"""Bytes of a rollout summary read to find its ``thread_id:`` header."""
MARKDOWN_SUFFIX = ".md"
_THREAD_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")


@dataclass(frozen=True)
class ForgetResult(JsonMixin):
    """What forgetting a thread removed (or, for a plan, would remove)."""

    thread_id: str
    stage1_rows: int
    job_rows: int
    summary_files: tuple[str, ...]
    written: bool
    problems: tuple[Problem, ...] = ()

    @property
    def found(self) -> bool:
        """True when there was anything of this thread to remove."""
        return bool(self.stage1_rows or self.job_rows or self.summary_files)


def validate_thread_id(thread_id: str) -> str:
    """A thread id safe to match against rows and headers; raises ``CodexInputError``."""
    if (not isinstance(thread_id, str) or len(thread_id) > MAX_THREAD_ID_CHARS
            or not _THREAD_ID_RE.match(thread_id)):
        raise CodexInputError(f"not a Codex thread id: {str(thread_id)[:60]!r}")
    return thread_id


def _summary_files(home: Path, thread_id: str, problems: list[Problem]) -> list[Path]:
    folder = rollout_summaries_dir(home)
    root = real_root(home)
    try:
        entries = list_entries(folder, root)
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
            head = read_prefix(path, root, HEADER_READ_BYTES)
        except FileProblemError as error:
            problems.append(Problem(str(path), error.reason))
            continue
        headers = read_headers(head.decode("utf-8", "replace"))
        if headers.get("thread_id") == thread_id:
            found.append(path)
    return found


def _count_rows(db_path: Path, thread_id: str) -> tuple[int, int]:
    snapshot = read_codex_db(db_path, busy_timeout_s=DEFAULT_READ_BUSY_TIMEOUT_S)
    stage1 = sum(1 for row in snapshot.stage1_outputs if row.thread_id == thread_id)
    jobs = sum(1 for row in snapshot.jobs
               if row.kind == STAGE1_JOB_KIND and row.job_key == thread_id)
    return stage1, jobs


def plan_forget_thread(home: str | os.PathLike[str], thread_id: str, *,
                       sqlite_home: str | os.PathLike[str] | None = None) -> ForgetResult:
    """What ``forget_thread`` would remove, read-only (a dry run); ``written`` is False."""
    home_path = Path(home).absolute()
    validate_thread_id(thread_id)
    problems: list[Problem] = []
    db_path = codex_db_path(Path(sqlite_home).absolute() if sqlite_home else home_path)
    stage1 = jobs = 0
    try:
        stage1, jobs = _count_rows(db_path, thread_id)
    except CodexDbError as error:
        problems.append(Problem(str(db_path), error.message))
    files = _summary_files(home_path, thread_id, problems)
    return ForgetResult(thread_id, stage1, jobs, tuple(str(path) for path in files), False,
                        tuple(problems))


def _remove_file(path: Path, home: Path) -> None:
    if path.name in PROTECTED_MEMORY_NAMES or path.parent != rollout_summaries_dir(home):
        raise UnsafePathError(f"{path}: refusing to remove a file Codex owns")
    try:
        check_inside(path, real_root(home))
        info = path.lstat()
    except FileProblemError as error:
        raise UnsafePathError(f"{path}: {error.reason}") from None
    except FileNotFoundError:
        return
    if not stat.S_ISREG(info.st_mode):
        raise UnsafePathError(f"{path}: not a regular file; not removed")
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError as error:
        raise CodexError(f"{path}: cannot remove ({error.strerror or error})") from None


def forget_thread(home: str | os.PathLike[str], thread_id: str, write: bool, *,
                  sqlite_home: str | os.PathLike[str] | None = None,
                  busy_timeout_s: float = DEFAULT_WRITE_BUSY_TIMEOUT_S) -> ForgetResult:
    """Forget one thread's memory in a Codex home; refuses unless ``write`` is True.

    The database rows go first, in one transaction; when the database is locked by a
    running Codex (past ``busy_timeout_s``), unreadable or not Codex's, ``CodexError`` is
    raised and nothing at all is removed. A home without ``memories_1.sqlite`` only loses
    the rollout summary file.
    """
    if write is not True:
        raise CodexWriteRefused("refusing to change the Codex home without an explicit "
                                "write flag (nothing was changed)")
    home_path = Path(home).absolute()
    validate_thread_id(thread_id)
    problems: list[Problem] = []
    files = _summary_files(home_path, thread_id, problems)
    db_path = codex_db_path(Path(sqlite_home).absolute() if sqlite_home else home_path)
    stage1 = jobs = 0
    try:
        result = db_forget_thread(db_path, thread_id, busy_timeout_s)
        stage1, jobs = result.stage1_deleted, result.jobs_deleted
    except CodexDbMissing as error:
        problems.append(Problem(str(db_path), error.message))
    except CodexDbError as error:
        raise CodexError(f"{error.message}; nothing was removed") from None
    for path in files:
        _remove_file(path, home_path)
    return ForgetResult(thread_id, stage1, jobs, tuple(str(path) for path in files), True,
                        tuple(problems))
