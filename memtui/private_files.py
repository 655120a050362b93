"""Files and folders memtui creates for the user alone (a store, its folder, the service's
socket folder): owner-only whatever the umask. A file or folder that already exists is left
as it is: the user may have made it so on purpose.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

PRIVATE_FILE_MODE = 0o600
"""Mode of a file memtui creates with the user's data in it."""
PRIVATE_DIR_MODE = 0o700
"""Mode of the last folder memtui creates for such a file (the ones above it are ordinary)."""
PARTIAL_SUFFIX = ".partial"
"""Name ending of the file a ``private_replacement`` is written to before it takes its place."""
SHARED_BITS = 0o077
"""Permission bits that let someone other than the owner in."""
OTHERS_READ = 0o044
"""The bits that let the group or everyone else read a file."""
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
"""A new file only: ``O_EXCL`` also refuses to go through a symlink."""


def make_private_folder(folder: Path) -> None:
    """Create ``folder`` (and any missing folder above it) unless it exists; the folder itself
    is made ``0700`` (set after creating it, as the umask may have taken bits off)."""
    if folder.is_dir():
        return
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        folder.mkdir(mode=PRIVATE_DIR_MODE)
    except FileExistsError:
        return
    os.chmod(folder, PRIVATE_DIR_MODE)


def create_private_file(path: Path) -> None:
    """Create ``path`` empty and ``0600`` unless something is there already (never through a
    symlink); an ``OSError`` is left to whoever opens the file next."""
    with contextlib.suppress(OSError):
        os.close(os.open(path, _CREATE_FLAGS, PRIVATE_FILE_MODE))


@contextlib.contextmanager
def private_replacement(target: Path) -> Iterator[TextIO]:
    """A new UTF-8 text file (``0600``, a fresh name beside ``target``) that replaces
    ``target`` when the block ends, and is removed if the block fails."""
    import tempfile  # only exports need it: not the hooks' start-up

    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                    suffix=PARTIAL_SUFFIX)
    temporary = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())  # the data is on disk before the name points at it
        temporary.replace(target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
