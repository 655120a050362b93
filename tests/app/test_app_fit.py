"""Everything a person must read fits or wraps at 80x24 (issue 19, defect 12): pane titles
with their counts, long status messages, toasts that never cover the status line or a
dialog, and the help's keymap path."""

from __future__ import annotations

from pathlib import Path

from pilot_harness import SMALL, app_test, demo_app, opened, press, screen_text, settle

from memtui.app.modals.help import HelpModal
from memtui.app.widgets.status import StatusLine

LONG_MESSAGE = ("Keymap /home/someone/.config/memtui/keymap.toml: unknown binding id "
                "'memory.forgett' (see ? for the ids); 'app.quit' = 3 is not a key name; "
                "the rest was applied")


def _flat(text: str) -> str:
    return " ".join(text.split())


@app_test
async def test_pane_titles_keep_their_counts(tmp_path: Path) -> None:
    async with opened(tmp_path, "5") as (app, pilot):
        shown = _flat(screen_text(app))
        assert "Extraction log · 19 tasks · extracted 5 · replaced older 1 · skipped 12 · " \
               "error 1" in shown
        await press(pilot, "7")
        shown = _flat(screen_text(app))
        assert "10 memories would be injected · c copies" in shown


@app_test
async def test_a_long_status_message_is_read_whole(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        app.say(LONG_MESSAGE, severity="warning", toast=False)
        await settle(pilot)
        assert LONG_MESSAGE in _flat(screen_text(app))


@app_test
async def test_toasts_cover_neither_the_status_line_nor_a_dialog(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await settle(pilot)
        app.say(LONG_MESSAGE)
        await settle(pilot)
        status = app.get_screen_main().query_one(StatusLine).region
        toasts = list(app.screen.query("Toast"))
        assert toasts
        for toast in toasts:
            assert not toast.region.overlaps(status)
        await press(pilot, "d")  # the forget confirmation
        assert not list(app.screen.query("Toast"))  # the toast said before is gone
        app.say("Something happened meanwhile.")
        await settle(pilot)
        assert not list(app.screen.query("Toast"))
        assert "Something happened meanwhile." in screen_text(app)  # on the status line


@app_test
async def test_help_is_searchable_whole_at_80x24_and_closes_with_esc(tmp_path: Path) -> None:
    """One help screen: typing filters it (the Codex and Bundles keys are in it), the keymap
    path is read whole, ``?`` inside it types into the search, esc closes it, and the
    palette's "Keys" opens the same screen."""
    async with opened(tmp_path, "question_mark") as (app, pilot):
        assert isinstance(app.screen, HelpModal)
        await press(pilot, *"codex")
        shown = _flat(screen_text(app))
        assert "codex.reload" in shown and "codex.copy" in shown
        assert "memory.correct" not in shown
        assert "~/.config/memtui/keymap.toml (or $MEMTUI_KEYMAP)" in shown
        for _ in range(5):
            await press(pilot, "backspace")
        await press(pilot, *"bundles")
        assert "bundles.copy" in _flat(screen_text(app))
        await press(pilot, "question_mark")
        assert len([s for s in app.screen_stack if isinstance(s, HelpModal)]) == 1
        await press(pilot, "escape")
        assert not isinstance(app.screen, HelpModal)
        app.action_show_help_panel()
        await settle(pilot)
        assert isinstance(app.screen, HelpModal)
        await press(pilot, "escape")
        assert not isinstance(app.screen, HelpModal)


@app_test
async def test_empty_panes_say_what_would_appear_and_how(tmp_path: Path) -> None:
    """An empty History, Log or Bundles pane says what would be there and how to get it,
    wrapped at 80 columns."""
    async with opened(tmp_path, user="newcomer", project=None) as (app, pilot):
        for key, words in (("4", "No memory selected — pick one in the User or Project pane "
                                 "and press h"),
                           ("5", "No extraction yet — turn on generate with g, then r runs a "
                                 "round now (R forces past the idle and size gates)."),
                           ("9", "No bundles yet — agents write them through the service "
                                 "(memtui serve; bundle.document.put).")):
            await press(pilot, key)
            assert words in _flat(screen_text(app)), key


def test_the_chosen_theme_is_remembered(tmp_path: Path) -> None:
    """A theme picked (in the palette: it sets ``app.theme``) is written to memtui's config
    file and used on the next start; a broken file is reported and never written over."""
    config = tmp_path / "config" / "app.toml"

    @app_test
    async def first() -> None:
        async with opened(tmp_path / "a", remember_theme=True,
                          ui_config_path=config) as (app, pilot):
            assert app.theme != "nord"
            app.theme = "nord"
            await settle(pilot)
        assert 'theme = "nord"' in config.read_text(encoding="utf-8")

    @app_test
    async def second() -> None:
        async with opened(tmp_path / "b", remember_theme=True,
                          ui_config_path=config) as (app, pilot):
            assert app.theme == "nord"

    @app_test
    async def broken() -> None:
        config.write_text("theme = [unclosed\n", encoding="utf-8")
        async with opened(tmp_path / "c", remember_theme=True,
                          ui_config_path=config) as (app, pilot):
            assert "cannot read it" in _flat(screen_text(app))
            app.theme = "gruvbox"
            await settle(pilot)
        assert config.read_text(encoding="utf-8") == "theme = [unclosed\n"

    for folder in ("a", "b", "c"):
        (tmp_path / folder).mkdir()
    first()
    second()
    broken()


@app_test
async def test_help_scrolls_by_lines_and_pages(tmp_path: Path) -> None:
    """Down/up scroll the keys a line, pagedown/pageup a screen less one line."""
    from textual.containers import VerticalScroll

    async with opened(tmp_path, "question_mark") as (app, pilot):
        scroll = app.screen.query_one("#help-scroll", VerticalScroll)
        page = max(1, scroll.size.height - 1)
        await press(pilot, "pagedown")
        assert scroll.scroll_y == page
        await press(pilot, "down")
        assert scroll.scroll_y == page + 1
        await press(pilot, "up", "pageup")
        assert scroll.scroll_y == 0
