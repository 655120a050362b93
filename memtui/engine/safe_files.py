"""Safe reads and writes of the files in another program's home folder (Codex, Claude Code,
Gemini CLI): the one copy of these rules (docs/ARCHITECTURE.md), one ``SafeFiles`` per home
raising its own error classes (``CODEX_FILES``, ``AGENT_FILES``).
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import functools
import hashlib
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, ParamSpec, TypeVar

from memtui.errors import Conflict, MemtuiError, PermissionDenied
from memtui.jsonable import JsonMixin

MAX_TEXT_FILE_BYTES = 1024 * 1024
NEW_FILE_MODE = 0o600
NEW_DIR_MODE = 0o700
TEMP_PREFIX = ".memtui-tmp-"
"""Name prefix of the temporary file a write goes through (same folder as the target)."""
READ_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
              | getattr(os, "O_CLOEXEC", 0))
"""Reads never go through a final symlink nor block on a FIFO."""
CREATE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                | getattr(os, "O_CLOEXEC", 0))
"""How a new file is created: never over an existing file or through a symlink."""
NO_HARD_LINK_ERRNOS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK})
"""``link()`` failures that mean the file system has no hard links (create in place then)."""
_UTF8_BOM = "\ufeff"
_LONE_LF = re.compile(rb"(?<!\r)\n")
P = ParamSpec("P")
R = TypeVar("R")
_READ_CHUNK = 1 << 20


class FileProblem(MemtuiError, code="file_problem"):
    """One file cannot be read or written safely (outside the home, a symlink, too large,
    binary ...); ``reason`` is the one-line cause. Each home raises its own subclass."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class FileStamp(JsonMixin):
    """What a file was when memtui read it: a write is refused unless it still is."""

    path: str
    size: int
    mtime_ns: int
    sha256: str
    mode: int

    def to_json(self) -> dict[str, object]:
        """The stamp as plain JSON (mode in octal text)."""
        return super().to_json() | {"mode": oct(self.mode)}


_FOLDER_CACHE: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "memtui_safe_files_folder_cache", default=None)


@contextlib.contextmanager
def folder_cache() -> Iterator[None]:
    """Within this block each folder's real path is resolved once (for readers only)."""
    token = _FOLDER_CACHE.set({})
    try:
        yield
    finally:
        _FOLDER_CACHE.reset(token)


def with_folder_cache(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` run inside ``folder_cache()`` (for a reader of a whole home)."""
    @functools.wraps(function)
    def cached(*args: P.args, **kwargs: P.kwargs) -> R:
        with folder_cache():
            return function(*args, **kwargs)
    return cached


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
    """The real (symlink-resolved) absolute path of a home folder."""
    return Path(os.path.realpath(os.fspath(root)))


def is_within(path: str | os.PathLike[str], root: Path) -> bool:
    """True when the real path of ``path`` is ``root`` (already real) or below it."""
    real = realpath(path)
    base = str(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def json_lines(handle: IO[bytes], max_line_bytes: int, first_number: int = 0
               ) -> Iterator[tuple[int, bytes | None, int]]:
    """``(line number, line, bytes consumed)`` for each line of a JSON Lines file; a line
    longer than ``max_line_bytes`` is consumed and given as ``None``."""
    number = first_number
    while True:
        raw = handle.readline(max_line_bytes + 1)
        if not raw:
            return
        number += 1
        consumed = len(raw)
        if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):
                raw = handle.readline(_READ_CHUNK)
                consumed += len(raw)
            yield number, None, consumed
            continue
        yield number, raw, consumed


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def temp_name(folder: Path) -> Path:
    """A new temporary file's path in ``folder`` (``TEMP_PREFIX`` and a random tail)."""
    return folder / f"{TEMP_PREFIX}{secrets.token_hex(8)}"


def write_new_file(name: str | os.PathLike[str], data: bytes, mode: int,
                   dir_fd: int | None = None) -> None:
    """Create ``name`` holding ``data``, fsynced, never over a file or through a symlink."""
    fd = os.open(name, CREATE_FLAGS, mode, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=dir_fd)
        raise


def publish_new_file(temp: str | os.PathLike[str], name: str | os.PathLike[str], data: bytes,
                     mode: int, dir_fd: int | None = None) -> bool:
    """Give the written temporary file ``temp`` the new name ``name`` without ever replacing
    a file (a hard link, else ``data`` written there); False when ``name`` is taken. The
    caller removes ``temp``."""
    try:
        os.link(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
        return True
    except FileExistsError:
        return False
    except OSError as error:
        if error.errno not in NO_HARD_LINK_ERRNOS:
            raise
    try:
        write_new_file(name, data, mode, dir_fd)
    except FileExistsError:
        return False
    return True


def encode_like(text: str, original: bytes | None) -> bytes:
    """``text`` as the bytes of a file that held ``original``: its UTF-8 BOM kept, and in a
    file whose every line ends in CRLF, the lines added ending so too."""
    data = text.encode("utf-8")
    if not original:
        return data
    if b"\r\n" in original and _LONE_LF.search(original) is None:
        data = _LONE_LF.sub(b"\r\n", data)
    bom = _UTF8_BOM.encode("utf-8")
    return bom + data if original.startswith(bom) else data


def check_owned(path: Path, refuse: Callable[[str], Exception]) -> None:
    """``refuse(message)`` unless ``path`` (or its nearest existing folder) belongs to the user
    memtui runs as (a rewritten file would become this user's, root's under sudo)."""
    existing = path
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    owner = os.lstat(existing).st_uid
    if owner != os.geteuid():
        where = "" if existing == path else f" (its folder {existing})"
        raise refuse(f"{path}{where} belongs to another user (uid {owner}); memtui writes only "
                     f"files of the user it runs as (uid {os.geteuid()}): run it as that user; "
                     "nothing was written")


def replace_atomically(path: Path, data: bytes, mode: int,
                       before_rename: Callable[[], object] | None = None) -> None:
    """Put ``data`` at ``path`` whole or not at all: a temporary file in the same folder (the
    old file's group), ``before_rename()`` (it may raise: nothing is written), a rename."""
    temp = temp_name(path.parent)
    write_new_file(temp, data, mode)
    try:
        with contextlib.suppress(FileNotFoundError):
            group = os.lstat(path).st_gid
            if group != os.lstat(temp).st_gid:
                os.chown(temp, -1, group, follow_symlinks=False)
        if before_rename is not None:
            before_rename()
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_folder(path.parent)


@dataclass(frozen=True)
class SafeFiles:
    """The safe reads and writes of one kind of home, raising its error classes: ``problem``
    (a read), ``unsafe`` (a write leaving the home), ``changed`` and ``failed``."""

    problem: type[FileProblem] = FileProblem
    unsafe: type[MemtuiError] = PermissionDenied
    changed: type[MemtuiError] = Conflict
    failed: type[MemtuiError] = MemtuiError
    home_name: str = ""
    max_bytes: int = MAX_TEXT_FILE_BYTES

    def check_inside(self, path: str | os.PathLike[str], root: Path) -> Path:
        """The real path of ``path``; ``problem`` when it leaves ``root`` (already real)."""
        if not is_within(path, root):
            kind = "symlink" if os.path.islink(path) else "path"
            raise self.problem(f"{kind} points outside {self.home_name or root}; "
                               "not followed")
        return Path(realpath(path))

    def open_regular(self, path: str | os.PathLike[str], root: Path,
                     max_bytes: int | None = None) -> int:
        """A read-only descriptor of the regular file ``path`` inside ``root`` (caller closes)."""
        real = self.check_inside(path, root)
        try:
            fd = os.open(real, READ_FLAGS)
        except FileNotFoundError:
            raise self.problem("file not found") from None
        except PermissionError:
            raise self.problem("permission denied; cannot read") from None
        except OSError as error:
            raise self.problem(f"cannot open ({error.strerror or error})") from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise self.problem("not a regular file")
        if max_bytes is not None and info.st_size > max_bytes:
            os.close(fd)
            raise self.problem(f"too large ({info.st_size} bytes; the limit is {max_bytes})")
        return fd

    def _read(self, path: str | os.PathLike[str], root: Path, max_bytes: int | None
              ) -> tuple[bytes, os.stat_result]:
        limit = self.max_bytes if max_bytes is None else max_bytes
        fd = self.open_regular(path, root, limit)
        try:
            info = os.fstat(fd)
            chunks: list[bytes] = []
            total = 0
            while total <= limit:
                chunk = os.read(fd, min(_READ_CHUNK, limit + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
        except OSError as error:
            raise self.problem(f"read failed ({error.strerror or error})") from None
        finally:
            os.close(fd)
        if total > limit:
            raise self.problem(f"too large (more than {limit} bytes)")
        return b"".join(chunks), info

    def read_bytes(self, path: str | os.PathLike[str], root: Path,
                   max_bytes: int | None = None) -> bytes:
        """The bytes of a regular file inside ``root``, at most ``max_bytes``."""
        return self._read(path, root, max_bytes)[0]

    def read_stamped(self, path: str | os.PathLike[str], root: Path,
                     max_bytes: int | None = None) -> tuple[bytes, FileStamp]:
        """The bytes of a regular file inside ``root`` and its stamp."""
        data, info = self._read(path, root, max_bytes)
        stamp = FileStamp(str(Path(path)), len(data), info.st_mtime_ns,
                          hashlib.sha256(data).hexdigest(), stat.S_IMODE(info.st_mode))
        return data, stamp

    def decode_text(self, data: bytes) -> str:
        """File bytes as text; binary or invalid UTF-8 raise ``problem``."""
        if b"\x00" in data:
            raise self.problem("binary file (contains NUL bytes); not text")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise self.problem(f"not valid UTF-8 (bad byte at offset {error.start})") from None
        return text[1:] if text.startswith(_UTF8_BOM) else text

    def read_text(self, path: str | os.PathLike[str], root: Path,
                  max_bytes: int | None = None) -> str:
        """The UTF-8 text of a regular file inside ``root``."""
        return self.decode_text(self.read_bytes(path, root, max_bytes))

    def read_text_stamped(self, path: str | os.PathLike[str], root: Path,
                          max_bytes: int | None = None) -> tuple[str, FileStamp]:
        """The UTF-8 text of a regular file inside ``root`` and its stamp."""
        data, stamp = self.read_stamped(path, root, max_bytes)
        return self.decode_text(data), stamp

    def read_prefix(self, path: str | os.PathLike[str], root: Path, max_bytes: int) -> bytes:
        """At most the first ``max_bytes`` of a regular file inside ``root`` (of any size)."""
        fd = self.open_regular(path, root)
        try:
            return os.read(fd, max_bytes)
        except OSError as error:
            raise self.problem(f"read failed ({error.strerror or error})") from None
        finally:
            os.close(fd)

    def list_folder(self, folder: str | os.PathLike[str], root: Path) -> list[Path]:
        """The entries of a folder inside ``root``, sorted by name (empty when absent)."""
        path = Path(folder)
        if not os.path.lexists(path):
            return []
        real = self.check_inside(path, root)
        if not real.is_dir():
            raise self.problem("not a folder")
        try:
            names = sorted(os.listdir(real))
        except OSError as error:
            raise self.problem(f"cannot list folder ({error.strerror or error})") from None
        return [path / name for name in names]

    def _check_write_target(self, path: Path, root: Path) -> None:
        check_owned(path, self.unsafe)
        if os.path.islink(path):
            raise self.unsafe(f"{path}: is a symlink; memtui never writes through one")
        if not is_within(path.parent, root):
            raise self.unsafe(f"{path}: its folder leads outside {root}; nothing was written")
        if not is_within(path, root):
            raise self.unsafe(f"{path}: leads outside {root}; nothing was written")

    def check_unchanged(self, expected: FileStamp, root: Path) -> bytes:
        """The file's bytes; ``changed`` unless its size, mtime and hash are ``expected``'s."""
        try:
            data, now = self.read_stamped(expected.path, root,
                                          max(expected.size, self.max_bytes))
        except FileProblem as error:
            raise self.changed(f"{expected.path}: changed since it was read "
                               f"({error.reason}); nothing was written") from None
        if (now.size, now.mtime_ns, now.sha256) != (expected.size, expected.mtime_ns,
                                                     expected.sha256):
            raise self.changed(f"{expected.path}: changed since it was read (by the agent?); "
                               "nothing was written — read it again and retry")
        return data

    def replace_file(self, expected: FileStamp, text: str, root: Path) -> FileStamp:
        """Write ``text`` over the file ``expected`` was taken of, atomically; its new stamp."""
        path = Path(expected.path)
        self._check_write_target(path, root)
        data = encode_like(text, self.check_unchanged(expected, root))
        try:  # the agent may have written while we did: checked again before the rename
            replace_atomically(path, data, expected.mode,
                               lambda: self.check_unchanged(expected, root))
        except OSError as error:
            raise self.failed(f"{path}: cannot write ({error.strerror or error}); nothing was "
                              "written") from None
        return self.read_stamped(path, root, max(len(data), self.max_bytes))[1]

    def remove_file(self, expected: FileStamp, root: Path) -> None:
        """Remove the file ``expected`` was taken of; refused like ``replace_file``."""
        path = Path(expected.path)
        self._check_write_target(path, root)
        self.check_unchanged(expected, root)
        try:
            path.unlink()
        except FileNotFoundError:
            raise self.changed(f"{path}: removed since it was read; nothing to do") from None
        except OSError as error:
            raise self.failed(f"{path}: cannot remove ({error.strerror or error}); nothing was "
                              "removed") from None
        _fsync_folder(path.parent)

    def create_file(self, path: str | os.PathLike[str], text: str, root: Path,
                    mode: int = NEW_FILE_MODE) -> FileStamp:
        """Create a new file (never over one) and missing folders inside ``root``; its stamp."""
        target = Path(path)
        folder = target.parent
        if not is_within(folder, root):  # checked before any folder is made
            raise self.unsafe(f"{target}: its folder leads outside {root}; nothing was "
                              "written")
        check_owned(target, self.unsafe)
        try:
            folder.mkdir(mode=NEW_DIR_MODE, parents=True, exist_ok=True)
        except OSError as error:
            raise self.failed(f"{folder}: cannot create folder "
                              f"({error.strerror or error})") from None
        self._check_write_target(target, root)
        data, temp = text.encode("utf-8"), temp_name(folder)
        try:
            write_new_file(temp, data, mode)
        except OSError as error:
            raise self.failed(f"{folder}: cannot write a temporary file "
                              f"({error.strerror or error}); nothing was written") from None
        try:
            created = publish_new_file(temp, target, data, mode)
        except OSError as error:
            raise self.failed(f"{target}: cannot create ({error.strerror or error})") from None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        if not created:
            raise self.failed(f"{target}: already exists; memtui does not overwrite it")
        _fsync_folder(folder)
        return self.read_stamped(target, root, max(len(data), self.max_bytes))[1]
