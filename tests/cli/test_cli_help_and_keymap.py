"""Small edges a new user meets: help text on every argument, no internal spec names in
help, a missing import file is "not found", and a keymap that takes another action's key is
reported."""

from __future__ import annotations

import argparse
import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pilot_harness import app_test, opened

from memtui.app.app import all_bindings
from memtui.app.keymap import keymap_conflicts
from memtui.cli.main import build_parser, main


def _arguments(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _arguments(sub, f"{path} {name}")
        else:
            yield path, action


def test_every_argument_has_help_text() -> None:
    missing = [f"{path} {action.option_strings or action.dest}"
               for path, action in _arguments(build_parser(), "memtui")
               if action.help is None and action.dest != "help"]
    assert missing == []


@pytest.mark.parametrize("command", ["serve", "call", "memory", "doctor", "export", "import"])
def test_help_names_no_internal_spec_file(command: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main([command, "--help"], stdout=out, stderr=err)
    assert code == 0
    assert "spec/" not in out.getvalue() + err.getvalue()


def test_importing_a_missing_file_is_not_found(cli: Callable[..., Any], tmp_path: Path,
                                               db_path: Path) -> None:
    result = cli("--user", "alice", "--json", "import", "--jsonl", str(tmp_path / "nope.jsonl"))
    assert result.code == 3
    assert result.json["error"]["code"] == "not_found"
    assert result.err.count("\n") == 1 and "nope.jsonl" in result.err
    assert not db_path.exists()  # nothing was made for an import that never started


def test_a_key_taken_from_another_action_is_a_problem() -> None:
    bindings = [("everywhere", "q", "app.quit"), ("memory panes", "d", "memory.forget"),
                ("history", "d", "history.forget"), ("memory panes", "e", "memory.edit")]
    assert keymap_conflicts({"memory.forget": "q"}, bindings) == [
        "memory.forget: q is already the key of app.quit"]
    assert keymap_conflicts({"memory.forget": "e"}, bindings) == [
        "memory.forget: e is already the key of memory.edit"]
    assert keymap_conflicts({"memory.forget": "x"}, bindings) == []
    assert keymap_conflicts({"history.forget": "e"}, bindings) == []  # another place
    assert keymap_conflicts({"memory.forget": "e", "memory.edit": "f"}, bindings) == []


@app_test
async def test_the_app_warns_about_a_keymap_that_takes_quit(tmp_path: Path) -> None:
    quit_id = next(binding_id for where, keys, binding_id in all_bindings()
                   if where == "everywhere" and keys.split(",")[0] == "q")
    forget_id = next(binding_id for _, _, binding_id in all_bindings()
                     if binding_id == "memory.forget")
    keymap = tmp_path / "keymap.toml"
    keymap.write_text(f'[keymap]\n"{forget_id}" = "q"\n')
    async with opened(tmp_path, load_keymap=True, keymap_path=keymap) as (app, pilot):
        assert f"{forget_id}: q is already the key of {quit_id}" in app.keymap_problems
