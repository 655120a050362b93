"""Who is at the other end of the service's unix socket: the one copy of the ownership rules
that ``serve`` (its socket folder, each peer) and the client (the socket it is about to
call, the service that answers) both apply."""

from __future__ import annotations

import os
import socket
import stat
import struct
from pathlib import Path

from memtui.private_files import SHARED_BITS

_PEERCRED = struct.Struct("3i")
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH
TRUSTED_FOLDER_OWNER = 0
"""Besides the caller, the one owner a socket folder may have (root: it can do anything
anyway)."""


def peer_uid(conn: socket.socket) -> int | None:
    """The connected peer's uid (Linux ``SO_PEERCRED``), or None where unknown."""
    if (option := getattr(socket, "SO_PEERCRED", None)) is None:
        return None
    try:
        _pid, uid, _gid = _PEERCRED.unpack(
            conn.getsockopt(socket.SOL_SOCKET, option, _PEERCRED.size))
    except OSError:
        return None
    return uid


def _owner(info: os.stat_result) -> str:
    return f"(owner uid {info.st_uid}, mode {stat.S_IMODE(info.st_mode):o})"


def private_folder_problem(folder: Path) -> str | None:
    """Why the default socket folder (``memtui-<uid>`` under the temp dir) is not private to
    the caller, who must own it and let nobody else in; None when it is, or is another
    folder."""
    if not hasattr(os, "getuid") or folder.name != f"memtui-{os.getuid()}":
        return None
    info = folder.stat()
    if info.st_uid != os.getuid() or info.st_mode & SHARED_BITS:
        return f"{folder} is not private to you {_owner(info)}; remove it or use --socket"
    return None


def socket_problem(path: Path) -> str | None:
    """Why a client must not talk to the socket at ``path``: someone else owns it or could
    write to it or put their own socket in its folder (a folder not the caller's or root's, or
    writable by others without the sticky bit, or a default folder that is not private).
    None when nothing is wrong, the path is missing (connecting says so) or there are no uids."""
    if not hasattr(os, "getuid"):
        return None
    try:
        problem = private_folder_problem(path.parent)
        folder, sock = path.parent.stat(), path.stat()
    except OSError:
        return None
    if problem is not None:
        return problem
    uid = os.getuid()
    if folder.st_uid not in (uid, TRUSTED_FOLDER_OWNER) or \
            folder.st_mode & _OTHERS_WRITE and not folder.st_mode & stat.S_ISVTX:
        return f"its folder {path.parent} is not yours alone {_owner(folder)}"
    if sock.st_uid != uid or sock.st_mode & _OTHERS_WRITE:
        return f"it is not yours {_owner(sock)}"
    return None
