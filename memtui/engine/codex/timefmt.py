"""Time conversions for Codex data, into memtui's one stored time form.

Codex keeps unix seconds in its database, RFC 3339 in its markdown headers and ISO-8601 with
``Z`` in rollouts; memtui keeps ``YYYY-MM-DDTHH:MM:SS.mmmZ`` (``memtui.store.timeutil``).
Every parse here returns None for text that is not a time: it never raises.
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


def format_utc(moment: datetime) -> str:
    """Format an aware (or naive-as-UTC) datetime in memtui's stored form."""
    return format_time(moment)


def parse_datetime(text: str | None) -> datetime | None:
    """Parse ISO-8601 / RFC 3339 text (``Z``, an offset, or naive as UTC) to aware UTC, with
    memtui's one parser (``memtui.store.timeutil.parse_time``); None when it is not a
    supported time."""
    try:
        return parse_time(text)
    except InvalidInput:
        return None


def normalize_time(text: str | None) -> str | None:
    """ISO-8601 text in memtui's stored form, or None when it is not a time."""
    moment = parse_datetime(text)
    return format_utc(moment) if moment else None


def unix_to_iso(seconds: int | None) -> str | None:
    """Unix seconds in memtui's stored form, or None when absent or out of range."""
    if seconds is None or seconds < MIN_UNIX_SECONDS or seconds > MAX_UNIX_SECONDS:
        return None
    return format_utc(datetime.fromtimestamp(seconds, UTC))


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


def file_timestamp(moment: datetime) -> str:
    """A ``YYYY-MM-DDTHH-MM-SS`` file-name timestamp of ``moment`` in UTC."""
    return as_utc(moment).strftime(FILE_TIMESTAMP_FORMAT)
