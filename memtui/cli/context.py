"""What a command runs with: parsed options, the store, the engine, the output."""

from __future__ import annotations

import argparse
import json
import sys
from functools import cached_property
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console, RenderableType
from rich.text import Text

from memtui.engine.api import Engine
from memtui.engine.paths import default_user, is_database_url, store_target
from memtui.errors import MemtuiError
from memtui.store.backend import StoreBackend
from memtui.store.database import discard_empty_store, open_store


class CliConsole(Console):
    """Rich's console whose text (``str``, ``Text``) is not wrapped when the output is not
    a terminal: a path or id in a pipe or a file stays whole on its line."""

    def print(self, *objects: Any, **options: Any) -> None:
        """``Console.print``; text-only output into a pipe or file is soft-wrapped."""
        if not self.is_terminal and all(isinstance(item, (str, Text)) for item in objects):
            options.setdefault("soft_wrap", True)
        super().print(*objects, **options)


class CliContext:
    """Per-invocation state: options, lazily opened store and engine, output streams."""

    def __init__(self, args: argparse.Namespace, stdout: TextIO | None = None,
                 stderr: TextIO | None = None) -> None:
        self.args = args
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        self.json = bool(getattr(args, "json", False))
        self._store: StoreBackend | None = None
        self.allow_read_only = False
        """Open a read-only store file read-only (the app browses it) instead of refusing."""

    @property
    def db_target(self) -> str:
        """The store: ``--db``, else ``$MEMTUI_DB``, else the default location; a file path
        or a database URL (``postgresql://...``)."""
        return store_target(getattr(self.args, "db", None))

    @property
    def db_named(self) -> bool:
        """Whether the store was named (``--db``): a folder is made only for the default."""
        return bool(getattr(self.args, "db", None))

    @property
    def db_is_file(self) -> bool:
        """Whether the store is a file (SQLite), not a database server."""
        return not is_database_url(self.db_target)

    @property
    def db_path(self) -> Path:
        """The store file's path (``db_target`` as a path; for a file store)."""
        return Path(self.db_target)

    @property
    def user(self) -> str:
        """The acting user: ``--user``, else ``$MEMTUI_USER``, else the login name."""
        return getattr(self.args, "user", None) or default_user()

    @property
    def store(self) -> StoreBackend:
        """The store, opened on first use."""
        if self._store is None:
            self._store = open_store(self.db_target, create_folder=not self.db_named,
                                     allow_read_only=self.allow_read_only)
        return self._store

    @cached_property
    def engine(self) -> Engine:
        """The engine acting as the user."""
        return Engine(self.store, self.user)

    @cached_property
    def console(self) -> Console:
        """A Rich console for human output (markup off: store text is data). Text is never
        wrapped into a pipe or a file, so a path or id stays whole; in a terminal it wraps at
        words (only a word longer than the line is folded). Tables lay out at the console's
        width either way (80 columns when it is not a terminal)."""
        return CliConsole(file=self.stdout, markup=False, highlight=False, emoji=False,
                          width=None)

    def discard_new_store(self) -> None:
        """Remove the store file this command created, with its WAL and shared-memory files,
        when it holds nothing (an import that was refused into a new store)."""
        if self._store is None or not self.db_is_file or not self._store.is_empty():
            return
        self._store.close()
        self._store = None
        self.__dict__.pop("engine", None)
        discard_empty_store(self.db_path)

    def store_failure(self, error: BaseException) -> MemtuiError | None:
        """The one-line error for a database driver's error (None: not one)."""
        return None if self._store is None else self._store.failure(error)

    def close(self) -> None:
        """Close the store if it was opened."""
        if self._store is not None:
            self._store.close()

    def emit_json(self, value: Any) -> None:
        """Print one JSON document on stdout."""
        self.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")

    def say(self, text: str, style: str = "") -> None:
        """Print one line of text (literal, never markup) in ``style``."""
        self.console.print(Text(text, style=style))

    def answer(self, payload: Any, *lines: RenderableType) -> int:
        """A command's answer (exit code 0): ``payload`` as JSON with ``--json``, else
        ``lines``, each printed on its own (a ``str`` as literal text)."""
        if self.json:
            self.emit_json(payload)
        else:
            for line in lines:
                self.console.print(Text(line) if isinstance(line, str) else line)
        return 0

    def error(self, error: MemtuiError) -> int:
        """Report an error: one line on stderr, and the JSON error object with ``--json``."""
        message = error.message.replace("\n", " ")
        self.stderr.write(f"memtui: error: {message}\n")
        if self.json:
            self.emit_json({"error": error.to_json()})
        return error.exit_code
