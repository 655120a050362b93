"""Small display helpers: times in the user's zone, reasons and outcomes in words, safe text."""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from rich.text import Text

from memtui.engine.reasons import REASON_WORDS
from memtui.store.timeutil import parse_time
from memtui.textsafe import one_line, safe_text

OUTCOME_WORDS = {"superseded_previous": "replaced older"}
"""Extraction outcomes said otherwise than their code (the others are shown as they are)."""


def reason_words(reason: str | None) -> str:
    """A reason code in words (unknown codes are shown as they are, made safe)."""
    if not reason:
        return ""
    return REASON_WORDS.get(reason, one_line(reason, 60))


def zone(name: str | None) -> ZoneInfo:
    """The named zone, or UTC when it is missing or unknown."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return ZoneInfo("UTC")


def local_time(stamp: str | None, tz: ZoneInfo, *, with_year: bool = True) -> str:
    """A stored UTC time as ``YYYY-MM-DD HH:MM`` in ``tz`` (``—`` when missing)."""
    if not stamp:
        return "—"
    try:
        moment = parse_time(stamp).astimezone(tz)
    except Exception:  # a malformed stored time is shown as it is
        return one_line(stamp, 20)
    return moment.strftime("%Y-%m-%d %H:%M" if with_year else "%m-%d %H:%M")


def literal(value: object, limit: int | None = None, style: str = "") -> Text:
    """Store text as a literal one-line ``Text`` (never markup, control characters escaped)."""
    return Text(one_line("" if value is None else str(value), limit), style=style)


def block(value: object, style: str = "") -> Text:
    """Store text as a literal multi-line ``Text`` (never markup, control characters escaped)."""
    return Text(safe_text("" if value is None else str(value)), style=style)
