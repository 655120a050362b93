"""Make text from the store safe to show: control characters become visible escapes (front
ends show store text as ``rich.text.Text``, never markup, after ``safe_text``)."""

from __future__ import annotations

import re

UNSAFE_CHARACTERS = re.compile(
    r"[\x00-\x08\x0b-\x1f"  # C0 controls (ESC, BEL ...) but tab and newline
    r"\x7f-\x9f"  # DEL and the C1 controls (CSI ...)
    r"\u2028\u2029"  # line and paragraph separators
    r"\u200e\u200f"  # left-to-right and right-to-left marks
    r"\u202a-\u202e"  # bidi embeddings and overrides
    r"\u2066-\u2069]"  # bidi isolates
)
"""What ``safe_text`` escapes: what moves the cursor, changes the terminal or reorders text."""
_LINE_BREAKS = re.compile(r"\r\n|\r|\n")


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """Escape control characters (ESC, BEL, C1, bidi overrides ...), keeping newlines and tabs."""
    return UNSAFE_CHARACTERS.sub(_escape, text)


def one_line(text: str, limit: int | None = None) -> str:
    """Safe text on one line: line breaks become ``⏎``, tabs spaces; cut to ``limit`` chars."""
    flat = _LINE_BREAKS.sub(" ⏎ ", safe_text(text)).replace("\t", " ")
    if limit is not None and len(flat) > limit:
        return flat[: max(0, limit - 1)] + "…"
    return flat
