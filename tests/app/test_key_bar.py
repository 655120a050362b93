"""The key bar: the keys that work where the focus is, clickable, following keymaps."""

from __future__ import annotations

from pathlib import Path

from pilot_harness import app_test, opened, press, settle

from memtui.app.modals.help import HelpModal
from memtui.app.widgets.key_bar import KeyBar


def _line(app) -> str:  # noqa: ANN001 - the app under test
    return app.get_screen_main().query_one(KeyBar).render().plain


@app_test
async def test_the_bar_shows_the_keys_of_the_pane_in_focus(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        line = _line(app)
        assert line.startswith("n note e edit d forget c copy / search q quit ? help")
        await press(pilot, "4")
        assert _line(app).startswith("s restore version d forget chain c copy J detail↓ K detail↑ q quit")
        await press(pilot, "1", "escape")
        assert "n note" not in _line(app) and "q quit" in _line(app)


@app_test
async def test_one_key_per_action_and_hidden_keys_stay_hidden(tmp_path: Path) -> None:
    async with opened(tmp_path, size=(160, 48)) as (app, pilot):
        bar = app.get_screen_main().query_one(KeyBar)
        items = bar.items()
        actions = [item.description for item in items]
        assert len(actions) == len(set(actions))
        assert "ctrl+z" not in {item.key for item in items}  # undo is show=False
        assert all(item.tooltip for item in items)


@app_test
async def test_clicking_a_key_presses_it(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        bar = app.get_screen_main().query_one(KeyBar)
        start = next(start for start, _end, item in bar._spans if item.key == "question_mark")
        await pilot.click(KeyBar, offset=(start + 2, 0))
        await settle(pilot)
        assert isinstance(app.screen, HelpModal)


@app_test
async def test_hovering_a_key_says_what_it_does(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        bar = app.get_screen_main().query_one(KeyBar)
        start, _end, item = next(span for span in bar._spans if span[2].key == "d")
        await pilot.hover(KeyBar, offset=(start, 0))
        await settle(pilot)
        assert bar.tooltip == item.tooltip and "Forget" in str(bar.tooltip)
        await pilot.hover(KeyBar, offset=(79, 0))
        await settle(pilot)
        assert bar.tooltip is None


@app_test
async def test_a_keymap_shows_the_new_key(tmp_path: Path) -> None:
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('[keymap]\n"memory.forget" = "x"\n', encoding="utf-8")
    async with opened(tmp_path, load_keymap=True, keymap_path=keymap) as (app, pilot):
        assert "x forget" in _line(app) and "d forget" not in _line(app)


@app_test
async def test_a_dialog_shows_its_own_keys_only(tmp_path: Path) -> None:
    """In a dialog the bar names the dialog's keys, never the pane's keys behind it."""
    async with opened(tmp_path) as (app, pilot):
        await press(pilot, "d")  # the forget confirmation
        line = _line(app)
        assert "y yes" in line and "n no" in line
        assert "e edit" not in line and "d forget" not in line and "g gen" not in line
        await press(pilot, "n")
        assert _line(app).startswith("n note e edit d forget")
        await press(pilot, "question_mark")
        line = _line(app)
        assert "esc close" in line and "n note" not in line


@app_test
async def test_only_whole_keys_are_shown_at_80_columns(tmp_path: Path) -> None:
    """A bar with more keys than room drops whole keys from the end, never cuts one."""
    async with opened(tmp_path) as (app, pilot):
        await press(pilot, "4")  # History: its keys, J/K and the app's do not all fit
        bar = app.get_screen_main().query_one(KeyBar)
        line = bar.render().plain
        assert len(bar._spans) < len(bar.items())
        assert all(end <= 80 for _start, end, _item in bar._spans)
        last = bar._spans[-1][2]
        assert line.endswith(f"{last.display} {last.description}")
