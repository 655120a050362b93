"""Helpers for the auto-memory tests (settings, tasks, extraction, injection, worker, CLI).

The shared fixtures (``clock``, ``store``, ``engine_for``, ``cli``) live in conftest.py; these
are plain helpers the auto-memory test modules import (each defines its own small ``team``
fixture from ``make_team``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from memtui.engine.api import Engine
from memtui.store.database import Store
from memtui.store.models import Task
from memtui.store.timeutil import FixedClock

LONG_RESULT = ("Replaced the hand-rolled retry loop with tenacity, capped at five attempts with "
               "exponential backoff and jitter. The flaky integration test now passes 500 runs "
               "in a row; timeouts are logged with the request id for later triage.")
"""A result comfortably over the default 200-character gate."""
IDLE_S = 3600
"""How long before 'now' the helper's tasks finish by default (idle for the 900 s gate)."""


@dataclass
class Team:
    """alice owns 'web' and 'api'; bob is a member of web, carol a reader, dave a stranger."""

    store: Store
    clock: FixedClock
    alice: Engine
    bob: Engine
    carol: Engine
    dave: Engine


def make_team(store: Store, clock: FixedClock, engine_for: Callable[[str], Engine],
              generate: bool = True, use: bool = True) -> Team:
    """Projects, roles and alice's generate/use switches."""
    alice, bob, carol, dave = (engine_for(n) for n in ("alice", "bob", "carol", "dave"))
    alice.identity.create_project("web", "Web", None)
    alice.identity.create_project("api", "API", None)
    alice.identity.set_member("web", "bob", "member")
    alice.identity.set_member("web", "carol", "reader")
    alice.settings.update(generate_memories=int(generate), use_memories=int(use))
    return Team(store, clock, alice, bob, carol, dave)


def add_done(engine: Engine, clock: FixedClock, *, project: str = "web",
             goal: str = "Fix the retry loop", prompt: str = "Please fix it",
             result: str = LONG_RESULT, duration_s: float = 600, finished_ago: float = IDLE_S,
             generate: str | None = None, **extra: object) -> Task:
    """A completed task that ran ``duration_s`` and finished ``finished_ago`` seconds ago
    (``generate``: a per-task override, on/off)."""
    finished = clock() - timedelta(seconds=finished_ago)
    started = finished - timedelta(seconds=duration_s)
    task = engine.tasks.add_task(project, goal, prompt, result, started, finished,
                                 **extra)  # type: ignore[arg-type]
    if generate is not None:
        task = engine.tasks.set_flags(task.id, generate=generate)
    return task
