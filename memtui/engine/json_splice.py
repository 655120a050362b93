"""Change one top-level key of a JSON file's text and keep every other byte.

Agents keep large JSON files (Claude Code's ``~/.claude.json`` reaches 100 MB): only the top
level is walked, the one value memtui owns is replaced, added or taken out in the file's own
indent, and the rest is copied as it was. With ``allow_comments``, ``//`` and ``/* */`` comments
(Gemini CLI reads them) are walked over as whitespace and kept where they are.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from memtui.errors import InvalidInput

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S)
_DECODER = json.JSONDecoder()
DEFAULT_INDENT = "  "
"""The indent unit of a new file, and of a file whose unit cannot be seen."""


@dataclass(frozen=True)
class TopLevel:
    """Where each top-level member sits in the text, in order (a key listed twice, twice):
    the key's opening quote, the value's first and past-last characters."""

    open_at: int
    close_at: int
    spans: tuple[tuple[str, tuple[int, int, int]], ...]
    plain: str = ""
    """The text scanned, its comments blanked out (empty: the text itself)."""

    @property
    def members(self) -> dict[str, tuple[int, int, int]]:
        """Each key's member (the last of a key listed twice)."""
        return dict(self.spans)


def comments(text: str) -> list[tuple[int, int]]:
    """Where each ``//`` or ``/* */`` comment of a JSON text starts and ends."""
    return [found.span() for found in _STRING_OR_COMMENT.finditer(text)
            if found.group().startswith("/")]


def blank_comments(text: str) -> str:
    """``text`` with each comment replaced by spaces (its newlines kept): same offsets."""
    parts: list[str] = []
    at = 0
    for start, end in comments(text):
        parts += [text[at:start], re.sub(r"[^\n]", " ", text[start:end])]
        at = end
    return "".join([*parts, text[at:]])


def _skip(text: str, at: int) -> int:
    found = _WHITESPACE.match(text, at)
    return found.end() if found else at


def scan_top_level(text: str, where: str = "the file", allow_comments: bool = False
                   ) -> TopLevel:
    """The top-level members of a JSON object's text (InvalidInput when it is not one)."""
    plain = blank_comments(text) if allow_comments else text
    return replace(_scan(plain, where), plain=plain if plain != text else "")


def _scan(text: str, where: str) -> TopLevel:
    def bad(why: str) -> InvalidInput:
        return InvalidInput(f"{where} is not valid JSON ({why}); nothing written")

    at = _skip(text, 0)
    if at >= len(text) or text[at] != "{":
        raise bad("it is not a JSON object")
    open_at = at
    at = _skip(text, at + 1)
    spans: list[tuple[str, tuple[int, int, int]]] = []
    if at < len(text) and text[at] == "}":
        return _checked_end(text, TopLevel(open_at, at, ()), bad)
    while True:
        if at >= len(text) or text[at] != '"':
            raise bad(f"a key was expected at character {at}")
        key_at = at
        try:
            key, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
        except ValueError as error:
            raise bad(str(error)) from None
        at = _skip(text, at)
        if at >= len(text) or text[at] != ":":
            raise bad(f"':' was expected at character {at}")
        value_at = _skip(text, at + 1)
        try:
            _value, end = _DECODER.raw_decode(text, value_at)
        except ValueError as error:
            raise bad(str(error)) from None
        spans.append((key, (key_at, value_at, end)))
        at = _skip(text, end)
        if at < len(text) and text[at] == ",":
            at = _skip(text, at + 1)
            continue
        if at < len(text) and text[at] == "}":
            return _checked_end(text, TopLevel(open_at, at, tuple(spans)), bad)
        raise bad(f"',' or '}}' was expected at character {at}")


def _checked_end(text: str, top: TopLevel, bad: Any) -> TopLevel:
    if _skip(text, top.close_at + 1) != len(text):
        raise bad(f"extra data after the object at character {top.close_at + 1}")
    return top


def top_level_value(text: str, top: TopLevel, key: str) -> Any:
    """The parsed value of one top-level key (None when absent)."""
    span = top.members.get(key)
    if span is None:
        return None
    return _DECODER.raw_decode(top.plain or text, span[1])[0]


def _indent_unit(text: str, top: TopLevel) -> str | None:
    """The whitespace before the first member on its line (None: a file on one line)."""
    if not top.spans:
        return None
    first = top.spans[0][1][0]
    line_start = text.rfind("\n", top.open_at, first)
    if line_start < 0:
        return None
    return text[line_start + 1:first] or None


def _dump(value: Any, unit: str | None, step: str | None = None) -> str:
    """``value`` as JSON for a member indented by ``unit`` (None: one line), nesting by ``step``."""
    if unit is None:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    step = step or unit
    indent: str | int = step if step.strip(" \t") == "" else len(DEFAULT_INDENT)
    body = json.dumps(value, ensure_ascii=False, indent=indent)
    return body.replace("\n", "\n" + unit)


def set_top_level(text: str, key: str, value: Any, where: str = "the file",
                  top: TopLevel | None = None, step: str | None = None) -> str:
    """``text`` with top-level ``key`` set to ``value``: its old value replaced in place, or
    a new member added last; every other byte kept. ``top``: the text's scan, if made;
    ``step``: the file's indent unit when ``text`` is an object nested in it."""
    top = top or scan_top_level(text, where)
    unit = _indent_unit(top.plain or text, top)
    span = top.members.get(key)
    if span is not None:
        return text[:span[1]] + _dump(value, unit, step) + text[span[2]:]
    if not top.spans:  # an empty object: a member on its own line, in the default indent
        unit = DEFAULT_INDENT
        inner = f"\n{unit}{_member(key, value, unit)}\n"
        return text[:top.open_at + 1] + inner + text[top.close_at:]
    last_end = top.spans[-1][1][2]
    separator = f",\n{unit}" if unit else ","
    return text[:last_end] + separator + _member(key, value, unit, step) + text[last_end:]


def _member(key: str, value: Any, unit: str | None, step: str | None = None) -> str:
    return json.dumps(key, ensure_ascii=False) + (": " if unit else ":") + \
        _dump(value, unit, step)


def set_member(text: str, key: str, name: str, value: Any, where: str = "the file",
               top: TopLevel | None = None) -> str:
    """``text`` with member ``name`` of the non-empty object at top-level ``key`` set to
    ``value`` (None: taken out); only that member's bytes change, in the object's indent."""
    top = top or scan_top_level(text, where)
    _key_at, start, end = top.members[key]
    plain = (top.plain or text)[start:end]
    inner = replace(_scan(plain, where), plain=plain if top.plain else "")
    part = remove_top_level(text[start:end], name, where, inner) if value is None else \
        set_top_level(text[start:end], name, value, where, inner,
                      _indent_unit(top.plain or text, top))
    return text[:start] + part + text[end:]


def remove_top_level(text: str, key: str, where: str = "the file",
                     top: TopLevel | None = None) -> str:
    """``text`` without top-level ``key`` (every occurrence) and its comma."""
    top = top or scan_top_level(text, where)
    plain = top.plain or text
    for key_at, _value_at, end in reversed([span for name, span in top.spans if name == key]):
        text, plain = (_cut_member(plain, key_at, end, text),
                       _cut_member(plain, key_at, end, plain))
    return text


def _cut_member(text: str, key_at: int, end: int, cut: str) -> str:
    """``cut`` (``text``, or a copy of the same length) without the member from ``key_at`` to
    ``end`` and the comma that joins it, found in ``text``."""
    after = _skip(text, end)
    if text[after] == ",":  # not the last: drop through the comma and the next one's indent
        return cut[:key_at] + cut[_skip(text, after + 1):]
    before = key_at - 1
    while before >= 0 and text[before] in " \t\n\r":
        before -= 1
    if text[before] == ",":  # the last of several: drop the comma before it
        return cut[:before] + cut[end:]
    return cut[:before + 1] + cut[after:]  # the only member: "{" straight to "}"
