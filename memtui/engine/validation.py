"""Input checks shared by every write path and the import of a backup; each failure is an
``InvalidInput`` naming why."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from memtui.errors import InvalidInput
from memtui.store.models import KINDS, ROLES
from memtui.store.timeutil import normalize_time

MAX_CONTENT_BYTES = 64 * 1024
"""Largest memory or note content accepted (after redaction), in UTF-8 bytes."""
MAX_PREFERENCES_BYTES = 64 * 1024
MAX_LABEL_BYTES = 256
MAX_PATH_BYTES = 4096
MAX_DETAIL_BYTES = 16 * 1024
MAX_JSON_DEPTH = 32
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}\Z")
RECORD_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}\Z")
"""A stored record's id or label (``mem_01j...``, ``project:web``, ``memory_created``): like
a user id, with ``_`` and ``:`` too."""
MAX_ECHO_CHARS = 80
MAX_ECHO_SCAN = 4096
"""How much of a bad value ``echo`` redacts before it cuts (a secret at the cut is found)."""
MAX_REFERENCE_BYTES = 1024
_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_STORED_CONTROLS = re.compile(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")
"""What ``strip_controls`` removes: the C0 controls but tab, newline and the carriage return
of a CRLF line end (NUL is refused), DEL and the C1 controls (ESC, BEL, CSI ...)."""
BANNED_PREFERENCE_WORDS = ("password", "secret", "token", "apikey", "credential")
"""A preference key holding one of these (any case, separators dropped) names a secret; so
does a key the redaction rules read as a password or token name (``names_secret``)."""
BANNED_PREFERENCE_ENDINGS = (("pin",), ("ssh", "key"))
"""Last words of a preference key that name a secret too (``sim_pin``, ``ssh_key``)."""
_NON_ALNUM = re.compile(r"[^a-z0-9]")

STRING, INTEGER, NUMBER, BOOLEAN, OBJECT, ARRAY, NULL = (
    "string", "integer", "number", "boolean", "object", "array", "null")
"""JSON type names (``json_type``; the service's parameter specs)."""
_JSON_TYPES = ((type(None), NULL), (bool, BOOLEAN), (int, INTEGER), (float, NUMBER),
               (str, STRING), (list, ARRAY))
"""Python types to JSON type names, ``bool`` before ``int`` (a bool is an int)."""


def json_type(value: Any) -> str:
    """The JSON type name of a decoded value (a whole number is ``integer``)."""
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), OBJECT)


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


def redact(text: str) -> str:
    """``memtui.engine.redaction.redact``, imported on first use (slow to import)."""
    from memtui.engine.redaction import redact as redact_text

    return redact_text(text)


def echo(value: object, limit: int = MAX_ECHO_CHARS, *, quote: bool = True) -> str:
    """``value`` as an error message quotes it: redacted, at most ``limit`` characters, then
    ``repr`` unless not ``quote``."""
    shown = redact(str(value)[:MAX_ECHO_SCAN])[:limit]
    return repr(shown) if quote else shown


def strip_controls(text: str) -> str:
    """``text`` without terminal control characters (``_STORED_CONTROLS``): ESC or BEL would
    act in the terminals and agents stored text is handed to."""
    return _STORED_CONTROLS.sub("", text)


def redact_values(value: Any) -> Any:
    """A JSON value with every string (keys too) stripped of control characters, redacted."""
    if isinstance(value, str):
        return redact(strip_controls(value))
    if isinstance(value, dict):
        return {redact(strip_controls(str(key))): redact_values(child)
                for key, child in value.items()}
    if isinstance(value, list):
        return [redact_values(child) for child in value]
    return value


def clean_text(value: object, what: str, *, max_bytes: int = MAX_CONTENT_BYTES,
               allow_empty: bool = False, strip: bool = False,
               one_line: bool = False) -> str:
    """The one way free text a person typed is made fit to store: ``check_text``,
    ``strip_controls``, redaction, ``check_text`` again. ``strip`` trims surrounding white
    space first; ``one_line`` refuses line breaks."""
    text = check_text(value, what, max_bytes=max_bytes, allow_empty=allow_empty)
    if one_line and ("\n" in text or "\r" in text):
        raise InvalidInput(f"{what} must be one line of text")
    text = strip_controls(text)
    cleaned = redact(text.strip() if strip else text)
    return check_text(cleaned, what, max_bytes=max_bytes, allow_empty=allow_empty)


def check_limit(limit: object, top: int) -> int:
    """A list size: a whole number from 1 to ``top`` (a bool is not one)."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= top:
        raise InvalidInput(f"limit must be a whole number from 1 to {top}")
    return limit


def clamp_limit(limit: object, top: int) -> int:
    """A list size of at least 1, cut to ``top``."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInput("limit must be a whole number of at least 1")
    return min(limit, top)


def check_time(value: object, what: str) -> str:
    """A time in the stored form (``memtui.store.timeutil``); InvalidInput naming ``what``."""
    try:
        return normalize_time(value)
    except InvalidInput as error:
        raise InvalidInput(f"{what}: {error.message}") from None


def check_kind(kind: object) -> str:
    """One of the four memory kinds."""
    if kind not in KINDS:
        raise InvalidInput(f"unknown kind {echo(kind, 40)}: use one of {', '.join(KINDS)}")
    return str(kind)


def check_role(role: object) -> str:
    """One of the membership roles."""
    if role not in ROLES:
        raise InvalidInput(f"unknown role {echo(role, 40)}: use one of {', '.join(ROLES)}")
    return str(role)


def check_id(value: object, what: str, pattern: re.Pattern[str] = ID_PATTERN) -> str:
    """A user or project id: letters, digits, ``._@-``, at most 128 characters (with
    ``RECORD_ID_PATTERN``, ``:`` too)."""
    if not isinstance(value, str) or not pattern.match(value):
        extra = " :" if pattern is RECORD_ID_PATTERN else ""
        raise InvalidInput(f"{what} {echo(value)} is not a valid id "
                           f"(letters, digits, . _{extra} @ -; at most 128)")
    return value


def check_new_id(value: object, what: str, pattern: re.Pattern[str] = ID_PATTERN) -> str:
    """An id or label a caller brings into the store (a new project, member, interaction
    id ...): ``check_id``, and refused when it holds a secret."""
    checked = check_id(value, what, pattern)
    if redact(checked) != checked:
        raise InvalidInput(f"{what} looks like it holds a secret: use a plain name")
    return checked


def check_record_id(value: object, what: str) -> str:
    """A stored record's id or label (``RECORD_ID_PATTERN``)."""
    return check_id(value, what, RECORD_ID_PATTERN)


def check_reference(value: object, what: str, max_bytes: int = MAX_REFERENCE_BYTES) -> str:
    """An external reference (a source thread id ...): one line, no control characters."""
    text = check_text(value, what, max_bytes=max_bytes)
    if _CONTROL_CHARS.search(text):
        raise InvalidInput(f"{what} contains control characters")
    return text


def check_timezone(name: object) -> str:
    """A valid IANA time zone name."""
    if not isinstance(name, str) or not name or len(name) > 64 or name.startswith("/") \
            or ".." in name:
        raise InvalidInput(f"unknown time zone {echo(name, 64)}")
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # only timezones need it

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise InvalidInput(f"unknown time zone {echo(name, 64)}") from None
    return name


def _nodes(value: Any, keys: bool = False) -> Iterator[tuple[Any, int]]:
    """Every value nested in a JSON value (with ``keys``, object keys too), with its depth."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        yield item, depth
        if isinstance(item, dict):
            children = [*item, *item.values()] if keys else item.values()
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)


def json_depth(value: Any, limit: int = MAX_JSON_DEPTH) -> int:
    """Nesting depth of a JSON value, iteratively; stops counting past ``limit``."""
    deepest = 0
    for _item, depth in _nodes(value):
        deepest = max(deepest, depth)
        if deepest > limit:
            break
    return deepest


def parse_json_object(text: str, not_json: str, not_object: str) -> dict[str, Any]:
    """``text`` as a JSON object nested at most ``MAX_JSON_DEPTH`` deep: InvalidInput
    saying ``not_json`` when it is not JSON, ``not_object`` when it is not such an object."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise InvalidInput(not_json) from None
    if not isinstance(value, dict) or json_depth(value) > MAX_JSON_DEPTH:
        raise InvalidInput(not_object)
    return value


def names_secret(key: str) -> bool:
    """Whether a preference key names a secret: a ``BANNED_PREFERENCE_WORDS`` word in it, a
    password or token name to the redaction rules, or a ``BANNED_PREFERENCE_ENDINGS`` end."""
    from memtui.engine.redaction.keywords import SECRET_NAME_KINDS, classify_name, split_words

    normal = _NON_ALNUM.sub("", key.lower())
    words = tuple(split_words(key))
    return (any(word in normal for word in BANNED_PREFERENCE_WORDS)
            or classify_name(key) in SECRET_NAME_KINDS
            or any(words[-len(end):] == end for end in BANNED_PREFERENCE_ENDINGS))


def banned_preference_key(value: Any, path: str = "") -> str | None:
    """The dotted path of the first key that names a secret (password, token ...), or None."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                here = f"{where}.{key}" if where else str(key)
                if names_secret(str(key)):
                    return here
                stack.append((child, here))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{i}]") for i, child in enumerate(item))
    return None


def parse_preferences(text: str, what: str = "preferences") -> dict[str, Any]:
    """Preferences typed as JSON text, parsed and checked (``check_preferences``)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise InvalidInput(f"{what}: not valid JSON ({error})") from None
    return check_preferences(value)


def _small_object(value: object, what: str, max_bytes: int) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidInput(f"{what} must be a JSON object")
    if json_depth(value) > MAX_JSON_DEPTH:
        raise InvalidInput(f"{what}: nested deeper than {MAX_JSON_DEPTH} levels")
    try:  # plain JSON only: no NaN, text keys
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        raise InvalidInput(f"{what} must be plain JSON (text, finite numbers, lists, "
                           "objects)") from None
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidInput(f"{what} must be valid UTF-8 text (a lone surrogate is not)") \
            from None
    if size > max_bytes:
        raise InvalidInput(f"{what}: too large ({size} bytes; the limit is {max_bytes})")
    return value


def check_preferences(value: object) -> dict[str, Any]:
    """Preferences: a JSON object, not too deep or big, with no key that names a secret."""
    checked = _small_object(value, "preferences", MAX_PREFERENCES_BYTES)
    banned = banned_preference_key(checked)
    if banned is not None:
        raise InvalidInput(f"preference key {banned!r} looks like a secret; a profile is not a "
                           "credential store")
    return checked


def _redacted_json(value: dict[str, Any], sort_keys: bool) -> tuple[str, Any]:
    """``value``'s strings redacted, then its JSON text as a whole, where a key gives its value
    context: the text and its parsed value (None if redaction broke it)."""
    text = redact(json.dumps(redact_values(value), ensure_ascii=False, sort_keys=sort_keys))
    try:
        return text, json.loads(text)
    except ValueError:
        return text, None


def clean_preferences(value: object) -> dict[str, Any]:
    """Preferences checked and redacted (``_redacted_json``), key order kept."""
    _text, cleaned = _redacted_json(check_preferences(value), sort_keys=False)
    if not isinstance(cleaned, dict):
        raise InvalidInput("preferences hold a secret that cannot be cut out of them")
    return check_preferences(cleaned)


def clean_detail(value: object, what: str = "detail",
                 max_bytes: int = MAX_DETAIL_BYTES) -> dict[str, Any]:
    """A small JSON object (audit and consolidation details): checked, redacted."""
    checked = _small_object(value, what, max_bytes)
    if any(isinstance(item, str) and "\x00" in item for item, _depth in _nodes(checked, True)):
        raise InvalidInput(f"{what} contains a NUL byte")
    text, cleaned = _redacted_json(checked, sort_keys=True)
    return cleaned if isinstance(cleaned, dict) else {"redacted": text}
