"""Claude Code's memory write gate: the ``PreToolUse`` hook that ``memtui hooks install
claude-code --gate`` installs as ``<python> -I -S <this file> [--db PATH] [--user ID]``.

A write outside Claude Code's memory -- nearly every call -- is answered with ``sys``, ``os``
and ``json`` alone: nothing is printed and the call goes on. A write into a memory folder is
handed to ``engine.gate.answer``. It fails open: any error leaves one line on stderr and
exit status 0.
"""

from __future__ import annotations

import json
import os
import sys

PATH_KEYS = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
             "NotebookEdit": "notebook_path"}
"""Claude Code's file-writing tools and the input naming the file."""
MAX_INPUT_BYTES = 64 * 1024 * 1024
MAX_SETTINGS_BYTES = 4 * 1024 * 1024
SETTING = b"autoMemoryDirectory"
MANAGED_SETTINGS = "/etc/claude-code/managed-settings.json"
MEMORY = "memory"
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def _user_home(env: os._Environ[str] | dict[str, str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


def _configured(env: os._Environ[str] | dict[str, str], home: str,
                project: str | None) -> list[str]:
    """The memory folders named by the environment and the settings files."""
    found = [env["CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"]] \
        if env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE") else []
    files = [MANAGED_SETTINGS, os.path.join(home, "settings.json"),
             os.path.join(home, "settings.local.json")]
    if project:
        files += [os.path.join(project, ".claude", name)
                  for name in ("settings.json", "settings.local.json")]
    for name in files:
        try:
            with open(name, "rb") as handle:
                data = handle.read(MAX_SETTINGS_BYTES)
            value = json.loads(data).get(SETTING.decode()) if SETTING in data else None
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(value, str) and value.strip():
            value = value.strip()
            found.append(os.path.join(_user_home(env), value[2:]) if value.startswith("~/")
                         else value)
    return [os.path.normpath(path) for path in found if os.path.isabs(path)]


def memory_folder(path: str, env: os._Environ[str] | dict[str, str],
                  project: str | None) -> str | None:
    """The Claude Code memory folder ``path`` (absolute) is in, else None."""
    home = env.get("CLAUDE_CONFIG_DIR") or os.path.join(_user_home(env), ".claude")
    projects = os.path.join(env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR") or home, "projects")
    paths = dict.fromkeys((os.path.normpath(path), os.path.realpath(path)))
    for base in dict.fromkeys((os.path.normpath(projects), os.path.realpath(projects))):
        for candidate in paths:
            parts = candidate[len(base) + 1:].split(os.sep) if _inside(candidate, base) else ()
            if len(parts) > 2 and parts[1] == MEMORY:
                return os.path.join(base, parts[0], MEMORY)
    for folder in _configured(env, home, project):
        for candidate in paths:
            if _inside(candidate, folder) or _inside(candidate, os.path.realpath(folder)):
                return folder
    return None


def _options(argv: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for name, value in zip(argv[::2], argv[1::2], strict=False):
        if name not in ("--db", "--user"):
            raise ValueError(f"unknown option {name!r}")
        options[name[2:]] = value
    return options


def _memtui(options: dict[str, str]) -> None:
    """Make the memtui this file belongs to importable (and the installed packages, for a
    PostgreSQL store: an SQLite one needs none)."""
    sys.path.insert(0, PACKAGE_PARENT)
    from memtui.engine.paths import is_database_url, store_target

    if is_database_url(store_target(options.get("db"))):
        import site

        site.main()


def answer(payload: dict[str, object], folder: str, path: str, db: str | None,
           user: str | None) -> dict[str, object] | None:
    """The answer for a write into a memory folder: the user's store opened (made in the
    default place when there is none yet), the gate's decision, the store closed."""
    import contextlib

    from memtui.engine.api import Engine
    from memtui.engine.paths import default_user, store_target
    from memtui.store.database import open_store

    with contextlib.closing(open_store(store_target(db), create_folder=not db)) as store:
        return Engine(store, user or default_user(), "claude-code").gate.answer(
            payload, folder, path)


def main(argv: list[str] | None = None) -> int:
    """Answer one hook call (see the module doc); always exit status 0."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["--version"]:
        _memtui({})
        from memtui import __version__

        print(f"memtui {__version__} (Claude Code write gate)")
        return 0
    try:
        options = _options(args)
        payload = json.loads(sys.stdin.buffer.read(MAX_INPUT_BYTES + 1) or b"null")
        tool_input = payload.get("tool_input") if isinstance(payload, dict) else None
        key = PATH_KEYS.get(payload.get("tool_name")) if isinstance(tool_input, dict) else None
        if key is None or not isinstance(tool_input, dict):
            raise ValueError("not the input of a Claude Code file-writing tool")
        target = tool_input.get(key)
        if not isinstance(target, str) or not target:
            raise ValueError(f"no {key} in the tool input")
        cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else os.getcwd()
        path = os.path.join(cwd, os.path.expanduser(target))
        folder = memory_folder(path, os.environ, os.environ.get("CLAUDE_PROJECT_DIR") or cwd)
        if folder is None:
            return 0
        _memtui(options)
        output = answer(payload, folder, os.path.normpath(path), options.get("db"),
                        options.get("user"))
        if output is not None:
            sys.stdout.write(json.dumps({"hookSpecificOutput": output}) + "\n")
    except Exception as error:  # fail open: the agent's call goes on
        message = " ".join(str(error).split())[:300] or type(error).__name__
        sys.stderr.write(f"memtui write gate: {message}; the call goes on\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
