"""Times as UTC ISO-8601 strings with millisecond precision: one convention throughout.

Stored form: ``2026-12-01T10:00:00.000Z``. Fixed width, so text order is time order.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from memtui.errors import InvalidInput

Clock = Callable[[], datetime]
"""A function returning the current time as an aware datetime."""


def system_clock() -> datetime:
    """The real current time in UTC."""
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    """Format an aware (or naive-as-UTC) datetime in the stored form."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_time(text: str) -> datetime:
    """Parse ISO-8601 (``Z`` or an offset; a naive time is taken as UTC) to an aware datetime.

    Raises ``InvalidInput`` naming the text when it is not a time.
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput(f"not an ISO-8601 time: {text!r}")
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise InvalidInput(f"not an ISO-8601 time: {text[:60]!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def normalize_time(text: str) -> str:
    """Parse any accepted time text and return it in the stored form."""
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
