"""Write rendered Codex files into a new folder, never over an existing one.

Files go into a hidden sibling folder first, which is then renamed into place, so the
target appears whole or not at all. A target that exists and is not an empty folder is
refused: an export never lands over a Codex memory folder.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from memtui.engine.codex.errors import CodexError
from memtui.engine.safe_files import write_new_file
from memtui.errors import UnsafePath

EXPORT_DIR_MODE = 0o700
EXPORT_FILE_MODE = 0o600


def _relative(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or not path.parts or any(part in ("", ".", "..")
                                                   for part in path.parts):
        raise UnsafePath(f"{name!r}: not a plain relative path inside the export")
    return path


def new_folder_refusal(target: Path) -> str | None:
    """Why an export cannot go into ``target`` (a symlink, a file, a folder that is not
    empty -- an agent's own home above all --, or no folder to make it in); None when it
    can. Every export (Codex, Claude Code, Gemini CLI) checks its target with this."""
    if target.is_symlink():
        return f"{target}: is a symlink; an export only goes into a new folder"
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        return (f"{target}: already exists and is not an empty folder; an export only goes "
                "into a new folder")
    if not target.parent.is_dir():
        return f"{target.parent}: folder does not exist"
    return None


def _check_target(target: Path) -> None:
    refusal = new_folder_refusal(target)
    if refusal is not None:
        raise (UnsafePath if target.is_symlink() else CodexError)(refusal)


def write_export(target: str | os.PathLike[str], files: Mapping[str, str]) -> Path:
    """Write ``files`` (relative path -> text) as a new folder ``target``; return it."""
    final = Path(target).absolute()
    _check_target(final)
    staging = final.parent / f".{final.name}.memtui-export-{secrets.token_hex(6)}"
    try:
        os.mkdir(staging, EXPORT_DIR_MODE)
        for name, text in files.items():
            relative = _relative(name)
            path = staging.joinpath(*relative.parts)
            path.parent.mkdir(mode=EXPORT_DIR_MODE, parents=True, exist_ok=True)
            write_new_file(path, text.encode("utf-8"), EXPORT_FILE_MODE)
        _check_target(final)
        os.rename(staging, final)
    except OSError as error:
        with contextlib.suppress(OSError):
            shutil.rmtree(staging)
        raise CodexError(f"{final}: export failed ({error.strerror or error}); "
                         "nothing was written") from None
    except (CodexError, UnsafePath):
        with contextlib.suppress(OSError):
            shutil.rmtree(staging)
        raise
    return final
