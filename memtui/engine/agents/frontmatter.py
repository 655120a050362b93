"""Front matter of a memory topic file: ``---`` lines around ``key: value`` pairs.

Claude Code 2.1 nests ``type`` under ``metadata:``; older files write it flat. A nested
``parent: key: value`` is read as the field ``parent.key``; lists, deeper nesting and lines
memtui cannot read are kept in the file and reported. Writers never render a block again:
``FrontMatter.head`` is the block byte for byte, so an edit of the body keeps every key,
its quoting and line endings. A block that never closes leaves the whole text as the body.
"""

from __future__ import annotations

import contextlib
import json
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
_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:(?:\s+(.*)|\s*)$")
_COMMENT_RE = re.compile(r"\s+#.*$")
_BLANK_LINES_RE = re.compile(r"(?:[ \t]*\r?\n)*")


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        inner = value[1:-1]
        return inner.replace("''", "'") if value[0] == "'" else inner.replace('\\"', '"')
    return _COMMENT_RE.sub("", value)


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
    for index, line in enumerate(lines[1:MAX_FRONT_MATTER_LINES + 1], start=1):
        if line.strip() == FENCE:
            return index
    return None


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
        match = _KEY_RE.match(stripped)
        if indented:
            indent = line[:len(line) - len(line.lstrip())]
            child_indent = child_indent or indent
            if parent is not None and match is not None and indent == child_indent and \
                    match.group(2) is not None:
                fields[f"{parent}.{match.group(1)}"] = _unquote(match.group(2))
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
                fields[f"{key}.{name}"] = _unquote(item)
        else:
            fields[key] = _unquote(value)
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
    """A topic's type: the nested ``metadata.type``, else the flat ``type``; None when
    neither is set (an empty value is not a type)."""
    return fields.get(NESTED_TYPE_KEY) or fields.get(TYPE_KEY) or None


def render_front_matter(fields: dict[str, str]) -> str:
    """A new ``---`` block for ``fields`` (values on one line each), for files memtui
    creates."""
    lines = [f"{key}: {' '.join(str(value).split())}" for key, value in fields.items()]
    return "\n".join([FENCE, *lines, FENCE]) + "\n"


NODE_TYPE = ("node_type", "memory")
SESSION_KEY = "originSessionId"
_NOT_STRING = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+"
                         r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|true|True|TRUE|false"
                         r"|False|FALSE|null|Null|NULL|~")
"""A plain YAML scalar that is not a string (YAML 1.2's core schema, as Bun reads it)."""
_YAML_11_WORDS = frozenset({"y", "n", "yes", "no", "on", "off"})
_QUOTE_ANYWHERE = frozenset(",[]{}#`'\"")
_QUOTE_FIRST = frozenset("-?:,[]{}#&*!|>'\"%@`<")


def _yaml_text(value: str) -> str:
    """A string as Bun's ``YAML.stringify`` writes it: plain, or double-quoted (JSON escapes)
    when plain would read back as something else."""
    plain = value and value == value.strip() and not _NOT_STRING.fullmatch(value) and \
        value.lower() not in _YAML_11_WORDS and value[0] not in _QUOTE_FIRST and \
        not _QUOTE_ANYWHERE.intersection(value) and ": " not in value and \
        not value.endswith(":") and all(ord(c) >= 32 and c != "\x7f" for c in value)
    return value if plain else json.dumps(value, ensure_ascii=False)


_FALLBACK_QUOTED = re.compile(r"[{}[\]*&#!|>%@`]|: ")
"""A top-level value Claude Code quotes whole when its YAML reader refused the block."""
Scalar = tuple[str, bool]
"""A one-line value and whether it is a string."""


class _Refused(Exception):
    """The block is not YAML Bun reads: Claude Code quotes values and reads it again."""


def _yaml_scalar(raw: str, top: bool, fallback: bool) -> Scalar | None:
    """(value, is a string) of a one-line scalar; None for what only a full YAML reader
    gets right (flow collections, anchors, tags, a quote left open)."""
    if raw[:1] == '"':
        with contextlib.suppress(ValueError):
            return json.loads(raw.strip()), True
        return None
    if raw[:1] == "'":
        return (_unquote(raw), True) if len(raw.strip()) > 1 and raw.strip()[-1] == "'" \
            else None
    if fallback and top and _FALLBACK_QUOTED.search(raw):
        return raw, True
    raw = raw.strip()
    if raw[:1] in ("&", "!") or (raw[:1], raw[-1:]) in (("[", "]"), ("{", "}")):
        return None
    if raw[:1] in "@`|>*%[{" or ": " in raw or raw.endswith(":"):
        raise _Refused
    value = _COMMENT_RE.sub("", raw).strip()
    return value, not _NOT_STRING.fullmatch(value)


def _claude_fields(lines: list[str], fallback: bool
                   ) -> tuple[dict[str, Scalar], dict[str, Scalar]] | None:
    """The top-level values and the ``metadata`` mapping of a front matter block; None when
    it holds more than those (lists, other mappings, block scalars)."""
    top: dict[str, Scalar] = {}
    meta: dict[str, Scalar] = {}
    parent: str | None = None
    for raw in lines:
        line = raw.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY_RE.match(line.strip())
        value = line.split(":", 1)[1].lstrip() if match else ""  # trailing blanks count
        nested = line[0] in " \t"
        scalar = _yaml_scalar(value, not nested, fallback) if value else None
        if match is None or (value and scalar is None) or (nested and (
                parent != METADATA_KEY or scalar is None)) or (not value and (
                nested or match.group(1) != METADATA_KEY)):
            return None
        if nested:
            meta[match.group(1)] = scalar  # type: ignore[assignment]
        elif scalar is None:
            parent = METADATA_KEY
        else:
            parent, top[match.group(1)] = None, scalar
    return top, meta


def claude_memory_text(text: str, session_id: str) -> str:
    """``text`` as Claude Code 2.1's Write and Edit tools save a memory file: ``name`` (a
    slug), ``description``, ``metadata:`` with ``node_type: memory``, every other key, then
    ``originSessionId``. A file with an ``originSessionId``, no front matter, or YAML beyond
    ``key: value`` lines and one ``metadata`` mapping is kept as it is."""
    lines = text.split("\n")
    end = _block_end(lines) if lines[0].rstrip() == FENCE else None
    try:
        read = _claude_fields(lines[1:end], False) if end else None
    except _Refused:
        try:
            read = _claude_fields(lines[1:end], True)
        except _Refused:
            read = None
    if read is None:
        return text
    top, meta = read
    if meta.get(SESSION_KEY, ("", False))[0]:
        return text
    name, named = top.pop("name", ("", False))
    description, described = top.pop("description", ("", False))
    slug = name if re.fullmatch(r"[a-z0-9_-]+", name) else \
        re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    fields = {NODE_TYPE[0]: (NODE_TYPE[1], True), **top, **meta}
    fields[NODE_TYPE[0]] = (NODE_TYPE[1], True)
    fields[SESSION_KEY] = (session_id, True)
    out = [FENCE, f"name: {_yaml_text(slug if named else '')}"]
    if described:
        out.append(f"description: {_yaml_text(description)}")
    out.append(f"{METADATA_KEY}: ")
    out += [f"  {key}: {_yaml_text(value) if string else value}"
            for key, (value, string) in fields.items()
            if string or value not in ("null", "Null", "NULL", "~")]
    body = "\n".join(lines[end:])[len(FENCE):].lstrip()
    return "\n".join([*out, FENCE, "", body])
