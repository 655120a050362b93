"""Gemini CLI's inbox patches as review decisions: each pending patch read once with the
write plans of applying and dismissing it, so a decision writes exactly what was shown
(``plans.apply_plan``) and is refused when the patch or a file it changes changed since.
A malformed patch, or one that no longer matches its file, can only be dismissed.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memtui.engine.agents.errors import AgentInputError, ChangedSinceRead
from memtui.engine.agents.gemini import read_gemini_inbox
from memtui.engine.agents.gemini_projects import ContextNames, home_context_names
from memtui.engine.agents.inbox import (
    SCOPE_GLOBAL,
    plan_apply_patch,
    plan_dismiss_patch,
)
from memtui.engine.agents.models import InboxPatch
from memtui.engine.agents.plans import (
    ACTION_REMOVE,
    AppliedPlan,
    WritePlan,
    apply_plan,
    display_path,
)
from memtui.engine.redaction import scan
from memtui.errors import MemtuiError
from memtui.store.timeutil import format_time

GLOBAL_NAME = "global"


@dataclass(frozen=True)
class PatchReview:
    """One pending Gemini CLI patch, read for a decision."""

    patch: InboxPatch
    name: str
    """``[<slug>:]<scope>/<file>``: the reference ``memtui gemini inbox apply|dismiss`` takes."""
    relative: str
    project_slug: str | None
    project_path: str | None
    proposed_at: str | None
    """The patch file's modification time (stored form)."""
    files: tuple[str, ...]
    """The memory files applying it changes, relative to the home."""
    apply: WritePlan | None
    dismiss: WritePlan | None
    problem: str | None
    """Why it cannot be applied (``apply`` None) or removed (``dismiss`` None)."""
    diff: str = ""
    """What applying changes, secrets shown by kind only."""
    secrets: tuple[str, ...] = ()
    """Kinds of secret the patch would add to a memory file."""

    @property
    def tier(self) -> str:
        """``global`` for a patch to the global tier, else ``project``."""
        return GLOBAL_NAME if self.patch.scope == SCOPE_GLOBAL else "project"

    @property
    def changes_lines(self) -> bool:
        """Whether it removes or replaces lines (not only adds)."""
        return self.patch.removed > 0


def _mtime(path: str) -> str | None:
    try:
        return format_time(datetime.fromtimestamp(os.lstat(path).st_mtime, UTC))
    except (OSError, OverflowError, ValueError):
        return None


def _added_secrets(plan: WritePlan) -> tuple[str, ...]:
    """Kinds of secret found more often in the new text of a file than in its old one."""
    def kinds(text: str) -> Counter[str]:
        return Counter(finding.kind for finding in scan(text).findings)

    return tuple(sorted(set().union(*(kinds(change.new_text) - kinds(change.old_text)
                                      for change in plan.changes
                                      if change.action != ACTION_REMOVE))))


def review_patch(home: Path, patch: InboxPatch, projects: Mapping[str, str],
                 names: ContextNames | None = None) -> PatchReview:
    """Read one patch for a decision (a bad patch: ``problem`` says why); ``names``: the home's
    context file names, read when not given."""
    slug = patch.project
    relative = display_path(patch.path, str(home))
    name = f"{slug}:{patch.id}" if slug else patch.id
    problem = None if patch.valid else patch.reason
    apply: WritePlan | None = None
    dismiss: WritePlan | None = None
    try:
        dismiss = plan_dismiss_patch(home, patch.path)
    except MemtuiError as error:
        problem = problem or error.message
    if problem is None:
        try:
            apply = plan_apply_patch(home, patch.path, names)
        except MemtuiError as error:
            problem = error.message
    files = tuple(display_path(change.path, apply.root) for change in apply.changes
                  if change.path != patch.path) if apply else ()
    return PatchReview(patch=patch, name=name, relative=relative,
                       project_slug=slug, project_path=projects.get(slug) if slug else None,
                       proposed_at=_mtime(patch.path), files=files, apply=apply,
                       dismiss=dismiss, problem=problem, diff=apply.diff() if apply else "",
                       secrets=_added_secrets(apply) if apply else ())


def review_gemini_inbox(home: str | os.PathLike[str] | None = None, *,
                        env: Mapping[str, str] | None = None) -> list[PatchReview]:
    """Every pending patch of a Gemini CLI home read with its write plans, oldest first."""
    inbox = read_gemini_inbox(home, env=env)
    home_path = Path(inbox.home)
    names = home_context_names(home_path, env) if any(
        patch.scope == SCOPE_GLOBAL for patch in inbox.patches) else None
    reviews = [review_patch(home_path, patch, inbox.projects, names)
               for patch in inbox.patches]
    return sorted(reviews, key=lambda item: (item.proposed_at or "", item.relative))


def count_gemini_inbox(home: str | os.PathLike[str] | None = None, *,
                       env: Mapping[str, str] | None = None) -> int:
    """How many patches wait in a Gemini CLI home (malformed ones included)."""
    return len(read_gemini_inbox(home, env=env).patches)


def _written(plan: WritePlan | None, review: PatchReview, refused: str) -> AppliedPlan:
    if plan is None:
        raise AgentInputError(f"{review.name}: {refused}")
    try:
        return apply_plan(plan, True)
    except ChangedSinceRead as error:
        changed = next((display_path(change.path, plan.root) for change in plan.changes
                        if change.stamp is not None and str(error.message).startswith(
                            change.stamp.path + ":")), review.relative)
        raise ChangedSinceRead(f"{changed} changed since the inbox was read (by Gemini CLI?); "
                               "nothing was written — look at the patch again and decide "
                               "again") from None


def apply_reviewed(review: PatchReview) -> AppliedPlan:
    """Apply a patch as it was read; refused when it cannot be, or it or its files changed since."""
    return _written(review.apply, review,
                    f"cannot be applied ({review.problem}); dismiss it instead")


def dismiss_reviewed(review: PatchReview) -> AppliedPlan:
    """Remove a patch unapplied (also a malformed one); refused when it changed since."""
    return _written(review.dismiss, review, f"cannot be removed safely ({review.problem})")

