"""The memtui command the agents' settings name, and whether an installed one still runs.

An agent runs memtui from its own PATH, rarely the installing shell's, so the installed command
is the absolute path of the memtui that did the install (its console script, else the script
beside the running Python, else that Python with ``-m memtui``; ``--command`` chooses another).
``check_command`` says in one line why an installed command would fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from memtui.errors import InvalidInput

PROGRAM_NAME = "memtui"
VERSION_CHECK_TIMEOUT_S = 20.0
"""Longest wait for ``<installed command> --version`` when a check runs it (a cold start on a
loaded machine takes a second or two; a hung one is reported, not waited on)."""
SHEBANG_READ_BYTES = 512


def running_command(argv0: str, executable: str) -> list[str]:
    """The command that starts the memtui now running: ``argv0`` when it is a ``memtui``
    program (made absolute, symlinks kept so an upgrade behind them still works), else the
    ``memtui`` script beside ``executable``, else ``executable -m memtui``."""
    if argv0 and os.path.basename(argv0) == PROGRAM_NAME and os.path.isfile(argv0):
        return [os.path.abspath(argv0)]
    beside = Path(os.path.abspath(executable)).parent / PROGRAM_NAME
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    return [os.path.abspath(executable), "-m", PROGRAM_NAME]


def chosen_command(value: str) -> list[str]:
    """``--command VALUE``: an executable file (made absolute) or a name found on PATH (kept
    as the bare name: the user chose PATH lookup). Anything else is refused."""
    text = value.strip()
    if not text:
        raise InvalidInput("--command is empty; nothing written")
    if os.sep in text or (os.altsep and os.altsep in text):
        path = os.path.abspath(os.path.expanduser(text))
        problem = executable_problem(path)
        if problem:
            raise InvalidInput(f"--command {text}: {problem}; nothing written")
        return [path]
    if shutil.which(text) is None:
        raise InvalidInput(f"--command {text}: not found on PATH; nothing written")
    return [text]


def _interpreter(path: str) -> str | None:
    """The program a ``#!`` script names (None: not a script, or ``env NAME``)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(SHEBANG_READ_BYTES)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words or os.path.basename(words[0]) == "env":
        return None
    return words[0]


def executable_problem(path: str) -> str | None:
    """Why ``path`` cannot be run as a program, or None."""
    if not os.path.lexists(path):
        return "no such file"
    if not os.path.exists(path):
        return "a symlink to a file that no longer exists"
    if os.path.isdir(path):
        return "a folder, not a program"
    if not os.path.isfile(path):
        return "not a regular file"
    if not os.access(path, os.X_OK):
        return "not executable"
    interpreter = _interpreter(path)
    if interpreter is not None and not (os.path.isfile(interpreter)
                                        and os.access(interpreter, os.X_OK)):
        return f"its interpreter {interpreter} no longer exists"
    return None


@dataclass(frozen=True)
class CommandCheck:
    """An installed command (its words up to memtui's own) and what is wrong with it, if any."""

    command: tuple[str, ...]
    problem: str | None

    @property
    def ok(self) -> bool:
        """Whether nothing was found wrong."""
        return self.problem is None

    def to_json(self) -> dict[str, object]:
        """``{command, ok, problem}``."""
        return {"command": list(self.command), "ok": self.ok, "problem": self.problem}


def check_command(words: Sequence[str], *, run: bool = False,
                  path_env: str | None = None) -> CommandCheck:
    """What would stop ``words`` (the program and the options before memtui's subcommand)
    from starting memtui: a bare name is looked up on ``path_env`` (default: PATH); with
    ``run``, the command is also run with ``--version``."""
    command = tuple(words)
    if not command:
        return CommandCheck(command, "no command")
    program = command[0]
    if os.sep not in program:
        found = shutil.which(program, path=path_env)
        if found is None:
            return CommandCheck(command, f"{program!r} is not on PATH; install again to "
                                         "name memtui's absolute path")
        program = found
    else:
        problem = executable_problem(program)
        if problem:
            return CommandCheck(command, f"{program}: {problem}")
    return CommandCheck(command, _version_problem([program, *command[1:]]) if run else None)


def _version_problem(argv: list[str]) -> str | None:
    try:
        done = subprocess.run([*argv, "--version"], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=VERSION_CHECK_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return f"{argv[0]} --version did not answer within {VERSION_CHECK_TIMEOUT_S:g} s"
    except OSError as error:
        return f"{argv[0]} does not run ({error.strerror or error})"
    if done.returncode != 0:
        last = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
        why = last[-1] if last else f"exit {done.returncode}"
        return f"{argv[0]} --version failed: {why}"
    if PROGRAM_NAME not in done.stdout.decode("utf-8", "replace").lower():
        return f"{argv[0]} --version does not say it is memtui"
    return None
