"""Times as UTC ISO-8601 strings with milliseconds, ``2026-12-01T10:00:00.000Z`` (fixed width:
text order is time order): the one place a time is parsed, range-checked and formatted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from memtui.errors import InvalidInput

Clock = Callable[[], datetime]
"""A function returning the current time as an aware datetime."""

MIN_TIME = datetime(1970, 1, 1, tzinfo=UTC)
"""The earliest time memtui accepts or stores."""
MAX_TIME = datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)
"""The latest time memtui accepts or stores."""
MAX_TIME_TEXT = 64
"""Longest time text accepted (a full ISO-8601 time with offset is about 32 characters)."""
CANONICAL_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\Z")
"""The stored form's shape."""
_MIN_TEXT = "1970-01-01T00:00:00.000Z"
_FRACTION = re.compile(r"(\.\d{6})\d+")


def system_clock() -> datetime:
    """The real current time in UTC."""
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    """Format an aware (or naive-as-UTC) datetime in the stored form."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)
    return (f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:"
            f"{moment.minute:02d}:{moment.second:02d}.{moment.microsecond // 1000:03d}Z")


def _shown(text: object) -> str:
    return repr(text[:MAX_TIME_TEXT] if isinstance(text, str) else text)[:MAX_TIME_TEXT + 8]


def parse_time(text: object) -> datetime:
    """Parse ISO-8601 (``Z``, an offset, or naive as UTC) to an aware UTC datetime within
    ``MIN_TIME`` .. ``MAX_TIME``; else ``InvalidInput`` naming the text."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput(f"not an ISO-8601 time: {_shown(text)}")
    if len(text) > MAX_TIME_TEXT:
        raise InvalidInput(f"not an ISO-8601 time: {_shown(text)} is too long")
    raw = text.strip()
    if not raw.isprintable():
        raise InvalidInput(f"not an ISO-8601 time: {_shown(text)}")
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    raw = _FRACTION.sub(lambda match: match.group(1), raw, count=1)
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise InvalidInput(f"not an ISO-8601 time: {_shown(text)}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        moment = moment.astimezone(UTC)
        in_range = MIN_TIME <= moment <= MAX_TIME
    except (OverflowError, ValueError):  # the offset moves it past year 1 or year 9999
        in_range = False
    if not in_range:
        raise InvalidInput(f"time {_shown(text)} is out of range: memtui keeps times from "
                           f"{format_time(MIN_TIME)} to {format_time(MAX_TIME)}")
    return moment


def normalize_time(text: object) -> str:
    """Any accepted time text in the stored form."""
    if isinstance(text, str) and CANONICAL_PATTERN.match(text) and text >= _MIN_TEXT:
        try:
            datetime.fromisoformat(text[:-1])
        except ValueError:
            pass  # 2026-02-30 and the like: parse_time says why
        else:
            return text
    return format_time(parse_time(text))


def seconds_between(earlier: str, later: str) -> float:
    """Seconds from one stored time to another (negative when ``later`` is earlier)."""
    return (parse_time(later) - parse_time(earlier)).total_seconds()


def month_start(moment: datetime) -> datetime:
    """The first instant of ``moment``'s month, in UTC."""
    moment = moment.astimezone(UTC)
    return moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def next_month_start(moment: datetime) -> datetime:
    """The first instant of the month after ``moment``'s, in UTC."""
    start = month_start(moment)
    return (start + timedelta(days=32)).replace(day=1)


class FixedClock:
    """A clock for tests and the demo: starts at a fixed time, moves only when told."""

    def __init__(self, start: datetime) -> None:
        self.now = start if start.tzinfo else start.replace(tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        self.now = self.now + timedelta(seconds=seconds)
