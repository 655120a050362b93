"""Write an ad-hoc note into a Codex home, under Codex's naming rule: always a new file, never
through a symlink, published atomically (``safe_files.publish_new_file``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from memtui.engine.codex.config import codex_sqlite_home
from memtui.engine.codex.errors import CodexError, CodexInputError, CodexWriteRefused
from memtui.engine.codex.naming import note_names, note_slug
from memtui.engine.codex.paths import NOTES_DIR_PARTS, memories_dir_name
from memtui.engine.codex.timefmt import as_utc
from memtui.engine.redaction import redact
from memtui.engine.safe_files import (
    NEW_DIR_MODE,
    NEW_FILE_MODE,
    TEMP_PREFIX,
    publish_new_file,
    write_new_file,
)
from memtui.engine.validation import strip_controls
from memtui.errors import AgentFileWriteFailed, MemtuiError, UnsafePath
from memtui.store.codex_db import detect_layout, unknown_layout_refusal
from memtui.store.codex_models import LAYOUT_UNKNOWN

MAX_NOTE_BYTES = 256 * 1024
"""Largest note text accepted (after redaction)."""
MAX_NAME_ATTEMPTS = 100
"""Collision suffixes ``-2`` .. ``-100`` tried before giving up."""
_DIR_FLAGS = (os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
              | getattr(os, "O_CLOEXEC", 0))


def _clean_text(text: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise CodexInputError("a note needs some text")
    if "\x00" in text:
        raise CodexInputError("a note cannot contain NUL characters")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise CodexInputError("a note must be valid Unicode text") from None
    if size > MAX_NOTE_BYTES:
        raise CodexInputError(f"a note is at most {MAX_NOTE_BYTES} bytes (got {size})")
    return text if text.endswith("\n") else text + "\n"


def _os_error(action: str, where: Path, error: OSError) -> MemtuiError:
    if error.errno in (errno.ELOOP, errno.ENOTDIR):
        return UnsafePath(f"{where}: refusing to {action} through a symlink or non-folder")
    return AgentFileWriteFailed(f"{where}: cannot {action} ({error.strerror or error}); "
                                "nothing was written")


def notes_dir_parts(home: str | os.PathLike[str]) -> tuple[str, ...]:
    """The notes folder below the home in its layout; ``CodexWriteRefused`` in a layout
    memtui does not know (it never writes there)."""
    home_path = Path(home).absolute()
    layout = detect_layout(codex_sqlite_home(home_path))
    if layout.name == LAYOUT_UNKNOWN:
        raise CodexWriteRefused(f"{unknown_layout_refusal(layout).message} (nothing was "
                                "changed)")
    return (memories_dir_name(layout), *NOTES_DIR_PARTS)


@contextlib.contextmanager
def _open_notes_dir(home: Path, parts: tuple[str, ...]) -> Iterator[int]:
    """A descriptor of the notes folder, walked from the home without following symlinks."""
    try:
        fd = os.open(home, _DIR_FLAGS & ~getattr(os, "O_NOFOLLOW", 0))
    except OSError as error:
        raise CodexError(f"{home}: Codex home not usable ({error.strerror or error})") from None
    where = home
    try:
        for part in parts:
            where = where / part
            try:
                os.mkdir(part, NEW_DIR_MODE, dir_fd=fd)
            except FileExistsError:
                pass
            except OSError as error:
                raise _os_error("create folder", where, error) from None
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as error:
                raise _os_error("open folder", where, error) from None
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def write_note(home: str | os.PathLike[str], text: str, now: datetime | None = None) -> Path:
    """Create a new ad-hoc note (text redacted again, named at ``now``, UTC) in the home's
    layout and return its path. A symlink on the way is refused (``UnsafePath``); a name
    collision gets a ``-2``, ``-3`` ... suffix."""
    home_path = Path(home).absolute()
    body = _clean_text(redact(strip_controls(_clean_text(text))))
    data = body.encode("utf-8")
    moment = as_utc(now) if now is not None else datetime.now(UTC)
    slug = note_slug(body)
    parts = notes_dir_parts(home_path)
    folder = home_path.joinpath(*parts)
    with _open_notes_dir(home_path, parts) as dir_fd:
        temp = f"{TEMP_PREFIX}{secrets.token_hex(8)}"
        try:
            write_new_file(temp, data, NEW_FILE_MODE, dir_fd)
            for name in note_names(moment, slug, MAX_NAME_ATTEMPTS):
                if publish_new_file(temp, name, data, NEW_FILE_MODE, dir_fd):
                    return folder / name
        except OSError as error:
            raise _os_error("write a note", folder, error) from None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
    raise CodexError(f"{folder}: could not find a free note name for {slug!r}")
