"""Parsers of Codex's memory files (``memory_summary.md``, ``MEMORY.md``, ``raw_memories.md``,
a rollout summary): each takes the text and its path and never raises; defects come back as
``Problem``s and the rest is still read.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import PurePath

from memtui.engine.codex.models import (
    Problem,
    RawMemory,
    RolloutSummary,
    RolloutSummaryLink,
    Summary,
    SummarySection,
    SummaryTopic,
    Task,
    TaskGroup,
)
from memtui.engine.codex.timefmt import normalize_time

_BULLET_RE = re.compile(r"^- (.*)$")
_HEADER_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):\s?(.*)$")


def heading_re(level: int) -> re.Pattern[str]:
    """A level-``level`` Markdown heading (not a deeper one); group 1 is its trimmed title."""
    return re.compile(rf"^{'#' * level} (?!#)(.*?)\s*$")


def first_line(text: str) -> str:
    """The first non-blank line, stripped ("" when there is none)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def split_keywords(text: str) -> tuple[str, ...]:
    """Comma-separated keywords, trimmed, empties dropped."""
    return tuple(item.strip() for item in text.split(",") if item.strip())


def bullets(lines: list[str]) -> list[str]:
    """The ``- item`` bullets of the lines; a non-blank line that is not a bullet continues
    the bullet before it (joined by a newline)."""
    items: list[str] = []
    for line in lines:
        match = _BULLET_RE.match(line)
        if match:
            items.append(match.group(1).strip())
        elif line.strip() and items:
            items[-1] = f"{items[-1]}\n{line.strip()}"
    return items


Blocks = list[tuple[int, re.Match[str], list[str]]]


def _blocks(lines: list[str], heading: re.Pattern[str], start: int = 1
            ) -> tuple[list[str], Blocks]:
    """The lines before the first ``heading`` line, and each ``heading`` line (its number
    counted from ``start``, its match) with the lines below it up to the next one."""
    preamble: list[str] = []
    blocks: Blocks = []
    for number, line in enumerate(lines, start=start):
        match = heading.match(line)
        if match:
            blocks.append((number, match, []))
        else:
            (blocks[-1][2] if blocks else preamble).append(line)
    return preamble, blocks


def header_lines(lines: list[str], keys: tuple[str, ...] | None = None,
                 limit: int | None = None) -> tuple[dict[str, str], int]:
    """The ``key: value`` lines at the top (the first of each key wins; only ``keys`` when
    given; at most ``limit``), up to the first blank or other line, and where the rest starts."""
    headers: dict[str, str] = {}
    index = 0
    end = len(lines) if limit is None else min(len(lines), limit)
    while index < end:
        match = _HEADER_RE.match(lines[index])
        if not match or (keys is not None and match.group(1) not in keys):
            break
        headers.setdefault(match.group(1), match.group(2).strip())
        index += 1
    return headers, index


SUMMARY_VERSION_LINE = "v1"
"""The exact first line of a current ``memory_summary.md``."""
USER_PROFILE = "User Profile"
USER_PREFERENCES = "User preferences"
GENERAL_TIPS = "General Tips"
WHATS_IN_MEMORY = "What's in Memory"
OLDER_TOPICS = "Older Memory Topics"

_SCOPE_RE, _DAY_RE = heading_re(3), heading_re(4)
_SECTION_RE = re.compile(r"^## (?!#)(.*?\S)\s*$")
"""A ``## <title>`` section heading with a title (group 1, trimmed)."""
_TOPIC_RE = re.compile(r"^- ([^:]+?):\s*(.*)$")
_DETAIL_RE = re.compile(r"^\s+- (desc|learnings):\s*(.*)$")


def _sections(lines: list[str]) -> list[SummarySection]:
    return [SummarySection(match.group(1), "\n".join(body).strip("\n"))
            for _number, match, body in _blocks(lines, _SECTION_RE)[1]]


def _topics(body: str, path: str, problems: list[Problem]
            ) -> tuple[list[SummaryTopic], list[str]]:
    topics: list[SummaryTopic] = []
    older: list[str] = []
    scope = day = ""
    in_older = False
    for number, line in enumerate(body.splitlines(), start=1):
        scope_match, day_match = _SCOPE_RE.match(line), _DAY_RE.match(line)
        if scope_match and scope_match.group(1):
            scope, day = scope_match.group(1), ""
            in_older = scope.casefold() == OLDER_TOPICS.casefold()
            continue
        if day_match and day_match.group(1):
            day = day_match.group(1)
            continue
        if in_older:
            older.append(line)
            continue
        topic = _TOPIC_RE.match(line)
        if topic:
            if not scope:
                problems.append(Problem(path, f"{WHATS_IN_MEMORY}: topic outside a "
                                              f"'### <scope>' group (section line {number})"))
            topics.append(SummaryTopic(scope, day, topic.group(1).strip(),
                                       split_keywords(topic.group(2))))
            continue
        detail = _DETAIL_RE.match(line)
        if detail and topics:
            value = detail.group(2).strip()
            topics[-1] = (replace(topics[-1], desc=value) if detail.group(1) == "desc"
                          else replace(topics[-1], learnings=value))
    return topics, bullets(older)


def parse_memory_summary(text: str, path: str = "memory_summary.md"
                         ) -> tuple[Summary, list[Problem]]:
    """Parse ``memory_summary.md``; one whose first line is not exactly ``v1`` is still
    parsed, with ``valid_v1`` False and a problem (Codex rewrites such a file whole)."""
    lines = text.splitlines()
    problems: list[Problem] = []
    valid = bool(lines) and lines[0] == SUMMARY_VERSION_LINE
    if not valid:
        first = lines[0][:40] if lines else ""
        problems.append(Problem(path, f"first line is not exactly '{SUMMARY_VERSION_LINE}' "
                                      f"(found {first!r})", 1))
    sections = _sections(lines[1:] if valid else lines)
    topics: list[SummaryTopic] = []
    older: list[str] = []
    for section in sections:
        if section.title.casefold() == WHATS_IN_MEMORY.casefold():
            found, older_found = _topics(section.body, path, problems)
            topics.extend(found)
            older.extend(older_found)
    return Summary(valid, tuple(sections), tuple(topics), tuple(older)), problems


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
_LINK_THREAD_RE = re.compile(r"thread_id=([^,\s)]+)")


def parse_link(text: str) -> RolloutSummaryLink:
    """Parse ``rollout_summaries/<file>.md (cwd=..., thread_id=...)`` into a link."""
    match = _LINK_RE.match(text.strip())
    if not match:
        return RolloutSummaryLink(path=text.strip())
    details = (match.group(2) or "").strip()
    thread = _LINK_THREAD_RE.search(details)
    return RolloutSummaryLink(match.group(1), details, thread.group(1) if thread else None)


def _task(number: int, task: re.Match[str], lines: list[str], group: str, path: str,
          problems: list[Problem]) -> Task:
    """A ``## Task <n>`` section: its rollout summary files and keywords, the rest verbatim."""
    extra, subsections = _blocks(lines, _H3_RE)
    found: dict[str, list[str]] = {}
    for _number, heading, body in subsections:
        key = heading.group(1).strip().casefold()
        if key in (ROLLOUT_FILES_HEADING, KEYWORDS_HEADING):
            found.setdefault(key, []).extend(body)
        else:
            extra += [heading.string, *body]
    for key in (ROLLOUT_FILES_HEADING, KEYWORDS_HEADING):
        if key not in found:
            problems.append(Problem(path, f"task group {group!r}, Task {int(task.group(1))}: "
                                          f"no '### {key}' section", number))
    links = tuple(parse_link(item) for item in bullets(found.get(ROLLOUT_FILES_HEADING, [])))
    keywords = tuple(word for item in bullets(found.get(KEYWORDS_HEADING, []))
                     for word in split_keywords(item.replace("\n", " ")))
    return Task(int(task.group(1)), task.group(2).strip(), links, keywords,
                "\n".join(extra).strip("\n"))


def _parse_sections(name: str, lines: list[str], start: int, path: str,
                    problems: list[Problem]) -> tuple[list[Task], dict[str, list[str]]]:
    """The ``##`` sections of a task group's body (its first line numbered ``start``)."""
    preamble, sections = _blocks(lines, _H2_RE, start)
    stray = next((number for number, line in enumerate(preamble, start) if line.strip()), None)
    if stray is not None:
        problems.append(Problem(path, f"task group {name!r}: text outside any '##' section "
                                      "ignored", stray))
    tasks: list[Task] = []
    block_lists: dict[str, list[str]] = {}
    for number, heading, body in sections:
        task = _TASK_RE.match(heading.group(1))
        if task:
            tasks.append(_task(number, task, body, name, path, problems))
        else:
            block_lists.setdefault(heading.group(1).casefold(), []).extend(body)
    return tasks, block_lists


def _parse_block(start: int, heading: str, lines: list[str], path: str,
                 problems: list[Problem]) -> TaskGroup | None:
    if not heading.startswith(TASK_GROUP_PREFIX) or not heading[len(TASK_GROUP_PREFIX):].strip():
        problems.append(Problem(path, f"heading is not '{TASK_GROUP_PREFIX} <name>'; "
                                      "block skipped", start))
        return None
    name = heading[len(TASK_GROUP_PREFIX):].strip()
    rest = list(enumerate(lines, start + 1))
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
    tasks, lists = _parse_sections(name, lines[header[1][0] - start:], header[1][0] + 1, path,
                                   problems)
    preferences, knowledge, failures = (
        tuple(bullets(lists.get(heading.casefold(), [])))
        for heading in (PREFERENCES_HEADING, KNOWLEDGE_HEADING, FAILURES_HEADING))
    return TaskGroup(name, scope, applies_to, applies.group(1).strip() if applies else None,
                     applies.group(2).strip() if applies else None, tuple(tasks), preferences,
                     knowledge, failures, start)


def parse_memory_md(text: str, path: str = "MEMORY.md") -> tuple[list[TaskGroup], list[Problem]]:
    """Parse MEMORY.md into task groups; a block not starting ``# Task Group: <name>``,
    ``scope: ...``, ``applies_to: ...`` is reported and skipped."""
    problems: list[Problem] = []
    lines = text.splitlines()
    preamble, blocks = _blocks(lines, _H1_RE)
    if any(line.strip() for line in preamble):
        problems.append(Problem(path, f"text before the first '{TASK_GROUP_PREFIX}' ignored", 1))
    groups = [group for start, match, body in blocks
              if (group := _parse_block(start, match.string, body, path, problems)) is not None]
    return groups, problems


RAW_MEMORIES_TITLE = "# Raw Memories"
NO_RAW_MEMORIES = "No raw memories yet."
THREAD_HEADER_KEYS = ("updated_at", "cwd", "rollout_path", "rollout_summary_file")
FRONT_MATTER_FENCE = "---"
MAX_FRONT_MATTER_LINES = 64

_THREAD_HEADING_RE = re.compile(r"^## Thread `([^`]+)`\s*$")
_FRONT_MATTER_RE = re.compile(r"^([a-z_]+):\s?(.*)$")


def _front_matter(body: str) -> tuple[list[str], int]:
    """A raw memory's lines and the index of the ``---`` closing its leading front matter
    (0 when it has none)."""
    lines = body.lstrip("\n").splitlines()
    if lines and lines[0].strip() == FRONT_MATTER_FENCE:
        for index, line in enumerate(lines[1:MAX_FRONT_MATTER_LINES], start=1):
            if line.strip() == FRONT_MATTER_FENCE:
                return lines, index
    return lines, 0


def parse_front_matter(body: str) -> dict[str, str]:
    """The ``key: value`` lines between leading ``---`` fences of a raw memory, else {}."""
    lines, end = _front_matter(body)
    found: dict[str, str] = {}
    for match in filter(None, map(_FRONT_MATTER_RE.match, lines[1:end])):
        found.setdefault(match.group(1), match.group(2).strip())
    return found


def strip_front_matter(body: str) -> str:
    """A raw memory without its leading ``---`` front matter block (if it has one)."""
    lines, end = _front_matter(body)
    return "\n".join(lines[end + 1:]).strip() if end else body.strip()


def _given(headers: dict[str, str], *keys: str) -> dict[str, str | None]:
    """The header lines of ``keys`` (None when absent or empty)."""
    return {key: headers.get(key) or None for key in keys}


def _thread(thread_id: str, lines: list[str]) -> RawMemory:
    headers, index = header_lines(lines, THREAD_HEADER_KEYS)
    body = "\n".join(lines[index:]).strip("\n")
    return RawMemory(thread_id, normalize_time(headers.get("updated_at")),
                     **_given(headers, *THREAD_HEADER_KEYS[1:]),
                     front_matter=parse_front_matter(body), body=body)


def parse_raw_memories(text: str, path: str = "raw_memories.md"
                       ) -> tuple[list[RawMemory], list[Problem]]:
    """Parse ``raw_memories.md``; a repeated thread id is reported and its first entry kept."""
    problems: list[Problem] = []
    lines = text.splitlines()
    if first_line(text) != RAW_MEMORIES_TITLE:
        problems.append(Problem(path, f"does not start with '{RAW_MEMORIES_TITLE}'", 1))
    threads: list[RawMemory] = []
    seen: set[str] = set()
    for number, match, chunk in _blocks(lines, _THREAD_HEADING_RE)[1]:
        thread_id = match.group(1).strip()
        if thread_id in seen:
            problems.append(Problem(path, f"thread {thread_id!r} repeated; later entry "
                                          "skipped", number))
            continue
        seen.add(thread_id)
        threads.append(_thread(thread_id, chunk))
    return threads, problems


MAX_HEADER_LINES = 32


def read_headers(text: str) -> dict[str, str]:
    """The ``key: value`` lines at the top of a summary, up to the first blank line."""
    return header_lines(text.splitlines(), limit=MAX_HEADER_LINES)[0]


def parse_rollout_summary(text: str, file: str) -> tuple[RolloutSummary | None, list[Problem]]:
    """Parse one rollout summary; without ``thread_id:`` it is skipped."""
    lines = text.splitlines()
    headers, index = header_lines(lines, limit=MAX_HEADER_LINES)
    thread_id = headers.get("thread_id", "")
    if not thread_id:
        return None, [Problem(file, "no 'thread_id:' header line; skipped", 1)]
    body = "\n".join(lines[index:]).strip("\n")
    return RolloutSummary(thread_id, normalize_time(headers.get("updated_at")),
                          **_given(headers, "rollout_path", "cwd", "git_branch"), body=body,
                          file=PurePath(file).name), []
