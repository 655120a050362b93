"""Why Codex's memory consolidation is stuck: plain sentences from the job queue."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from memtui.engine.codex.models import STATUS_ERROR, Job
from memtui.engine.codex.timefmt import as_utc, parse_datetime

MAX_ERROR_CHARS = 200
"""Longest error text quoted in a sentence."""
MAX_DISTINCT_ERRORS = 3
"""Most distinct stage-1 errors listed."""


def _quote(error: str | None) -> str:
    text = " ".join((error or "no error recorded").split())
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def _ago(text: str | None, now: datetime) -> str:
    moment = parse_datetime(text)
    if moment is None:
        return "at an unknown time"
    seconds = int((now - moment).total_seconds())
    later = seconds < 0
    seconds = abs(seconds)
    if seconds < 60:
        span = f"{seconds} s"
    elif seconds < 3600:
        span = f"{seconds // 60} min"
    elif seconds < 86400:
        span = f"{seconds // 3600} h"
    else:
        span = f"{seconds // 86400} d"
    return f"at {text} (in {span})" if later else f"at {text} ({span} ago)"


def _consolidation(job: Job, now: datetime) -> list[str]:
    reasons: list[str] = []
    if job.running_past_lease:
        worker = job.worker_id or "unknown worker"
        reasons.append(
            f"global consolidation is stuck: still 'running' but its lease expired "
            f"{_ago(job.lease_until, now)}; the worker ({worker}) most likely died")
    if job.retries_exhausted:
        reasons.append(f"global consolidation failed with no retries left: "
                       f"{_quote(job.last_error)}")
    elif job.retry_pending:
        reasons.append(f"global consolidation failed ({_quote(job.last_error)}); "
                       f"retry {_ago(job.retry_at, now)}, {job.retry_remaining} left")
    return reasons


def _stage1(jobs: list[Job], now: datetime) -> list[str]:
    reasons: list[str] = []
    errored = [job for job in jobs if job.status == STATUS_ERROR]
    if errored:
        exhausted = sum(1 for job in errored if job.retries_exhausted)
        pending = sorted(job.retry_at for job in errored if job.retry_pending and job.retry_at)
        next_retry = f"; next retry {_ago(pending[0], now)}" if pending else ""
        reasons.append(f"{len(errored)} stage-1 job(s) in error ({exhausted} with no "
                       f"retries left, {len(errored) - exhausted} waiting to retry{next_retry})")
        counts = Counter(_quote(job.last_error) for job in errored)
        for error, count in counts.most_common(MAX_DISTINCT_ERRORS):
            reasons.append(f"stage-1 error x{count}: {error}")
    stale = [job for job in jobs if job.running_past_lease]
    if stale:
        reasons.append(f"{len(stale)} stage-1 job(s) still 'running' past their lease "
                       f"(first: thread {stale[0].job_key}, lease expired "
                       f"{_ago(stale[0].lease_until, now)})")
    return reasons


def diagnose_jobs(jobs: Sequence[Job], now: datetime) -> list[str]:
    """Human-readable reasons consolidation is stuck, most important first; [] if none.

    Covers a global job holding an expired lease, global failures (retries exhausted, or a
    retry pending at a time), and stage-1 jobs in error or past their lease.
    """
    now = as_utc(now)
    current = [job.at(now) for job in jobs]
    reasons: list[str] = []
    for job in current:
        if job.is_consolidation:
            reasons.extend(_consolidation(job, now))
    reasons.extend(_stage1([job for job in current if job.is_stage1], now))
    return reasons
