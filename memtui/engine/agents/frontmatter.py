"""Front matter of a memory topic file: ``---`` lines around ``key: value`` pairs.

Claude Code 2.1 nests ``type`` under ``metadata:``; older files write it flat. A nested
``parent: key: value`` is read as the field ``parent.key``; lists, deeper nesting and lines
memtui cannot read are kept in the file and reported. Writers never render a block again:
``FrontMatter.head`` is the block byte for byte, so an edit of the body keeps every key,
its quoting and line endings. A block that never closes leaves the whole text as the body.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FENCE = "---"
MAX_FRONT_MATTER_LINES = 60
"""A front matter block longer than this is taken as not closed."""
TOPIC_TYPES = ("user", "feedback", "project", "reference")
"""The memory types Claude Code writes in a topic file's ``type``."""
METADATA_KEY = "metadata"
"""The mapping Claude Code 2.1 nests ``type`` (and its own keys) under."""
TYPE_KEY = "type"
NESTED_TYPE_KEY = f"{METADATA_KEY}.{TYPE_KEY}"
CRLF = "\r\n"
BLOCK_SCALARS = frozenset({"|", ">", "|-", ">-", "|+", ">+"})
KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:(?:\s+(.*)|\s*)$")
COMMENT_RE = re.compile(r"\s+#.*$")
_BLANK_LINES_RE = re.compile(r"(?:[ \t]*\r?\n)*")


def unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        inner = value[1:-1]
        return inner.replace("''", "'") if value[0] == "'" else inner.replace('\\"', '"')
    return COMMENT_RE.sub("", value)


def _flow_mapping(value: str) -> dict[str, str] | None:
    """``{a: b, c: d}`` read as a mapping of plain values; None when it is not that simple."""
    inner = value.strip()[1:-1]
    if any(mark in inner for mark in "{}[]\"'"):
        return None
    pairs: dict[str, str] = {}
    for part in filter(None, (piece.strip() for piece in inner.split(","))):
        key, colon, item = part.partition(":")
        if not colon or not key.strip():
            return None
        pairs[key.strip()] = item.strip()
    return pairs


@dataclass(frozen=True)
class FrontMatter:
    """A memory file split into its front matter and body; ``head``: the block as it is in
    the file, through the blank lines after it ('' without a closed block)."""

    fields: dict[str, str] = field(default_factory=dict)
    body: str = ""
    head: str = ""
    problem: str | None = None

    @property
    def closed(self) -> bool:
        """Whether the file has a closed ``---`` block (a writer keeps ``head`` as it is)."""
        return bool(self.head)

    @property
    def newline(self) -> str:
        """The block's line ending (``\\r\\n`` when its first line ends so, else ``\\n``)."""
        return CRLF if self.head.startswith(FENCE) and self.head.split("\n", 1)[0].endswith(
            "\r") else "\n"

    def with_body(self, body: str) -> str:
        """The file with ``body`` in place of its body, the head kept byte for byte."""
        if not self.closed:
            return body
        head = self.head
        if not head.endswith("\n"):
            head += self.newline * 2  # a closing fence at the very end of the file
        if self.newline == CRLF:
            body = body.replace(CRLF, "\n").replace("\n", CRLF)
        return head + body


def _block_end(lines: list[str]) -> int | None:
    """The index of the closing fence line, or None."""
    return next((index for index, line in enumerate(lines[1:MAX_FRONT_MATTER_LINES + 1], 1)
                 if line.strip() == FENCE), None)


def _read_block(lines: list[str]) -> tuple[dict[str, str], str | None]:
    """(fields, the first problem) of the lines between the fences."""
    fields: dict[str, str] = {}
    problem: str | None = None
    parent: str | None = None
    child_indent = ""
    scalar: tuple[str, str, list[str]] | None = None  # key, indicator, lines

    def finish_scalar() -> None:
        nonlocal scalar
        if scalar is not None:
            key, indicator, parts = scalar
            fields[key] = ("\n" if indicator.startswith("|") else " ").join(parts).strip()
            scalar = None

    for number, raw in enumerate(lines, start=2):
        line = raw.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indented = line[0] in " \t"
        if indented and scalar is not None:
            scalar[2].append(line.strip())
            continue
        finish_scalar()
        stripped = line.strip()
        match = KEY_RE.match(stripped)
        if indented:
            indent = line[:len(line) - len(line.lstrip())]
            child_indent = child_indent or indent
            if parent is not None and match is not None and indent == child_indent and \
                    match.group(2) is not None:
                fields[f"{parent}.{match.group(1)}"] = unquote(match.group(2))
            # a deeper level, a list item, a continued value: kept in the file, not read
            continue
        child_indent = ""
        if stripped.startswith("- ") or stripped == "-":
            continue  # an item of the list the key above holds
        if match is None:
            problem = problem or f"line {number} of the front matter is not 'key: value'"
            parent = None
            continue
        key, value = match.group(1), (match.group(2) or "").strip()
        parent = None
        if not value:
            parent = key  # a mapping (or a list) follows, indented
        elif value in BLOCK_SCALARS:
            scalar = (key, value, [])
        elif value.startswith("{") and value.endswith("}"):
            pairs = _flow_mapping(value)
            if pairs is None:
                problem = problem or f"line {number} of the front matter is not read"
            for name, item in (pairs or {}).items():
                fields[f"{key}.{name}"] = unquote(item)
        else:
            fields[key] = unquote(value)
    finish_scalar()
    return fields, problem


def parse_front_matter(text: str) -> FrontMatter:
    """Split ``text`` into front matter and body (see the module doc)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != FENCE:
        return FrontMatter(body=text)
    end = _block_end(lines)
    if end is None:
        return FrontMatter(body=text, problem="broken front matter (the '---' block never "
                                              "closes)")
    fields, problem = _read_block(lines[1:end])
    broken = f"broken front matter ({problem})" if problem else None
    if end == len(lines) - 1:  # the closing fence ends the file without a newline
        return FrontMatter(fields, "", text, broken)
    offset = sum(len(line) + 1 for line in lines[:end + 1])
    blank = _BLANK_LINES_RE.match(text, offset)
    cut = blank.end() if blank else offset
    return FrontMatter(fields, text[cut:], text[:cut], broken)


def topic_type(fields: dict[str, str]) -> str | None:
    """A topic's type: the nested ``metadata.type``, else the flat ``type`` (empty: None)."""
    return fields.get(NESTED_TYPE_KEY) or fields.get(TYPE_KEY) or None


def render_front_matter(fields: dict[str, str]) -> str:
    """A new ``---`` block for ``fields`` (one line each), for files memtui creates."""
    lines = [f"{key}: {' '.join(str(value).split())}" for key, value in fields.items()]
    return "\n".join([FENCE, *lines, FENCE]) + "\n"
