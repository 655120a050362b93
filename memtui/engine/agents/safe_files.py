"""Safe reads and writes of files inside an agent's store (spec/80, "Every write").

Reads: the real path must stay inside the store's root (a symlink leading outside is
refused, never followed), the file is opened with ``O_NOFOLLOW | O_NONBLOCK`` (no FIFO can
block), must be a regular file, is capped in size, and must be UTF-8 text without NUL
bytes. Each read returns a ``FileStamp`` (size, mtime, SHA-256, mode) of what was read.

Writes go through ``replace_file`` / ``remove_file`` / ``create_file`` only, the one shared
helper of every curation: refuse a path that leaves the root or is a symlink, refuse when
the file changed since its stamp was taken (size, mtime or hash differ), write a temporary
file in the same folder, keep the old file's mode, fsync, and rename it over the old one.
Nothing is ever half-written: a failure leaves the old file as it was.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import hashlib
import os
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from memtui.engine.agents.errors import (
    AgentError,
    AgentFileProblem,
    ChangedSinceRead,
    UnsafeAgentPath,
)

MAX_TEXT_FILE_BYTES = 1024 * 1024
"""Largest memory or instruction file read; larger ones are reported, not read."""
NEW_FILE_MODE = 0o600
"""Mode of a file memtui creates (a new topic file, a promoted memory's file)."""
NEW_DIR_MODE = 0o700
TEMP_PREFIX = ".memtui-tmp-"
_READ_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0))
_CREATE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0))
_UTF8_BOM = "\ufeff"
_READ_CHUNK = 1 << 20


@dataclass(frozen=True)
class FileStamp:
    """What a file was when memtui read it: a write is refused unless it still is."""

    path: str
    size: int
    mtime_ns: int
    sha256: str
    mode: int

    def to_json(self) -> dict[str, object]:
        """The stamp as plain JSON (mode in octal text)."""
        return {"path": self.path, "size": self.size, "mtime_ns": self.mtime_ns,
                "sha256": self.sha256, "mode": oct(self.mode)}


_FOLDER_CACHE: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "memtui_agents_folder_cache", default=None)


@contextlib.contextmanager
def folder_cache() -> Iterator[None]:
    """Within this block, the real path of each folder is resolved once (a reader lists and
    opens thousands of files in the same few folders); writes never use it."""
    token = _FOLDER_CACHE.set({})
    try:
        yield
    finally:
        _FOLDER_CACHE.reset(token)


def realpath(path: str | os.PathLike[str]) -> str:
    """``os.path.realpath``, with folders resolved once inside ``folder_cache``."""
    text = os.fspath(path)
    cache = _FOLDER_CACHE.get()
    if cache is None:
        return os.path.realpath(text)
    parent, name = os.path.split(os.path.abspath(text))
    if name in ("", ".", ".."):
        return os.path.realpath(text)
    real_parent = cache.get(parent)
    if real_parent is None:
        real_parent = os.path.realpath(parent)
        cache[parent] = real_parent
    full = os.path.join(real_parent, name)
    return os.path.realpath(full) if os.path.islink(full) else full


def real_root(root: str | os.PathLike[str]) -> Path:
    """The real (symlink-resolved) absolute path of a store's root folder."""
    return Path(os.path.realpath(os.fspath(root)))


def is_within(path: str | os.PathLike[str], root: Path) -> bool:
    """True when the real path of ``path`` is ``root`` (already real) or below it."""
    real = realpath(path)
    base = str(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def check_inside(path: str | os.PathLike[str], root: Path) -> Path:
    """The real path of ``path``; ``AgentFileProblem`` when it leaves ``root``."""
    if not is_within(path, root):
        kind = "symlink" if os.path.islink(path) else "path"
        raise AgentFileProblem(f"{kind} leads outside {root}; not followed")
    return Path(realpath(path))


def _open(path: Path, root: Path) -> int:
    real = check_inside(path, root)
    try:
        fd = os.open(real, _READ_FLAGS)
    except FileNotFoundError:
        raise AgentFileProblem("file not found") from None
    except PermissionError:
        raise AgentFileProblem("permission denied; cannot read") from None
    except OSError as error:
        raise AgentFileProblem(f"cannot open ({error.strerror or error})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise AgentFileProblem("not a regular file")
    return fd


def _read_fd(fd: int, max_bytes: int) -> bytes:
    size = os.fstat(fd).st_size
    if size > max_bytes:
        raise AgentFileProblem(f"too large ({size} bytes; the limit is {max_bytes})")
    chunks: list[bytes] = []
    total = 0
    while total <= max_bytes:
        chunk = os.read(fd, min(_READ_CHUNK, max_bytes + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > max_bytes:
        raise AgentFileProblem(f"too large (more than {max_bytes} bytes)")
    return b"".join(chunks)


def read_bytes(path: str | os.PathLike[str], root: Path,
               max_bytes: int = MAX_TEXT_FILE_BYTES) -> tuple[bytes, FileStamp]:
    """The bytes of a regular file inside ``root`` and its stamp."""
    file_path = Path(path)
    fd = _open(file_path, root)
    try:
        info = os.fstat(fd)
        data = _read_fd(fd, max_bytes)
    except OSError as error:
        raise AgentFileProblem(f"read failed ({error.strerror or error})") from None
    finally:
        os.close(fd)
    stamp = FileStamp(str(file_path), len(data), info.st_mtime_ns,
                      hashlib.sha256(data).hexdigest(), stat.S_IMODE(info.st_mode))
    return data, stamp


def decode_text(data: bytes) -> str:
    """File bytes as text; binary or invalid UTF-8 raise ``AgentFileProblem``."""
    if b"\x00" in data:
        raise AgentFileProblem("binary file (contains NUL bytes); not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise AgentFileProblem(f"not valid UTF-8 (bad byte at offset {error.start})") from None
    return text[1:] if text.startswith(_UTF8_BOM) else text


def read_text(path: str | os.PathLike[str], root: Path,
              max_bytes: int = MAX_TEXT_FILE_BYTES) -> tuple[str, FileStamp]:
    """The UTF-8 text of a regular file inside ``root`` and its stamp."""
    data, stamp = read_bytes(path, root, max_bytes)
    return decode_text(data), stamp


def read_prefix(path: str | os.PathLike[str], root: Path, max_bytes: int) -> bytes:
    """At most the first ``max_bytes`` of a regular file inside ``root``."""
    fd = _open(Path(path), root)
    try:
        return os.read(fd, max_bytes)
    except OSError as error:
        raise AgentFileProblem(f"read failed ({error.strerror or error})") from None
    finally:
        os.close(fd)


def list_folder(folder: str | os.PathLike[str], root: Path) -> list[Path]:
    """The entries of a folder inside ``root``, sorted by name (empty when absent)."""
    path = Path(folder)
    if not os.path.lexists(path):
        return []
    real = check_inside(path, root)
    if not real.is_dir():
        raise AgentFileProblem("not a folder")
    try:
        names = sorted(os.listdir(real))
    except OSError as error:
        raise AgentFileProblem(f"cannot list folder ({error.strerror or error})") from None
    return [path / name for name in names]


# ---- writes --------------------------------------------------------------------------------


def _check_write_target(path: Path, root: Path) -> None:
    if os.path.islink(path):
        raise UnsafeAgentPath(f"{path}: is a symlink; memtui never writes through one")
    parent = path.parent
    if not is_within(parent, root):
        raise UnsafeAgentPath(f"{path}: its folder leads outside {root}; nothing was written")
    if not is_within(path, root):
        raise UnsafeAgentPath(f"{path}: leads outside {root}; nothing was written")


def current_stamp(path: str | os.PathLike[str], root: Path,
                  max_bytes: int = MAX_TEXT_FILE_BYTES) -> FileStamp:
    """The stamp of the file as it is now (reads and hashes it)."""
    return read_bytes(path, root, max_bytes)[1]


def check_unchanged(expected: FileStamp, root: Path) -> None:
    """``ChangedSinceRead`` unless the file still has ``expected``'s size, mtime and hash
    (``AgentFileProblem`` when it can no longer be read)."""
    try:
        now = current_stamp(expected.path, root, max(expected.size, MAX_TEXT_FILE_BYTES))
    except AgentFileProblem as error:
        raise ChangedSinceRead(f"{expected.path}: changed since it was read "
                               f"({error.reason}); nothing was written") from None
    if (now.size, now.mtime_ns, now.sha256) != (expected.size, expected.mtime_ns,
                                                 expected.sha256):
        raise ChangedSinceRead(f"{expected.path}: changed since it was read (by the agent?); "
                               "nothing was written — read it again and retry")


def _write_temp(folder: Path, data: bytes, mode: int) -> Path:
    temp = folder / f"{TEMP_PREFIX}{secrets.token_hex(8)}"
    try:
        fd = os.open(temp, _CREATE_FLAGS, mode)
    except OSError as error:
        raise AgentError(f"{folder}: cannot create a temporary file "
                         f"({error.strerror or error}); nothing was written") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise AgentError(f"{folder}: cannot write ({error.strerror or error}); nothing was "
                         "written") from None
    return temp


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def replace_file(expected: FileStamp, text: str, root: Path) -> FileStamp:
    """Write ``text`` over the file ``expected`` was taken of, atomically; its new stamp.

    Refused (nothing written) when the path is a symlink or leaves ``root``
    (``UnsafeAgentPath``), or when the file changed since ``expected`` was taken
    (``ChangedSinceRead``). The file keeps its mode.
    """
    path = Path(expected.path)
    _check_write_target(path, root)
    check_unchanged(expected, root)
    data = text.encode("utf-8")
    temp = _write_temp(path.parent, data, expected.mode)
    try:
        check_unchanged(expected, root)  # the agent may have written while we did
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_folder(path.parent)
    return current_stamp(path, root, max(len(data), MAX_TEXT_FILE_BYTES))


def remove_file(expected: FileStamp, root: Path) -> None:
    """Remove the file ``expected`` was taken of; refused like ``replace_file``."""
    path = Path(expected.path)
    _check_write_target(path, root)
    check_unchanged(expected, root)
    try:
        path.unlink()
    except FileNotFoundError:
        raise ChangedSinceRead(f"{path}: removed since it was read; nothing to do") from None
    except OSError as error:
        raise AgentError(f"{path}: cannot remove ({error.strerror or error})") from None
    _fsync_folder(path.parent)


def create_file(path: str | os.PathLike[str], text: str, root: Path,
                mode: int = NEW_FILE_MODE) -> FileStamp:
    """Create a new file (never over an existing one) atomically; its stamp.

    Missing folders between ``root`` and the file are created; none may be a symlink.
    """
    target = Path(path)
    folder = target.parent
    if not is_within(folder, root) and os.path.lexists(folder):
        raise UnsafeAgentPath(f"{target}: its folder leads outside {root}; nothing was "
                              "written")
    try:
        folder.mkdir(mode=NEW_DIR_MODE, parents=True, exist_ok=True)
    except OSError as error:
        raise AgentError(f"{folder}: cannot create folder ({error.strerror or error})") from None
    _check_write_target(target, root)
    data = text.encode("utf-8")
    temp = _write_temp(folder, data, mode)
    try:
        os.link(temp, target, follow_symlinks=False)
    except FileExistsError:
        raise AgentError(f"{target}: already exists; memtui does not overwrite it") from None
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise AgentError(f"{target}: cannot create ({error.strerror or error})") from None
        fd = os.open(target, _CREATE_FLAGS, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            os.fsync(handle.fileno())
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)
    _fsync_folder(folder)
    return current_stamp(target, root, max(len(data), MAX_TEXT_FILE_BYTES))
