"""Everything a person must read fits or wraps at 80x24 (issue 19, defect 12): pane titles
with their counts, long status messages, toasts that never cover the status line or a
dialog, and the help's keymap path."""

from __future__ import annotations

from pathlib import Path

from snapshots.harness import SMALL, app_test, demo_app, press, screen_text, settle

from memtui.app.widgets.status import StatusLine

LONG_MESSAGE = ("Keymap /home/someone/.config/memtui/keymap.toml: unknown binding id "
                "'memory.forgett' (see ? for the ids); 'app.quit' = 3 is not a key name; "
                "the rest was applied")


def _flat(text: str) -> str:
    return " ".join(text.split())


@app_test
async def test_pane_titles_keep_their_counts(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await press(pilot, "5")
        shown = _flat(screen_text(app))
        assert "Extraction log · 19 tasks · extracted 5 · replaced older 1 · skipped 12 · " \
               "error 1" in shown
        await press(pilot, "7")
        shown = _flat(screen_text(app))
        assert "10 memories would be injected · c copies" in shown


@app_test
async def test_a_long_status_message_is_read_whole(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
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
        app.clear_notifications()
        await press(pilot, "d")  # the forget confirmation
        app.say("Something happened meanwhile.")
        await settle(pilot)
        assert not list(app.screen.query("Toast"))
        assert "Something happened meanwhile." in screen_text(app)  # on the status line
