"""The command line's entry: the app path reads only the global options (no command module
is imported for it), every other line gets the whole parser; the collector is always left
running."""

from __future__ import annotations

import gc
import io
import subprocess
import sys

import pytest

from memtui import __version__
from memtui.cli.main import app_arguments, main


@pytest.mark.parametrize("argv", [
    [], ["--db", "x.db"], ["--user", "bob", "--project", "web"], ["--demo"],
    ["--demo", "d.db", "--codex-home", "/tmp/c"], ["--json"], ["--project", "list"],
])
def test_lines_that_open_the_app(argv: list[str]) -> None:
    args = app_arguments(argv)
    assert args is not None and args.handler is None


@pytest.mark.parametrize("argv", [
    ["list"], ["memory", "list"], ["--db", "x.db", "memory", "list"], ["--help"], ["-h"],
    ["--version"], ["--db"], ["--bogus"], ["memory", "--help"],
])
def test_lines_for_the_whole_parser(argv: list[str]) -> None:
    assert app_arguments(argv) is None


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


def test_the_app_path_imports_no_command_module(tmp_path) -> None:  # noqa: ANN001
    code = ("import sys\nfrom memtui.cli.main import app_arguments\n"
            "assert app_arguments(['--db', 'x.db']) is not None\n"
            "print(sorted(m for m in sys.modules if m.startswith('memtui.cli.cmd_')))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"
