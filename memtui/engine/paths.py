"""Where things live by default: the store, the socket, the acting user."""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path

DB_FILE_NAME = "memtui.db"
SOCKET_FILE_NAME = "memtui.sock"
CONFIG_FILE_NAME = "config.toml"
CONFIG_DB_KEY = "db"
"""The config file's key naming the store (a file path or a ``postgresql://`` URL)."""


def data_dir() -> Path:
    """The user's data folder for memtui, by platform convention."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "memtui"


def config_file(env: str, file_name: str) -> Path:
    """A memtui config file: ``$<env>`` if set, else ``$XDG_CONFIG_HOME/memtui/<file_name>``."""
    given = os.environ.get(env)
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "memtui" / file_name


DATABASE_URL_SCHEMES = ("postgresql://", "postgres://")
"""A store named by one of these is a PostgreSQL database, not a file."""


def is_database_url(target: str) -> bool:
    """Whether a store target is a database URL (``postgresql://...``), not a file path."""
    return target.strip().lower().startswith(DATABASE_URL_SCHEMES)


def missing_store_folder(target: str) -> Path | None:
    """The folder a store file ``target`` needs and that does not exist (None: it is there,
    or ``target`` is a database URL)."""
    folder = Path(target).expanduser().parent
    return None if is_database_url(target) or folder.is_dir() else folder


def config_path() -> Path:
    """memtui's config file (``$MEMTUI_CONFIG``, else ``config.toml`` in the config folder)."""
    return config_file("MEMTUI_CONFIG", CONFIG_FILE_NAME)


def configured_store() -> str | None:
    """The store the config file names (``db = "postgresql://..."`` or a path), if any; a
    file that is not TOML, or a bad ``db``, is refused (``InvalidInput``), never ignored."""
    from memtui.errors import InvalidInput

    path = config_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InvalidInput(f"{path}: cannot read the config file ({error.strerror})") from None
    import tomllib

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise InvalidInput(f"{path}: not a TOML file ({error})") from None
    value = data.get(CONFIG_DB_KEY)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{path}: `{CONFIG_DB_KEY}` must be a store path or a "
                           "postgresql:// URL (a non-empty string)")
    return value.strip()


def store_target(given: str | None) -> str:
    """The store a command uses: ``--db``, ``$MEMTUI_DB``, the config file, the default."""
    value = given or os.environ.get("MEMTUI_DB") or configured_store() or ""
    if value and is_database_url(value):
        return value.strip()
    return str(Path(value).expanduser()) if value else str(data_dir() / DB_FILE_NAME)


def default_socket_path() -> Path:
    """``$MEMTUI_SOCKET``, else in ``$XDG_RUNTIME_DIR``, else a private temp folder."""
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
    if os.environ.get("MEMTUI_USER"):
        return os.environ["MEMTUI_USER"]
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "user"
