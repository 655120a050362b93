"""The app factory and the command line that opens the app: store, user, project choice,
``--demo``; every binding has an id; the keymap file parser; the clipboard."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pilot_harness import demo_store
from textual.binding import Binding

from memtui.app import main as app_main
from memtui.app.app import MemtuiApp, all_binding_ids, binding_classes
from memtui.app.clipboard import Clipboard
from memtui.app.help import key_rows, keys_markdown
from memtui.app.keymap import parse_keymap
from memtui.app.main import create_app, pick_project
from memtui.app.panes import PANES
from memtui.cli.main import main
from memtui.engine.api import Engine


@pytest.fixture
def no_run(monkeypatch: pytest.MonkeyPatch) -> list[MemtuiApp]:
    """Capture the app the command line would run, instead of running it."""
    ran: list[MemtuiApp] = []

    def fake_run(self: MemtuiApp, *args: object, **kwargs: object) -> None:
        ran.append(self)

    monkeypatch.setattr(MemtuiApp, "run", fake_run)
    return ran


def test_project_defaults_to_the_working_directory_then_the_first(tmp_path: Path) -> None:
    engine = Engine(demo_store(tmp_path), "alice")
    assert pick_project(engine, cwd="/home/alice/src/ml-pipeline/src") == "ml-pipeline"
    assert pick_project(engine, cwd=tmp_path) == "infra"  # the first readable one
    assert pick_project(engine, "webshop", cwd=tmp_path) == "webshop"
    with pytest.raises(Exception, match="not found"):
        pick_project(engine, "secret-project", cwd=tmp_path)


def test_a_project_someone_added_me_to_is_chosen_for_its_folder_once_accepted(
        tmp_path: Path) -> None:
    bob = Engine(demo_store(tmp_path), "bob")  # made infra; alice added him to webshop
    assert pick_project(bob, cwd="/home/alice/src/webshop/src") == "infra"  # his first own
    bob.identity.accept_project("webshop")
    assert pick_project(bob, cwd="/home/alice/src/webshop/src") == "webshop"


def test_no_projects_means_no_current_project(tmp_path: Path) -> None:
    store = demo_store(tmp_path)
    assert pick_project(Engine(store, "newcomer"), cwd=tmp_path) is None
    app = create_app(store, "newcomer", cwd=tmp_path)
    assert app.project is None and app.engine.actor == "newcomer"


def test_demo_opens_as_alice_on_webshop(no_run: list[MemtuiApp],
                                        tmp_path: Path) -> None:
    code = main(["--demo", str(tmp_path / "demo.db")], stdout=io.StringIO(),
                stderr=io.StringIO())
    assert code == 0
    (app,) = no_run
    assert (app.engine.actor, app.project) == ("alice", "webshop")


def test_db_user_and_project_options(no_run: list[MemtuiApp], tmp_path: Path) -> None:
    path = tmp_path / "demo.db"
    demo_store(tmp_path).close()
    code = main(["--db", str(path), "--user", "bob", "--project", "infra"],
                stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 0
    (app,) = no_run
    assert (app.engine.actor, app.project, app.store.path) == ("bob", "infra", path)


def test_unreadable_project_is_a_clear_error(no_run: list[MemtuiApp], tmp_path: Path) -> None:
    demo_store(tmp_path).close()
    err = io.StringIO()
    code = main(["--db", str(tmp_path / "demo.db"), "--user", "carol", "--project", "infra"],
                stdout=io.StringIO(), stderr=err)
    assert code == 3
    assert "not found" in err.getvalue() and no_run == []


def test_a_bad_store_file_is_one_line_before_the_screen_switches(
        no_run: list[MemtuiApp], tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("not a database")
    err = io.StringIO()
    assert main(["--db", str(bad)], stdout=io.StringIO(), stderr=err) == 1
    assert err.getvalue().count("\n") == 1 and no_run == []


def test_run_app_returns_the_apps_code(monkeypatch: pytest.MonkeyPatch,
                                       tmp_path: Path) -> None:
    store = demo_store(tmp_path)

    class Ctx:
        args = type("Args", (), {"project": None})()
        user = "alice"

    Ctx.store = store  # type: ignore[attr-defined]
    monkeypatch.setattr(MemtuiApp, "run", lambda self: None)
    monkeypatch.setattr(MemtuiApp, "return_code", property(lambda self: 0))
    assert app_main.run_app(Ctx()) == 0  # type: ignore[arg-type]


def test_every_binding_has_an_id_and_ids_are_unique_per_place() -> None:
    for where, owner in binding_classes():
        ids = []
        for binding in owner.__dict__.get("BINDINGS", []):
            assert isinstance(binding, Binding), (where, binding)
            assert binding.id, (where, binding.key)
            ids.append(binding.id)
        assert len(ids) == len(set(ids)), where
    assert {"app.quit", "memory.forget", "list.down", "pane.profile"} <= all_binding_ids()


def test_every_pane_has_a_key_and_an_id() -> None:
    ids = [pane.PANE_ID for pane in PANES]
    assert len(ids) == len(set(ids))
    assert {"profile", "user", "project", "history", "log", "settings", "inject"} <= set(ids)
    assert {f"pane.{pane_id}" for pane_id in ids[:9]} <= all_binding_ids()


def test_every_pane_entry_names_its_class() -> None:
    for spec in PANES:  # imported lazily by the app; the entry must match the class
        pane_class = spec.load()
        assert (pane_class.PANE_ID, pane_class.TITLE) == (spec.PANE_ID, spec.TITLE)


def test_keys_markdown_for_the_app_guide() -> None:
    table = keys_markdown(binding_classes())
    assert table.startswith("| where | keys | does | id |")
    assert "`memory.forget`" in table and "`d`" in table


def test_keymap_parser() -> None:
    loaded = parse_keymap('[keymap]\n"memory.forget" = "x"\n"list.down" = ["j", "ctrl+n"]\n',
                          {"memory.forget", "list.down"})
    assert loaded.keymap == {"memory.forget": "x", "list.down": "j,ctrl+n"}
    assert loaded.problems == []
    top_level = parse_keymap('"app.quit" = "ctrl+q"\n', {"app.quit"})
    assert top_level.keymap == {"app.quit": "ctrl+q"}
    bad = parse_keymap('"app.quit" = 3\n"nope" = "x"\n', {"app.quit"})
    assert bad.keymap == {} and len(bad.problems) == 2
    assert parse_keymap("[[[").problems


def test_clipboard_reports_what_was_used() -> None:
    sent: list[str] = []
    both = Clipboard(sent.append, system_copy=sent.append).copy("hello")
    assert both.ok and len(both.used) == 2 and sent == ["hello", "hello"]
    assert "system clipboard and the terminal clipboard" in both.describe()

    def broken(_text: str) -> None:
        raise OSError("no display")

    clipboard = Clipboard(sent.append, system_copy=broken)
    only_terminal = clipboard.copy("x")
    assert only_terminal.used == ("terminal clipboard (OSC 52)",)
    assert "system clipboard: OSError" in (only_terminal.error or "")
    assert clipboard.copy("y").error is None  # a broken system clipboard is not retried
    nothing = Clipboard(broken, system_copy=None).copy("z")
    assert not nothing.ok and "Copy failed" in nothing.describe()


def test_the_app_guide_key_table_is_the_apps() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "app.md").read_text(encoding="utf-8")
    assert keys_markdown(binding_classes()).strip() in guide



def test_help_lists_every_pane_s_keys() -> None:
    """Help is complete: the Codex and Bundles keys and the details keys are in it."""
    ids = {binding_id for _where, _keys, _what, binding_id in key_rows(binding_classes())}
    assert {"codex.reload", "codex.copy", "bundles.copy", "pane.detail_down",
            "pane.detail_up"} <= ids
    wheres = {where for where, _keys, _what, _id in key_rows(binding_classes())}
    assert {"codex", "bundles"} <= wheres
