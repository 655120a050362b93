"""Codex rollouts -> completed memtui tasks (``source = codex``) for the extractor; what Codex
would not mine is skipped with the reason. Per user, each file's size, time, offset and reader
state are kept (``store.codex_rollout_files``): an unchanged file is not opened, one that grew
is read on from its offset (a compressed one from its start).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from memtui.engine.codex.config import codex_sqlite_home, read_codex_config
from memtui.engine.codex.errors import FileProblemError
from memtui.engine.codex.import_report import (
    KIND_ROLLOUT,
    OUTCOME_ERROR,
    OUTCOME_IMPORTED,
    OUTCOME_SKIPPED,
    REASON_ALREADY,
    REASON_MEMORY_MODE,
    REASON_NO_GOAL,
    REASON_NO_PROJECT,
    REASON_NO_RESULT,
    REASON_NO_THREAD,
    REASON_NO_TIMES,
    REASON_NOT_INTERACTIVE,
    ROLLOUT_TASK_SOURCE,
    Importer,
    ImportItem,
    ImportReport,
    task_gap,
    task_text,
)
from memtui.engine.codex.models import MEMORY_MODE_ENABLED, Problem
from memtui.engine.codex.rollouts import (
    MAX_ROLLOUT_FILES,
    RolloutReader,
    RolloutTask,
    is_compressed,
    read_rollout_from,
    scan_rollout_files,
)
from memtui.engine.project_picker import ProjectPicker, usable_cwd
from memtui.errors import Conflict, MemtuiError
from memtui.store.codex_db import read_codex_dbs
from memtui.store.codex_rollout_files import RolloutFileRow

RETRY_REASONS = frozenset({REASON_NO_RESULT, REASON_NO_GOAL, REASON_NO_TIMES})
"""Skips a growing rollout can still overcome: its file is read on when it changes."""
OUTCOME_UNREADABLE = "unreadable"
SAVE_BATCH = 500
THREAD_DB_WAIT_S = 0.5
"""Longest wait for ``state_5.sqlite`` (memory modes) while Codex holds it."""


@dataclass
class _Run:
    """The state of one import run: its items, problems and rollout files' rows so far."""

    items: list[ImportItem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    rows: list[RolloutFileRow] = field(default_factory=list)
    unchanged: int = 0


def _thread_modes(home: Path) -> dict[str, str | None]:
    """``memory_mode`` per thread from ``state_5.sqlite``; {} without one."""
    read = read_codex_dbs(codex_sqlite_home(home), busy_timeout_s=THREAD_DB_WAIT_S)
    return {row.thread_id: row.memory_mode for row in read.threads}


class RolloutImporter(Importer):
    """Session rollouts of a Codex home become completed tasks (see the module doc)."""

    def import_rollouts(self, home: str | os.PathLike[str], *,
                        max_files: int = MAX_ROLLOUT_FILES) -> ImportReport:
        """Import the rollouts that are new or changed since this user's last import."""
        home_path = Path(home).absolute()
        files, problems = scan_rollout_files(home_path, max_files)
        run = _Run(problems=list(problems))
        known = self._store.codex_rollout_files.for_user(self.actor)
        config, config_problems = read_codex_config(home_path)
        run.problems.extend(config_problems)
        servers = config.mcp_servers if config else ()
        modes: dict[str, str | None] | None = None
        picker = ProjectPicker(self._engine)
        for path in files:
            try:
                info = path.stat()
            except OSError as error:
                run.problems.append(Problem(str(path), f"cannot read ({error.strerror})"))
                continue
            row = known.get(str(path))
            if row is not None and row.size == info.st_size and row.mtime_ns == info.st_mtime_ns:
                run.unchanged += 1
                continue
            if row is not None and info.st_size > row.size and row.outcome not in RETRY_REASONS \
                    and row.outcome != OUTCOME_UNREADABLE:
                run.rows.append(replace(row, size=info.st_size, mtime_ns=info.st_mtime_ns))
                run.unchanged += 1
                continue
            if modes is None:
                modes = _thread_modes(home_path)
            self._read_one(path, info, row, home_path, servers, modes, picker, run)
            if len(run.rows) >= SAVE_BATCH:
                self._save(run)
        self._save(run)
        report = ImportReport(str(home_path), tuple(run.items), tuple(run.problems),
                              tuple(picker.created), unchanged=run.unchanged)
        self._audit("codex_rollouts_imported", report)
        return report

    def _read_one(self, path: Path, info: os.stat_result, row: RolloutFileRow | None,
                  home: Path, servers: Iterable[str], modes: dict[str, str | None],
                  picker: ProjectPicker, run: _Run) -> None:
        resume = row if (row is not None and info.st_size > row.size and not is_compressed(path)
                         and row.outcome in RETRY_REASONS) else None
        reader = RolloutReader(str(path), json.loads(resume.state) if resume else None, servers)
        try:
            offset = read_rollout_from(path, home, reader, resume.offset if resume else 0)
        except FileProblemError as error:
            run.problems.append(Problem(str(path), error.reason))
            run.rows.append(RolloutFileRow(str(path), info.st_size, info.st_mtime_ns, 0,
                                           "{}", OUTCOME_UNREADABLE))
            return
        task = reader.task()
        run.problems.extend(task.problems)
        item = self._import_rollout(task, modes, picker)
        run.items.append(item)
        outcome = (item.outcome == OUTCOME_SKIPPED and item.reason) or item.outcome
        run.rows.append(RolloutFileRow(str(path), info.st_size, info.st_mtime_ns, offset,
                                       json.dumps(reader.state), outcome))

    def _save(self, run: _Run) -> None:
        if not run.rows:
            return
        with self._store.transaction():
            self._store.codex_rollout_files.save(self.actor, run.rows)
        run.rows.clear()

    def _import_rollout(self, task: RolloutTask, modes: dict[str, str | None],
                        picker: ProjectPicker) -> ImportItem:
        ref, path = task.thread_id or Path(task.file).name, task.file
        skip = partial(ImportItem, KIND_ROLLOUT, ref, OUTCOME_SKIPPED, path=path)
        if not task.thread_id:
            return skip(REASON_NO_THREAD, "no session id in the rollout or its file name")
        if not task.interactive:
            return skip(REASON_NOT_INTERACTIVE, f"source {task.source}: Codex mines only "
                                                "interactive sessions")
        mode = modes.get(ref) or task.memory_mode
        if mode is not None and mode != MEMORY_MODE_ENABLED:
            return skip(REASON_MEMORY_MODE, f"memory_mode = {mode}: memories are off for "
                                            "this session")
        gap = task_gap(task.goal, task.result, task.started_at, task.finished_at, task.cwd,
                       "rollout")
        if gap is not None:
            return skip(*gap)
        cwd = str(usable_cwd(task.cwd))
        tasks = self._engine.tasks
        (goal, goal_cut), (result, result_cut) = task_text(task.goal), task_text(task.result)
        try:
            with self._store.transaction():
                existing = tasks.find_by_source_ref(ROLLOUT_TASK_SOURCE, ref)
                if existing is not None:
                    return skip(REASON_ALREADY, None, existing.id, existing.project)
                project = picker.project_for(cwd)
                if project is None:
                    return skip(REASON_NO_PROJECT, picker.refusal(cwd))
                added = tasks.add_task(
                    project, goal, goal, result, task.started_at,  # the request is the prompt
                    task.finished_at, status="completed",
                    external_context=task.used_external_context, source=ROLLOUT_TASK_SOURCE,
                    external_tool=task.external_tool, source_ref=ref)
        except Conflict:
            picker.rolled_back()
            return skip(REASON_ALREADY, "already recorded")
        except MemtuiError as error:
            picker.rolled_back()
            return ImportItem(KIND_ROLLOUT, ref, OUTCOME_ERROR, error.code, error.message,
                              path=path)
        picker.committed()
        return ImportItem(KIND_ROLLOUT, ref, OUTCOME_IMPORTED, target_id=added.id,
                          project=added.project, truncated=goal_cut or result_cut,
                          path=path)
