"""``memtui``: the entry point. No subcommand opens the app; subcommands script the store.

Opening the app is kept lean: the global options are read by a small parser first, and a
command line builds the parser of its command's module alone; help, and a line that parser
refuses, get the whole parser, whose messages name every command. While the app starts the
garbage collector is paused (``MemtuiApp.run`` resumes it before its event loop).
"""

from __future__ import annotations

import gc
import importlib
import sqlite3
import sys
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, NoReturn, TextIO

from memtui import __version__
from memtui.errors import InvalidInput, MemtuiError

if TYPE_CHECKING:
    import argparse


COMMANDS_BY_MODULE: dict[str, tuple[str, ...]] = {
    "memtui.cli.cmd_identity": ("project", "profile", "memory", "note", "context", "audit"),
    "memtui.cli.cmd_inbox": ("inbox",),
    "memtui.cli.cmd_auto": ("settings", "task", "quota", "run", "log", "inject"),
    "memtui.cli.cmd_tools": ("redact", "doctor", "export", "import", "store"),
    "memtui.cli.cmd_codex": ("codex",),
    "memtui.cli.cmd_agent_stores": ("agents", "claude", "gemini"),
    "memtui.cli.cmd_service": ("serve", "call"),
    "memtui.cli.cmd_agents": ("mcp", "hooks", "hook"),
}
"""Each module's ``TOP_LEVEL`` table holds these top-level commands, in the order ``memtui
--help`` lists them (a test checks this table against those)."""
MODULE_OF_COMMAND = {command: module for module, commands in COMMANDS_BY_MODULE.items()
                     for command in commands}


class UsageError(MemtuiError, code="usage", exit_code=2):
    """Bad command-line usage (exit 2)."""


@cache
def _parser_class() -> type[argparse.ArgumentParser]:
    """argparse that raises instead of exiting, so errors get one line and the JSON object.
    argparse is imported here, on first use: an agent's session hook (``memtui hook``) is
    answered without it."""
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            # "memtui: error: " comes in front of every error line: name the command only once
            command = self.prog.removeprefix("memtui").strip()
            raise UsageError(f"{command}: {message}" if command else message)

    return _Parser


def common_options() -> argparse.ArgumentParser:
    """The global options, accepted before or after any subcommand."""
    import argparse

    common = _parser_class()(add_help=False)
    common.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS,
                        help="store file (else $MEMTUI_DB, else the default store)")
    common.add_argument("--user", metavar="ID", default=argparse.SUPPRESS,
                        help="acting user (else $MEMTUI_USER, else the login name)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="machine-readable output on stdout")
    return common


APP_OPTIONS = (
    ("--project", "ID", "the app's current project (else the one whose root contains the "
                        "working directory)"),
    ("--codex-home", "PATH", "a Codex home to show beside the store (else $CODEX_HOME, else "
                             "~/.codex)"),
    ("--claude-home", "PATH", "the Claude Code home the Agents pane shows (else "
                              "$CLAUDE_CONFIG_DIR, else ~/.claude)"),
    ("--gemini-home", "PATH", "the Gemini CLI home the Agents pane shows and whose inbox "
                              "patches the Inbox lists (else $GEMINI_CLI_HOME, else ~/.gemini)"),
)
"""(flag, metavar, help) of the options that say what the app opens on (default None)."""


def _app_parser(common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The top-level parser without the commands: the options that open the app."""
    parser = _parser_class()(prog="memtui", description=(
        "See and curate what your AI coding agents remember. With no command, opens the app."),
        parents=[common])
    parser.set_defaults(handler=None)
    parser.add_argument("--version", action="version", version=f"memtui {__version__}")
    parser.add_argument("--demo", nargs="?", const="", default=None, metavar="PATH",
                        help="open the app on a store filled with sample data (a temporary one, "
                             "or PATH)")
    for flag, metavar, text in APP_OPTIONS:
        parser.add_argument(flag, metavar=metavar, default=None, help=text)
    return parser


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command-line parser: every command, or only the commands of the module that adds
    ``command`` (a line of that command parses the same with either; the smaller one is
    built much faster)."""
    from memtui.cli.common import add_commands

    modules = ((MODULE_OF_COMMAND[command],) if command in MODULE_OF_COMMAND
               else tuple(COMMANDS_BY_MODULE))
    common = common_options()
    parser = _app_parser(common)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_parser_class())
    for name in modules:
        add_commands(sub, common, importlib.import_module(name).TOP_LEVEL)
    return parser


def parse_command_line(raw: Sequence[str], command: str | None = None) -> argparse.Namespace:
    """``raw`` read by the parser of its command alone (``command``, when the caller has
    already found it with ``app_and_command``); a line that parser refuses is read again by the
    whole parser, so an error (and its list of the choices) is worded exactly as the whole
    parser words it. Raises ``UsageError``, or ``SystemExit`` for help and ``--version``."""
    command = command or app_and_command(raw)[1]
    if command is not None:
        try:
            return build_parser(command).parse_args(list(raw))
        except UsageError:
            pass
    return build_parser().parse_args(list(raw))


FULL_PARSER_FLAGS = frozenset({"-h", "--help", "--version"})
"""Flags the whole parser answers (its help lists the commands)."""


def app_and_command(raw: Sequence[str]) -> tuple[argparse.Namespace | None, str | None]:
    """From one read of the app's options: the options when ``raw`` opens the app (no
    command, no help), and the command it runs (``memory`` in ``--json memory list``) when
    it names one (each else None). Neither for help, ``--version`` or an option the app
    parser refuses: the whole parser reads those lines (its errors and help name every
    command)."""
    if FULL_PARSER_FLAGS.intersection(raw):
        return None, None
    try:
        args, rest = _app_parser(common_options()).parse_known_args(list(raw))
    except (UsageError, SystemExit):
        return None, None
    if not rest:
        return args, None
    word = next((token for token in rest if not token.startswith("-")), None)
    return None, word if word in MODULE_OF_COMMAND else None


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    """Run the command line; returns the exit code."""
    raw = list(sys.argv[1:] if argv is None else argv)
    if "hook" in raw:  # an agent's session hook: answered before any parser is built
        from memtui.cli.hook import parse_hook_argv, run_hook

        options = parse_hook_argv(raw)
        if options is not None:
            return run_hook(options, stdout=stdout, stderr=stderr)
    collecting = gc.isenabled()
    args, command = app_and_command(raw)
    if args is not None and collecting:
        gc.disable()  # until the app's event loop starts (MemtuiApp.run enables it)
    try:
        return _dispatch(raw, args, command, stdout, stderr)
    finally:
        if collecting:
            gc.enable()


def _dispatch(raw: list[str], args: argparse.Namespace | None, command: str | None,
              stdout: TextIO | None, stderr: TextIO | None) -> int:
    import argparse

    from memtui.cli.context import CliContext

    if args is None:
        try:
            args = parse_command_line(raw, command)
        except UsageError as error:
            ctx = CliContext(argparse.Namespace(json="--json" in raw), stdout, stderr)
            return ctx.error(error)
        except SystemExit as exit_:  # --help / --version
            return int(exit_.code or 0)
    ctx = CliContext(args, stdout, stderr)
    try:
        if args.handler is None:
            from memtui.cli.launch import launch_app

            return launch_app(ctx)
        return int(args.handler(ctx, args) or 0)
    except MemtuiError as error:
        return ctx.error(error)
    except (UnicodeDecodeError, UnicodeEncodeError, UnicodeTranslateError) as error:
        return ctx.error(InvalidInput(f"the input is not valid text ({error.reason})"))
    except sqlite3.Error as error:  # a damaged file: the write (if any) was rolled back
        from memtui.store.database import database_failure

        return ctx.error(database_failure(ctx.db_path, error))
    except Exception as error:  # the database server's error (the write was rolled back)
        failure = ctx.store_failure(error)
        if failure is None:
            raise
        return ctx.error(failure)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    finally:
        ctx.close()


if __name__ == "__main__":
    raise SystemExit(main())
