"""Empty states at 80x24: the whole message reads, wrapped, and tells what to do."""

from __future__ import annotations

from pathlib import Path

from pilot_harness import app_config, app_test, opened, press, screen_text

from memtui.app.main import create_app
from memtui.store.database import open_store


@app_test
async def test_empty_store_explains_what_to_do_at_80_columns(tmp_path: Path) -> None:
    store = open_store(tmp_path / "empty.db")
    app = create_app(store, "zoe", None, config=app_config(), cwd=tmp_path)
    async with opened(app) as (app, pilot):
        flat = " ".join(screen_text(app).split())
        assert "No memories yet — press n to add one" in flat and "…" not in flat.split(
            "No memories yet")[1][:90]
        await press(pilot, "3")
        flat = " ".join(screen_text(app).split())
        assert "press P to create one (or: memtui project add ID)" in flat
        assert app.is_running
