"""Codex's memory folder format for exporting memtui's store: ``render_export`` gives every
file (by relative path) from plain dataclasses, ``write_export`` puts them into a new folder,
whole or not at all. What these write, ``reader`` reads back.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath

from memtui.engine.codex.errors import CodexError
from memtui.engine.codex.models import SummaryTopic
from memtui.engine.codex.naming import rollout_summary_file_stem
from memtui.engine.codex.parsers import (
    FRONT_MATTER_FENCE,
    GENERAL_TIPS,
    KNOWLEDGE_HEADING,
    NO_RAW_MEMORIES,
    OLDER_TOPICS,
    PREFERENCES_HEADING,
    RAW_MEMORIES_TITLE,
    SUMMARY_VERSION_LINE,
    TASK_GROUP_PREFIX,
    USER_PREFERENCES,
    USER_PROFILE,
    WHATS_IN_MEMORY,
)
from memtui.engine.codex.paths import (
    MEMORY_MD_FILE,
    MEMORY_SUMMARY_FILE,
    RAW_MEMORIES_FILE,
    ROLLOUT_SUMMARIES_DIR,
)
from memtui.engine.codex.timefmt import to_rfc3339
from memtui.engine.safe_files import NEW_DIR_MODE, NEW_FILE_MODE, write_new_file
from memtui.errors import UnsafePath

RAW_MEMORIES_ORDER_LINE = "Merged stage-1 raw memories (stable ascending thread-id order):"
EMPTY_SECTION_TEXT = "None recorded."
EMPTY_PROFILE_TEXT = "No profile recorded."
_SECTION_LINE_RE = re.compile(r"^## (?!#)")
"""A line that would start a new section of ``memory_summary.md``."""
_THREAD_LINE_RE = re.compile(r"^## Thread `")
"""A line that would start a new thread of ``raw_memories.md``."""


@dataclass(frozen=True)
class ExportSummary:
    """The content of ``memory_summary.md``."""

    user_profile: str = ""
    preferences: tuple[str, ...] = ()
    general_tips: tuple[str, ...] = ()
    topics: tuple[SummaryTopic, ...] = ()


@dataclass(frozen=True)
class ExportThread:
    """One thread: its raw memory (for ``raw_memories.md``) and its rollout summary file."""

    thread_id: str
    updated_at: datetime
    cwd: str
    rollout_path: str
    raw_memory: str
    rollout_summary: str
    slug: str | None = None

    @property
    def summary_file_name(self) -> str:
        """Codex's own name for this thread's summary (``rollout_summary_file_stem``)."""
        return f"{rollout_summary_file_stem(self.thread_id, self.updated_at, self.slug)}.md"


@dataclass(frozen=True)
class ExportTask:
    """A ``## Task <n>`` of a task group: title, keywords, and the threads it came from."""

    title: str
    keywords: tuple[str, ...]
    threads: tuple[ExportThread, ...] = ()


@dataclass(frozen=True)
class ExportGroup:
    """A ``# Task Group:`` block of MEMORY.md (memtui writes one per project)."""

    name: str
    scope: str
    cwd: str
    reuse_rule: str
    tasks: tuple[ExportTask, ...]
    preferences: tuple[str, ...] = ()
    knowledge: tuple[str, ...] = ()


def one_line(text: str) -> str:
    """Whitespace (newlines included) collapsed to single spaces, trimmed."""
    return " ".join(str(text).split())


def _keywords(keywords: Sequence[str]) -> str:
    """The keywords as one ``a, b`` line (commas inside one become spaces)."""
    words = (one_line(text.replace(",", " ")) for text in keywords)
    return ", ".join(word for word in words if word)


def _bullet(text: str) -> str:
    lines = [line.strip() for line in str(text).strip().splitlines() if line.strip()]
    return "\n".join([f"- {lines[0]}", *(f"  {line}" for line in lines[1:])]) if lines else "-"


def _bullets(items: Sequence[str]) -> str:
    return "\n".join(_bullet(item) for item in items) if items else EMPTY_SECTION_TEXT


def _body(text: str, structural: re.Pattern[str]) -> str:
    """Body text, with lines that would read as the file's structure indented by one."""
    lines = str(text).strip("\n").splitlines()
    return "\n".join(f" {line}" if structural.match(line) else line for line in lines)


def render_memory_summary(summary: ExportSummary) -> str:
    """``memory_summary.md``: first line exactly ``v1``, then the user profile, the
    preferences, the general tips, what is in memory (by scope and day), no older topics."""
    parts = [
        SUMMARY_VERSION_LINE, "",
        f"## {USER_PROFILE}", "",
        _body(summary.user_profile, _SECTION_LINE_RE) or EMPTY_PROFILE_TEXT, "",
        f"## {USER_PREFERENCES}", "", _bullets(summary.preferences), "",
        f"## {GENERAL_TIPS}", "", _bullets(summary.general_tips), "",
        f"## {WHATS_IN_MEMORY}", "",
    ]
    scope = day = None
    for topic in summary.topics:
        if topic.scope != scope:
            scope, day = topic.scope, None
            parts.extend([f"### {one_line(topic.scope) or 'general'}", ""])
        if topic.day != day:
            day = topic.day
            parts.extend([f"#### {one_line(topic.day) or 'undated'}", ""])
        name = one_line(topic.topic).replace(":", " -") or "topic"
        parts.append(f"- {name}: {_keywords(topic.keywords)}")
    if summary.topics:
        parts.append("")
    parts.extend([f"### {OLDER_TOPICS}", "", EMPTY_SECTION_TEXT, ""])
    return "\n".join(parts)


def _link(thread: ExportThread) -> str:
    details = (f"cwd={one_line(thread.cwd)}, rollout_path={one_line(thread.rollout_path)}, "
               f"updated_at={to_rfc3339(thread.updated_at)}, "
               f"thread_id={one_line(thread.thread_id)}")
    return f"- {ROLLOUT_SUMMARIES_DIR}/{thread.summary_file_name} ({details})"


def _group(group: ExportGroup) -> list[str]:
    lines = [
        f"{TASK_GROUP_PREFIX} {one_line(group.name) or 'untitled'}", "",
        f"scope: {one_line(group.scope)}",
        f"applies_to: cwd={one_line(group.cwd)}; reuse_rule={one_line(group.reuse_rule)}", "",
    ]
    for number, task in enumerate(group.tasks, start=1):
        keywords = _keywords(task.keywords)
        lines.extend([f"## Task {number}: {one_line(task.title)}", "",
                      "### rollout_summary_files", ""])
        lines.extend(_link(thread) for thread in task.threads)
        if task.threads:
            lines.append("")
        lines.extend(["### keywords", ""])
        if keywords:
            lines.extend([f"- {keywords}", ""])
    for heading, items in ((PREFERENCES_HEADING, group.preferences),
                           (KNOWLEDGE_HEADING, group.knowledge)):
        if items:
            lines.extend([f"## {heading}", "", *(_bullet(item) for item in items), ""])
    return lines


def render_memory_md(task_groups: Sequence[ExportGroup]) -> str:
    """MEMORY.md: one ``# Task Group:`` block per group, tasks first, then guidance."""
    lines = [line for group in task_groups for line in _group(group)]
    return "\n".join(lines).rstrip("\n") + "\n" if lines else ""


def render_raw_memory(front_matter: Mapping[str, str], body: str) -> str:
    """A raw memory: ``---`` front matter (``description``, ``task``, ...), then the body."""
    return "\n".join([FRONT_MATTER_FENCE, *(f"{one_line(key)}: {one_line(value)}"
                                            for key, value in front_matter.items()),
                      FRONT_MATTER_FENCE, "", str(body).strip("\n")])


def render_raw_memories(threads: Sequence[ExportThread]) -> str:
    """``raw_memories.md``: threads in ascending id order, or "No raw memories yet."."""
    if not threads:
        return f"{RAW_MEMORIES_TITLE}\n\n{NO_RAW_MEMORIES}\n"
    parts = [RAW_MEMORIES_TITLE, "", RAW_MEMORIES_ORDER_LINE, ""]
    for thread in sorted(threads, key=lambda item: item.thread_id):
        parts.extend([
            f"## Thread `{one_line(thread.thread_id).replace('`', '')}`",
            f"updated_at: {to_rfc3339(thread.updated_at)}",
            f"cwd: {one_line(thread.cwd)}",
            f"rollout_path: {one_line(thread.rollout_path)}",
            f"rollout_summary_file: {thread.summary_file_name}",
            "",
            _body(thread.raw_memory, _THREAD_LINE_RE),
            "",
        ])
    return "\n".join(parts)


def render_rollout_summary(thread: ExportThread) -> str:
    """A rollout summary file: header lines, a blank line, the summary markdown."""
    lines = [f"thread_id: {one_line(thread.thread_id)}",
             f"updated_at: {to_rfc3339(thread.updated_at)}",
             f"rollout_path: {one_line(thread.rollout_path)}",
             f"cwd: {one_line(thread.cwd)}", "", str(thread.rollout_summary).strip("\n"), ""]
    return "\n".join(lines)


def render_export(summary: ExportSummary, task_groups: Sequence[ExportGroup],
                  threads: Sequence[ExportThread]) -> dict[str, str]:
    """Every file of an exported memories folder, keyed by path relative to that folder."""
    return {MEMORY_SUMMARY_FILE: render_memory_summary(summary),
            MEMORY_MD_FILE: render_memory_md(task_groups),
            RAW_MEMORIES_FILE: render_raw_memories(threads),
            **{f"{ROLLOUT_SUMMARIES_DIR}/{thread.summary_file_name}": render_rollout_summary(thread)
               for thread in threads}}


def _relative(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or not path.parts or any(part in ("", ".", "..")
                                                   for part in path.parts):
        raise UnsafePath(f"{name!r}: not a plain relative path inside the export")
    return path


def new_folder_refusal(target: Path) -> str | None:
    """Why an export (Codex, Claude Code, Gemini CLI) cannot go into ``target`` (a symlink, a
    file, a folder that is not empty, or no folder to make it in); None when it can."""
    if target.is_symlink():
        return f"{target}: is a symlink; an export only goes into a new folder"
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        return (f"{target}: already exists and is not an empty folder; an export only goes "
                "into a new folder")
    if not target.parent.is_dir():
        return f"{target.parent}: folder does not exist"
    return None


def _check_target(target: Path) -> None:
    refusal = new_folder_refusal(target)
    if refusal is not None:
        raise (UnsafePath if target.is_symlink() else CodexError)(refusal)


def write_export(target: str | os.PathLike[str], files: Mapping[str, str]) -> Path:
    """Write ``files`` (relative path -> text) as a new folder ``target``; return it."""
    final = Path(target).absolute()
    _check_target(final)
    staging = final.parent / f".{final.name}.memtui-export-{secrets.token_hex(6)}"
    try:
        os.mkdir(staging, NEW_DIR_MODE)
        for name, text in files.items():
            path = staging.joinpath(*_relative(name).parts)
            path.parent.mkdir(mode=NEW_DIR_MODE, parents=True, exist_ok=True)
            write_new_file(path, text.encode("utf-8"), NEW_FILE_MODE)
        _check_target(final)
        os.rename(staging, final)
    except (OSError, CodexError, UnsafePath) as error:
        with contextlib.suppress(OSError):
            shutil.rmtree(staging)
        if isinstance(error, OSError):
            raise CodexError(f"{final}: export failed ({error.strerror or error}); "
                             "nothing was written") from None
        raise
    return final
