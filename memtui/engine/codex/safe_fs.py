"""Bounded, symlink-safe reading of files inside a Codex home.

Every read checks that the real path stays inside the home (a symlink pointing outside is
refused, never followed), opens with ``O_NOFOLLOW`` and ``O_NONBLOCK`` (no FIFO can block),
accepts regular files only, and caps the size. Failures raise ``FileProblemError`` with a
one-line reason that readers turn into a ``Problem``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memtui.engine.codex.errors import FileProblemError

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
"""Largest markdown file read from a Codex home; larger ones are reported, not read."""
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0))
_UTF8_BOM = "\ufeff"


def real_root(root: Path) -> Path:
    """The real (symlink-resolved) absolute path of a home folder."""
    return Path(os.path.realpath(root))


def is_within(path: Path, root: Path) -> bool:
    """True when the real path of ``path`` is ``root`` or below it (``root`` is real)."""
    real = os.path.realpath(path)
    base = str(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def check_inside(path: Path, root: Path) -> Path:
    """The real path of ``path``; raises ``FileProblemError`` when it leaves ``root``."""
    if not is_within(path, root):
        kind = "symlink" if os.path.islink(path) else "path"
        raise FileProblemError(f"{kind} points outside the Codex home; not followed")
    return Path(os.path.realpath(path))


def open_regular_file(path: Path, root: Path) -> int:
    """Open a regular file inside ``root`` read-only and return the descriptor."""
    real = check_inside(path, root)
    try:
        fd = os.open(real, _OPEN_FLAGS)
    except FileNotFoundError:
        raise FileProblemError("file not found") from None
    except PermissionError:
        raise FileProblemError("permission denied; cannot read") from None
    except OSError as error:
        raise FileProblemError(f"cannot open ({error.strerror or error})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise FileProblemError("not a regular file")
    return fd


def read_bytes_bounded(path: Path, root: Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file inside ``root``, at most ``max_bytes``."""
    fd = open_regular_file(path, root)
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise FileProblemError(f"too large ({size} bytes; the limit is {max_bytes})")
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as error:
        raise FileProblemError(f"read failed ({error.strerror or error})") from None
    finally:
        os.close(fd)
    if total > max_bytes:
        raise FileProblemError(f"too large (more than {max_bytes} bytes)")
    return b"".join(chunks)


def read_prefix(path: Path, root: Path, max_bytes: int) -> bytes:
    """At most the first ``max_bytes`` of a regular file inside ``root`` (no size error)."""
    fd = open_regular_file(path, root)
    try:
        return os.read(fd, max_bytes)
    except OSError as error:
        raise FileProblemError(f"read failed ({error.strerror or error})") from None
    finally:
        os.close(fd)


def decode_text(data: bytes) -> str:
    """Decode file bytes as UTF-8 text; binary or invalid bytes raise ``FileProblemError``."""
    if b"\x00" in data:
        raise FileProblemError("binary file (contains NUL bytes); not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise FileProblemError(f"not valid UTF-8 (bad byte at offset {error.start})") from None
    return text[1:] if text.startswith(_UTF8_BOM) else text


def read_text_bounded(path: Path, root: Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a regular file inside ``root``, at most ``max_bytes``."""
    return decode_text(read_bytes_bounded(path, root, max_bytes))


def list_entries(folder: Path, root: Path) -> list[Path]:
    """The entries of a folder inside ``root``, sorted by name (empty when it is absent).

    Raises ``FileProblemError`` when the folder leaves the home or cannot be listed.
    """
    if not os.path.lexists(folder):
        return []
    real = check_inside(folder, root)
    if not real.is_dir():
        raise FileProblemError("not a folder")
    try:
        names = sorted(os.listdir(real))
    except OSError as error:
        raise FileProblemError(f"cannot list folder ({error.strerror or error})") from None
    return [folder / name for name in names]
