"""First-turn injection: ``INJECTION_HEADER`` and the latest ``CONTEXT_LIMIT`` active user and
project memories prefixed to an in-memory copy of a task's text (the stored task never
changes); nothing for a continuation or a coordinator, or with ``use_memories`` off. Any
failure fails open (``failed_open``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memtui.engine import permissions as perm
from memtui.engine.base import EngineArea
from memtui.engine.identity import INJECTION_HEADER, render_memory_block
from memtui.engine.settings import load_settings
from memtui.engine.validation import check_text
from memtui.errors import PermissionDenied
from memtui.jsonable import JsonMixin

if TYPE_CHECKING:
    from memtui.store.models import Task

log = logging.getLogger(__name__)

INJECTED = "injected"
NOT_FIRST_TURN = "not_first_turn"
COORDINATOR = "coordinator"
USE_OFF = "use_off"
NO_MEMORIES = "no_memories"
FAILED_OPEN = "failed_open"
MAX_PREVIEW_TEXT_BYTES = 1024 * 1024


@dataclass(frozen=True)
class InjectionResult(JsonMixin):
    """What a first turn receives."""

    task_id: str | None
    injected: bool
    reason: str
    prompt: str
    goal: str
    memory_ids: tuple[str, ...] = ()


def _with_prefix(prefix: str, text: str) -> str:
    return f"{prefix}\n\n{text}" if text else prefix


class InjectionApi(EngineArea):
    """First-turn injection for the actor's tasks, and the preview for a new task."""

    def prepare_first_turn(self, task_id: str, apply: bool = False) -> InjectionResult:
        """The text the task's first turn receives."""
        from memtui.engine.tasks import visible_task  # not needed by a session's injection

        task = visible_task(self._store, task_id, self.actor)
        if task.user != self.actor:
            raise PermissionDenied(f"task {task_id!r} is {task.user}'s: only they can prepare "
                                   "its injection (it carries their user memories)")
        try:
            return self._prepare(task, apply)
        except Exception as error:  # fail open: the task runs with its original text
            log.warning("memory injection for task %s failed open: %s: %s", task.id,
                        type(error).__name__, error)
            return InjectionResult(task.id, False, FAILED_OPEN, task.prompt, task.goal)

    def _prepare(self, task: Task, apply: bool) -> InjectionResult:
        if task.continuation or self._store.tasks.has_children(task.id):
            reason = NOT_FIRST_TURN if task.continuation else COORDINATOR
            return InjectionResult(task.id, False, reason, task.prompt, task.goal)
        use = task.use_memories if task.use_memories is not None \
            else load_settings(self._store, self.actor)["use_memories"]
        if not use:
            return InjectionResult(task.id, False, USE_OFF, task.prompt, task.goal)
        return self._inject(task.id, task.project, task.prompt, task.goal, apply, task.id)

    def _inject(self, task_id: str | None, project: str | None, prompt: str, goal: str,
                apply: bool, audit_target: str | None) -> InjectionResult:
        """The injection; with ``apply`` audited and usage counts bumped in one transaction."""
        skip = self._stale_ids(project)
        if not apply:
            with self._store.snapshot():
                return self._compose(task_id, project, prompt, goal, skip)
        with self._store.transaction():
            result = self._compose(task_id, project, prompt, goal, skip)
            if result.injected:
                self._store.memories.bump_usage(result.memory_ids, self._store.now())
                self._append_audit("worker_memory_injected", audit_target,
                                   memory_ids=list(result.memory_ids), project=project)
            return result

    def _readable(self, project: str | None) -> str | None:
        readable = project is not None and perm.READ in perm.permissions(
            self._store, project, self.actor)
        return project if readable else None

    def _stale_ids(self, project: str | None) -> frozenset[str]:
        """The project's latest memories to leave out (``skip_stale_memories``), checked before
        any transaction opens (it reads the project's folder)."""
        readable = self._readable(project)
        if readable is None or not load_settings(self._store, self.actor)["skip_stale_memories"]:
            return frozenset()
        return frozenset(self._engine.staleness.check(self._engine.identity.latest(readable)[1]))

    def _compose(self, task_id: str | None, project: str | None, prompt: str,
                 goal: str, skip: frozenset[str]) -> InjectionResult:
        users, projects = self._engine.identity.latest(self._readable(project))
        projects = [memory for memory in projects if memory.id not in skip]
        if not users and not projects:
            return InjectionResult(task_id, False, NO_MEMORIES, prompt, goal)
        prefix = INJECTION_HEADER + "\n" + render_memory_block(users, projects)
        return InjectionResult(task_id, True, INJECTED, _with_prefix(prefix, prompt),
                               _with_prefix(prefix, goal) if goal else goal,
                               tuple(m.id for m in (*users, *projects)))

    def preview_for_project(self, project: str, prompt: str = "",
                            goal: str = "") -> InjectionResult:
        """What a new first-turn task of the actor in ``project`` would receive."""
        prompt = check_text(prompt or "", "prompt", max_bytes=MAX_PREVIEW_TEXT_BYTES,
                            allow_empty=True)
        goal = check_text(goal or "", "goal", max_bytes=MAX_PREVIEW_TEXT_BYTES,
                          allow_empty=True)
        perm.readable_project(self._store, project, self.actor)
        return self._when_used(project, prompt, goal, False, None,
                               f"injection preview for project {project}")

    def for_session(self, project: str | None, session: str | None = None,
                    apply: bool = False) -> InjectionResult:
        """What a new agent session starts with (a session-start hook, MCP's
        ``memory_context``): the injection block alone, for a readable ``project`` (None: the
        user memories only), audited naming ``session``."""
        if project is not None:
            perm.readable_project(self._store, project, self.actor)
        return self._when_used(project, "", "", apply, session,
                               f"session injection for {project or 'no project'}")

    def _when_used(self, project: str | None, prompt: str, goal: str, apply: bool,
                   audit_target: str | None, what: str) -> InjectionResult:
        """``_inject`` when the actor's ``use_memories`` is on; fails open."""
        try:
            if not load_settings(self._store, self.actor)["use_memories"]:
                return InjectionResult(None, False, USE_OFF, prompt, goal)
            return self._inject(None, project, prompt, goal, apply, audit_target)
        except Exception as error:  # fail open: the agent starts without memories
            log.warning("%s failed open: %s: %s", what, type(error).__name__, error)
            return InjectionResult(None, False, FAILED_OPEN, prompt, goal)
