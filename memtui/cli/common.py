"""Small helpers every command module shares: argument types, command tables and list
output."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from rich import box
from rich.table import Table
from rich.text import Text

from memtui.cli import render
from memtui.cli.context import CliContext
from memtui.textsafe import one_line

if TYPE_CHECKING:
    from memtui.engine.codex.import_report import ImportReport

T = TypeVar("T")
N = TypeVar("N", int, float)
ID_CHARS = 36
"""The widest id an import report's item column keeps whole."""


def number_type(kind: Callable[[str], N], what: str, fits: Callable[[N], bool] | None = None,
                need: str = "") -> Callable[[str], N]:
    """An argparse type: ``kind(value)`` (else "not <what>"), refused with ``need`` when it
    does not ``fits``."""
    def parse(value: str) -> N:
        try:
            number = kind(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {value!r}") from None
        if fits is not None and not fits(number):
            raise argparse.ArgumentTypeError(need)
        return number

    return parse


positive_int = number_type(int, "a whole number", lambda n: n >= 1, "must be at least 1")
"""An argparse type: a whole number of at least 1."""
DEFAULT_LIMIT = 50
"""Rows a list shows unless ``--limit`` says otherwise."""


Arg = tuple[tuple[str, ...], dict[str, Any]]
"""One argument of a command: ``add_argument``'s names and keywords."""


def arg(*names: str, **options: Any) -> Arg:
    """An argument, written as for ``add_argument``."""
    return names, options


HOME_HELPS = {"claude": "the Claude Code home (else $CLAUDE_CONFIG_DIR, else ~/.claude)",
              "gemini": "the Gemini CLI home (else $GEMINI_CLI_HOME, else ~/.gemini)",
              "codex": "the Codex home (else $CODEX_HOME, else ~/.codex)"}


def limit_arg(help: str, default: int = DEFAULT_LIMIT) -> Arg:
    """``--limit N``: a whole number of at least 1."""
    return arg("--limit", type=positive_int, default=default, help=help)


def home_arg(agent: str) -> Arg:
    """``--<agent>-home PATH``. SUPPRESS: a value given before the command (``memtui
    --claude-home X claude show``) stays unless the command is given its own."""
    return arg(f"--{agent}-home", metavar="PATH", default=argparse.SUPPRESS,
               help=HOME_HELPS[agent])


Handler = Callable[[CliContext, argparse.Namespace], int]
"""What runs a command: its exit code from the context and the parsed options."""


@dataclass(frozen=True)
class Command:
    """One subcommand: its name, its help line, what runs it and its arguments in order
    (``exclusive``: at most one of them may be given)."""

    name: str
    help: str
    handler: Handler
    args: tuple[Arg, ...] = ()
    exclusive: bool = False


@dataclass(frozen=True)
class Group:
    """``memtui <name> ACTION``: a command whose actions are ``commands``; it and each of
    them take ``every`` too."""

    name: str
    help: str
    commands: tuple[Command | Group, ...]
    every: tuple[Arg, ...] = ()


def add_args(parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup,
             *args: Arg) -> None:
    """Add ``args`` to ``parser``, in order."""
    for names, options in args:
        parser.add_argument(*names, **options)


def add_commands(sub: argparse._SubParsersAction, common: argparse.ArgumentParser,
                 commands: Iterable[Command | Group], *every: Arg) -> None:
    """Add each command and group to ``sub`` (with ``common``'s options): a command's own
    arguments, then ``every`` (what all of them take, such as an agent's home)."""
    for command in commands:
        parser = sub.add_parser(command.name, help=command.help, parents=[common])
        if isinstance(command, Group):
            add_args(parser, *command.every)
            add_commands(parser.add_subparsers(dest=f"{command.name}_command", metavar="ACTION",
                                               required=True),
                         common, command.commands, *command.every)
            continue
        add_args(parser.add_mutually_exclusive_group() if command.exclusive else parser,
                 *command.args)
        add_args(parser, *every)
        parser.set_defaults(handler=command.handler)


def print_more(ctx: CliContext, shown: int, total: int, what: str) -> None:
    """``… N more <what>`` when a list was cut at ``shown`` of ``total``."""
    if total > shown:
        ctx.say(f"… {total - shown} more {what} (use --limit or --json)", style="dim")


def print_notes(ctx: CliContext, notes: Iterable[str], chars: int | None = None) -> None:
    """Each note on a line of its own, ``note: …`` (cut to ``chars``)."""
    for note in notes:
        ctx.say(f"note: {one_line(note, chars)}", style="yellow")


def print_list(ctx: CliContext, heading: Text, items: Sequence[T], line: Callable[[T], Text],
               limit: int, what: str) -> None:
    """A heading, a line for each of the first ``limit`` items, then how many more there
    are; nothing at all without items."""
    if not items:
        return
    ctx.console.print(heading)
    for item in items[:limit]:
        ctx.console.print(line(item))
    print_more(ctx, limit, len(items), what)


def print_problems(ctx: CliContext, problems: Sequence[object], limit: int) -> None:
    """The items a reader skipped or read with a defect, one line each (``path:line: why``)."""
    print_list(ctx, Text(f"Problems ({len(problems)} item(s) skipped or read with a defect)",
                         style="bold"), problems,
               lambda problem: Text(f"- {one_line(str(problem), 300)}", style="yellow"),
               limit, "problems")


def list_out(ctx: CliContext, items: Sequence[Any], table: Table, empty: str,
             as_json: Callable[[Any], Any] = lambda item: item.to_json()) -> int:
    """Print a list: ``{"items", "count"}`` with --json (each item ``as_json``), else the
    table (or ``empty``)."""
    if ctx.json:
        ctx.emit_json({"items": [as_json(item) for item in items], "count": len(items)})
    elif not items:
        ctx.say(empty)
    else:
        ctx.console.print(table)
    return 0


def report_out(ctx: CliContext, report: ImportReport, what: str, limit: int) -> int:
    """Print an import's report (JSON, or its counts, the items not imported and the
    problems); 0."""
    from memtui.engine.codex.import_report import OUTCOME_IMPORTED, REASON_ALREADY

    if ctx.json:
        return ctx.answer(report.to_json())
    skipped = ", ".join(f"{reason} {count}" for reason, count in report.skipped.items())
    line = f"imported {report.imported} {what} from {one_line(report.home)}"
    line += f"; skipped {sum(report.skipped.values())}" + (f" ({skipped})" if skipped else "")
    line += f"; errors {report.errors}"
    if report.unchanged:
        line += f"; {report.unchanged} unchanged file(s) not read"
    ctx.say(line)
    if report.created_projects:
        ctx.say("created project(s): " + ", ".join(report.created_projects))
    if report.truncated:
        ctx.say(f"cut to the size limit (marked in the text): "
                f"{one_line(', '.join(report.truncated))}", style="yellow")
    others = [item for item in report.items
              if item.outcome != OUTCOME_IMPORTED and item.reason != REASON_ALREADY]
    if others:
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
        table.add_column("item", overflow="fold", max_width=ID_CHARS + 12)
        table.add_column("outcome", no_wrap=True)
        table.add_column("why", overflow="fold", min_width=16)
        for item in others[:limit]:
            why = f"{item.reason}: {item.detail}" if item.detail else str(item.reason)
            table.add_row(render.text(item.ref), item.outcome, Text(one_line(why, 160)))
        ctx.console.print(table)
        print_more(ctx, limit, len(others), "items")
    print_problems(ctx, report.problems, limit)
    return 0
