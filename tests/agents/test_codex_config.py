"""Codex's memory settings from ``config.toml``: read, judged, shown; bad files never stop
the rest of the home."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import codex_fixture as fx
import pytest
from cli_support import CliResult
from hypothesis import given
from hypothesis import strategies as st

from memtui.engine.codex.config import (
    CodexMemoryConfig,
    config_reasons,
    describe_config,
    parse_codex_config,
)
from memtui.engine.codex.reader import read_codex_home

FULL = """\
model = "gpt-5"

[features]
memories = false

[memories]
generate_memories = false
use_memories = true
no_memories_if_mcp_or_web_search = true
max_unused_days = 30
min_rate_limit_remaining_percent = 12.5
extract_model = "gpt-5-mini"
brand_new_option = 1
"""


def test_every_known_setting_is_read_by_its_canonical_name() -> None:
    config, problems = parse_codex_config(FULL, "config.toml")
    assert problems == []
    assert config.feature_enabled is False
    assert config.settings == {
        "generate_memories": False, "use_memories": True, "disable_on_external_context": True,
        "max_unused_days": 30, "min_rate_limit_remaining_percent": 12.5,
        "extract_model": "gpt-5-mini"}
    assert config.unknown_keys == ("brand_new_option",)
    assert config.settings.get("max_rollouts_per_startup") is None  # not set: Codex's default


def test_the_canonical_spelling_wins_over_the_alias() -> None:
    text = ("[memories]\nno_memories_if_mcp_or_web_search = false\n"
            "disable_on_external_context = true\n")
    assert parse_codex_config(text, "c")[0].settings == {"disable_on_external_context": True}
    text = ("[memories]\ndisable_on_external_context = true\n"
            "no_memories_if_mcp_or_web_search = false\n")
    assert parse_codex_config(text, "c")[0].settings == {"disable_on_external_context": True}


@pytest.mark.parametrize(("line", "why"), [
    ("generate_memories = \"no\"", "generate_memories should be true or false"),
    ("use_memories = 0", "use_memories should be true or false"),
    ("max_unused_days = \"thirty\"", "max_unused_days should be a number"),
    ("max_unused_days = true", "max_unused_days should be a number"),
    ("extract_model = 5", "extract_model should be text"),
])
def test_a_value_of_the_wrong_type_is_a_problem_and_skipped(line: str, why: str) -> None:
    config, problems = parse_codex_config(f"[memories]\n{line}\ndedicated_tools = true\n", "c")
    assert [problem.reason for problem in problems] == [f"[memories] {why}"]
    assert config.settings == {"dedicated_tools": True}


def test_tables_of_the_wrong_shape() -> None:
    config, problems = parse_codex_config("memories = 3\n[features]\nmemories = \"on\"\n", "c")
    assert config.settings == {} and config.feature_enabled is None
    assert {p.reason for p in problems} == {"[memories] should be a table",
                                            "[features] memories should be true or false"}


def test_not_toml_is_one_problem_with_its_line() -> None:
    config, [problem] = parse_codex_config("[memories]\ngenerate_memories = \n", "c")
    assert config == CodexMemoryConfig("c")
    assert problem.reason.startswith("not valid TOML") and problem.line == 2


def test_an_empty_file_sets_nothing() -> None:
    config, problems = parse_codex_config("", "c")
    assert problems == [] and config.settings == {} and config.feature_enabled is None
    assert describe_config(config) == [
        "config.toml sets nothing about memories: Codex uses its defaults"]


@given(st.text(max_size=400))
def test_any_text_is_read_without_raising(text: str) -> None:
    config, problems = parse_codex_config(text, "c")
    assert isinstance(config, CodexMemoryConfig) and isinstance(problems, list)


def test_reasons_name_the_switches_that_stop_codex_remembering() -> None:
    config, _ = parse_codex_config(FULL, "c")
    reasons = config_reasons(config)
    assert len(reasons) == 2
    assert "[features] memories = false" in reasons[0]
    assert "generate_memories = false" in reasons[1]
    both_off, _ = parse_codex_config("[memories]\nuse_memories = false\n", "c")
    assert config_reasons(both_off) == [
        "use_memories = false in config.toml: Codex does not put memories into new sessions"]
    assert config_reasons(None) == []
    assert config_reasons(parse_codex_config("[memories]\ngenerate_memories = true\n",
                                             "c")[0]) == []


def test_described_in_codex_order() -> None:
    config, _ = parse_codex_config(FULL, "c")
    assert describe_config(config) == [
        "[features] memories = false", "generate_memories = false", "use_memories = true",
        "disable_on_external_context = true", "max_unused_days = 30",
        "min_rate_limit_remaining_percent = 12.5", 'extract_model = "gpt-5-mini"',
        "not known to memtui: brand_new_option"]
    assert describe_config(None) == ["no config.toml: Codex uses its defaults"]
    assert describe_config(config, home_found=False) == []


def test_no_home_no_settings(tmp_path: Path) -> None:
    codex = read_codex_home(tmp_path / "nowhere")
    assert codex.home_found is False and codex.config is None
    assert describe_config(codex.config, home_found=codex.home_found) == []


# ---- in a whole home ------------------------------------------------------------------------


def test_the_home_reader_reads_the_config(tmp_path: Path) -> None:
    home = fx.build_codex_home(tmp_path)
    codex = read_codex_home(home)
    assert codex.config is not None and codex.config.path == str(home / "config.toml")
    assert codex.config.settings == {"generate_memories": True, "use_memories": True}
    assert codex.to_json()["config"]["feature_enabled"] is True


def test_no_config_file_is_no_problem(tmp_path: Path) -> None:
    home = fx.build_codex_home(tmp_path)
    (home / "config.toml").unlink()
    codex = read_codex_home(home)
    assert codex.config is None
    assert not any(p.path.endswith("config.toml") for p in codex.problems)


def test_a_broken_config_does_not_stop_the_rest(tmp_path: Path) -> None:
    home = fx.build_codex_home(tmp_path)
    (home / "config.toml").write_text("[memories\ngenerate_memories = false\n")
    codex = read_codex_home(home)
    assert [p.path for p in codex.problems if "TOML" in p.reason] == [str(home / "config.toml")]
    assert codex.task_groups and codex.notes and codex.database_read


def test_a_config_linking_out_of_the_home_is_not_followed(tmp_path: Path) -> None:
    home = fx.build_codex_home(tmp_path)
    outside = tmp_path / "elsewhere.toml"
    outside.write_text("[memories]\ngenerate_memories = false\n")
    (home / "config.toml").unlink()
    os.symlink(outside, home / "config.toml")
    codex = read_codex_home(home)
    assert codex.config is None
    assert any(p.path.endswith("config.toml") for p in codex.problems)


def test_show_says_why_codex_remembers_nothing(
        tmp_path: Path, cli: Callable[..., CliResult], terminal_80: None) -> None:
    home = fx.build_codex_home(tmp_path)
    (home / "config.toml").write_text(FULL)
    data = cli("codex", "show", "--json", "--codex-home", str(home)).json
    assert data["config"]["settings"]["generate_memories"] is False
    assert len(data["config_reasons"]) == 2
    human = cli("codex", "show", "--codex-home", str(home))
    assert human.code == 0
    assert "Codex's memory settings (config.toml)" in human.out
    assert "- generate_memories = false" in human.out
    assert max(len(line) for line in human.out.splitlines()) <= 80
