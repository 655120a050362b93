"""Codex's file-name rules: ad-hoc notes, rollout summaries, session rollouts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime

from memtui.engine.codex.timefmt import FILE_TIMESTAMP_FORMAT, as_utc, parse_file_timestamp

NOTE_NAME_RE = re.compile(
    r"^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([a-z0-9][a-z0-9-]{0,79})\.md$", re.ASCII)
"""A valid ad-hoc note name: ``<YYYY-MM-DDTHH-MM-SS>-<slug>.md``."""
MAX_NOTE_NAME_BYTES = 128
DEFAULT_NOTE_SLUG_CHARS = 48
"""Slugs memtui makes for new notes stay this short, leaving room for a collision suffix."""
FALLBACK_NOTE_SLUG = "note"

MAX_ROLLOUT_SLUG_CHARS = 60
ROLLOUT_TAG_CHARS = 4

ROLLOUT_FILE_RE = re.compile(
    r"^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-"
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"
    r"\.jsonl(\.zst)?$",
    re.ASCII)
"""A session rollout: ``rollout-<YYYY-MM-DDTHH-MM-SS>-<uuid>.jsonl`` (local time), or the
same compressed (``.jsonl.zst``)."""

_NOTE_SLUG_JUNK = re.compile(r"[^a-z0-9]+")


def is_valid_note_name(name: str) -> bool:
    """True when ``name`` follows Codex's note rule (regex, at most 128 bytes, real time)."""
    match = NOTE_NAME_RE.match(name)
    return (match is not None and len(name.encode("utf-8", "surrogatepass"))
            <= MAX_NOTE_NAME_BYTES and parse_file_timestamp(match.group(1)) is not None)


def note_created_at(name: str) -> datetime | None:
    """The UTC creation time encoded in a valid note name, else None."""
    match = NOTE_NAME_RE.match(name)
    return parse_file_timestamp(match.group(1)) if match else None


def note_slug(text: str) -> str:
    """A note slug from text: lowercase ``[a-z0-9-]``, starts alphanumeric, never empty."""
    limit = DEFAULT_NOTE_SLUG_CHARS
    words = _NOTE_SLUG_JUNK.sub("-", text[: limit * 8].lower()).strip("-")
    return words[:limit].rstrip("-") or FALLBACK_NOTE_SLUG


def note_names(moment: datetime, slug: str, attempts: int) -> Iterator[str]:
    """Note names ``<YYYY-MM-DDTHH-MM-SS>-<slug>.md`` for ``slug`` at ``moment`` (UTC): the
    plain one, then ``-2`` .. ``-<attempts>``; raises ValueError for an invalid name."""
    stamp = as_utc(moment).strftime(FILE_TIMESTAMP_FORMAT)
    for attempt in range(1, attempts + 1):
        name = f"{stamp}-{slug}{f'-{attempt}' if attempt > 1 else ''}.md"
        if not is_valid_note_name(name):
            raise ValueError(f"not a valid Codex note name: {name!r}")
        yield name


def rollout_uuid_from_name(name: str) -> str | None:
    """The uuid in a rollout file name, else None."""
    match = ROLLOUT_FILE_RE.match(name)
    return match.group(2).lower() if match else None


STEM_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""The alphabet of the 4-character code in Codex's rollout summary names (0-9, a-z, A-Z)."""
STEM_CODE_SPACE = 14_776_336
"""62 ** 4: the code is the seed modulo this, written in ``STEM_ALPHABET``."""
U32_MASK = 0xFFFF_FFFF
SEED_MULTIPLIER = 31
GREGORIAN_TO_UNIX_100NS = 0x01B21DD213814000
"""100-ns intervals from 1582-10-15 (UUID v1/v6 time) to 1970-01-01."""
_UUID_RE = re.compile(
    r"^(?:urn:uuid:)?\{?([0-9a-fA-F]{8})-?([0-9a-fA-F]{4})-?([0-9a-fA-F]{4})-?"
    r"([0-9a-fA-F]{4})-?([0-9a-fA-F]{12})\}?$", re.ASCII)


def _uuid_int(text: str) -> int | None:
    """The 128-bit value of a UUID in one of the forms Codex's parser accepts, else None."""
    match = _UUID_RE.match(text)
    if match is None or text.count("-") not in (0, 4):
        return None
    return int("".join(match.groups()), 16)


def _uuid_seconds(value: int) -> int | None:
    """Unix seconds embedded in a v1, v6 or v7 UUID, else None (v4 has none)."""
    version = (value >> 76) & 0xF
    if version == 7:
        return (value >> 80) // 1000
    if version == 1:
        low, mid, high = value >> 96, (value >> 80) & 0xFFFF, (value >> 64) & 0x0FFF
        ticks = (high << 48) | (mid << 32) | low
    elif version == 6:
        high, mid, low = value >> 96, (value >> 80) & 0xFFFF, (value >> 64) & 0x0FFF
        ticks = (high << 28) | (mid << 12) | low
    else:
        return None
    return (ticks - GREGORIAN_TO_UNIX_100NS) // 10_000_000


def _stem_code(seed: int) -> str:
    value, chars = seed % STEM_CODE_SPACE, []
    for _ in range(ROLLOUT_TAG_CHARS):
        value, digit = divmod(value, len(STEM_ALPHABET))
        chars.append(STEM_ALPHABET[digit])
    return "".join(reversed(chars))


def stem_slug(rollout_slug: str | None) -> str:
    """Codex's slug rule: each character while shorter than 60, ASCII alphanumerics
    lowercased and anything else ``_``; then trailing ``_`` removed."""
    return "".join(char.lower() if char.isascii() and char.isalnum() else "_"
                   for char in (rollout_slug or "")[:MAX_ROLLOUT_SLUG_CHARS]).rstrip("_")


def rollout_summary_file_stem(thread_id: str, source_updated_at: datetime,
                              rollout_slug: str | None) -> str:
    """Codex's ``rollout_summary_file_stem``: ``<time>-<code>[-<slug>]``.

    A thread id that parses as a UUID gives the time embedded in it (v1/v6/v7; else
    ``source_updated_at``) and the seed of its low 32 bits; any other id gives
    ``source_updated_at`` and the seed ``seed * 31 + byte`` (wrapping at 32 bits) over its
    UTF-8 bytes. Times are UTC.
    """
    value = _uuid_int(thread_id)
    moment = as_utc(source_updated_at)
    if value is not None:
        seconds = _uuid_seconds(value)
        if seconds is not None:
            moment = datetime.fromtimestamp(seconds, UTC)
        seed = value & U32_MASK
    else:
        seed = 0
        for byte in thread_id.encode("utf-8", "surrogatepass"):
            seed = (seed * SEED_MULTIPLIER + byte) & U32_MASK
    stem = f"{moment.strftime(FILE_TIMESTAMP_FORMAT)}-{_stem_code(seed)}"
    slug = stem_slug(rollout_slug)
    return f"{stem}-{slug}" if slug else stem
