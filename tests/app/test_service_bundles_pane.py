"""The read-only Bundles pane: documents of readable bundles, the selected one shown as
literal text, ``c`` copies it, and a store change shows up."""

from __future__ import annotations

from pathlib import Path

from backends import plant_legacy_text
from pilot_harness import CopySpy, app_test, opened, press, screen_text, settle

from memtui.app.panes import PANES
from memtui.app.panes.bundles import BundlesPane
from memtui.engine.api import Engine


def _pane_key() -> str:
    return str([pane.PANE_ID for pane in PANES].index(BundlesPane.PANE_ID) + 1)


@app_test
async def test_bundles_pane_lists_and_shows_documents(tmp_path: Path) -> None:
    spy = CopySpy()
    async with opened(tmp_path, system_clipboard=spy) as (app, pilot):
        alice = Engine(app.store, "alice").recall
        alice.put_document("project:webshop", "INDEX.md", "# Webshop\nhostile-mark", 0)
        plant_legacy_text(app.store, "hostile-mark", "\x1b[31mred[/b]")
        alice.put_document("schedule:nightly", "state.json", '{"step": 3}', 0)
        Engine(app.store, "bob").recall.put_document("schedule:bobs", "INDEX.md", "bob", 0)
        await press(pilot, _pane_key())
        pane = app.current_pane()
        assert isinstance(pane, BundlesPane)
        assert [(r.bundle, r.path) for r in pane.item_list.items] == [
            ("project:webshop", "INDEX.md"), ("project:webshop", "lessons.md"),
            ("project:webshop", "state.json"),  # the demo's own two documents
            ("schedule:nightly", "state.json")]
        text = screen_text(app)
        assert "\\x1b[31mred[/b]" in text and "read-only" in text
        await press(pilot, "c")
        assert spy.copied == ["# Webshop\n\x1b[31mred[/b]"]
        await press(pilot, "j", "j", "j")
        assert '{"step": 3}' in screen_text(app)
        alice.put_document("schedule:nightly", "state.json", '{"step": 4}', 1)
        pane.refresh_data()
        await settle(pilot)
        assert '{"step": 4}' in screen_text(app) and "revision 2" in screen_text(app)
