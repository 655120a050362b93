"""Codex's file-name rules: ad-hoc notes, rollout summaries, session rollouts (spec/40)."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime

from memtui.engine.codex.timefmt import file_timestamp, parse_file_timestamp

NOTE_NAME_RE = re.compile(
    r"^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([a-z0-9][a-z0-9-]{0,79})\.md$", re.ASCII)
"""A valid ad-hoc note name: ``<YYYY-MM-DDTHH-MM-SS>-<slug>.md``."""
MAX_NOTE_NAME_BYTES = 128
"""A note name is at most this many bytes."""
MAX_NOTE_SLUG_CHARS = 80
"""The slug part of a note name: one ``[a-z0-9]`` then up to 79 of ``[a-z0-9-]``."""
DEFAULT_NOTE_SLUG_CHARS = 48
"""Slugs memtui makes for new notes stay this short, leaving room for a collision suffix."""
FALLBACK_NOTE_SLUG = "note"

ROLLOUT_SUMMARY_NAME_RE = re.compile(
    r"^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([0-9A-Za-z]{4})(?:-(.+))?\.md$", re.ASCII)
"""A rollout summary name: ``<YYYY-MM-DDTHH-MM-SS>-<4 base62 chars>[-<slug>].md``."""
MAX_ROLLOUT_SLUG_CHARS = 60
"""A rollout summary slug is at most this many characters."""
BASE62_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
ROLLOUT_TAG_CHARS = 4

ROLLOUT_FILE_RE = re.compile(
    r"^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-"
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$",
    re.ASCII)
"""A session rollout: ``rollout-<YYYY-MM-DDTHH-MM-SS>-<uuid>.jsonl`` (local time)."""

_NOTE_SLUG_JUNK = re.compile(r"[^a-z0-9]+")
_ROLLOUT_SLUG_JUNK = re.compile(r"[^a-z0-9]", re.ASCII)


def is_valid_note_name(name: str) -> bool:
    """True when ``name`` follows Codex's note rule (regex, at most 128 bytes, real time)."""
    match = NOTE_NAME_RE.match(name)
    return (match is not None and len(name.encode("utf-8", "surrogatepass"))
            <= MAX_NOTE_NAME_BYTES and parse_file_timestamp(match.group(1)) is not None)


def note_created_at(name: str) -> datetime | None:
    """The UTC creation time encoded in a valid note name, else None."""
    match = NOTE_NAME_RE.match(name)
    return parse_file_timestamp(match.group(1)) if match else None


def note_slug(text: str, max_chars: int = DEFAULT_NOTE_SLUG_CHARS) -> str:
    """A note slug from text: lowercase ``[a-z0-9-]``, starts alphanumeric, never empty."""
    limit = max(1, min(max_chars, MAX_NOTE_SLUG_CHARS))
    words = _NOTE_SLUG_JUNK.sub("-", text[: limit * 8].lower()).strip("-")
    slug = words[:limit].rstrip("-")
    return slug or FALLBACK_NOTE_SLUG


def note_file_name(moment: datetime, slug: str) -> str:
    """``<YYYY-MM-DDTHH-MM-SS>-<slug>.md`` for a UTC time; raises ValueError if invalid."""
    name = f"{file_timestamp(moment)}-{slug}.md"
    if not is_valid_note_name(name):
        raise ValueError(f"not a valid Codex note name: {name!r}")
    return name


def rollout_summary_slug(text: str | None) -> str:
    """Codex's rollout slug rule: lowercase, non-alphanumerics become ``_``, at most 60."""
    if not text:
        return ""
    return _ROLLOUT_SLUG_JUNK.sub("_", text.lower())[:MAX_ROLLOUT_SLUG_CHARS]


def base62_tag(seed: str, length: int = ROLLOUT_TAG_CHARS) -> str:
    """A stable base62 tag derived from ``seed`` (Codex uses random ones; ours reproduce)."""
    number = int.from_bytes(hashlib.sha256(seed.encode("utf-8", "surrogatepass")).digest(),
                            "big")
    chars = []
    for _ in range(length):
        number, index = divmod(number, len(BASE62_ALPHABET))
        chars.append(BASE62_ALPHABET[index])
    return "".join(chars)


def rollout_summary_file_name(updated_at: datetime, tag: str, slug: str | None = None) -> str:
    """``<YYYY-MM-DDTHH-MM-SS>-<tag>[-<slug>].md``; the slug goes through the slug rule."""
    clean = rollout_summary_slug(slug)
    suffix = f"-{clean}" if clean else ""
    return f"{file_timestamp(updated_at)}-{tag}{suffix}.md"


def rollout_uuid_from_name(name: str) -> str | None:
    """The uuid in a rollout file name, else None."""
    match = ROLLOUT_FILE_RE.match(name)
    return match.group(2).lower() if match else None
