"""Codex's times (unix seconds, RFC 3339, ISO-8601) to and from memtui's stored form
(``memtui.store.timeutil``); every parse here returns None for text that is not a time.
"""

from __future__ import annotations

from datetime import UTC, datetime

from memtui.errors import InvalidInput
from memtui.store.timeutil import MAX_TIME, MIN_TIME, format_time, parse_time

FILE_TIMESTAMP_FORMAT = "%Y-%m-%dT%H-%M-%S"
"""Timestamps in Codex file names (notes, rollout summaries), always UTC here."""
MIN_UNIX_SECONDS = int(MIN_TIME.timestamp())
MAX_UNIX_SECONDS = int(MAX_TIME.timestamp())
"""Unix times outside memtui's supported range (``memtui.store.timeutil``) are not a time."""


def as_utc(moment: datetime) -> datetime:
    """An aware UTC datetime (a naive one is taken as UTC)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def parse_datetime(text: str | None) -> datetime | None:
    """ISO-8601 / RFC 3339 text as an aware UTC time (``timeutil.parse_time``); None when it
    is not a supported time."""
    try:
        return parse_time(text)
    except InvalidInput:
        return None


def normalize_time(text: str | None) -> str | None:
    """ISO-8601 text in memtui's stored form, or None when it is not a time."""
    moment = parse_datetime(text)
    return format_time(moment) if moment else None


def unix_to_iso(seconds: int | None) -> str | None:
    """Unix seconds in memtui's stored form, or None when absent or out of range."""
    if seconds is None or seconds < MIN_UNIX_SECONDS or seconds > MAX_UNIX_SECONDS:
        return None
    return format_time(datetime.fromtimestamp(seconds, UTC))


def to_rfc3339(moment: datetime) -> str:
    """RFC 3339 as Codex writes it in markdown headers: ``2026-10-06T11:23:22+00:00``."""
    return as_utc(moment).replace(microsecond=0).isoformat()


def parse_file_timestamp(text: str) -> datetime | None:
    """Parse a ``YYYY-MM-DDTHH-MM-SS`` file-name timestamp as UTC; None if not a real time."""
    try:
        moment = datetime.strptime(text, FILE_TIMESTAMP_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None
    return moment if MIN_TIME <= moment <= MAX_TIME else None
