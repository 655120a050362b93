"""memtui's table in a Codex ``config.toml``, ``[mcp_servers.memtui]``, edited as text: only
the keys memtui owns change, and every comment, other table, line ending and final newline
stays, so that taking the table out gives back the file as it was before it went in. The
result is parsed and compared (every other value the same) before it is returned.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import json
import re
import tomllib
from collections.abc import Collection
from pathlib import Path
from typing import Any

from memtui.errors import InvalidInput

SERVER_NAME = "memtui"
"""memtui's name among the agents' MCP servers."""
HTTP_KEYS = frozenset({"url", "bearer_token", "bearer_token_env_var", "http_headers",
                       "env_http_headers", "oauth", "oauth_resource"})
"""A Codex HTTP server's keys, which Codex refuses next to a ``command`` (``url is not
supported for stdio``): an install of memtui's command drops them."""

_KEY = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
_TOML_HEADER = re.compile(rf"^\s*\[\[?\s*({_KEY}(?:\s*\.\s*{_KEY})*)\s*\]\]?\s*(?:#.*)?$")
_TOML_TOKEN = re.compile(r"""(?P<long>"{3}(?:[^"\\]|\\[\s\S]|"{1,2}(?!"))*"{3,5}
    |'{3}(?:[^']|'{1,2}(?!'))*'{3,5}) | "(?:[^"\\\n]|\\.)*" | '[^'\n]*' | \#[^\n]*
    | (?P<open>[\[{]) | (?P<close>[\]}])""", re.VERBOSE)
"""What a line-by-line reading of TOML must see past: strings (``long``: multi-line ones),
comments, and brackets (an array may go on over lines)."""
_OUR_TABLE = re.compile(r'^mcp_servers\s*\.\s*(?:memtui|"memtui"|\'memtui\')(\s*\..*)?$')
_KEY_LINE = re.compile(r"""^\s*(["']?)([A-Za-z0-9_-]+)\1\s*=""")
_INLINE_SERVERS = re.compile(r"""^\s*(["']?)mcp_servers\1\s*=""")


def _toml_value(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def _owned_lines(entry: dict[str, Any]) -> str:
    args = ", ".join(_toml_value(str(arg)) for arg in entry["args"])
    return f"command = {_toml_value(entry['command'])}\nargs = [{args}]\n"


def _parse_toml(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InvalidInput(f"{path} is not valid TOML ({error}); nothing written") from None


def _lines(text: str) -> list[str]:
    """The lines of a text, each with its own line ending (split at ``\n`` only)."""
    return [line for line in re.split(r"(?<=\n)", text) if line]


def _free_lines(lines: list[str]) -> list[bool]:
    """For each line of valid TOML, whether it starts outside every string and bracket."""
    ends = list(itertools.accumulate(len(line) for line in lines))
    free, depth, opened = [True] * len(lines), 0, 0
    for token in _TOML_TOKEN.finditer("".join(lines)):
        span = token.span() if token.lastgroup == "long" and not depth else None
        if token.lastgroup == "open":
            opened = token.start() if not depth else opened
            depth += 1
        elif token.lastgroup == "close" and depth:
            depth -= 1
            span = None if depth else (opened, token.end())
        if span is not None:
            first, last = bisect.bisect_right(ends, span[0]), bisect.bisect_right(ends, span[1] - 1)
            free[first + 1:last + 1] = [False] * (last - first)
    return free


def _our_spans(lines: list[str], free: list[bool]) -> list[tuple[int, int, bool]]:
    """(first, past-last line, whether it is the table itself) of ``[mcp_servers.memtui]``
    and each of its sub-tables: the header to the last line that is not blank or a comment
    (those after it belong to what follows)."""
    spans: list[tuple[int, int, bool]] = []
    start: int | None = None
    end, main = 0, False
    for at, line in enumerate(lines):
        header = _TOML_HEADER.match(line) if free[at] else None
        if header:
            if start is not None:
                spans.append((start, end, main))
            ours = _OUR_TABLE.match(header.group(1).strip())
            start = at if ours else None
            end, main = at + 1, bool(ours and not ours.group(1) and "[[" not in line)
        elif start is not None and (not free[at] or line.strip()
                                    and not line.lstrip().startswith("#")):
            end = at + 1
    return [*spans, (start, end, main)] if start is not None else spans


def _value_end(path: Path, lines: list[str], at: int, stop: int) -> int:
    """Past the last line of the key/value pair starting on line ``at``; InvalidInput when
    it does not end before ``stop``."""
    for end in range(at + 1, stop + 1):
        with contextlib.suppress(tomllib.TOMLDecodeError):
            tomllib.loads("".join(lines[at:end]))
            return end
    raise InvalidInput(f"{path}: memtui cannot read [mcp_servers.memtui] line {at + 1}; "
                       "change it by hand; nothing written")


def _set_owned_keys(path: Path, lines: list[str], free: list[bool],
                    span: tuple[int, int, bool], entry: dict[str, Any],
                    keys: set[str]) -> list[str]:
    """The lines with the table's ``keys`` replaced by the entry's ``command`` and ``args``
    (where the first of them stood, else under the header)."""
    start, stop, _main = span
    kept, at = lines[:start + 1], None
    line = start + 1
    while line < stop:
        key = _KEY_LINE.match(lines[line]) if free[line] else None
        if key and key.group(2) in keys:
            at = len(kept) if at is None else at
            line = _value_end(path, lines, line, stop)
            continue
        kept.append(lines[line])
        line += 1
    at = start + 1 if at is None else at
    return [*kept[:at], _owned_lines(entry), *kept[at:], *lines[stop:]]


def _ending_as(source: str, after: str) -> str:
    """``after`` ending as ``source`` ends: without a final line ending when it has none."""
    if not source or source.endswith("\n") or not after.endswith("\n"):
        return after
    return after[:-2] if after.endswith("\r\n") else after[:-1]


def merge_server_table(path: Path, source: str, owned: dict[str, Any] | None,
                       drop: Collection[str] = ()) -> tuple[str, Any]:
    """``source`` with ``[mcp_servers.memtui]``'s ``owned`` keys set and ``drop`` taken out (its
    other keys and sub-tables kept), or with ``owned`` None the table and its sub-tables taken
    out (and the blank line an install put before them); (the new text, the entry as it was:
    None when there is none). InvalidInput for what memtui does not edit (inline tables), or
    when any other value would change."""
    parsed = _parse_toml(path, source)
    servers = parsed.get("mcp_servers")
    old = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if owned is None and old is None:
        return source, None
    lines = _lines(source)
    free = _free_lines(lines)
    spans = _our_spans(lines, free)
    if old is not None and not spans:
        raise InvalidInput(f"{path} defines mcp_servers.memtui in a form memtui does not edit "
                           "(an inline table); change it by hand")
    if owned is None:
        dropped = {line for start, stop, _main in spans for line in range(start, stop)}
        dropped |= {start - 1 for start, _stop, _main in spans
                    if start and not lines[start - 1].strip() and start - 1 not in dropped}
        after = _ending_as(source, "".join(line for at, line in enumerate(lines)
                                           if at not in dropped))
        return _checked(path, parsed, after, None, "take [mcp_servers.memtui] out of"), old
    kept = {key: value for key, value in old.items() if key not in drop} \
        if isinstance(old, dict) else {}
    entry = {**kept, **owned}
    if old == entry:
        return source, old
    first_header = next((at for at, line in enumerate(lines)
                         if free[at] and _TOML_HEADER.match(line)), len(lines))
    if old is None and any(free[at] and _INLINE_SERVERS.match(lines[at])
                           for at in range(first_header)):
        inline = ", ".join(_owned_lines(entry).splitlines())
        raise InvalidInput(f"{path} holds mcp_servers as an inline table "
                           "(mcp_servers = { ... }), which memtui does not edit; nothing "
                           f"written: add {SERVER_NAME} = {{ {inline} }} to it by hand")
    main = next((span for span in spans if span[2]), None)
    if main is not None:
        after = "".join(_set_owned_keys(path, lines, free, main, entry, {*owned, *drop}))
    else:
        block = f"[mcp_servers.{SERVER_NAME}]\n{_owned_lines(entry)}"
        body = source if not source or source.endswith("\n") else source + "\n"
        after = _ending_as(source, body + ("\n" if body else "") + block)
    return _checked(path, parsed, after, entry, "set [mcp_servers.memtui] in"), old


def _checked(path: Path, parsed: dict[str, Any], after: str, entry: dict[str, Any] | None,
             doing: str) -> str:
    """``after``, once it parses to ``parsed`` with memtui's entry ``entry`` and every other
    value the same; else InvalidInput."""
    merged = _parse_toml(path, after)
    servers = merged.get("mcp_servers")
    if (servers.get(SERVER_NAME) if isinstance(servers, dict) else None) != entry or \
            _without_ours(merged) != _without_ours(parsed):
        raise InvalidInput(f"{path}: memtui cannot {doing} this file safely; change it by "
                           "hand; nothing written")
    return after


def _without_ours(parsed: dict[str, Any]) -> dict[str, Any]:
    """The parsed file without memtui's entry (and an ``mcp_servers`` left empty)."""
    rest = {key: value for key, value in parsed.items() if key != "mcp_servers"}
    servers = parsed.get("mcp_servers")
    others = {name: value for name, value in servers.items() if name != SERVER_NAME} \
        if isinstance(servers, dict) else servers
    return {**rest, "mcp_servers": others} if others else rest
