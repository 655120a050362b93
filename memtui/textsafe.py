"""Make text from the store safe to show: control characters become visible escapes.

Memory content is data, never markup and never terminal control. Front ends show text with
``rich.text.Text`` (never as markup) after passing it through ``safe_text``.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_LINE_BREAKS = re.compile(r"\r\n|\r|\n")


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """Replace control characters (ESC, BEL, C1, bidi overrides ...) by visible escapes,
    keeping newlines and tabs."""
    return _CONTROL.sub(_escape, text)


def one_line(text: str, limit: int | None = None) -> str:
    """Safe text on one line: line breaks become ``⏎``, tabs spaces; cut to ``limit`` chars."""
    flat = _LINE_BREAKS.sub(" ⏎ ", safe_text(text)).replace("\t", " ")
    if limit is not None and len(flat) > limit:
        return flat[: max(0, limit - 1)] + "…"
    return flat
