"""The store named in memtui's config file (``db = "..."``): used after ``--db`` and
``$MEMTUI_DB``; a config file that is not TOML, or a ``db`` that is not a string, is refused
in one line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.engine.paths import config_path, configured_store, store_target


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("MEMTUI_CONFIG", str(path))
    monkeypatch.delenv("MEMTUI_DB", raising=False)
    return path


def test_the_config_file_names_the_store(config: Path, tmp_path: Path) -> None:
    store = tmp_path / "team.db"
    config.write_text(f'db = "{store}"\n')
    assert store_target(None) == str(store)
    code, out, _err = _run("--user", "alice", "memory", "add", "--kind", "fact", "from the config", "--json")
    assert code == 0 and store.exists()
    code, out, _err = _run("--user", "alice", "memory", "list", "--json")
    assert code == 0 and "from the config" in out


def test_a_url_in_the_config_file_is_kept_as_it_is(config: Path) -> None:
    config.write_text('db = "postgresql://memtui@db.example/team"\n# other keys are ignored\n'
                      'theme = "nord"\n')
    assert store_target(None) == "postgresql://memtui@db.example/team"


def test_db_flag_and_environment_come_before_the_config_file(
        config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config.write_text(f'db = "{tmp_path / "config.db"}"\n')
    assert store_target(str(tmp_path / "flag.db")) == str(tmp_path / "flag.db")
    monkeypatch.setenv("MEMTUI_DB", str(tmp_path / "env.db"))
    assert store_target(None) == str(tmp_path / "env.db")


def test_no_config_file_or_no_db_key_means_the_default_store(config: Path) -> None:
    assert configured_store() is None
    config.write_text('theme = "nord"\n')
    assert configured_store() is None
    assert store_target(None).endswith("memtui.db")


@pytest.mark.parametrize("text, said", [
    ('db = "unterminated\n', "not a TOML file"),
    ("db = 5\n", "must be a store path"),
    ('db = "  "\n', "must be a store path"),
    (b"\xff\xfe", "not a TOML file"),
])
def test_a_bad_config_file_is_refused_in_one_line(config: Path, text: str | bytes,
                                                  said: str) -> None:
    if isinstance(text, bytes):
        config.write_bytes(text)
    else:
        config.write_text(text)
    code, out, err = _run("--user", "alice", "memory", "list")
    assert code == 5 and said in err and str(config) in err
    assert len(err.strip().splitlines()) == 1 and out == ""
    code, out, _err = _run("--user", "alice", "memory", "list", "--json")
    assert code == 5 and json.loads(out)["error"]["code"] == "invalid_input"


def test_config_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MEMTUI_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config_path() == tmp_path / "memtui" / "config.toml"
