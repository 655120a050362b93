"""Front matter of a memory topic file: ``---`` lines around ``key: value`` pairs.

Only flat ``key: value`` pairs are read (the keys Claude Code writes: ``name``,
``description``, ``type``); quoted values lose their quotes, unknown keys are kept, and a
block that never closes or holds a line that is not ``key: value`` is "broken": the file is
still read, with the whole text as its body, and the reason is returned.
"""

from __future__ import annotations

import re

FENCE = "---"
MAX_FRONT_MATTER_LINES = 60
"""A front matter block longer than this is taken as not closed."""
TOPIC_TYPES = ("user", "feedback", "project", "reference")
"""The memory types Claude Code writes in a topic file's ``type``."""
_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*)$")


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def split_front_matter(text: str) -> tuple[dict[str, str], str, str | None]:
    """(front matter, body, problem): the problem is None unless the block is broken."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != FENCE:
        return {}, text, None
    fields: dict[str, str] = {}
    for index, line in enumerate(lines[1:MAX_FRONT_MATTER_LINES + 1], start=1):
        if line.strip() == FENCE:
            return fields, "\n".join(lines[index + 1:]).lstrip("\n"), None
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY_RE.match(line)
        if match is None:
            if line.startswith((" ", "\t", "- ")) and fields:
                continue  # a nested value or a list item: tolerated, not read
            return {}, text, f"broken front matter (line {index + 1} is not 'key: value')"
        fields[match.group(1)] = _unquote(match.group(2))
    return {}, text, "broken front matter (the '---' block never closes)"


def render_front_matter(fields: dict[str, str]) -> str:
    """A ``---`` block for ``fields`` (values on one line each)."""
    lines = [FENCE]
    for key, value in fields.items():
        flat = " ".join(str(value).split())
        lines.append(f"{key}: {flat}")
    lines.append(FENCE)
    return "\n".join(lines) + "\n"
