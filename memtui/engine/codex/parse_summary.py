"""Parser of ``memory_summary.md``: the exact ``v1`` first line, sections and topic map."""

from __future__ import annotations

import re

from memtui.engine.codex.markdown import bullets, heading_re, split_keywords
from memtui.engine.codex.models import Problem, Summary, SummarySection, SummaryTopic

SUMMARY_VERSION_LINE = "v1"
"""The exact first line of a current ``memory_summary.md``."""
USER_PROFILE = "User Profile"
USER_PREFERENCES = "User preferences"
GENERAL_TIPS = "General Tips"
WHATS_IN_MEMORY = "What's in Memory"
OLDER_TOPICS = "Older Memory Topics"

_SECTION_RE, _SCOPE_RE, _DAY_RE = heading_re(2), heading_re(3), heading_re(4)
_TOPIC_RE = re.compile(r"^- ([^:]+?):\s*(.*)$")
_DETAIL_RE = re.compile(r"^\s+- (desc|learnings):\s*(.*)$")


def _sections(lines: list[str]) -> list[SummarySection]:
    sections: list[SummarySection] = []
    title: str | None = None
    body: list[str] = []
    for line in lines:
        match = _SECTION_RE.match(line)
        if match and match.group(1):
            if title is not None:
                sections.append(SummarySection(title, "\n".join(body).strip("\n")))
            title, body = match.group(1), []
        elif title is not None:
            body.append(line)
    if title is not None:
        sections.append(SummarySection(title, "\n".join(body).strip("\n")))
    return sections


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
            key, value = detail.group(1), detail.group(2).strip()
            last = topics[-1]
            topics[-1] = SummaryTopic(last.scope, last.day, last.topic, last.keywords,
                                      value if key == "desc" else last.desc,
                                      value if key == "learnings" else last.learnings)
    return topics, bullets(older)


def parse_memory_summary(text: str, path: str = "memory_summary.md"
                         ) -> tuple[Summary, list[Problem]]:
    """Parse ``memory_summary.md``. Never raises; defects come back as ``Problem``s.

    A file whose first line is not exactly ``v1`` is still parsed, with ``valid_v1`` False
    and a problem (Codex rewrites such a file whole).
    """
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
