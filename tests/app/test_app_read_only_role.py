"""A reader is offered only what the role allows (issue 19, defect 7): no write keys on the
key bar, and a write key pressed anyway says why at once (no editor, no question)."""

from __future__ import annotations

from pathlib import Path

from pilot_harness import app_test, demo_app, opened, press, status_text

from memtui.app.modals.confirm import ConfirmModal
from memtui.app.modals.editor import MemoryEditor
from memtui.app.widgets.key_bar import KeyBar
from memtui.engine.api import Engine

WRITE_WORDS = {"note", "edit", "forget", "restore version", "forget chain"}


def _offered(app) -> set[str]:
    return {item.description for item in app.get_screen_main().query_one(KeyBar).items()}


def test_write_refusal_is_the_permission_rule(engine_for) -> None:
    carol: Engine = engine_for("carol")
    alice: Engine = engine_for("alice")
    alice.identity.create_project("shop", "Shop")
    alice.identity.set_member("shop", "carol", "reader")
    assert carol.identity.write_refusal(None) is None
    assert "not write" in carol.identity.write_refusal("shop")
    assert alice.identity.write_refusal("shop") is None
    assert "not found" in carol.identity.write_refusal("nope")


@app_test
async def test_a_reader_is_not_offered_writes_and_is_told_why(tmp_path: Path) -> None:
    app = demo_app(tmp_path, user="carol")  # carol only reads webshop
    engine = Engine(app.store, "carol")
    async with opened(app, "3") as (app, pilot):
        count = engine.identity.count_memories(engine.identity.memory_filter("webshop"))
        offered = _offered(app)
        assert "copy" in offered
        assert not offered & WRITE_WORDS, offered
        assert "read only" in str(app.screen.query_one("#project-title").render())
        for key in ("n", "a", "e", "d"):
            await press(pilot, key)
            assert not isinstance(app.screen, MemoryEditor | ConfirmModal), key
            assert "Read only: you may read project 'webshop' but not write" in \
                status_text(app), key
        assert engine.identity.count_memories(engine.identity.memory_filter("webshop")) \
            == count
        await press(pilot, "h")  # History of a webshop memory: no restore, no forget
        assert app.current_pane().PANE_ID == "history"
        assert not _offered(app) & WRITE_WORDS
        await press(pilot, "d")
        assert not isinstance(app.screen, ConfirmModal)
        assert "Read only" in status_text(app)


@app_test
async def test_own_memories_still_offer_writes(tmp_path: Path) -> None:
    async with opened(tmp_path, "2", user="carol") as (app, pilot):
        assert {"note", "edit", "forget"} <= _offered(app)
        await press(pilot, "n")
        assert isinstance(app.screen, MemoryEditor)
