"""Why Codex's memory consolidation is stuck, in words with times, following Codex's claim
rules: the global consolidation is claimed when its ``retry_at`` has passed, it is not
``running`` under a live lease, and it did not succeed within the last 6 hours (its
``retry_remaining`` is not checked); a stage-1 job when not running under a live lease, its
``retry_at`` has passed and it has retries left, unless the thread changed since.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from memtui.engine.codex.models import (
    LAYOUT_WORDS,
    STATUS_DONE,
    STATUS_ERROR,
    STATUS_PENDING,
    Job,
    LayoutInfo,
)
from memtui.engine.codex.timefmt import as_utc, parse_datetime
from memtui.store.codex_models import LAYOUT_OLD, LAYOUT_UNKNOWN

MAX_ERROR_CHARS = 200
MAX_DISTINCT_ERRORS = 3
MAX_NAMED_THREADS = 3
SECONDS_PER_MINUTE = 60
SECONDS_PER_HOUR = 3600
SECONDS_PER_DAY = 86400


CODEX_REASONS = {
    "failed_invalid_artifacts": "Codex's consolidation agent finished without leaving a valid "
                                "memory_summary.md in the memories folder",
    "failed_agent": "Codex's consolidation agent did not finish its turn",
    "failed_spawn_agent": "Codex could not start its consolidation agent",
    "failed_claim": "Codex could not claim the consolidation job",
    "failed_prepare_workspace": "Codex could not prepare the memories folder's git baseline",
    "failed_sandbox_policy": "Codex could not set up the consolidation agent's sandbox",
    "failed_load_stage1_outputs": "Codex could not read its stage-1 memories",
    "failed_sync_workspace_inputs": "Codex could not write the rollout summaries and raw "
                                    "memories into the memories folder",
    "failed_workspace_status": "Codex could not tell what changed in the memories folder "
                               "(git status failed)",
    "failed_workspace_diff_file": "Codex could not write phase2_workspace_diff.md",
    "failed_workspace_commit": "Codex could not commit the memories folder's new baseline",
    "failed_workspace_lock": "Codex could not lock the memories folder",
    "failed_confirm_ownership": "Codex could not confirm it still owned the consolidation job",
    "skipped_workspace_busy": "the memories folder was busy (another consolidation or import)",
}
"""Codex's own reason codes (the ``last_error`` of its jobs), in words."""


def reason_words(error: str | None) -> str:
    """A job's ``last_error`` for people: Codex's code with its meaning when the code is
    known (``failed_invalid_artifacts: Codex's consolidation agent ...``), else the text."""
    text = " ".join((error or "no error recorded").split())
    meaning = CODEX_REASONS.get(text)
    return f"{text}: {meaning}" if meaning else text


def _quote(error: str | None) -> str:
    text = reason_words(error)
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def layout_reasons(layout: LayoutInfo | None, memory_error: str | None) -> list[str]:
    """What the layout keeps memtui from judging (put before the jobs' reasons, so an
    unreadable or unknown layout never reads as "nothing stuck")."""
    if layout is None:
        return []
    reasons: list[str] = []
    if layout.name == LAYOUT_UNKNOWN:
        names = ", ".join(Path(path).name for path in layout.unknown_files)
        source = (f"what is shown was read from {Path(layout.memory_db).name}, whose tables "
                  "memtui knows, and may be incomplete" if layout.memory_db else
                  "none of its files has the memory tables memtui knows, so nothing was read")
        reasons.append(f"Codex keeps its memories in a layout memtui does not know ({names}): "
                       f"{source}; whether consolidation is stuck cannot be told, and memtui "
                       "writes nothing there")
    elif layout.name == LAYOUT_OLD:
        reasons.append(f"the Codex database is {LAYOUT_WORDS[LAYOUT_OLD]}: whether "
                       "consolidation is stuck cannot be told")
    if memory_error is not None:
        name = Path(layout.memory_db or layout.memories_path).name
        reasons.append(f"Codex's memory database {name} could not be read ({memory_error}): "
                       "whether consolidation is stuck cannot be told")
    return reasons


def span_words(seconds: int) -> str:
    """A duration in words: ``45 s``, ``12 min``, ``2 h 5 min``, ``3 d 4 h``."""
    seconds = abs(int(seconds))
    for unit, size, part_unit, part_size in (("d", SECONDS_PER_DAY, "h", SECONDS_PER_HOUR),
                                             ("h", SECONDS_PER_HOUR, "min", SECONDS_PER_MINUTE)):
        if seconds >= size:
            whole, rest = divmod(seconds, size)
            part = rest // part_size
            return f"{whole} {unit} {part} {part_unit}" if part else f"{whole} {unit}"
    if seconds >= SECONDS_PER_MINUTE:
        return f"{seconds // SECONDS_PER_MINUTE} min"
    return f"{seconds} s"


def when(text: str | None, now: datetime) -> str:
    """A stored time as ``14:05 UTC (in 2 h)`` / ``2026-10-04 09:15 UTC (2 d ago)``."""
    moment = parse_datetime(text)
    if moment is None:
        return "at an unknown time"
    delta = int((moment - now).total_seconds())
    clock = moment.strftime("%H:%M UTC" if moment.date() == now.date() else "%Y-%m-%d %H:%M UTC")
    return f"{clock} (in {span_words(delta)})" if delta > 0 else \
        f"{clock} ({span_words(delta)} ago)"


def _ago(text: str | None, now: datetime) -> str:
    moment = parse_datetime(text)
    if moment is None:
        return "at an unknown time"
    return f"{span_words(int((now - moment).total_seconds()))} ago"


def _worker(job: Job) -> str:
    return f"worker {job.worker_id}" if job.worker_id else "an unnamed worker"


def _consolidation(job: Job, now: datetime) -> list[str]:
    """Codex's claim order: retry wait, live lease, cooldown; then what the next start does."""
    if job.retry_waiting:
        failed = (f"global consolidation failed ({_quote(job.last_error)})"
                  if job.status == STATUS_ERROR or job.last_error else
                  "global consolidation is waiting to retry")
        return [f"{failed}; will retry after {when(job.retry_at, now)} (its retry count is "
                "not checked: Codex keeps retrying)"]
    if job.lease_held:
        return [f"global consolidation is running: waiting for the lease held by "
                f"{_worker(job)} until {when(job.lease_until, now)}"]
    if job.running_past_lease:
        return [f"global consolidation is stuck 'running': its lease expired "
                f"{when(job.lease_until, now)} ({_worker(job)} most likely died); the next "
                "Codex start takes the job over"]
    if job.cooldown_until is not None:
        return [f"global consolidation succeeded {_ago(job.finished_at, now)}; next "
                f"consolidation not before {when(job.cooldown_until, now)} (Codex waits 6 h "
                "after a success)"]
    if job.status == STATUS_ERROR:
        return [f"global consolidation failed ({_quote(job.last_error)}) "
                f"{_ago(job.finished_at, now)}; its retry time has passed, so the next Codex "
                "start runs it again"]
    if job.status == STATUS_PENDING:
        return ["global consolidation is queued; the next Codex start runs it"]
    return []


def _names(jobs: Sequence[Job]) -> str:
    names = ", ".join(job.job_key for job in jobs[:MAX_NAMED_THREADS])
    more = len(jobs) - MAX_NAMED_THREADS
    return f"{names} and {more} more" if more > 0 else names


def _stage1(jobs: list[Job], now: datetime) -> list[str]:
    reasons: list[str] = []
    exhausted = [job for job in jobs if job.retries_exhausted]
    if exhausted:
        reasons.append(f"{len(exhausted)} stage-1 job(s) failed with no retries left "
                       f"(thread {_names(exhausted)}): Codex extracts them again only when "
                       "the thread changes")
    waiting = sorted((job for job in jobs if job.retry_pending and job.retry_waiting),
                     key=lambda job: job.retry_at or "")
    if waiting:
        reasons.append(f"{len(waiting)} stage-1 job(s) failed and will retry after "
                       f"{when(waiting[0].retry_at, now)} (first: thread {waiting[0].job_key}, "
                       f"{waiting[0].retry_remaining} retries left)")
    due = [job for job in jobs if job.retry_pending and not job.retry_waiting]
    if due:
        reasons.append(f"{len(due)} stage-1 job(s) failed and are due for a retry at the next "
                       f"Codex start (thread {_names(due)})")
    errors = Counter(_quote(job.last_error) for job in jobs if job.status == STATUS_ERROR)
    reasons += [f"stage-1 error x{count}: {error}"
                for error, count in errors.most_common(MAX_DISTINCT_ERRORS)]
    stale = [job for job in jobs if job.running_past_lease]
    if stale:
        reasons.append(f"{len(stale)} stage-1 job(s) still 'running' past their lease (first: "
                       f"thread {stale[0].job_key}, {_worker(stale[0])}, lease expired "
                       f"{when(stale[0].lease_until, now)}); the next Codex start re-claims "
                       "them")
    return reasons


def diagnose_jobs(jobs: Sequence[Job], now: datetime) -> list[str]:
    """Why consolidation waits or is stuck, most important first (the global job, then
    stage-1 jobs that failed, then stage-1 jobs past their lease); [] when nothing is."""
    now = as_utc(now)
    current = [job.at(now) for job in jobs]
    reasons = [reason for job in current if job.is_consolidation
               and (job.status != STATUS_DONE or job.cooldown_until is not None)
               for reason in _consolidation(job, now)]
    return reasons + _stage1([job for job in current if job.is_stage1], now)
