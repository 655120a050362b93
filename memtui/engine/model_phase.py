"""Model extraction's rules around the call (docs/auto-memory.md, "Model extraction"): the
token caps (fail closed), the backoff after a failure, and where a task's conversation is.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from memtui.engine.conversation import Conversation, read_conversation
from memtui.store.backend import StoreBackend
from memtui.store.model_ledger import UsageRow
from memtui.store.models import Task
from memtui.store.timeutil import format_time, parse_time

MAX_ATTEMPTS = 4
"""Failed calls after which a task is left (``model_gave_up``)."""
BACKOFF_S = 60
"""Wait after the first failure, times ``BACKOFF_FACTOR`` for each further one."""
BACKOFF_FACTOR = 4
_END = "9999-12-31T23:59:59.999Z"
EXTRACT, CONSOLIDATE = "extract", "consolidate"


def retry_at(now: str, attempts: int) -> str:
    """When a task that failed ``attempts`` times in a row may be asked again."""
    wait = BACKOFF_S * BACKOFF_FACTOR ** max(0, attempts - 1)
    return format_time(parse_time(now) + timedelta(seconds=wait))


def cap_reason(store: StoreBackend, user: str, settings: dict[str, Any], now: str,
               estimate: int) -> tuple[str, str] | None:
    """(reason code, words) when today's or this month's cap stops a call expected to cost
    ``estimate`` tokens (or the ledger is unreadable), else None."""
    ledger = store.model_ledger
    try:
        day = ledger.tokens_between(user, now[:10] + "T00:00:00.000Z", _END)
        month = ledger.tokens_between(user, now[:7] + "-01T00:00:00.000Z", _END)
    except Exception as error:  # fail closed: never assume there are tokens left
        return "model_cap_unreadable", f"the token ledger could not be read " \
                                       f"({type(error).__name__})"
    for spent, name, reason, when in ((day, "model_daily_token_cap", "model_cap_day", "today"),
                                      (month, "model_monthly_token_cap", "model_cap_month",
                                       "this month")):
        if spent >= settings[name] or spent + estimate > settings[name]:
            return reason, f"{spent} tokens spent {when} and a call may take {estimate}: " \
                           f"{name} is {settings[name]}"
    return None


def spend(store: StoreBackend, user: str, phase: str, round_id: str, task_id: str | None,
          project: str | None, model: str, tokens: tuple[int, int], outcome: str) -> None:
    """Write one model call's tokens to the ledger in a transaction of its own: they count
    even when what the answer was for fails."""
    with store.transaction():
        store.model_ledger.add_usage(UsageRow(user, phase, round_id, task_id, project, model,
                                              *tokens, outcome, store.now()))


def conversation_for(store: StoreBackend, task: Task) -> Conversation | None:
    """The conversation of a task recorded from an agent session or a Codex rollout."""
    ref = store.tasks.source_ref(task.id)
    if not ref:
        return None
    session = store.sessions.get(task.source, ref)
    path = session.transcript_path if session and session.user_id == task.user else None
    if path is None and task.source == "codex":
        path = store.codex_rollout_files.path_with(task.user, ref)
    return read_conversation(path) if path else None
