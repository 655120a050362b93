"""``memtui``: the entry point. No subcommand opens the app; subcommands script the store."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import TextIO

from memtui import __version__
from memtui.cli.context import CliContext
from memtui.errors import InvalidInput, MemtuiError

COMMAND_MODULES = (
    "memtui.cli.cmd_identity",
    "memtui.cli.cmd_auto",
    "memtui.cli.cmd_tools",
    "memtui.cli.cmd_codex",
    "memtui.cli.cmd_service",
)
"""Each module has ``register(subparsers, common)`` adding its commands."""


class UsageError(MemtuiError):
    """Bad command-line usage (exit 2)."""

    code = "usage"
    exit_code = 2


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so errors get one line and the JSON object."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def common_options() -> argparse.ArgumentParser:
    """The global options, accepted before or after any subcommand."""
    common = _Parser(add_help=False)
    common.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS,
                        help="store file (else $MEMTUI_DB, else the default store)")
    common.add_argument("--user", metavar="ID", default=argparse.SUPPRESS,
                        help="acting user (else $MEMTUI_USER, else the login name)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="machine-readable output on stdout")
    return common


def build_parser() -> argparse.ArgumentParser:
    """The whole command-line parser."""
    common = common_options()
    parser = _Parser(prog="memtui", description=(
        "See and curate what your AI coding agents remember. With no command, opens the app."),
        parents=[common])
    parser.set_defaults(handler=None)
    parser.add_argument("--version", action="version", version=f"memtui {__version__}")
    parser.add_argument("--demo", nargs="?", const="", default=None, metavar="PATH",
                        help="open the app on a store filled with sample data (a temporary one, "
                             "or PATH)")
    parser.add_argument("--project", metavar="ID", default=None,
                        help="the app's current project (else the one whose root contains the "
                             "working directory)")
    parser.add_argument("--codex-home", metavar="PATH", default=None,
                        help="a Codex home to show beside the store (else $CODEX_HOME, "
                             "else ~/.codex)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub, common)
    return parser


def _run_app(ctx: CliContext) -> int:
    from memtui.cli.launch import launch_app

    return launch_app(ctx)


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    """Run the command line; returns the exit code (spec/70)."""
    parser = build_parser()
    raw = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(raw)
    except UsageError as error:
        ctx = CliContext(argparse.Namespace(json="--json" in raw), stdout, stderr)
        return ctx.error(error)
    except SystemExit as exit_:  # --help / --version
        return int(exit_.code or 0)
    for name, default in (("db", None), ("user", None), ("json", False)):
        if not hasattr(args, name):
            setattr(args, name, default)
    ctx = CliContext(args, stdout, stderr)
    try:
        if args.handler is None:
            return _run_app(ctx)
        return int(args.handler(ctx, args) or 0)
    except MemtuiError as error:
        return ctx.error(error)
    except UnicodeError as error:
        return ctx.error(InvalidInput(f"the input is not valid text ({error.reason})"))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    finally:
        ctx.close()


if __name__ == "__main__":
    raise SystemExit(main())
