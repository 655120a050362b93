"""A memory file as Claude Code's Write and Edit tools save it, by the release that saves it.

Claude Code reads the front matter of a memory topic file it writes and writes it again:
``name`` (a slug), ``description``, ``metadata:`` with ``node_type: memory``, every other key,
then ``originSessionId``. How, by release (what each real program wrote is kept in
``tests/data/claude_front_matter``):

- up to 2.1.212, a file that already names a session is kept as it is;
- from 2.1.213, a ``modified:`` time is added too; a value whose ``#`` a rewrite would lose
  is quoted first; a file that already names a session, or whose block a rewrite could
  spoil, is only dated: its ``modified:`` line set, or added, in place;
- from 2.1.280, ``metadata:`` has nothing after it (before: ``metadata: ``, as Bun's YAML
  writer left it).

memtui rewrites ``key: value`` lines and one ``metadata`` mapping of them; a block with
more (lists, deeper mappings, block scalars) is kept as it is, only dated when it names a
session already.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
from dataclasses import dataclass

from memtui.engine.agents.frontmatter import (
    COMMENT_RE,
    FENCE,
    KEY_RE,
    METADATA_KEY,
    parse_front_matter,
    unquote,
)

NODE_TYPE = ("node_type", "memory")
SESSION_KEY = "originSessionId"
MODIFIED_KEY = "modified"
DATED_SINCE = (2, 1, 213)
"""The first Claude Code release that writes ``modified:`` (and quotes lossy values)."""
BARE_MAPPING_SINCE = (2, 1, 280)
"""The first Claude Code release that writes ``metadata:`` without a blank after it."""
NULL_WORDS = ("null", "Null", "NULL", "~")
TRANSCRIPT_TAIL_BYTES = 64 * 1024
"""The end of a Claude Code transcript read for the version that wrote it."""
_TRANSCRIPT_VERSION = re.compile(rb'"version"\s*:\s*"(\d+\.\d+\.\d+[^"]*)"')
_NOT_STRING = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+"
                         r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|true|True|TRUE|false"
                         r"|False|FALSE|null|Null|NULL|~")
"""A plain YAML scalar that is not a string (YAML 1.2's core schema, as Bun reads it)."""
_YAML_11_WORDS = frozenset({"y", "n", "yes", "no", "on", "off"})
_QUOTE_ANYWHERE = frozenset(",[]{}#`'\"")
_QUOTE_FIRST = frozenset("-?:,[]{}#&*!|>'\"%@`<")
_FALLBACK_QUOTED = re.compile(r"[{}[\]*&#!|>%@`]|: ")
"""A top-level value Claude Code quotes whole when its YAML reader refused the block."""
_BLANKS = re.compile(r"[\s\ufeff]*")
_STRICT_BLOCK = re.compile(r"---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)")
_LOSSY_LINE = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_.-]*):[ \t]+(.*)")
_ANY_KEY_LINES = (re.compile(r'("(?:[^"\\]|\\.)*"):[ \t]+(.*)'),
                  re.compile(r"('(?:[^']|'')*'):[ \t]+(.*)"),
                  re.compile(r"([^\s#][^:\n]*?):[ \t]+(.*)"))
_QUOTED_RUN = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'')*'")
_INLINE_HASH = re.compile(r"^#|[ \t]#")
_MODIFIED_LINE = re.compile(r"(\s*)modified\s*:(.*)")
_BLANK_OR_COMMENT = re.compile(r"\s*(?:#.*)?")
_INDENTED = re.compile(r"\s+\S")
_NODE_PROPERTY = re.compile(r"&[^\s,\[\]{}]*|![A-Za-z0-9_.:/-]*")
"""An anchor or tag Bun's YAML reader takes (``!=`` it refuses)."""
Scalar = tuple[str, bool]
"""A one-line value and whether it is a string."""
Fields = tuple[dict[str, Scalar], dict[str, Scalar]]
"""The top-level values and the ``metadata`` mapping of a front matter block."""


@dataclass(frozen=True)
class ClaudeStamp:
    """How one Claude Code release saves a memory file."""

    dated: bool
    """A ``modified:`` time; lossy values quoted; a file naming a session dated in place."""
    bare_mapping: bool
    """``metadata:`` with nothing after it (earlier releases: ``metadata: ``)."""

    @classmethod
    def of_text(cls, text: str) -> ClaudeStamp:
        """The stamp that saved ``text`` (a held write), as far as it shows; else the newest."""
        fields = parse_front_matter(text).fields
        if f"{METADATA_KEY}.{SESSION_KEY}" in fields and \
                f"{METADATA_KEY}.{MODIFIED_KEY}" not in fields:
            return OLDEST
        return cls(True, f"\n{METADATA_KEY}: \n" not in text)


NEWEST = ClaudeStamp(True, True)
OLDEST = ClaudeStamp(False, False)


def stamp_for(version: str | None) -> ClaudeStamp:
    """The stamp of a Claude Code version (``2.1.332``); the newest for an unknown one."""
    match = re.match(r"(\d+)\.(\d+)\.(\d+)", version or "")
    if match is None:
        return NEWEST
    number = tuple(int(part) for part in match.groups())
    return ClaudeStamp(number >= DATED_SINCE, number >= BARE_MAPPING_SINCE)


_BUN_ESCAPES = {"\0": "\\0", "\x07": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n",
                "\x0b": "\\v", "\f": "\\f", "\r": "\\r", "\x1b": "\\e", '"': '\\"',
                "\\": "\\\\", "\x85": "\\N", "\xa0": "\\_", "\u2028": "\\L",
                "\u2029": "\\P"}
"""How Bun's YAML writer escapes a character in a double-quoted string."""


def transcript_version(path: str | os.PathLike[str]) -> str | None:
    """The Claude Code version a transcript's last lines name (None: none, or not a file)."""
    try:
        handle = open(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW), "rb")
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None
    with handle:
        try:
            size = os.fstat(handle.fileno())
            if not stat.S_ISREG(size.st_mode):
                return None
            handle.seek(max(0, size.st_size - TRANSCRIPT_TAIL_BYTES))
            found = _TRANSCRIPT_VERSION.findall(handle.read(TRANSCRIPT_TAIL_BYTES))
        except OSError:
            return None
    return found[-1].decode("ascii", "replace") if found else None


def _yaml_text(value: str) -> str:
    """A string as Bun's ``YAML.stringify`` writes it: plain, or double-quoted (YAML escapes)
    when plain would read back as something else."""
    plain = value and value == value.strip(" \t") and not _NOT_STRING.fullmatch(value) and \
        value.lower() not in _YAML_11_WORDS and value[0] not in _QUOTE_FIRST and \
        not _QUOTE_ANYWHERE.intersection(value) and ": " not in value and \
        not value.endswith(":") and \
        all(ord(c) >= 32 and c not in "\x7f\x85\xa0\u2028\u2029" for c in value)
    if plain:
        return value
    return '"' + "".join(_BUN_ESCAPES.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 32 or c == "\x7f"
                                                else c) for c in value) + '"'


class _Refused(Exception):
    """The block is not YAML Bun reads: Claude Code quotes values and reads it again."""


_BLOCK_HEADER = re.compile(r"([|>])([-+]?)[1-9]?[ \t]*(?:#.*)?")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _folded(lines: list[str]) -> str:
    """Lines folded as YAML folds them: a line break is a space, an empty line a newline."""
    out = ""
    for number, line in enumerate(lines):
        if number == 0 or line == "":
            out += line if number == 0 else "\n"
        else:
            out += line if lines[number - 1] == "" else " " + line
    return out


def _block_scalar(header: re.Match[str], more: list[str]) -> str:
    """A ``|`` or ``>`` block scalar's text (clip, ``-`` strip or ``+`` keep the end)."""
    filled = [line for line in more if line.strip()]
    width = _indent(filled[0]) if filled else 0
    lines = [line[width:] if line.strip() else "" for line in more]
    content = lines[:max((n + 1 for n, line in enumerate(lines) if line), default=0)]
    text = "\n".join(content) if header.group(1) == "|" else _folded(content)
    ending = {"-": "", "+": "\n" * (len(lines) - len(content) + 1)}.get(header.group(2), "\n")
    return text + ending if content else ""


def _yaml_scalar(raw: str, more: list[str], top: bool, fallback: bool) -> Scalar | None:
    """(value, is a string) of a scalar (``more``: the lines it continues on); None for what
    only a full YAML reader gets right (flow collections, a quote left open)."""
    continued = [line.strip(" \t") for line in more]
    header = _BLOCK_HEADER.fullmatch(raw.strip(" \t"))
    if fallback and top and _FALLBACK_QUOTED.search(raw):
        if any(continued):
            raise _Refused
        return raw, True
    if header is not None:
        return _block_scalar(header, more), True
    if any(continued):
        raw = _folded([raw.strip(" \t"), *continued]).rstrip("\n")
    quoted = _QUOTED_RUN.match(raw)
    if quoted is not None and COMMENT_RE.sub("", raw[quoted.end():]).strip(" \t") == "":
        if raw[:1] == "'":
            return unquote(quoted.group(0)), True
        with contextlib.suppress(ValueError):
            return json.loads(quoted.group(0)), True
        return None
    if raw[:1] in "\"'":
        raise _Refused  # a quote left open, or text after it
    raw = raw.strip(" \t")
    after = _past_properties(raw)
    if after is None:
        raise _Refused
    if raw and not after:  # properties and nothing after them: null
        return NULL_WORDS[0], False
    raw = after
    if (raw[:1], raw[-1:]) in (("[", "]"), ("{", "}")):
        return None
    if raw[:1] in "@`|>*%[{" or raw in ("-", "?") or raw.startswith(("- ", "? ")) or \
            ": " in raw or raw.endswith(":"):
        raise _Refused
    value = COMMENT_RE.sub("", raw).strip(" \t")
    return value, not _NOT_STRING.fullmatch(value)


def _claude_fields(lines: list[str], fallback: bool) -> Fields | None:
    """The top-level values and the ``metadata`` mapping of a front matter block; None when
    it holds more than those (lists, other mappings)."""
    top: dict[str, Scalar] = {}
    meta: dict[str, Scalar] = {}
    parent: str | None = None
    plain = [raw.rstrip("\r") for raw in lines]
    at = 0
    while at < len(plain):
        line = plain[at]
        at += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent, match = _indent(line), KEY_RE.match(line.strip())
        more: list[str] = []
        while at < len(plain) and (not plain[at].strip() or _indent(plain[at]) > indent):
            more.append(plain[at])
            at += 1
        nested = indent > 0
        if match is None or (nested and parent != METADATA_KEY):
            return None
        key, value = match.group(1), line.split(":", 1)[1].lstrip(" \t")
        if not nested:
            parent = None
        if not value or value.startswith("#"):
            if any(part.strip() for part in more):
                if nested or key != METADATA_KEY:
                    return None  # a list or a mapping under another key
                parent, at = METADATA_KEY, at - len(more)
                continue
            scalar: Scalar | None = (NULL_WORDS[0], False)
        else:
            scalar = _yaml_scalar(value, more, not nested, fallback)
        if scalar is None:
            return None
        (meta if nested else top)[key] = scalar
    return top, meta


def _read_fields(lines: list[str]) -> Fields | None:
    """The block as Claude Code reads it: as it is, else with its odd values quoted
    (``_Refused`` when neither reads; None: beyond what memtui rewrites)."""
    try:
        return _claude_fields(lines, False)
    except _Refused:
        return _claude_fields(lines, True)


def _named_session(fields: Fields) -> bool:
    value, string = {**fields[0], **fields[1]}.get(SESSION_KEY, ("", False))
    return string and bool(value)


def _rendered(fields: Fields, session_id: str, stamp: ClaudeStamp, now: str | None) -> list[str]:
    """The block Claude Code writes for ``fields`` (fences included)."""
    top, meta = dict(fields[0]), fields[1]
    name, named = top.pop("name", ("", False))
    description, described = top.pop("description", ("", False))
    slug = name if re.fullmatch(r"[a-z0-9_-]+", name) else \
        re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    merged = {**top, **meta, SESSION_KEY: (session_id, True)}
    if now is not None:
        merged[MODIFIED_KEY] = (now, True)
    out = [FENCE, f"name: {_yaml_text(slug if named else '')}"]
    if described and description:
        out.append(f"description: {_yaml_text(description)}")
    out.append(f"{METADATA_KEY}:" + ("" if stamp.bare_mapping else " "))
    out += [f"  {key}: {_yaml_text(value) if string else value}"
            for key, (value, string) in {NODE_TYPE[0]: (NODE_TYPE[1], True), **merged}.items()
            if string or value not in NULL_WORDS]
    return [*out, FENCE]


def _past_properties(value: str) -> str | None:
    """``value`` after its anchors and tags (``&a !!str x``: ``x``; "" when nothing follows
    them: null); None when one is malformed."""
    while value.startswith(("&", "!")):
        prop, _blank, value = value.partition(" ")
        if not _NODE_PROPERTY.fullmatch(prop):
            return None
        value = value.strip(" \t")
    return value


def _lone_value(value: str) -> Scalar | None | bool:
    """What Bun makes of ``value`` read alone: (text, True) a string, ("", False) null, True
    something else (a number, a list, a mapping), False an error; None: memtui cannot tell."""
    after = _past_properties(value)
    if after is None:
        return False
    if value and not after:
        return "", False
    value = after
    first = value[0]
    if first == "#":
        return "", False
    if value.startswith("? "):
        return None
    if first in "*@`%":
        return False
    if first in "[{":
        close = "]" if first == "[" else "}"
        return value.endswith(close) and value.count(first) == value.count(close)
    if value == "-" or value.startswith("- "):
        return True
    plain = COMMENT_RE.sub("", value).strip()
    key, colon, rest = plain.partition(": ")
    if colon or plain.endswith(":"):
        return not (": " in rest or rest.endswith(":")) and bool(key)
    if _NOT_STRING.fullmatch(plain):
        return ("", False) if plain in NULL_WORDS else True
    return plain, True


def _hash_lost(line: str) -> bool:
    """Whether a rewrite would lose the ``#`` text of a ``key: value`` line."""
    for pattern in _ANY_KEY_LINES:
        match = pattern.fullmatch(line)
        if match is not None:
            rest = _QUOTED_RUN.sub("", match.group(2).rstrip())
            return bool(match.group(1)) and bool(_INLINE_HASH.search(rest))
    return False


def _quoted_lossy(lines: list[str]) -> tuple[list[str] | None, bool] | None:
    """The block's lines with each top-level value Bun would read as other text quoted (None
    when none is), and whether a rewrite would lose an inline ``#``; None: cannot tell."""
    out: list[str] = []
    quoted = lost = False
    for line in lines:
        bare = line.removesuffix("\r")
        match = _LOSSY_LINE.fullmatch(bare)
        value = match.group(2).rstrip() if match else ""
        if match is None or not value or value[0] in "\"'|>":
            lost |= _hash_lost(bare)
            out.append(line)
            continue
        read = _lone_value(value)
        if read is None:
            return None
        if read is True:
            lost |= _hash_lost(bare)
        if isinstance(read, tuple) and (read[0] != value if read[1] else value not in NULL_WORDS):
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            line = f'{match.group(1)}: "{escaped}"' + line[len(bare):]
            quoted = True
        out.append(line)
    return (out if quoted else None), lost


def _dated(text: str, head_end: int, now: str, fields: dict[str, str]) -> str | None:
    """``text`` (its front matter ``fields``) with its ``modified:`` line set to ``now`` or
    added (in the ``metadata`` mapping, else before the closing fence); None where Claude
    Code finds no sure place."""
    lines = text[:head_end].split("\n")
    close = max(number for number, line in enumerate(lines) if line.strip() == FENCE)
    try:
        _read_fields(lines[1:close])
    except _Refused:
        return None  # Claude Code reads no front matter there: nothing to date
    if not fields:
        return None
    newline = "\r" if "\r\n" in text[:head_end] else ""
    found = [number for number in range(1, len(lines) - 1) if _MODIFIED_LINE.match(lines[number])]
    if not found and (MODIFIED_KEY in fields or f"{METADATA_KEY}.{MODIFIED_KEY}" in fields):
        return None
    modified = _MODIFIED_LINE.match(lines[found[-1]].rstrip("\r")) if found else None
    if modified is not None:  # the last one, as Claude Code sets it
        indent, rest = modified.groups()
        comment = re.search(r"[ \t]+#.*$", rest)
        tail = comment.group(0) if comment and rest.lstrip()[:1] not in "\"'" else ""
        lines[found[-1]] = f"{indent}{MODIFIED_KEY}: {now}{tail}{newline}"
        return "\n".join(lines) + text[head_end:]
    plain = [line.rstrip("\r") for line in lines]
    opened = [n for n in range(1, len(plain)) if plain[n].startswith(f"{METADATA_KEY}:")]
    mapping = [n for n in opened if re.fullmatch(rf"{METADATA_KEY}:\s*(?:#.*)?", plain[n])]
    if opened and not mapping:
        return None
    if not mapping:
        at, indent = max(n for n in range(len(plain)) if plain[n].strip() == FENCE), ""
        if at == 0:
            return None
    else:
        at = _mapping_end(plain, mapping[0])
        indent = next((line[:len(line) - len(line.lstrip())] for line in plain[mapping[0] + 1:at]
                       if _INDENTED.match(line) and not _BLANK_OR_COMMENT.fullmatch(line)), "  ")
    lines.insert(at, f"{indent}{MODIFIED_KEY}: {now}{newline}")
    return "\n".join(lines) + text[head_end:]


def _mapping_end(lines: list[str], opened: int) -> int:
    """The line after the last one of the mapping opened at line ``opened``."""
    at = opened + 1
    while at < len(lines) - 1:
        if _INDENTED.match(lines[at]):
            at += 1
            continue
        if _BLANK_OR_COMMENT.fullmatch(lines[at]):
            after = at + 1
            while after < len(lines) - 1 and _BLANK_OR_COMMENT.fullmatch(lines[after]):
                after += 1
            if after < len(lines) - 1 and _INDENTED.match(lines[after]):
                at = after
                continue
        break
    return at


def _loose_block(text: str) -> tuple[str, int] | None:
    """(the block, where the body starts) as Claude Code's ``^---\\s*\\n([\\s\\S]*?)---\\s*\\n?``
    finds them, in linear time (that pattern backtracks on a block that never closes)."""
    if not text.startswith(FENCE):
        return None
    blanks = _BLANKS.match(text, len(FENCE))
    start = text.rfind("\n", len(FENCE), blanks.end() if blanks else len(FENCE)) + 1
    close = text.find(FENCE, start) if start else -1
    if close < 0:
        return None
    after = _BLANKS.match(text, close + len(FENCE))
    return text[start:close], after.end() if after else close + len(FENCE)


def _stamped_dated(text: str, session_id: str, stamp: ClaudeStamp, now: str) -> str:
    """``claude_memory_text`` for a release that dates memory files (2.1.213 and later)."""
    loose, strict = _loose_block(text), _STRICT_BLOCK.match(text)
    if loose is None or strict is None or loose[0].strip() != strict.group(1).strip():
        return text
    lines = loose[0].split("\n")
    lossy = _quoted_lossy(lines)
    if lossy is None:
        return text
    quoted, spoiled = lossy
    fields: Fields | None = None
    try:
        fields = _claude_fields(quoted, False) if quoted is not None else _read_fields(lines)
    except _Refused:
        spoiled = True
    front = parse_front_matter(text).fields
    if fields is None and not spoiled and f"{METADATA_KEY}.{SESSION_KEY}" not in front:
        return text
    spoiled = spoiled or (fields is not None and not any(fields) and
                          not any(KEY_RE.match(line) for line in lines))
    if fields is not None and not spoiled and not _named_session(fields):
        body = text[loose[1]:].lstrip("\n")
        return "\n".join([*_rendered(fields, session_id, stamp, now), "", body])
    return _dated(text, strict.end(), now, front) or text


def claude_memory_text(text: str, session_id: str, stamp: ClaudeStamp = NEWEST,
                       now: str = "") -> str:
    """``text`` as the Claude Code release of ``stamp`` saves a memory file in session
    ``session_id`` at ``now`` (see the module doc); a file with no front matter is kept."""
    if stamp.dated:
        return _stamped_dated(text, session_id, stamp, now)
    block = _loose_block(text)
    try:
        read = _read_fields(block[0].split("\n")) if block else None
    except _Refused:
        read = None
    if block is None or read is None or _named_session(read):
        return text
    body = text[block[1]:].lstrip()
    return "\n".join([*_rendered(read, session_id, stamp, None), "", body])
