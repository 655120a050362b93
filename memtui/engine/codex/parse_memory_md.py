"""Parser of ``MEMORY.md``: task groups, their tasks, keywords and rollout summary links.

A block must start ``# Task Group: <name>``, then ``scope: ...``, then ``applies_to: ...``.
A block that does not is reported and skipped; the other blocks are still read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memtui.engine.codex.markdown import bullets, heading_re, split_keywords
from memtui.engine.codex.models import Problem, RolloutSummaryLink, Task, TaskGroup

TASK_GROUP_PREFIX = "# Task Group:"
SCOPE_PREFIX = "scope:"
APPLIES_TO_PREFIX = "applies_to:"
ROLLOUT_FILES_HEADING = "rollout_summary_files"
KEYWORDS_HEADING = "keywords"
PREFERENCES_HEADING = "User preferences"
KNOWLEDGE_HEADING = "Reusable knowledge"
FAILURES_HEADING = "Failures and how to do differently"

_H1_RE = re.compile(r"^# (?!#)")
_H2_RE, _H3_RE = heading_re(2), heading_re(3)
_TASK_RE = re.compile(r"^Task (\d{1,9}):\s*(.*)$")
_APPLIES_RE = re.compile(r"^cwd=(.*?);\s*reuse_rule=(.*)$")
_LINK_RE = re.compile(r"^`?<?([^\s()<>`]+)>?`?(?:\s+\((.*)\))?\s*$")
_THREAD_RE = re.compile(r"thread_id=([^,\s)]+)")


def parse_link(text: str) -> RolloutSummaryLink:
    """Parse ``rollout_summaries/<file>.md (cwd=..., thread_id=...)`` into a link."""
    match = _LINK_RE.match(text.strip())
    if not match:
        return RolloutSummaryLink(path=text.strip())
    details = (match.group(2) or "").strip()
    thread = _THREAD_RE.search(details)
    return RolloutSummaryLink(match.group(1), details, thread.group(1) if thread else None)


@dataclass
class _TaskDraft:
    number: int
    title: str
    line: int
    subsections: dict[str, list[str]] = field(default_factory=dict)
    extra: list[str] = field(default_factory=list)


def _build_task(draft: _TaskDraft, group: str, path: str, problems: list[Problem]) -> Task:
    for heading in (ROLLOUT_FILES_HEADING, KEYWORDS_HEADING):
        if heading not in draft.subsections:
            problems.append(Problem(path, f"task group {group!r}, Task {draft.number}: "
                                          f"no '### {heading}' section", draft.line))
    links = tuple(parse_link(item) for item in
                  bullets(draft.subsections.get(ROLLOUT_FILES_HEADING, [])))
    keywords: list[str] = []
    for item in bullets(draft.subsections.get(KEYWORDS_HEADING, [])):
        keywords.extend(split_keywords(item.replace("\n", " ")))
    return Task(draft.number, draft.title, links, tuple(keywords),
                "\n".join(draft.extra).strip("\n"))


def _parse_sections(name: str, lines: list[tuple[int, str]], path: str,
                    problems: list[Problem]) -> tuple[list[Task], dict[str, list[str]]]:
    tasks: list[Task] = []
    block_lists: dict[str, list[str]] = {}
    draft: _TaskDraft | None = None
    current: list[str] | None = None
    for number, line in lines:
        h2 = _H2_RE.match(line)
        if h2:
            if draft:
                tasks.append(_build_task(draft, name, path, problems))
                draft = None
            task = _TASK_RE.match(h2.group(1))
            if task:
                draft = _TaskDraft(int(task.group(1)), task.group(2).strip(), number)
                current = draft.extra
            else:
                current = block_lists.setdefault(h2.group(1).casefold(), [])
            continue
        h3 = _H3_RE.match(line)
        if h3 and draft is not None:
            key = h3.group(1).strip().casefold()
            if key in (ROLLOUT_FILES_HEADING, KEYWORDS_HEADING):
                current = draft.subsections.setdefault(key, [])
            else:
                current = draft.extra
                current.append(line)
            continue
        if current is not None:
            current.append(line)
        elif line.strip():
            problems.append(Problem(path, f"task group {name!r}: text outside any "
                                          "'##' section ignored", number))
            current = []
    if draft:
        tasks.append(_build_task(draft, name, path, problems))
    return tasks, block_lists


def _parse_block(lines: list[tuple[int, str]], path: str,
                 problems: list[Problem]) -> TaskGroup | None:
    start, heading = lines[0]
    if not heading.startswith(TASK_GROUP_PREFIX) or not heading[len(TASK_GROUP_PREFIX):].strip():
        problems.append(Problem(path, f"heading is not '{TASK_GROUP_PREFIX} <name>'; "
                                      "block skipped", start))
        return None
    name = heading[len(TASK_GROUP_PREFIX):].strip()
    rest = [(number, line) for number, line in lines[1:]]
    header = [(number, line) for number, line in rest if line.strip()][:2]
    if (len(header) < 2 or not header[0][1].startswith(SCOPE_PREFIX)
            or not header[1][1].startswith(APPLIES_TO_PREFIX)):
        problems.append(Problem(path, f"task group {name!r} does not continue with "
                                      f"'{SCOPE_PREFIX}' then '{APPLIES_TO_PREFIX}' lines; "
                                      "block skipped", start))
        return None
    scope = header[0][1][len(SCOPE_PREFIX):].strip()
    applies_to = header[1][1][len(APPLIES_TO_PREFIX):].strip()
    applies = _APPLIES_RE.match(applies_to)
    if not applies:
        problems.append(Problem(path, f"task group {name!r}: applies_to is not "
                                      "'cwd=<path>; reuse_rule=<...>'", header[1][0]))
    body = [(number, line) for number, line in rest if number > header[1][0]]
    tasks, lists = _parse_sections(name, body, path, problems)
    return TaskGroup(
        name=name, scope=scope, applies_to=applies_to,
        cwd=applies.group(1).strip() if applies else None,
        reuse_rule=applies.group(2).strip() if applies else None,
        tasks=tuple(tasks),
        preferences=tuple(bullets(lists.get(PREFERENCES_HEADING.casefold(), []))),
        knowledge=tuple(bullets(lists.get(KNOWLEDGE_HEADING.casefold(), []))),
        failures=tuple(bullets(lists.get(FAILURES_HEADING.casefold(), []))),
        line=start,
    )


def parse_memory_md(text: str, path: str = "MEMORY.md") -> tuple[list[TaskGroup], list[Problem]]:
    """Parse MEMORY.md into task groups. Never raises; defects come back as ``Problem``s."""
    problems: list[Problem] = []
    blocks: list[list[tuple[int, str]]] = []
    preamble = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _H1_RE.match(line):
            blocks.append([(number, line)])
        elif blocks:
            blocks[-1].append((number, line))
        elif line.strip():
            preamble = True
    if preamble:
        problems.append(Problem(path, f"text before the first '{TASK_GROUP_PREFIX}' ignored", 1))
    groups = [group for block in blocks
              if (group := _parse_block(block, path, problems)) is not None]
    return groups, problems
