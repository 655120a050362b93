"""Curations of Claude Code and Gemini CLI memory, each a ``WritePlan`` first: forget, edit,
repair an index, redact, promote to the user/global tier (a file, or one of Gemini CLI
0.61's ``MEMORY.md`` bullets), forget, edit or add a global fact. An
edit started from ``edit_source`` / ``fact_edit_source`` refuses a file changed since. Only
memory files are touched (and the user-tier file a promotion appends to).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memtui.engine.agents.errors import (
    AGENT_FILES,
    AgentFileProblem,
    AgentInputError,
    AgentNotFound,
    ChangedSinceRead,
    only_match,
)
from memtui.engine.agents.folders import read_memory_folder, subfolders
from memtui.engine.agents.frontmatter import parse_front_matter
from memtui.engine.agents.gemini import ADDED_MEMORIES_HEADING, global_memory_lines
from memtui.engine.agents.gemini_projects import MEMORY_DIR, TMP_DIR
from memtui.engine.agents.index import (
    ENTRY_RE,
    INDEX_FILE,
    MAX_INDEX_BYTES,
    MAX_INDEX_LINES,
    index_line,
    is_outside,
    line_target,
    link_target,
    loaded_cut,
    parse_entries,
)
from memtui.engine.agents.plans import (
    FileChange,
    WritePlan,
    file_change,
    read_stamped,
)
from memtui.engine.agents.settings_json import (
    context_file_names,
    context_path,
    refuse_gemini_own,
)
from memtui.engine.redaction import redact, scan
from memtui.engine.safe_files import FileStamp, real_root
from memtui.errors import UnsafePath

PROMOTED_HEADING = "## Promoted from project memory"
"""The section of ``~/.claude/CLAUDE.md`` a promoted Claude Code memory is appended to."""
MIN_HOOK_CHARS = 24
"""An index repair never cuts an entry's hook shorter than this."""
FIRST_HOOK_CHARS, HOOK_CHARS_STEP = 80, 16
"""The first length it cuts hooks to, and how much shorter each next try is."""
MAX_EDIT_BYTES = 256 * 1024


def resolve_file(home: Path, file: str | os.PathLike[str]) -> Path:
    """A file named on the command line: absolute, else under the home, else the cwd."""
    path = Path(os.path.expanduser(os.fspath(file)))
    if path.is_absolute():
        return path
    under_home = home / path
    return under_home if os.path.lexists(under_home) else Path.cwd() / path


def _inside_root(path: Path, home: Path) -> Path:
    """The home's real root, after refusing a ``path`` outside it (or through a symlink)."""
    root = real_root(home)
    try:
        AGENT_FILES.check_inside(path, root)
    except AgentFileProblem as error:
        raise UnsafePath(f"{path}: {error.reason}") from None
    return root


def memory_folder_of(path: Path, home: Path) -> Path:
    """The memory folder holding ``path`` inside the home; refused through a symlinked folder,
    or outside every memory folder."""
    _inside_root(path, home)
    absolute = Path(os.path.abspath(path))
    for parent in absolute.parents:
        if parent.name == MEMORY_DIR:
            walk = parent
            while walk != Path(os.path.abspath(home)) and walk != walk.parent:
                if walk.is_symlink():
                    raise UnsafePath(f"{walk}: is a symlink; memtui does not write "
                                     "through one")
                walk = walk.parent
            return parent
    raise AgentNotFound(f"{path}: not inside a memory folder of {home}")


def _check_expected(path: Path, stamp: FileStamp, expected: FileStamp | None) -> None:
    """``ChangedSinceRead`` when the file now is not the one ``expected`` was taken of."""
    if expected is not None and (stamp.size, stamp.mtime_ns, stamp.sha256) != (
            expected.size, expected.mtime_ns, expected.sha256):
        raise ChangedSinceRead(f"{path}: changed since it was read (by the agent?); nothing "
                               "was written — read it again and retry")


def _check_edit(text: str, what: str = "an edit") -> None:
    """Refuse an empty edit, or one that is not text of at most ``MAX_EDIT_BYTES``."""
    if not text.strip():
        raise AgentInputError(f"{what} needs some text")
    if "\x00" in text or len(text.encode("utf-8", "replace")) > MAX_EDIT_BYTES:
        raise AgentInputError(f"{what} must be text of at most {MAX_EDIT_BYTES} bytes")


def _redacted(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with its secrets replaced, and their kinds."""
    result = scan(text)
    return result.text, tuple(sorted({finding.kind for finding in result.findings}))


@dataclass(frozen=True)
class EditSource:
    """What an edit starts from: the text to edit (a topic's body without its front matter,
    or one added memory), redacted, and the stamp of the file as it was read."""

    text: str
    """Redacted: an edit writes redacted text anyway, so a secret is never shown kept."""
    kept: tuple[str, ...]
    """The front matter keys the edit keeps as they are."""
    secrets: tuple[str, ...]
    stamp: FileStamp
    fact: str | None = None
    """For an added memory: the line's text as it is in the file."""


def edit_source(home: Path, file: str | os.PathLike[str]) -> EditSource:
    """Read a memory file to edit it (the same checks as ``plan_edit``)."""
    path = resolve_file(home, file)
    memory_folder_of(path, home)
    text, stamp = read_stamped(path, real_root(home))
    parsed = parse_front_matter(text)  # an edit replaces the body, the front matter kept
    redacted, kinds = _redacted((parsed.body if parsed.closed else text).strip())
    return EditSource(redacted, tuple(parsed.fields) if parsed.closed else (), kinds, stamp)


def _index_change(folder: Path, root: Path, relative: str) -> list[FileChange]:
    """The index without its line(s) linking to ``relative`` (none when it has none)."""
    index = folder / INDEX_FILE
    if not index.exists():
        return []
    text, stamp = read_stamped(index, root)
    lines = text.split("\n")
    kept = [line for line in lines if (target := line_target(line, str(folder))) is None
            or is_outside(target) or posixpath.normpath(target) != relative]
    return [file_change(index, stamp, text, "\n".join(kept))] if len(kept) < len(lines) else []


def _forget_changes(path: Path, home: Path) -> tuple[list[FileChange], Path]:
    root = real_root(home)
    folder = memory_folder_of(path, home)
    if path.name == INDEX_FILE and path.parent == folder:
        raise AgentInputError(f"{path}: is the index; forget the files it lists instead")
    text, stamp = read_stamped(path, root)
    changes = _index_change(folder, root, path.relative_to(folder).as_posix())
    return [*changes, file_change(path, stamp, text, None)], folder


def plan_forget(home: Path, file: str | os.PathLike[str]) -> WritePlan:
    """Forget a memory file with its index line(s)."""
    path = resolve_file(home, file)
    changes, folder = _forget_changes(path, home)
    lines = "" if len(changes) == 1 else " and its index line"
    return WritePlan("forget", f"remove {path.relative_to(folder).as_posix()}{lines} from "
                     f"{folder}", str(real_root(home)), tuple(changes))


def plan_edit(home: Path, file: str | os.PathLike[str], body: str,
              expected: FileStamp | None = None) -> WritePlan:
    """Replace a memory file's body (redacted), its front matter kept byte for byte; refused
    when the file changed since ``expected``."""
    _check_edit(body)
    path = resolve_file(home, file)
    memory_folder_of(path, home)
    root = real_root(home)
    text, stamp = read_stamped(path, root)
    _check_expected(path, stamp, expected)
    clean = redact(body.strip()) + "\n"
    new_text = parse_front_matter(text).with_body(clean)
    notes = ("the new text was redacted",) if clean.strip() != body.strip() else ()
    return WritePlan("edit", f"rewrite {path.name}", str(root),
                     (file_change(path, stamp, text, new_text),), notes)


def plan_redact(home: Path, *files: str | os.PathLike[str], gemini: bool = False) -> WritePlan:
    """Replace every secret of the memory ``files`` by ``[REDACTED]`` (``gemini``: never in
    Gemini CLI's own files)."""
    if not files:
        raise AgentInputError("no secret found; nothing to redact")
    changes: list[FileChange] = []
    kinds: list[str] = []
    for file in files:
        path = resolve_file(home, file)
        if gemini:
            refuse_gemini_own(home, path)
        text, stamp = read_stamped(path, _inside_root(path, home))
        result = scan(text)
        if not result.findings:
            raise AgentNotFound(f"{path}: no secret found; nothing to redact")
        kinds.extend(finding.kind for finding in result.findings)
        changes.append(file_change(path, stamp, text, result.text))
    where = Path(changes[0].path).name if len(changes) == 1 else f"{len(changes)} files"
    return WritePlan("redact", f"redact {len(kinds)} secret(s) ({', '.join(sorted(set(kinds)))})"
                     f" in {where}", str(real_root(home)), tuple(changes))


def _fit_hooks(lines: list[str]) -> tuple[list[str], int]:
    """Shorten entry hooks until the index fits the load limit (or hooks are minimal)."""
    text = "\n".join(lines) + "\n"
    if loaded_cut(text)[0] >= min(len(lines), MAX_INDEX_LINES) and \
            len(text.encode("utf-8")) <= MAX_INDEX_BYTES:
        return lines, 0
    for budget in range(FIRST_HOOK_CHARS, MIN_HOOK_CHARS - 1, -HOOK_CHARS_STEP):
        cut: list[str] = []
        for line in lines:
            match = ENTRY_RE.match(line)
            hook = (match.group("hook") or "") if match else ""
            cut.append(line[:match.start("hook")] + hook[:budget - 1].rstrip() + "…"
                       if match and len(hook) > budget else line)
        changed = sum(old != new for old, new in zip(lines, cut, strict=True))
        if len("\n".join(cut).encode("utf-8")) + 1 <= MAX_INDEX_BYTES:
            break
    return cut, changed


def plan_fix_index(home: Path, folder: Path) -> WritePlan:
    """Repair a memory folder's index: drop broken links, add the topic files it does not
    list, shorten hooks when it is over the byte limit."""
    root = real_root(home)
    if folder.is_symlink():
        raise UnsafePath(f"{folder}: is a symlink; memtui does not write through one")
    scan_result = read_memory_folder(folder, root)
    if scan_result.index is None or scan_result.index_text is None:
        raise AgentNotFound(f"{folder}: has no {INDEX_FILE}")
    index_path = folder / INDEX_FILE
    text, stamp = read_stamped(index_path, root)
    load = scan_result.index
    drop = set(load.dangling) | set(load.outside)
    lines = [line for line in text.split("\n") if (match := ENTRY_RE.match(line)) is None
             or (target := link_target(match.group("target"))) is None
             or (target not in drop and posixpath.normpath(target) not in drop)]
    while lines and lines[-1] == "":
        lines.pop()
    topics = {item.relative: item for item in scan_result.files}
    for relative in load.unindexed:
        item = topics.get(relative)
        lines.append(index_line(relative, item.name if item else None,
                                item.description if item else None))
    lines, shortened = _fit_hooks(lines)
    new_text = "\n".join(lines) + "\n"
    left = len(lines) - loaded_cut(new_text)[0]
    notes = (f"{left} entr(ies) still fall past the {MAX_INDEX_LINES}-line / "
             f"{MAX_INDEX_BYTES}-byte limit: forget or merge some",) if left > 0 else ()
    parts = [f"{verb} {count} {what}" for verb, count, what in (
        ("drop", len(drop), "broken link(s)"), ("add", len(load.unindexed), "unlisted file(s)"),
        ("shorten", shortened, "hook(s)")) if count]
    if not parts:  # a healthy index: a plan that writes nothing
        return WritePlan("fix-index", f"nothing to repair in {index_path}", str(root), (), notes)
    return WritePlan("fix-index", f"{', '.join(parts)} in {index_path}", str(root),
                     (file_change(index_path, stamp, text, new_text),), notes)


def _append_under(text: str, heading: str, bullets: list[str]) -> str:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    start = next((at for at, line in enumerate(lines) if line.strip() == heading), None)
    if start is None:
        block = ([""] if lines else []) + [heading] + [f"- {item}" for item in bullets]
        return "\n".join(lines + block) + "\n"
    end = start + 1
    while end < len(lines) and not lines[end].lstrip().startswith("## "):
        end += 1
    insert = end
    while insert > start + 1 and not lines[insert - 1].strip():
        insert -= 1
    lines[insert:insert] = [f"- {item}" for item in bullets]
    return "\n".join(lines) + "\n"


def _memory_bullets(item_text: str) -> list[str]:
    body = parse_front_matter(item_text).body
    bullets = [line.strip()[2:].strip() for line in body.split("\n")
               if line.strip().startswith(("- ", "* "))]
    if bullets:
        return [redact(item) for item in bullets if item]
    flat = " ".join(line.strip() for line in body.split("\n") if line.strip())
    return [redact(flat)] if flat else []


def append_global(text: str, bullets: list[str]) -> str:
    """Gemini CLI's global file with ``bullets`` added as 0.61 keeps them: ``- fact`` lines at
    its end, or at the end of an old ``## Gemini Added Memories`` section when it has one."""
    if any(line.strip() == ADDED_MEMORIES_HEADING for line in text.split("\n")):
        return _append_under(text, ADDED_MEMORIES_HEADING, bullets)
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and not lines[-1].strip().startswith(("- ", "* ")):
        lines.append("")
    return "\n".join(lines + [f"- {item}" for item in bullets]) + "\n"


Appender = Callable[[str, list[str]], str]
"""How bullets are added to a user/global file: (old text, bullets) -> new text."""


def target_change(target: Path, root: Path, append: Appender, bullets: list[str]
                  ) -> FileChange:
    """The change that adds ``bullets`` to ``target`` (created when it does not exist)."""
    text, stamp = read_stamped(target, root) if os.path.lexists(target) else (None, None)
    return file_change(target, stamp, text, append(text or "", bullets))


def _plan_promote(home: Path, file: str | os.PathLike[str], target: Path,
                  append: Appender) -> WritePlan:
    """The memory file's facts added to ``target`` by ``append``; the file and its index line go."""
    path = resolve_file(home, file)
    root = real_root(home)
    changes, _folder = _forget_changes(path, home)
    bullets = _memory_bullets(changes[-1].old_text)
    if not bullets:
        raise AgentInputError(f"{path}: the memory is empty; nothing to promote")
    added = target_change(target, root, append, bullets)
    return WritePlan("promote", f"move {path.name} to {target}", str(root), (added, *changes))


def plan_promote_claude(home: Path, file: str | os.PathLike[str]) -> WritePlan:
    """Move a Claude Code project memory to ``~/.claude/CLAUDE.md`` (``PROMOTED_HEADING``)."""
    return _plan_promote(home, file, home / "CLAUDE.md",
                         lambda text, bullets: _append_under(text, PROMOTED_HEADING, bullets))


def global_file(home: Path, name: str | None = None) -> Path:
    """The global file a Gemini CLI curation writes (``name``, else the home's first context
    file name); refused when it leads outside."""
    path = context_path(home, chosen := name or context_file_names(home)[0])
    if path is None:
        raise UnsafePath(f"{chosen[:80]!r} (context.fileName) leads outside {home}; not written")
    refuse_gemini_own(home, path)
    return path


def plan_promote_gemini(home: Path, file: str | os.PathLike[str]) -> WritePlan:
    """Move a Gemini CLI private memory file to the global file (``append_global``)."""
    return _plan_promote(home, file, global_file(home), append_global)


@dataclass(frozen=True)
class _FactLine:
    """The global file as read, split into lines, and the line of the one matching fact."""

    root: Path
    path: Path
    text: str
    stamp: FileStamp
    lines: list[str]
    chosen: int

    def plan(self, action: str, summary: str, notes: tuple[str, ...] = ()) -> WritePlan:
        """The plan that writes ``lines`` back to the file."""
        return WritePlan(action, f"{summary} {self.path}", str(self.root), (file_change(
            self.path, self.stamp, self.text, "\n".join(self.lines)),), notes)


def _fact_line(home: Path, fact: str, context_file: str | None,
               expected: FileStamp | None = None) -> _FactLine:
    """The one bullet of the global file (``global_memory_lines``) matching ``fact``
    exactly, else by a unique substring; refused when the file changed since ``expected``."""
    root = real_root(home)
    path = global_file(home, context_file)
    text, stamp = read_stamped(path, root)
    _check_expected(path, stamp, expected)
    wanted = fact.strip()
    if not wanted:
        raise AgentInputError("name the fact")
    facts = global_memory_lines(text)
    chosen = [number for number, value in facts if value == wanted] or \
        [number for number, value in facts if wanted.lower() in value.lower()]
    return _FactLine(root, path, text, stamp, text.split("\n"), only_match(
        chosen, f"no global memory matching {fact[:60]!r} in {path}",
        f"global memories match {fact[:60]!r}; be more precise"))


def plan_forget_fact(home: Path, fact: str, context_file: str | None = None
                     ) -> WritePlan:
    """Remove one bullet of the global file (matched exactly, or by a unique substring)."""
    if not fact.strip():
        raise AgentInputError("name the fact to forget")
    found = _fact_line(home, fact, context_file)
    del found.lines[found.chosen]
    return found.plan("forget", "remove one global memory from")


def fact_edit_source(home: Path, fact: str, context_file: str | None = None
                     ) -> EditSource:
    """Read one added memory of the global file to edit it (as ``plan_edit_fact`` finds it)."""
    found = _fact_line(home, fact, context_file)
    value = found.lines[found.chosen].strip()[2:].strip()
    redacted, kinds = _redacted(value)
    return EditSource(redacted, (), kinds, found.stamp, fact=value)


def plan_edit_fact(home: Path, fact: str, new_text: str,
                   context_file: str | None = None,
                   expected: FileStamp | None = None) -> WritePlan:
    """Rewrite one bullet of the global file, made one line and redacted; refused when the
    file changed since ``expected``."""
    flat = " ".join(str(new_text).split())
    _check_edit(flat)
    found = _fact_line(home, fact, context_file, expected)
    old = found.lines[found.chosen]
    clean = redact(flat)
    indent = old[:len(old) - len(old.lstrip())]
    found.lines[found.chosen] = f"{indent}{old.lstrip()[:2]}{clean}"
    return found.plan("edit", "rewrite one global memory in",
                      ("the new text was redacted",) if clean != flat else ())


def plan_add_fact(home: Path, fact: str) -> WritePlan:
    """Add one ``- fact`` (redacted, one line) to the global file (``append_global``)."""
    text = " ".join(str(fact).split())
    _check_edit(text, "a fact")
    clean = redact(text)
    root = real_root(home)
    target = global_file(home)
    change = target_change(target, root, append_global, [clean])
    notes = ("the text was redacted",) if clean != text else ()
    return WritePlan("note", f"add a memory to {target}", str(root), (change,), notes)


def index_facts(home: Path, root: Path) -> list[tuple[Path, int, str, str, FileStamp]]:
    """(index, 0-based line, text, the index's text and stamp) of every plain bullet of every
    project's ``MEMORY.md`` in the Gemini CLI home."""
    found: list[tuple[Path, int, str, str, FileStamp]] = []
    for folder in sorted(subfolders(home / TMP_DIR, root, [])):
        index = folder / MEMORY_DIR / INDEX_FILE
        if not index.is_file():
            continue
        text, stamp = read_stamped(index, root)
        found.extend((index, entry.line - 1, entry.title, text, stamp)
                     for entry in parse_entries(text, 0) if entry.target is None)
    return found


def plan_promote_index_fact(home: Path, fact: str) -> WritePlan:
    """Move one ``MEMORY.md`` bullet (matched as ``plan_forget_fact`` matches) to the global
    file, redacted."""
    wanted = " ".join(fact.split())
    if not wanted:
        raise AgentInputError("name the fact to promote")
    root = real_root(home)
    facts = index_facts(home, root)
    chosen = [item for item in facts if item[2] == wanted] or \
        [item for item in facts if wanted.lower() in item[2].lower()]
    index, line, text, old, stamp = only_match(
        chosen, f"no MEMORY.md bullet matching {wanted[:60]!r} in {home / TMP_DIR}",
        f"MEMORY.md bullets match {wanted[:60]!r}; be more precise")
    lines = old.split("\n")  # the text the line was found in; its stamp guards the write
    new_index = file_change(index, stamp, old, "\n".join(lines[:line] + lines[line + 1:]))
    target = global_file(home)
    clean = redact(text)
    added = target_change(target, root, append_global, [clean])
    notes = ("the text was redacted",) if clean != text else ()
    return WritePlan("promote", f"move one MEMORY.md fact of {index.parent.parent.name} to "
                     f"{target}", str(root), (added, new_index), notes)
