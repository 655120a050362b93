"""Gemini CLI's auto-memory inbox: proposed changes waiting as unified diffs in
``<memory dir>/.inbox/private/*.patch`` (the project's private memory) and
``.inbox/global/*.patch`` (the global tier), until the user applies or dismisses them.

``list_inbox`` is the one listing other front ends (the review inbox) use; a malformed
patch is listed with ``valid=False`` and its reason, never dropped.
"""

from __future__ import annotations

from pathlib import Path

from memtui.engine.agents.errors import AgentFileProblem
from memtui.engine.agents.models import InboxPatch, Problem
from memtui.engine.agents.patches import MAX_PATCH_BYTES, PatchError, parse_patch, patch_counts
from memtui.engine.agents.safe_files import list_folder, read_text

INBOX_DIR = ".inbox"
SCOPE_PRIVATE = "private"
SCOPE_GLOBAL = "global"
SCOPES = (SCOPE_PRIVATE, SCOPE_GLOBAL)
PATCH_SUFFIX = ".patch"


def list_inbox(memory_dir: Path, root: Path, project: str | None
               ) -> tuple[list[InboxPatch], list[Problem]]:
    """The patches waiting in a memory folder's inbox, and the problems reading it."""
    patches: list[InboxPatch] = []
    problems: list[Problem] = []
    for scope in SCOPES:
        folder = memory_dir / INBOX_DIR / scope
        try:
            entries = list_folder(folder, root)
        except AgentFileProblem as error:
            problems.append(Problem(str(folder), error.reason))
            continue
        for path in entries:
            if not path.name.endswith(PATCH_SUFFIX):
                continue
            patch_id = f"{scope}/{path.name}"
            try:
                text, stamp = read_text(path, root, MAX_PATCH_BYTES)
            except AgentFileProblem as error:
                problems.append(Problem(str(path), error.reason))
                patches.append(InboxPatch(patch_id, str(path), scope, project, (), 0, 0, False,
                                          error.reason))
                continue
            try:
                parsed = parse_patch(text)
            except PatchError as error:
                reason = f"malformed patch: {error}"
                problems.append(Problem(str(path), reason))
                patches.append(InboxPatch(patch_id, str(path), scope, project, (), 0, 0, False,
                                          reason, stamp.size))
                continue
            added, removed = patch_counts(parsed)
            patches.append(InboxPatch(patch_id, str(path), scope, project,
                                      tuple(item.target for item in parsed), added, removed,
                                      True, None, stamp.size))
    return patches, problems
