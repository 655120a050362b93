"""Gemini CLI's auto-memory inbox: proposed changes waiting as unified diffs in
``<memory dir>/.inbox/private/*.patch`` and ``.inbox/global/*.patch`` until the user applies
or dismisses them. A malformed patch is listed with ``valid=False``, never dropped.
"""

from __future__ import annotations

import os
from pathlib import Path

from memtui.engine.agents.errors import AGENT_FILES, AgentFileProblem, AgentInputError, only_match
from memtui.engine.agents.folders import list_entries
from memtui.engine.agents.gemini_projects import (
    MEMORY_DIR,
    TMP_DIR,
    ContextNames,
    home_context_names,
)
from memtui.engine.agents.models import InboxPatch, Problem
from memtui.engine.agents.patches import (
    MAX_PATCH_BYTES,
    PatchError,
    apply_file_patch,
    parse_patch,
    patch_counts,
)
from memtui.engine.agents.plans import FileChange, WritePlan, file_change, read_stamped
from memtui.engine.agents.settings_json import context_path, refuse_gemini_own
from memtui.engine.safe_files import FileStamp, real_root
from memtui.errors import UnsafePath

INBOX_DIR = ".inbox"
SCOPE_PRIVATE = "private"
SCOPE_GLOBAL = "global"
SCOPES = (SCOPE_PRIVATE, SCOPE_GLOBAL)
PATCH_SUFFIX = ".patch"


def list_inbox(memory_dir: Path, root: Path, project: str | None, problems: list[Problem]
               ) -> list[InboxPatch]:
    """The patches waiting in a memory folder's inbox (the problems added to ``problems``)."""
    patches: list[InboxPatch] = []
    for scope in SCOPES:
        for path in list_entries(memory_dir / INBOX_DIR / scope, root, problems):
            if not path.name.endswith(PATCH_SUFFIX):
                continue
            patch_id = f"{scope}/{path.name}"
            size = 0
            try:
                text, stamp = AGENT_FILES.read_text_stamped(path, root, MAX_PATCH_BYTES)
                size = stamp.size
                parsed = parse_patch(text)
            except (AgentFileProblem, PatchError) as error:
                reason = error.reason if isinstance(error, AgentFileProblem) else \
                    f"malformed patch: {error}"
                problems.append(Problem(str(path), reason))
                patches.append(InboxPatch(patch_id, str(path), scope, project, (), 0, 0, False,
                                          reason, size))
                continue
            added, removed = patch_counts(parsed)
            patches.append(InboxPatch(patch_id, str(path), scope, project,
                                      tuple(item.target for item in parsed), added, removed,
                                      True, None, stamp.size))
    return patches


def find_patch(home: Path, ref: str) -> Path:
    """A patch named by path (absolute, or under the home) or by ``[<slug>:]<scope>/<name>``
    (unique among every inbox of the home)."""
    path = Path(os.path.expanduser(ref))
    for candidate in (path, home / path):
        if candidate.is_absolute() and os.path.lexists(candidate) and \
                candidate.name.endswith(PATCH_SUFFIX):
            return candidate
    slug, _, rest = ref.rpartition(":")
    folders = [home / MEMORY_DIR]
    tmp = home / TMP_DIR
    if tmp.is_dir():
        folders += [tmp / name / MEMORY_DIR for name in sorted(os.listdir(tmp))
                    if not slug or name == slug]
    found = [candidate for folder in folders if os.path.lexists(
        candidate := folder / INBOX_DIR / rest) and candidate.name.endswith(PATCH_SUFFIX)]
    return only_match(found, f"no inbox patch {ref!r} in {home}",
                      f"inbox patches are named {rest!r}; give <slug>:<scope>/<name> or the path")


def _patch_parts(path: Path) -> tuple[Path, str]:
    """(memory folder, scope)."""
    scope, inbox = path.parent.name, path.parent.parent
    if inbox.name != INBOX_DIR or scope not in SCOPES:
        raise AgentInputError(f"{path}: not in an inbox folder (.inbox/private or "
                              ".inbox/global)")
    return inbox.parent, scope


def _read_patch(home: Path, ref: str) -> tuple[Path, str, FileStamp, tuple[Path, str]]:
    path = find_patch(home, ref)
    text, stamp = read_stamped(path, real_root(home), MAX_PATCH_BYTES)
    return path, text, stamp, _patch_parts(path)


def _same_path(left: Path, right: Path) -> bool:
    return os.path.abspath(left) == os.path.abspath(right) or \
        os.path.realpath(left) == os.path.realpath(right)


def patch_target(home: Path, memory: Path, scope: str, target: Path,
                 names: ContextNames | None = None) -> Path | None:
    """The file a patch path names when Gemini CLI 0.61 would accept it, else None: for a
    global patch exactly its session's global memory file (the first of ``names.of`` its
    project's slug, or the home's own for the home's inbox; ``names`` read when not given);
    for a private one a ``*.md`` (not hidden) directly in the memory folder, or a path under
    it when relative."""
    if scope == SCOPE_GLOBAL:
        slug = memory.parent.name if _same_path(memory.parent.parent, home / TMP_DIR) else None
        path = context_path(home, (names or home_context_names(home)).of(slug)[0])
        if path is None or not _same_path(home / target, path):
            return None
        refuse_gemini_own(home, path)
        return path
    if ".." in target.parts:
        return None
    if not target.is_absolute():
        return memory / target
    if not _same_path(target.parent, memory):
        return None
    if target.name.startswith(".") or not target.name.lower().endswith(".md"):
        return None
    return memory / target.name


def plan_apply_patch(home: Path, ref: str, names: ContextNames | None = None) -> WritePlan:
    """Apply a pending inbox patch to the memory files it names, then remove it; refused when
    it is malformed, does not apply, or names a file it may not change (``patch_target``)."""
    root = real_root(home)
    path, text, stamp, (memory, scope) = _read_patch(home, ref)
    try:
        parsed = parse_patch(text)
    except PatchError as error:
        raise AgentInputError(f"{path}: malformed patch ({error}); nothing was changed") \
            from None
    changes: list[FileChange] = []
    for item in parsed:
        target = Path(item.target)
        named = patch_target(home, memory, scope, target, names)
        if named is None:
            raise UnsafePath(f"{path}: targets {item.target!r}, outside what a "
                             f"{scope} patch may change; nothing was changed")
        old: str | None = None
        old_stamp: FileStamp | None = None
        if os.path.lexists(named):
            old, old_stamp = read_stamped(named, root)
        try:
            new = apply_file_patch(old, item)
        except PatchError as error:
            raise AgentInputError(f"{path}: does not apply ({error}); nothing was changed") \
                from None
        changes.append(file_change(named, old_stamp, old, new))
    changes.append(file_change(path, stamp, "", None))
    targets = ", ".join(item.target for item in parsed)
    return WritePlan("inbox-apply", f"apply {path.name} to {targets} and remove it from the "
                     "inbox", str(root), tuple(changes))


def plan_dismiss_patch(home: Path, ref: str) -> WritePlan:
    """Remove a pending inbox patch without applying it (also a malformed one)."""
    root = real_root(home)
    path, _text, stamp, _parts = _read_patch(home, ref)
    return WritePlan("inbox-dismiss", f"dismiss {path.name} (remove it from the inbox "
                     "unapplied)", str(root), (file_change(path, stamp, "", None),))
