"""The command line's entry: the app path reads only the global options (no command module
is imported for it), a command's line is read by its module's parser and reads exactly as
with the whole parser, help and refusals get the whole parser; the collector is always left
running."""

from __future__ import annotations

import argparse
import gc
import io
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from memtui import __version__
from memtui.cli.main import (
    COMMANDS_BY_MODULE,
    MODULE_OF_COMMAND,
    UsageError,
    app_and_command,
    build_parser,
    main,
    parse_command_line,
)


@pytest.mark.parametrize("argv", [
    [], ["--db", "x.db"], ["--user", "bob", "--project", "web"], ["--demo"],
    ["--demo", "d.db", "--codex-home", "/tmp/c"], ["--json"], ["--project", "list"],
])
def test_lines_that_open_the_app(argv: list[str]) -> None:
    args = app_and_command(argv)[0]
    assert args is not None and args.handler is None


@pytest.mark.parametrize("argv", [
    ["list"], ["memory", "list"], ["--db", "x.db", "memory", "list"], ["--help"], ["-h"],
    ["--version"], ["--db"], ["--bogus"], ["memory", "--help"],
])
def test_lines_for_the_whole_parser(argv: list[str]) -> None:
    assert app_and_command(argv)[0] is None


def test_version_is_printed_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"memtui {__version__}\n"


def test_help_names_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "COMMAND" in out and "codex" in out and "memory" in out


def test_a_bad_global_option_is_the_usual_usage_error() -> None:
    err = io.StringIO()
    assert main(["--db"], stderr=err) == 2
    assert "argument --db: expected one argument" in err.getvalue()


def test_the_collector_is_running_after_any_line() -> None:
    assert gc.isenabled()
    main(["--version"])
    main(["--db", "/nonexistent/folder/x.db"], stderr=io.StringIO())  # the app path, failing
    assert gc.isenabled()


def _command_modules_loaded(line: str) -> str:
    """The ``memtui.cli.cmd_*`` modules a fresh interpreter has loaded after ``line``."""
    code = (f"import sys, io\nfrom memtui.cli.main import app_and_command, main\n{line}\n"
            "print(sorted(m for m in sys.modules if m.startswith('memtui.cli.cmd_')))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    return result.stdout.strip()


def test_the_app_path_imports_no_command_module() -> None:
    assert _command_modules_loaded(
        "assert app_and_command(['--db', 'x.db'])[0] is not None") == "[]"


# ---- a command's line is read by that command's own parser ---------------------------------


def _subcommands(action: argparse._SubParsersAction) -> dict[str, argparse.ArgumentParser]:
    return dict(action.choices)


def _top_level(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def test_the_command_table_names_what_each_module_adds() -> None:
    for module, commands in COMMANDS_BY_MODULE.items():
        parser = build_parser(commands[0])
        assert tuple(_subcommands(_top_level(parser))) == commands, module
    assert tuple(_subcommands(_top_level(build_parser()))) == tuple(
        command for commands in COMMANDS_BY_MODULE.values() for command in commands)


def _filler(action: argparse.Action) -> list[str]:
    """Values that satisfy ``action``: its first choice, else a word."""
    count = {None: 1, "?": 1, "*": 1, "+": 1}.get(action.nargs, action.nargs)  # type: ignore[arg-type]
    if action.nargs == 0 or isinstance(count, str):
        count = 1
    value = str(next(iter(action.choices))) if action.choices else "7"
    return [value] * int(count)


def _lines(parser: argparse.ArgumentParser, path: list[str]) -> Iterator[list[str]]:
    """A command line for every leaf command, its required arguments filled in."""
    positionals: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _lines(sub, [*path, name])
            return
        if not action.option_strings:
            positionals += _filler(action)
        elif action.required:
            positionals += [action.option_strings[0], *_filler(action)]
    yield [*path, *positionals]


def _read(argv: list[str], reader: Callable[[list[str]], argparse.Namespace]) -> Any:
    try:
        args = reader(argv)
    except UsageError as error:
        return ("usage", str(error))
    return {key: value for key, value in vars(args).items()}


def test_every_command_line_reads_the_same_as_with_the_whole_parser() -> None:
    whole_parser = build_parser()
    lines = list(_lines(whole_parser, []))
    assert len(lines) > 60  # every leaf command of every module
    checked, refused_for = 0, set()
    for line in lines:
        assert app_and_command(line)[1] == app_and_command(["--json", *line])[1] == line[0]
        variants = [line, ["--json", *line, "--db", "x.db"]]
        if line[0] not in refused_for:  # refusals (read twice) once per command
            refused_for.add(line[0])
            variants += [line[:-1], [*line, "--bogus"], [line[0], "no-such-action"]]
        for argv in variants:
            # a line cut after an option the app also has (--project) gets the whole parser
            assert app_and_command(argv)[1] in ((line[0], None) if argv else (None,))
            whole = _read(argv, whole_parser.parse_args)
            assert _read(argv, parse_command_line) == whole, argv
            command = app_and_command(argv)[1]
            if isinstance(whole, dict) and command is not None:  # read by the lean parser
                assert _read(argv, build_parser(command).parse_args) == whole, argv
            checked += 1
    assert checked == 2 * len(lines) + 3 * len(MODULE_OF_COMMAND)


@pytest.mark.parametrize("argv", [
    ["no-such-command"], ["--db", "x.db"], ["--help"], ["memory", "-h"], ["--db"],
    ["--version"], ["--db", "memory"],
])
def test_lines_without_a_known_command_get_the_whole_parser(argv: list[str]) -> None:
    assert app_and_command(argv)[1] is None


def test_an_unknown_command_is_refused_with_every_command_listed() -> None:
    err = io.StringIO()
    assert main(["memroy", "list"], stderr=err) == 2
    assert "invalid choice: 'memroy'" in err.getvalue()
    assert all(f"'{command}'" in err.getvalue() for command in MODULE_OF_COMMAND)


def test_a_command_line_imports_only_its_own_command_module() -> None:
    assert _command_modules_loaded(
        "main(['--db', '/nonexistent/x.db', 'memory', 'list'], stderr=io.StringIO())"
    ) == "['memtui.cli.cmd_identity']"
