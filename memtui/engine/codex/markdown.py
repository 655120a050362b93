"""Line helpers the Codex memory-file parsers share: headings, bullets, ``key: value`` headers."""

from __future__ import annotations

import re

_BULLET_RE = re.compile(r"^- (.*)$")
_HEADER_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):\s?(.*)$")


def heading_re(level: int) -> re.Pattern[str]:
    """A level-``level`` Markdown heading (not a deeper one); group 1 is its trimmed title."""
    return re.compile(rf"^{'#' * level} (?!#)(.*?)\s*$")


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
