"""Markdown tables with a column of secrets.

A table such as::

    | env  | user | password |
    |------|------|----------|
    | prod | app  | Zt9!vRw4 |

holds its secrets in cells with no ``key=value`` around them: the column header names them.
A column counts when its header names a password, token or secret (``API key``), not
metadata about one (``Token type``); its cells are redacted when they hold a literal, not a
placeholder (``<redacted>``, ``$TOKEN``) or words. The search starts from separator rows.
"""

from __future__ import annotations

import re

from .entropy import Span, password_value_ok, prose_secret_ok, token_value_ok
from .keywords import PASSWORD, SECRET_NAME_KINDS, classify_name

KIND = "markdown-table-secret"
#: Longest line looked at as a table row.
MAX_ROW = 4_096

_SEPARATOR = re.compile(r"[ \t]*\|?[ \t]*:?-++:?[ \t]*(?:\|[ \t]*:?-++:?[ \t]*)*\|?[ \t]*\r?")
_SEPARATOR_HINT = re.compile(r"\|[ \t]{0,8}:?-")
_CELL_MARKUP = "`*_ "
#: Longest header read as a column's name.
MAX_HEADER = 64


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of the cells of the row ``text[start:end]`` (outer pipes dropped)."""
    row = text[start:end].rstrip("\r")
    end = start + len(row)
    lead = len(row) - len(row.lstrip(" \t"))
    s = start + lead
    if s < end and text[s] == "|":
        s += 1
    stripped = row.rstrip(" \t")
    e = start + len(stripped)
    if e > s and text[e - 1] == "|" and (e - 2 < s or text[e - 2] != "\\"):
        e -= 1
    cells: list[tuple[int, int]] = []
    pos = s
    while pos <= e:
        bar = text.find("|", pos, e)
        while bar > 0 and text[bar - 1] == "\\":
            bar = text.find("|", bar + 1, e)
        if bar == -1:
            cells.append((pos, e))
            break
        cells.append((pos, bar))
        pos = bar + 1
    return cells


def _cell_ok(kind: str, value: str, quoted: bool) -> bool:
    if quoted and " " in value:
        return password_value_ok(value, True)
    return prose_secret_ok(value) and (
        kind == PASSWORD or token_value_ok(value, True) or not value.isalnum())


def _line_end(text: str, start: int) -> int:
    nl = text.find("\n", start)
    return len(text) if nl == -1 else nl


def find_table_secrets(text: str, lower: bytes) -> list[Span]:
    """Cells of Markdown table columns headed by a secret name."""
    spans: list[Span] = []
    hint = _SEPARATOR_HINT.search(text)
    while hint:
        i = hint.start()
        line_start = text.rfind("\n", 0, i) + 1
        line_end = _line_end(text, i)
        resume = line_end
        row_ok = line_start >= 2 and line_end - line_start <= MAX_ROW  # a header row above
        if row_ok and _SEPARATOR.fullmatch(text, line_start, line_end):
            resume = _table_body(text, line_start, line_end, spans)
        hint = _SEPARATOR_HINT.search(text, resume)
    return spans


def _table_body(text: str, sep_start: int, sep_end: int, spans: list[Span]) -> int:
    """Redact the secret columns of the table whose separator row is given; return the
    offset after the last row read."""
    header_start = text.rfind("\n", 0, sep_start - 1) + 1
    header_cells = _cells(text, header_start, sep_start - 1)
    names = [text[s:e].strip(_CELL_MARKUP + ":") for s, e in header_cells]
    kinds = [classify_name(name) if 0 < len(name) <= MAX_HEADER else None for name in names]
    columns = {n: kind for n, kind in enumerate(kinds) if kind in SECRET_NAME_KINDS}
    pos = sep_end + 1
    if not columns:
        return sep_end
    while pos < len(text):
        end = _line_end(text, pos)
        if "|" not in text[pos:end] or end - pos > MAX_ROW:
            break
        cells = _cells(text, pos, end)
        for n, kind in columns.items():
            if n >= len(cells):
                continue
            raw_s, raw_e = cells[n]
            s = raw_e - len(text[raw_s:raw_e].lstrip(_CELL_MARKUP))
            value = text[s:raw_e].rstrip(_CELL_MARKUP)
            if value and _cell_ok(kind, value, s > raw_s and text[s - 1] == "`"):
                spans.append((s, s + len(value), KIND))
        pos = end + 1
    return pos
