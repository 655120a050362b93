"""The repositories' statements on psycopg: ``?`` placeholders, URLs without passwords.

The repositories write SQL with SQLite's placeholders (``?``, and ``:name`` with a dict of
parameters). ``translate`` turns a statement into psycopg's (``%s``, ``%(name)s``), escaping
a literal ``%`` and leaving string literals, quoted names and comments alone; the result is
cached per statement text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

URL_SCHEMES = ("postgresql://", "postgres://")
"""A store target starting with one of these is a PostgreSQL database."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_CACHED_STATEMENTS = 2048


def is_postgres_url(target: object) -> bool:
    """Whether a store target names a PostgreSQL database (a ``postgresql://`` URL)."""
    return isinstance(target, str) and target.strip().lower().startswith(URL_SCHEMES)


@lru_cache(maxsize=MAX_CACHED_STATEMENTS)
def translate(sql: str, named: bool) -> str:
    """``sql`` with psycopg placeholders: ``?`` -> ``%s``, ``:name`` -> ``%(name)s`` (when
    ``named``), ``%`` -> ``%%``; string literals, quoted identifiers, dollar-quoted bodies
    and comments are copied as they are."""
    out: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in ("'", '"'):
            end = i + 1
            while end < n:
                if sql[end] == ch:
                    if end + 1 < n and sql[end + 1] == ch:
                        end += 2
                        continue
                    break
                end += 1
            out.append(sql[i:end + 1].replace("%", "%%"))
            i = end + 1
        elif ch == "-" and sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end < 0 else end
            out.append(sql[i:end].replace("%", "%%"))
            i = end
        elif ch == "$":
            match = re.match(r"\$[A-Za-z_]*\$", sql[i:])
            if match:
                tag = match.group(0)
                end = sql.find(tag, i + len(tag))
                end = n if end < 0 else end + len(tag)
                out.append(sql[i:end].replace("%", "%%"))
                i = end
            else:
                out.append(ch)
                i += 1
        elif ch == "?":
            out.append("%s")
            i += 1
        elif ch == "%":
            out.append("%%")
            i += 1
        elif ch == ":" and named:
            if sql.startswith("::", i):
                out.append("::")
                i += 2
                continue
            match = _NAME.match(sql, i + 1)
            if match:
                out.append(f"%({match.group(0)})s")
                i = match.end()
            else:
                out.append(ch)
                i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


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
