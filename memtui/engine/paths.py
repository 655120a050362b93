"""Where things live by default: the store, the socket, the acting user."""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path

DB_FILE_NAME = "memtui.db"
SOCKET_FILE_NAME = "memtui.sock"


def data_dir() -> Path:
    """The user's data folder for memtui, by platform convention."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "memtui"


def default_db_path() -> Path:
    """``$MEMTUI_DB`` if set, else ``<data dir>/memtui.db``."""
    env = os.environ.get("MEMTUI_DB")
    return Path(env).expanduser() if env else data_dir() / DB_FILE_NAME


DATABASE_URL_SCHEMES = ("postgresql://", "postgres://")
"""A store named by one of these is a PostgreSQL database, not a file."""


def is_database_url(target: str) -> bool:
    """Whether a store target is a database URL (``postgresql://...``), not a file path."""
    return target.strip().lower().startswith(DATABASE_URL_SCHEMES)


def store_target(given: str | None) -> str:
    """The store a command uses: ``given`` (``--db``), else ``$MEMTUI_DB``, else the default
    file. A database URL is kept as it is; a path has ``~`` expanded."""
    value = given or os.environ.get("MEMTUI_DB") or ""
    if value and is_database_url(value):
        return value.strip()
    return str(Path(value).expanduser()) if value else str(data_dir() / DB_FILE_NAME)


def default_socket_path() -> Path:
    """``$MEMTUI_SOCKET`` if set, else the user's runtime folder (``$XDG_RUNTIME_DIR``), else a
    private folder under the temp dir."""
    env = os.environ.get("MEMTUI_SOCKET")
    if env:
        return Path(env).expanduser()
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / SOCKET_FILE_NAME
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(os.environ.get("TMPDIR", "/tmp")) / f"memtui-{uid}" / SOCKET_FILE_NAME


def default_user() -> str:
    """``$MEMTUI_USER`` if set, else the login name."""
    env = os.environ.get("MEMTUI_USER")
    if env:
        return env
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "user"
