"""The per-task flags' words, both ways: ``on``, ``off`` and ``follow`` (stored as 1, 0 and
null); a small module, so the app's panes can use it before the task rules are loaded."""

from __future__ import annotations

from memtui.engine.validation import echo
from memtui.errors import InvalidInput

FOLLOW = "follow"
"""A per-task flag value meaning: follow the user's setting (stored as null)."""
FLAG_WORDS = ("on", "off", FOLLOW)
_FLAG_WORDS: dict[object, int | None] = {FOLLOW: None, "on": 1, "off": 0, 0: 0, 1: 1}
"""Accepted flag values (True/False hash as 1/0, so they are accepted too)."""


def flag_word(value: int | None) -> str:
    """A stored per-task flag as the word people type and read (``flag_value`` reads it)."""
    return FOLLOW if value is None else ("on" if value else "off")


def flag_value(value: object, what: str) -> int | None:
    """A flag as stored (1, 0 or None for follow) from a word or a number."""
    key = value.lower() if isinstance(value, str) else value
    if key not in _FLAG_WORDS or (isinstance(value, float)):
        raise InvalidInput(f"{what} takes on, off or follow (1, 0 or null), "
                           f"got {echo(repr(value), 40, quote=False)}")
    return _FLAG_WORDS[key]
