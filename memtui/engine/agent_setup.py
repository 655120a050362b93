"""memtui in the agents' own settings: ``memtui hooks show|install|uninstall``.

For each agent, the files memtui's entries go into (Claude Code's MCP server and hooks, Codex's
``[mcp_servers.memtui]`` edited as text, Gemini CLI's ``mcpServers.memtui``) and the merges
that add or take them out, keeping every other key and byte (memtui's entry: only the keys
it owns set; a BOM, CRLF lines, Gemini CLI's comments kept). A plan reads each file once;
``write_change`` writes only a file still as read (else Conflict) and of the running user,
never through a symlink leaving its folder, atomically after a copy of its bytes under a
backup name not taken. A file that is not JSON (or TOML) is an InvalidInput and nothing is
written.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import stat
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtui.engine.agents.paths import resolve_claude_home
from memtui.engine.codex.paths import CODEX_HOME_ENV, resolve_codex_home
from memtui.engine.codex_table import HTTP_KEYS, SERVER_NAME, merge_server_table
from memtui.engine.installed_command import CommandCheck, check_command
from memtui.engine.json_splice import (
    TopLevel,
    blank_comments,
    comments,
    remove_top_level,
    scan_top_level,
    set_member,
    set_top_level,
    top_level_value,
)
from memtui.engine.paths import missing_store_folder
from memtui.engine.safe_files import (
    NEW_FILE_MODE,
    READ_FLAGS,
    FileProblem,
    SafeFiles,
    check_owned,
    encode_like,
    is_within,
    publish_new_file,
    real_root,
    replace_atomically,
    temp_name,
    write_new_file,
)
from memtui.engine.sessions import check_agent
from memtui.errors import AgentFileWriteFailed, Conflict, InvalidInput, UnsafePath
from memtui.jsonable import JsonMixin

INSTALL, UNINSTALL = "install", "uninstall"
COMMAND = "memtui"
HOOK_START = "hook session-start"
HOOK_END = "hook session-end"
GATE_MATCHER = "Write|Edit|MultiEdit|NotebookEdit"
"""Claude Code's file-writing tools (MultiEdit before 2.1): the write gate's matcher."""
HOOK_EVENTS = {"SessionStart": (HOOK_START, "startup"), "SessionEnd": (HOOK_END, None),
               "Stop": (HOOK_END, None), "PreToolUse": (None, GATE_MATCHER)}
"""Claude Code's events memtui hooks: (its hook's words, None: the write gate; the matcher,
``startup``: a brand-new session)."""
GATE_SCRIPT = ("cli", "gate_hook.py")
"""The gate's program, ``memtui/cli/gate_hook.py``, run by a Python (``-I -S``)."""
HOOK_TIMEOUT_S = 10
"""Seconds Claude Code lets a memtui hook run (they take milliseconds; fail open anyway)."""
GLOBAL_OPTIONS_WITH_VALUE = ("--db", "--user")
"""The global options ``hooks install`` copies into the installed commands."""
OPTION_DEFAULTS = {"--db": "the default store", "--user": "the default user"}
"""What an installed command without that option uses (said when an install drops it)."""
MAX_WRITE_ATTEMPTS = 5
"""Tries of a settings write whose file the agent keeps changing (re-read, re-merged)."""
RETRY_WAIT_S = 0.05
"""The first wait between those tries (doubled each time)."""
MAX_SETTINGS_BYTES = 512 * 1024 * 1024
"""Largest agent settings file read (``~/.claude.json`` passes 100 MB): beyond, nothing written."""
SHOWN_FILE_MAX_CHARS = 64 * 1024
"""A longer file is shown as memtui's entry alone, and left out of ``--json``'s ``content``."""
ENTRY_KEYS = {"mcp": "mcpServers", "hooks": "hooks"}
"""The top-level key memtui's entries live under, by kind of JSON file."""
BACKUP_SUFFIX = ".bak"
MAX_BACKUPS = 100
"""Most backup copies of one settings file side by side (``.bak``, ``.bak.1`` ...)."""
JSON_INDENT = 2
JSON_TRANSPORT_KEYS = frozenset({"url", "httpUrl", "headers", "authProviderType", "type"})
"""An HTTP server's keys (``type`` unless ``"stdio"``): an install of memtui's command drops
them."""


@dataclass(frozen=True)
class SettingsChange:
    """One settings file: what it holds now (None: no file), what it would hold, and why."""

    agent: str
    path: Path
    root: Path
    before: str | None
    after: str
    summary: str
    what: str
    """Which entries: ``mcp`` (JSON), ``hooks`` (Claude Code's settings) or ``toml``."""
    before_sha256: str | None
    """The SHA-256 of the file's bytes as read (None: no file)."""
    again: Callable[[], SettingsChange] = field(repr=False, compare=False)
    """The same change planned again on what the file holds then."""

    @property
    def changed(self) -> bool:
        """Whether writing would change the file."""
        return self.before != self.after

    @property
    def small(self) -> bool:
        """Whether the file after is short enough to show whole."""
        return len(self.after) <= SHOWN_FILE_MAX_CHARS

    def shown_text(self) -> str:
        """The file after, or for a long one memtui's entry and a word on the rest."""
        if self.small or self.what not in ENTRY_KEYS:
            return self.after
        key = ENTRY_KEYS[self.what]
        try:
            value = top_level_value(self.after, scan_top_level(self.after), key)
        except InvalidInput:
            value = None
        entry = f'"{key}": {json.dumps(value, indent=JSON_INDENT, ensure_ascii=False)}' \
            if value is not None else f'(no "{key}")'
        return (f"{entry}\n(the rest of the file, {len(self.after.encode('utf-8'))} bytes, "
                "as the agent wrote it)")

    def to_json(self) -> dict[str, Any]:
        """``{agent, path, changed, summary, content, bytes}`` (content null: too long to show)."""
        return {"agent": self.agent, "path": str(self.path), "changed": self.changed,
                "summary": self.summary, "content": self.after if self.small else None,
                "bytes": len(self.after.encode("utf-8"))}


Command = tuple[str, ...]
"""The words that start memtui (``memtui.engine.installed_command``)."""
DEFAULT_COMMAND: Command = (COMMAND,)


# ---- where the files are ---------------------------------------------------------------------


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value).expanduser().absolute() if value else None


def _targets(agent: str, project: Path | None) -> list[tuple[str, Path, Path]]:
    """(what, file, root) for each file the agent's entries go into."""
    if agent == "claude-code":
        if project is not None:
            return [("mcp", project / ".mcp.json", project),
                    ("hooks", project / ".claude" / "settings.json", project)]
        user_file = (_env_path("CLAUDE_CONFIG_DIR") or Path.home()) / ".claude.json"
        home = resolve_claude_home()
        return [("mcp", user_file, user_file.parent), ("hooks", home / "settings.json", home)]
    if agent == "codex":
        home = project / ".codex" if project is not None else resolve_codex_home()
        return [("toml", home / "config.toml", project or home)]
    home = (project or _env_path("GEMINI_CLI_HOME") or Path.home()) / ".gemini"
    return [("mcp", home / "settings.json", project or home)]


# ---- reading ---------------------------------------------------------------------------------


class SettingsFileProblem(InvalidInput, FileProblem):
    """An agent's settings file cannot be read safely; nothing is written."""


SETTINGS_FILES = SafeFiles(problem=SettingsFileProblem, max_bytes=MAX_SETTINGS_BYTES)
"""Reads of an agent's settings files: the safe-file rules, problems as InvalidInput."""


def read_settings(path: Path, root: Path) -> str | None:
    """The file's text (None when there is none)."""
    return _read(path, root)[0]


def _read(path: Path, root: Path, decode: bool = True
          ) -> tuple[str | None, bytes | None, str | None]:
    """The file's text (``decode``), bytes and their SHA-256 (all None: there is no file)."""
    if not os.path.lexists(path):
        return None, None, None
    try:
        data, stamp = SETTINGS_FILES.read_stamped(path, real_root(root))
        return (SETTINGS_FILES.decode_text(data) if decode else None), data, stamp.sha256
    except SettingsFileProblem as error:
        raise SettingsFileProblem(f"{path}: {error.reason}; nothing written") from None


# ---- the merges ------------------------------------------------------------------------------


def _server_entry(extra: list[str] | None, command: Command,
                  always_load: bool = False) -> dict[str, Any]:
    entry = {"command": command[0], "args": [*command[1:], *(extra or []), "mcp"]}
    return {**entry, "alwaysLoad": True} if always_load else entry


def _top_object(path: Path, text: str | None, key: str, allow_comments: bool = False
                ) -> tuple[TopLevel | None, Any]:
    """The file's scan (None: no file, or an empty one) and its top-level object ``key``."""
    if text is None or not text.strip():
        return None, None
    top = scan_top_level(text, str(path), allow_comments)
    value = top_level_value(text, top, key)
    if value is not None and not isinstance(value, dict):
        raise InvalidInput(f"{path}: {key!r} is not an object; nothing written")
    return top, value


def merge_mcp_json(path: Path, text: str | None, action: str,
                   extra: list[str] | None = None, command: Command = DEFAULT_COMMAND,
                   always_load: bool = False, allow_comments: bool = False) -> tuple[str, str]:
    """``mcpServers.memtui`` added or taken out; (new text, summary). An install sets only
    the keys memtui owns (``command``, ``args``; ``alwaysLoad``: Claude Code would defer MCP
    tools) and keeps the others. ``allow_comments``: Gemini CLI's comments kept, or refused."""
    top, servers = _top_object(path, text, "mcpServers", allow_comments)
    old = (servers or {}).get(SERVER_NAME)
    if action == INSTALL:
        dropped = _transport_keys(old, JSON_TRANSPORT_KEYS)
        kept = {key: value for key, value in old.items() if key not in dropped} \
            if isinstance(old, dict) else {}
        entry = {**kept, **_server_entry(extra, command, always_load)}
        if old == entry and text is not None:
            return text, "mcpServers.memtui already set"
        new = {**(servers or {}), SERVER_NAME: entry}
        by_hand = f'add it by hand under "mcpServers": "{SERVER_NAME}": {json.dumps(entry)}'
        summary = "set mcpServers.memtui" + _install_notes(old, extra, JSON_TRANSPORT_KEYS)
    elif SERVER_NAME not in (servers or {}):
        return (text if text is not None else ""), "no mcpServers.memtui to remove"
    else:
        new = {name: value for name, value in (servers or {}).items() if name != SERVER_NAME}
        by_hand = f'take "{SERVER_NAME}" out of "mcpServers" by hand'
        summary = "removed mcpServers.memtui"
    after = _put_members(path, text, top, "mcpServers", servers, new)
    _check_comments_kept(path, text, after, allow_comments, by_hand)
    return after, summary


def _check_comments_kept(path: Path, before: str | None, after: str, allow_comments: bool,
                         by_hand: str) -> None:
    """InvalidInput (saying what to do by hand) when the change would lose a comment."""
    def texts(text: str) -> list[str]:
        return [text[start:end] for start, end in comments(text)]

    if allow_comments and before is not None and texts(before) != texts(after):
        raise InvalidInput(f"{path} has comments next to what memtui changes, which it cannot "
                           f"keep; nothing written: {by_hand}")


def _shell_words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _gate_end(words: list[str]) -> int | None:
    """Where the write gate's program ends in a hook's words (None: not the gate)."""
    return next((at + 1 for at, word in enumerate(words)
                 if tuple(Path(word).parts[-2:]) == GATE_SCRIPT), None)


def _is_ours(hook: object) -> bool:
    """A hook memtui installed: ``<memtui…> [options] hook session-start|session-end``, where
    the program is a ``memtui…`` file or a Python running ``-m memtui``, or the write gate."""
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    words = _shell_words(hook["command"])
    if _gate_end(words) is not None:
        return True
    if len(words) < 3 or words[-2:] not in (HOOK_START.split(), HOOK_END.split()):
        return False
    return os.path.basename(words[0]).startswith(COMMAND) or \
        any(words[at:at + 2] == ["-m", COMMAND] for at in range(1, len(words) - 2))


def hook_program(command_line: str) -> Command:
    """The words of a memtui hook's command line before ``hook …`` (the write gate's: its
    Python and program), without memtui's global options."""
    words = _shell_words(command_line)
    return _without_global_options(words[:_gate_end(words) or len(words) - 2])


def _without_global_options(words: list[str]) -> Command:
    kept: list[str] = []
    rest = iter(words)
    for word in rest:
        if word in GLOBAL_OPTIONS_WITH_VALUE:
            next(rest, None)  # its value
        else:
            kept.append(word)
    return tuple(kept)


def _args_of(entry: object) -> list[str]:
    """The ``args`` of an MCP server entry (JSON or TOML parsed) as words."""
    args = entry.get("args") if isinstance(entry, dict) else None
    return [str(arg) for arg in args] if isinstance(args, list) else []


def _transport_keys(entry: object, keys: frozenset[str]) -> list[str]:
    """The keys of an installed entry that belong to another transport (``type`` unless
    ``"stdio"``)."""
    return [key for key, value in entry.items() if key in keys and (key, value) != (
        "type", "stdio")] if isinstance(entry, dict) else []


def _install_notes(old: object, extra: list[str] | None, transport: frozenset[str]) -> str:
    """What an install over the entry ``old`` changes beyond memtui's keys: the options it
    replaces (``_options_note``), ``; drops url, headers (...)`` for the transport keys."""
    keys = _transport_keys(old, transport)
    return _options_note(_args_of(old), extra) + (
        f"; drops {', '.join(keys)} (another transport's; memtui runs as a command)"
        if keys else "")


def _options_note(old_words: list[str], extra: list[str] | None) -> str:
    """``; replaces --db X with the default store`` for each global option of the installed
    entry the new install drops or changes (so no one writes to another store unawares)."""
    def values(words: list[str]) -> dict[str, str]:
        return {word: words[at + 1] for at, word in enumerate(words[:-1])
                if word in GLOBAL_OPTIONS_WITH_VALUE}

    before, after = values(old_words), values(extra or [])
    return "".join(f"; replaces {name} {value} with "
                   + (f"{name} {after[name]}" if name in after else OPTION_DEFAULTS[name])
                   for name, value in before.items() if after.get(name) != value)


def store_folder_problem(words: Sequence[str]) -> str | None:
    """Why the store file a command names with ``--db`` cannot be opened: its folder is
    missing (None: no ``--db``, a database URL, or the folder is there)."""
    if "--db" not in words[:-1]:
        return None
    folder = missing_store_folder(words[list(words).index("--db") + 1])
    return None if folder is None else f"the store's folder {folder} does not exist"


def server_program(entry: object) -> Command | None:
    """The program and leading arguments of an installed MCP server entry, without memtui's
    global options and ``mcp``; None when it is not an entry."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return None
    words = _args_of(entry)
    return (entry["command"], *_without_global_options(words[:-1] if words[-1:] == ["mcp"]
                                                       else words))


def _strip_ours(groups: list[Any]) -> list[Any]:
    kept: list[Any] = []
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            hooks = [hook for hook in group["hooks"] if not _is_ours(hook)]
            if not hooks and group["hooks"]:
                continue
            group = {**group, "hooks": hooks}
        kept.append(group)
    return kept


def merge_claude_hooks(path: Path, text: str | None, action: str,
                       extra: list[str] | None = None,
                       command: Command = DEFAULT_COMMAND,
                       gate: Command | None = None) -> tuple[str, str]:
    """memtui's SessionStart / SessionEnd / Stop hooks added (once) or taken out, and with
    ``gate`` (its Python and program) the write gate's PreToolUse hook."""
    top, existing = _top_object(path, text, "hooks")
    if existing is None and action == UNINSTALL:
        return (text if text is not None else ""), "no memtui hooks to remove"
    hooks: dict[str, Any] = dict(existing or {})
    for event, (which, matcher) in HOOK_EVENTS.items():
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise InvalidInput(f"{path}: hooks.{event} is not a list; nothing written")
        groups = _strip_ours(groups)
        program = command if which is not None else gate
        if action == INSTALL and program is not None:
            line = shlex.join([*program, *(extra or []), *(which or "").split()])  # quoted
            group = {"hooks": [{"type": "command", "command": line, "timeout": HOOK_TIMEOUT_S}]}
            groups.append({"matcher": matcher, **group} if matcher else group)
        if groups:
            hooks[event] = groups
        else:
            hooks.pop(event, None)
    if text is not None and hooks == (existing or {}) and (existing is not None or not hooks):
        return text, ("memtui hooks already set" if action == INSTALL
                      else "no memtui hooks to remove")
    old_words = next((_shell_words(line) for _event, line in _our_hooks(existing)), [])
    return _put_members(path, text, top, "hooks", existing, hooks), \
        ("set the SessionStart, SessionEnd and Stop hooks" + (
            " and the PreToolUse write gate" if gate else "") + _options_note(old_words, extra)
         if action == INSTALL else "removed the memtui hooks")


def _put_members(path: Path, text: str | None, top: TopLevel | None, key: str,
                 old: dict[str, Any] | None, new: dict[str, Any]) -> str:
    """The text with the top-level object ``key`` changed from ``old`` to ``new``: only the
    members that differ set, the others' bytes (the user's own) kept; the whole object when
    it is new or goes."""
    if text is None or top is None:
        return json.dumps({key: new}, indent=JSON_INDENT, ensure_ascii=False) + "\n" \
            if new else ""
    if not new:
        return remove_top_level(text, key, str(path), top)
    if not old:
        return set_top_level(text, key, new, str(path), top)
    for name in [name for name in {**new, **old} if old.get(name) != new.get(name)]:
        text = set_member(text, key, name, new.get(name), str(path), top)
        top = None  # the text changed: scanned again
    return text


def merge_codex_toml(path: Path, text: str | None, action: str,
                     extra: list[str] | None = None,
                     command: Command = DEFAULT_COMMAND) -> tuple[str, str]:
    """``[mcp_servers.memtui]`` added or taken out, as text (``codex_table``): on install
    only its ``command`` and ``args``; every other byte stays."""
    source = text or ""
    if action == UNINSTALL:
        after, old = merge_server_table(path, source, None)
        return after, ("removed [mcp_servers.memtui]" if old is not None
                       else "no [mcp_servers.memtui] to remove")
    after, old = merge_server_table(path, source, _server_entry(extra, command), HTTP_KEYS)
    if after == source and old is not None:
        return source, "[mcp_servers.memtui] already set"
    return after, "set [mcp_servers.memtui]" + _install_notes(old, extra, HTTP_KEYS)


# ---- plans and writes ------------------------------------------------------------------------


def plan(agent: str, action: str, project: str | os.PathLike[str] | None = None,
         extra: list[str] | None = None,
         command: Command = DEFAULT_COMMAND,
         gate: Command | None = None) -> list[SettingsChange]:
    """The changes ``install``/``uninstall`` makes to the agent's settings (nothing written).
    ``extra``: global options the agent's memtui commands carry (``--db``, ``--user``);
    ``command``: the words that start memtui (the CLI passes its own absolute path);
    ``gate``: the write gate's Python and program (Claude Code only)."""
    check_agent(agent)
    if action not in (INSTALL, UNINSTALL):
        raise InvalidInput(f"unknown action {action!r}")
    folder = None
    if project is not None:
        folder = Path(project).expanduser().absolute()
        if not folder.is_dir():
            raise InvalidInput(f"project folder {folder} does not exist")
    if gate is not None and agent != "claude-code":
        raise InvalidInput("the write gate is for Claude Code only")
    return [_plan_file(agent, action, what, path, root, extra, command, gate)
            for what, path, root in _targets(agent, folder)]


def _plan_file(agent: str, action: str, what: str, path: Path, root: Path,
               extra: list[str] | None, command: Command,
               gate: Command | None = None) -> SettingsChange:
    before, _data, digest = _read(path, root)
    if what == "toml":
        after, summary = merge_codex_toml(path, before, action, extra, command)
    elif what == "hooks":
        after, summary = merge_claude_hooks(path, before, action, extra, command, gate)
    else:
        after, summary = merge_mcp_json(path, before, action, extra, command,
                                        always_load=agent == "claude-code",
                                        allow_comments=agent == "gemini")
    if before is None and action == UNINSTALL:
        after = before = ""
        summary = f"no file; {summary}"
    return SettingsChange(agent, path, root, before, after, summary, what, digest, lambda: (
        _plan_file(agent, action, what, path, root, extra, command, gate)))


def _unchanged_since_read(change: SettingsChange) -> bytes | None:
    """The file's bytes (None: no file); Conflict unless it still holds what the plan read
    (its bytes' hash: a large file is not decoded again)."""
    _text, data, digest = _read(change.path, change.root, decode=False)
    if digest != change.before_sha256:
        raise Conflict(f"{change.path} changed since it was read; nothing written (run again)")
    return data


def _write_failed(path: Path, error: OSError) -> AgentFileWriteFailed:
    return AgentFileWriteFailed(f"{path}: cannot write ({error.strerror or error}); nothing "
                                "written")


def _holds(name: Path, data: bytes) -> bool:
    """Whether ``name`` itself (not a symlink's target) is a regular file of ``data``."""
    try:
        fd = os.open(name, READ_FLAGS)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as handle:
        return stat.S_ISREG(os.fstat(fd).st_mode) and handle.read(len(data) + 1) == data


def _write_backup(target: Path, data: bytes, mode: int) -> tuple[Path, bool]:
    """(path, made now) of ``data`` copied beside ``target`` under the first backup name not
    taken (``.bak``, ``.bak.1`` ...), or of a regular file already holding these bytes."""
    temp = temp_name(target.parent)
    write_new_file(temp, data, mode)
    try:
        for number in range(MAX_BACKUPS):
            name = target.with_name(target.name + BACKUP_SUFFIX + (f".{number}" if number else ""))
            if not os.path.lexists(name):
                if publish_new_file(temp, name, data, mode):
                    return name, True
                continue
            if _holds(name, data):
                return name, False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)
    raise AgentFileWriteFailed(f"{target}: {MAX_BACKUPS} backup copies beside it already "
                               f"({target.name}{BACKUP_SUFFIX}.*); remove some; nothing written")


def write_change(change: SettingsChange) -> Path | None:
    """Write one planned change safely (see the module doc); its ``.bak`` copy, if any.
    Another user's file is UnsafePath (it would become this user's)."""
    if not change.changed:
        return None
    original = _unchanged_since_read(change)
    target = Path(os.path.realpath(change.path)) if os.path.lexists(change.path) else change.path
    if not is_within(target.parent, real_root(change.root)) and os.path.lexists(target.parent):
        raise InvalidInput(f"{target.parent} leads outside {change.root}; not followed")
    check_owned(target, UnsafePath)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else NEW_FILE_MODE
    except OSError as error:
        raise _write_failed(change.path, error) from None
    backup, made = None, False
    if original:
        try:
            backup, made = _write_backup(target, original, mode)
        except OSError as error:
            raise _write_failed(target.with_name(target.name + BACKUP_SUFFIX), error) from None
    data = encode_like(change.after, original)
    del original  # a large file's bytes held once at a time (the check before the rename)
    try:
        replace_atomically(target, data, mode, lambda: _unchanged_since_read(change))
    except (OSError, Conflict) as error:
        if backup is not None and made:
            with contextlib.suppress(OSError):
                backup.unlink()
        if isinstance(error, OSError):
            raise _write_failed(change.path, error) from None
        raise
    return backup


def write_with_retry(change: SettingsChange, attempts: int = MAX_WRITE_ATTEMPTS,
                     sleep: Callable[[float], None] = time.sleep) -> tuple[SettingsChange,
                                                                           Path | None]:
    """``write_change``; when the agent changed the file since it was read, the same change
    planned again on what it holds now, at most ``attempts`` times in all (waiting
    RETRY_WAIT_S, doubling). (The change written, its ``.bak``.)"""
    wait = RETRY_WAIT_S
    for attempt in range(1, attempts + 1):
        try:
            return change, write_change(change)
        except Conflict:
            if attempt == attempts:
                raise Conflict(f"{change.path} kept changing while memtui wrote it ({attempts} "
                               "tries; the agent is writing it now?); nothing written — run "
                               "again when the agent is idle") from None
        sleep(wait)
        wait *= 2
        change = change.again()
    raise AssertionError("unreachable")


def codex_home_for_worker(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The Codex home the worker imports rollouts from: ``explicit``, else ``$CODEX_HOME``,
    else ``~/.codex`` once memtui is installed in its ``config.toml``; else None."""
    if explicit or os.environ.get(CODEX_HOME_ENV):
        return resolve_codex_home(explicit)
    home = resolve_codex_home()
    try:
        text = read_settings(home / "config.toml", home)
        if text is None:
            return None
        servers = tomllib.loads(text).get("mcp_servers")
    except (InvalidInput, tomllib.TOMLDecodeError, OSError):
        return None
    return home if isinstance(servers, dict) and SERVER_NAME in servers else None


# ---- what is installed, and whether it still runs --------------------------------------------


@dataclass(frozen=True)
class InstalledEntry(JsonMixin):
    """One memtui entry in an agent's settings (``mcp`` or a hook) and its command's check."""

    path: str
    what: str
    check: CommandCheck

    def to_json(self) -> dict[str, Any]:
        """``{path, what, command, ok, problem}``."""
        return {"path": self.path, "what": self.what, **self.check.to_json()}


def _entries_in(what: str, text: str, allow_comments: bool
                ) -> list[tuple[str, Command, str | None]]:
    """(what, command, ``store_folder_problem``) of each memtui entry in one settings file's
    text (``allow_comments``: Gemini CLI's, read past its comments); a file that does not
    parse holds none (``plan`` reports it)."""
    try:
        data: Any = tomllib.loads(text) if what == "toml" else \
            json.loads(blank_comments(text) if allow_comments else text)
    except (ValueError, tomllib.TOMLDecodeError):
        return []
    if not isinstance(data, dict):
        return []
    if what in ("mcp", "toml"):
        servers = data.get("mcp_servers" if what == "toml" else "mcpServers")
        entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
        program = server_program(entry)
        return [("mcp", program, store_folder_problem(_args_of(entry)))] if program else []
    return [(f"hook {event}", hook_program(line), store_folder_problem(_shell_words(line)))
            for event, line in _our_hooks(data.get("hooks"))]


def _our_hooks(hooks: object) -> Iterator[tuple[str, str]]:
    """(event, command line) of each memtui hook in a settings file's ``hooks``."""
    for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        for group in groups if isinstance(groups, list) else ():
            listed = group.get("hooks") if isinstance(group, dict) else None
            for hook in listed if isinstance(listed, list) else ():
                if _is_ours(hook):
                    yield event, hook["command"]


def installed_entries(agent: str, project: str | os.PathLike[str] | None = None, *,
                      run: bool = False) -> list[InstalledEntry]:
    """memtui's entries in the agent's settings files, each with its command checked (``run``:
    also run with ``--version``, once per distinct command)."""
    check_agent(agent)
    folder = Path(project).expanduser().absolute() if project is not None else None
    checks: dict[Command, CommandCheck] = {}
    entries: list[InstalledEntry] = []
    for what, path, root in _targets(agent, folder):
        try:
            text = read_settings(path, root)
        except InvalidInput:
            continue
        for kind, program, store_problem in _entries_in(what, text or "", agent == "gemini"):
            if program not in checks:
                checks[program] = check_command(program, run=run)
            check = checks[program]
            if store_problem and check.ok:
                check = CommandCheck(program, store_problem)
            entries.append(InstalledEntry(str(path), kind, check))
    return entries
