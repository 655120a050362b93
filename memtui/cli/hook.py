"""``memtui hook session-start | session-end``: Claude Code's session hooks, one JSON object
on stdin. ``main`` sends them here before any parser or output library is imported (they
delay the agent). Both fail open: on any error nothing goes to stdout, one line goes to
stderr and the exit status is 0."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from collections.abc import Callable
from typing import Any, TextIO, TypeVar

T = TypeVar("T")
HOOK_NAMES = ("session-start", "session-end")
DEFAULT_AGENT = "claude-code"
"""The agent whose hook format these commands read (Claude Code's)."""
MAX_HOOK_INPUT_BYTES = 1024 * 1024
"""A hook's stdin is read up to this size; a bigger one is refused."""
_VALUE_OPTIONS = ("--db", "--user", "--agent")


def parse_hook_argv(raw: list[str]) -> dict[str, str] | None:
    """``[global options] hook NAME [options]`` as ``{name, db?, user?, agent?}``, or None
    when ``raw`` is not a hook command this fast path understands."""
    found: dict[str, str] = {}
    words = iter(raw)
    seen_hook = False
    for word in words:
        option, equals, value = word.partition("=")
        if option in _VALUE_OPTIONS:
            given = value if equals else next(words, None)
            if given is None:
                return None
            found[option[2:]] = given
        elif word == "hook" and not seen_hook:
            seen_hook = True
        elif seen_hook and word in HOOK_NAMES and "name" not in found:
            found["name"] = word
        elif word != "--json":
            return None
    return found if "name" in found else None


def _read_payload(stdin: TextIO) -> dict[str, Any]:
    text = stdin.read(MAX_HOOK_INPUT_BYTES + 1)
    if len(text) > MAX_HOOK_INPUT_BYTES:
        raise ValueError(f"the hook input is larger than {MAX_HOOK_INPUT_BYTES} bytes")
    try:
        payload = json.loads(text)
    except ValueError:
        raise ValueError("the hook input is not JSON") from None
    if not isinstance(payload, dict):
        raise ValueError("the hook input is not a JSON object")
    return payload


def _sessions(target: str, user: str | None, agent: str, create_folder: bool,
              work: Callable[[Any], T]) -> T:
    """``work(engine.sessions)`` on the store at ``target`` (``store_target``), closed after."""
    from memtui.engine.api import Engine
    from memtui.engine.paths import default_user
    from memtui.store.database import open_store

    with contextlib.closing(open_store(target, create_folder=create_folder)) as store:
        return work(Engine(store, user or default_user(), agent).sessions)


def _session_start(payload: dict[str, Any], db: str | None, user: str | None,
                   agent: str) -> str | None:
    if payload.get("source", "startup") != "startup":
        return None  # a resumed, cleared or compacted session: nothing to open
    from memtui.engine.paths import is_database_url, missing_store_folder, store_target

    path = store_target(db)
    if not is_database_url(path) and not os.path.exists(path) and \
            (not db or missing_store_folder(path) is None):
        return None  # no store yet: no memories (a named store's missing folder is reported)
    text = _sessions(path, user, agent, False, lambda sessions: sessions.session_start(payload))
    if not text:
        return None
    return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                              "additionalContext": text}},
                      ensure_ascii=False)


FILE_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
              (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))
"""How a file that is not a regular one is named in a refusal."""


def transcript_problem(path: str) -> str | None:
    """Why ``path`` cannot be a transcript, in words (None: a regular file)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "not found"
    except PermissionError:
        return "permission denied"
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    if stat.S_ISREG(info.st_mode):
        return None
    kind = next((words for test, words in FILE_KINDS if test(info.st_mode)), None)
    return f"{kind}, not a regular file" if kind else "not a regular file"


def _session_end(payload: dict[str, Any], db: str | None, user: str | None,
                 agent: str) -> None:
    transcript = payload.get("transcript_path")
    if isinstance(transcript, str) and transcript:
        problem = transcript_problem(transcript)
        if problem:
            raise ValueError(f"transcript {transcript}: {problem}; session not recorded")
    from memtui.engine.paths import store_target

    _sessions(store_target(db), user, agent, not db,
              lambda sessions: sessions.record(agent, payload))


def run_hook(options: dict[str, str], stdout: TextIO | None = None,
             stderr: TextIO | None = None) -> int:
    """Run one hook command on the JSON object on stdin; always exit status 0 (fail open)."""
    stdout = stdout or sys.stdout
    name = options["name"]
    try:
        payload = _read_payload(sys.stdin)
        store = (options.get("db"), options.get("user"), options.get("agent", DEFAULT_AGENT))
        if name == "session-start":
            out = _session_start(payload, *store)
            if out:
                stdout.write(out + "\n")
                stdout.flush()
        else:
            _session_end(payload, *store)
    except Exception as error:  # fail open: the agent's session must go on
        message = getattr(error, "message", None) or str(error) or type(error).__name__
        said = " ".join(str(message).split())[:500]
        (stderr or sys.stderr).write(f"memtui: hook {name}: {said}\n")
    return 0
