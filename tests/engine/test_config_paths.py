"""Where memtui's config files live: ``$<env>`` when set, else ``$XDG_CONFIG_HOME/memtui``,
else ``~/.config/memtui`` (one rule for the config file, the keymap and the app's
remembered choices)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.app.keymap import default_keymap_path
from memtui.app.ui_config import default_app_config_path
from memtui.engine.paths import config_file, config_path


def test_the_env_variable_wins_and_is_expanded(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("MEMTUI_KEYMAP", "~/keys.toml")
    monkeypatch.setenv("MEMTUI_APP_CONFIG", str(tmp_path / "app-here.toml"))
    monkeypatch.setenv("MEMTUI_CONFIG", "~/memtui.toml")
    assert config_path() == tmp_path / "memtui.toml"
    assert default_keymap_path() == tmp_path / "keys.toml"
    assert default_app_config_path() == tmp_path / "app-here.toml"


def test_else_the_xdg_config_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MEMTUI_KEYMAP", raising=False)
    monkeypatch.setenv("MEMTUI_APP_CONFIG", "")  # empty counts as not set
    monkeypatch.delenv("MEMTUI_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_path() == tmp_path / "xdg" / "memtui" / "config.toml"
    assert default_keymap_path() == tmp_path / "xdg" / "memtui" / "keymap.toml"
    assert default_app_config_path() == tmp_path / "xdg" / "memtui" / "app.toml"


def test_else_dot_config_in_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("MEMTUI_TEST_CONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert config_file("MEMTUI_TEST_CONFIG", "x.toml") == tmp_path / ".config" / "memtui" / "x.toml"
