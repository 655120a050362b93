"""Input checks shared by every write path. Each failure is an ``InvalidInput`` naming why."""

from __future__ import annotations

import re
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memtui.errors import InvalidInput
from memtui.store.models import KINDS, ROLES

MAX_CONTENT_BYTES = 64 * 1024
"""Largest memory or note content accepted (after redaction), in UTF-8 bytes."""
MAX_PREFERENCES_BYTES = 64 * 1024
MAX_JSON_DEPTH = 32
"""Deepest nesting accepted in a JSON value a person or agent sends."""
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$")
BANNED_PREFERENCE_WORDS = ("password", "secret", "token", "apikey", "credential")
_NON_ALNUM = re.compile(r"[^a-z0-9]")


def check_text(value: object, what: str, *, max_bytes: int = MAX_CONTENT_BYTES,
               allow_empty: bool = False) -> str:
    """A text field: a string, valid Unicode, no NUL, not blank (unless allowed), not too big."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be text")
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidInput(f"{what} is not valid UTF-8") from None
    if "\x00" in value:
        raise InvalidInput(f"{what} contains a NUL byte")
    if not allow_empty and not value.strip():
        raise InvalidInput(f"{what} is empty")
    if size > max_bytes:
        raise InvalidInput(f"{what} is too long ({size} bytes; the limit is {max_bytes})")
    return value


def check_kind(kind: object) -> str:
    """One of the four memory kinds."""
    if kind not in KINDS:
        raise InvalidInput(f"unknown kind {kind!r}: use one of {', '.join(KINDS)}")
    return str(kind)


def check_role(role: object) -> str:
    """One of the membership roles."""
    if role not in ROLES:
        raise InvalidInput(f"unknown role {role!r}: use one of {', '.join(ROLES)}")
    return str(role)


def check_id(value: object, what: str) -> str:
    """A user or project id: letters, digits, ``._@-``, at most 128 characters."""
    if not isinstance(value, str) or not ID_PATTERN.match(value):
        raise InvalidInput(f"{what} {str(value)[:80]!r} is not a valid id "
                           "(letters, digits, . _ @ -; at most 128)")
    return value


def check_timezone(name: object) -> str:
    """A valid IANA time zone name."""
    if not isinstance(name, str) or not name or len(name) > 64 or name.startswith("/") \
            or ".." in name:
        raise InvalidInput(f"unknown time zone {str(name)[:64]!r}")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise InvalidInput(f"unknown time zone {name!r}") from None
    return name


def json_depth(value: Any, limit: int = MAX_JSON_DEPTH) -> int:
    """Nesting depth of a JSON value, iteratively; stops counting past ``limit``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                return deepest
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return deepest


def banned_preference_key(value: Any, path: str = "") -> str | None:
    """The dotted path of the first key that names a secret (password, token ...), or None."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                here = f"{where}.{key}" if where else str(key)
                normal = _NON_ALNUM.sub("", str(key).lower())
                if any(word in normal for word in BANNED_PREFERENCE_WORDS):
                    return here
                stack.append((child, here))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{i}]") for i, child in enumerate(item))
    return None


def check_preferences(value: object) -> dict[str, Any]:
    """Preferences: a JSON object, not too deep or big, with no key that names a secret."""
    import json

    if not isinstance(value, dict):
        raise InvalidInput("preferences must be a JSON object")
    if json_depth(value) > MAX_JSON_DEPTH:
        raise InvalidInput(f"preferences are nested deeper than {MAX_JSON_DEPTH} levels")
    banned = banned_preference_key(value)
    if banned is not None:
        raise InvalidInput(f"preference key {banned!r} looks like a secret; a profile is not a "
                           "credential store")
    size = len(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    if size > MAX_PREFERENCES_BYTES:
        raise InvalidInput(f"preferences are too large ({size} bytes; the limit is "
                           f"{MAX_PREFERENCES_BYTES})")
    return value
