"""Memories checked against the code they cite: the paths, symbols (``parse_config()``) and
config commands (``make <target>``, ``npm run <script>``) a text names, and whether the
project's folder has them (URLs, absolute paths, ``~`` and ``..`` never looked at). A walk of
the folder that stopped early reports no missing symbol.
"""

from __future__ import annotations

import json
import os
import re
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memtui.engine.safe_files import is_within, real_root

FILE_ENDINGS = frozenset("""
py pyi md rst txt toml json yaml yml ini cfg conf lock ts tsx js jsx mjs cjs go rs java kt
rb php sh bash zsh sql html css scss vue svelte c h cpp hpp cs swift tf proto graphql
""".split())
"""File endings that make a word a path."""
SOURCE_ENDINGS = FILE_ENDINGS - {"md", "rst", "txt", "lock"}
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "venv", "dist", "build", "target",
                             "vendor", "site-packages"})
"""Folders never scanned for symbols (besides hidden ones)."""
SYSTEM_FOLDERS = frozenset({"/proc", "/sys", "/dev", "/run"})
"""Folders of the system never walked (a root of ``/``); other file systems are skipped too."""
MAX_SCAN_FILES = 5000
MAX_SCAN_ENTRIES = 50_000
INDEX_TTL_SECONDS = 10.0
CACHE_ROOTS = 64
MAX_SCAN_FILE_BYTES = 1024 * 1024
"""Files bigger than this are never read (a symbol scan skips them, a config is not read)."""
CACHE_FILES = 50_000

_BACKTICKED = re.compile(r"`([^`\n]{1,200})`")
_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w{2,})\(\)")
_MAKE = re.compile(r"\bmake ([A-Za-z0-9_][\w.-]*)")
_SCRIPT = re.compile(r"\b(?:npm|pnpm|yarn) run ([A-Za-z0-9_][\w:.-]*)")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_EDGE = "()[]{}<>,;:\"'!?*`"


@dataclass(frozen=True)
class Citations:
    """What a memory's text cites: paths, symbols, and (config file, key) commands."""

    paths: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    commands: tuple[tuple[str, str], ...] = ()


def _is_path(word: str, quoted: bool) -> bool:
    if "://" in word or word.startswith(("/", "~", "@")) or "\\" in word:
        return False
    name = word.rstrip("/").rsplit("/", 1)[-1]
    ending = name.rsplit(".", 1)[-1].lower() if "." in name[1:] else ""
    if ending in FILE_ENDINGS:
        return not name.startswith(".") or quoted
    return quoted and "/" in word


def citations(text: str) -> Citations:
    """The paths, symbols and commands ``text`` names (see the module doc), in order."""
    quoted = set(_BACKTICKED.findall(text))
    paths: dict[str, None] = {}
    for word in text.split():
        core = word.strip(_EDGE).rstrip(".")
        inside = word.strip(_EDGE + ".") in quoted or core in quoted
        if core and _is_path(core, inside):
            normal = os.path.normpath(core)
            if normal != ".." and not normal.startswith("../"):
                paths.setdefault(normal)
    commands = [("Makefile", target.rstrip(".:")) for target in _MAKE.findall(text)]
    commands += [("package.json", script.rstrip(".:")) for script in _SCRIPT.findall(text)]
    return Citations(tuple(paths), tuple(dict.fromkeys(_CALL.findall(text))),
                     tuple(dict.fromkeys(commands)))


def _regular_text(path: Path) -> str | None:
    """A regular file's text (not through a symlink, not too big), or None."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SCAN_FILE_BYTES:
            return None
        with open(path, "rb") as handle:
            return handle.read(MAX_SCAN_FILE_BYTES).decode("utf-8", "replace")
    except OSError:
        return None


@dataclass(frozen=True)
class RootWords:
    """Every word of a folder's source files, and whether the walk saw the whole folder."""

    words: frozenset[str]
    whole: bool
    made: float


class SymbolIndex:
    """Each folder's words (one walk, kept ``INDEX_TTL_SECONDS``) and each file's, shared."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._files: dict[str, tuple[int, int, frozenset[str]]] = {}
        self._roots: dict[str, RootWords] = {}
        self._clock = clock
        self._lock = threading.Lock()
        self._walking = threading.Lock()

    def _words(self, path: str, info: os.stat_result) -> frozenset[str]:
        key = (info.st_size, info.st_mtime_ns)
        with self._lock:
            cached = self._files.get(path)
        if cached is not None and cached[:2] == key:
            return cached[2]
        text = _regular_text(Path(path)) or ""
        words = frozenset(_IDENTIFIER.findall(text))
        with self._lock:
            if len(self._files) >= CACHE_FILES:
                self._files.clear()
            self._files[path] = (*key, words)
        return words

    def _kept(self, key: str) -> RootWords | None:
        with self._lock:
            cached = self._roots.get(key)
        return cached if cached and self._clock() - cached.made < INDEX_TTL_SECONDS else None

    def words(self, root: Path) -> RootWords:
        """The words of ``root``'s source files, walked again after ``INDEX_TTL_SECONDS``."""
        key = os.path.realpath(root)
        found = self._kept(key)
        if found is not None:
            return found
        with self._walking:
            found = self._kept(key) or self.walk(Path(key), self._clock())
            with self._lock:
                if len(self._roots) >= CACHE_ROOTS:
                    self._roots.clear()
                self._roots[key] = found
        return found

    def walk(self, root: Path, now: float) -> RootWords:
        """Read ``root``'s source files once (bounded; hidden and vendored folders skipped)."""
        words: set[str] = set()
        seen = read = 0
        try:
            device = os.lstat(root).st_dev
        except OSError:
            return RootWords(frozenset(), False, now)
        folders = [str(root)]
        while folders:
            try:
                with os.scandir(folders.pop()) as listing:
                    entries = sorted(listing, key=lambda entry: entry.name)
            except OSError:
                continue
            inner: list[str] = []
            for entry in entries:
                seen += 1
                if seen > MAX_SCAN_ENTRIES:
                    return RootWords(frozenset(words), False, now)
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISDIR(info.st_mode):
                    if not entry.name.startswith(".") and entry.name not in SKIPPED_FOLDERS \
                            and entry.path not in SYSTEM_FOLDERS and info.st_dev == device:
                        inner.append(entry.path)
                elif (stat.S_ISREG(info.st_mode) and info.st_size <= MAX_SCAN_FILE_BYTES
                      and entry.name.rsplit(".", 1)[-1].lower() in SOURCE_ENDINGS):
                    if read >= MAX_SCAN_FILES:
                        return RootWords(frozenset(words), False, now)
                    read += 1
                    words |= self._words(entry.path, info)
            folders += reversed(inner)
        return RootWords(frozenset(words), True, now)


SYMBOLS = SymbolIndex()


def _command_missing(root: Path, config: str, key: str) -> str | None:
    text = _regular_text(root / config)
    if text is None:
        return f"{config} not found (cited for {key!r})"
    if config == "Makefile":
        found = re.search(rf"^{re.escape(key)}\s*:", text, re.MULTILINE) is not None
    else:
        try:
            scripts = json.loads(text).get("scripts", {})
        except (ValueError, AttributeError, RecursionError):
            scripts = {}
        found = isinstance(scripts, dict) and key in scripts
    return None if found else f"{config} has no {key!r}"


class Checker:
    """Checks many memories' texts, each folder walked at most once (``SYMBOLS``)."""

    def __init__(self, index: SymbolIndex | None = None) -> None:
        self._index = index or SYMBOLS
        self._roots: dict[str, RootWords] = {}

    def missing(self, text: str, root: str | None) -> tuple[str, ...]:
        """Why ``text`` no longer matches the folder ``root``: one reason per citation gone."""
        if not root:
            return ()
        folder = Path(root)
        cited = citations(text)
        if not (cited.paths or cited.symbols or cited.commands) or not folder.is_dir():
            return ()
        real_folder = real_root(folder)
        reasons = [f"{path} not found" for path in cited.paths
                   if is_within((folder / path).parent, real_folder)
                   and not os.path.lexists(folder / path)]
        if cited.symbols:
            if str(folder) not in self._roots:
                self._roots[str(folder)] = self._index.words(folder)
            found = self._roots[str(folder)]
            if found.whole:
                reasons += [f"{symbol}() not found" for symbol in cited.symbols
                            if symbol not in found.words]
        reasons += filter(None, (_command_missing(folder, config, key)
                                 for config, key in cited.commands))
        return tuple(reasons)
