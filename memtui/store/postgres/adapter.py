"""The repositories' statements on psycopg (``translate``: SQLite's ``?`` and ``:name``
placeholders as psycopg's), and URLs without passwords."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

URL_SCHEMES = ("postgresql://", "postgres://")
"""A store target starting with one of these is a PostgreSQL database."""
MAX_CACHED_STATEMENTS = 2048


def is_postgres_url(target: object) -> bool:
    """Whether a store target names a PostgreSQL database (a ``postgresql://`` URL)."""
    return isinstance(target, str) and target.strip().lower().startswith(URL_SCHEMES)


_TOKENS = re.compile(r"""
    '(?:[^']|'')*'? | "(?:[^"]|"")*"? | --[^\n]* | (\$[A-Za-z_]*\$)[\s\S]*?(?:\1|\Z)
    | \? | % | :: | :([A-Za-z_][A-Za-z0-9_]*)""", re.VERBOSE)
"""What ``translate`` changes or copies whole: a literal, a quoted identifier, a comment, a
dollar-quoted body, ``?``, ``%``, ``::`` (a cast) and ``:name``."""


@lru_cache(maxsize=MAX_CACHED_STATEMENTS)
def translate(sql: str, named: bool) -> str:
    """``sql`` with psycopg placeholders: ``?`` -> ``%s``, ``:name`` -> ``%(name)s`` (when
    ``named``), ``%`` -> ``%%``; literals, quoted names and comments stay as they are."""

    def swap(match: re.Match[str]) -> str:
        text = match.group(0)
        if text == "?":
            return "%s"
        if match.group(2) is not None:
            return f"%({match.group(2)})s" if named else text
        return text if text == "::" else text.replace("%", "%%")

    return _TOKENS.sub(swap, sql)


def statement(sql: str, params: Any) -> str:
    """``translate`` for these parameters (named when they are a mapping)."""
    return translate(sql, isinstance(params, Mapping))


def parameters(params: Any) -> Any:
    """Parameters as psycopg takes them: a mapping stays; anything else becomes a tuple."""
    if params is None:
        return ()
    if isinstance(params, Mapping):
        return params
    return tuple(params)


def redact_url(url: str) -> str:
    """The URL for people: without a password (in the user part or the query)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return "postgresql://(unreadable URL)"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}@{host}"
    query = [(key, value) for key, value in parse_qsl(parts.query, keep_blank_values=True)
             if key.lower() != "password"]
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(query, safe="/"),
                       parts.fragment))


def url_password(url: str) -> str | None:
    """The password a URL holds (to strip it from messages), or None."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if "@" in parts.netloc:
        userinfo = parts.netloc.rsplit("@", 1)[0]
        if ":" in userinfo:
            return unquote(userinfo.split(":", 1)[1]) or None
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key.lower() == "password" and value:
            return value
    return None


def scrub(text: str, url: str) -> str:
    """``text`` without the URL's password (raw or URL-quoted) anywhere in it."""
    secret = url_password(url)
    if secret:
        for form in {secret, quote(secret, safe="")}:
            text = text.replace(form, "***")
    return text
