"""Pilot tests of model extraction in the app: the Settings pane says whether the endpoint
answers (asked off the UI thread), the Log pane shows a failure in words with its next try,
and the cost ledger on its title."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pilot_harness import app_test, demo_app, press, screen_text, settle, status_text, until

from memtui.app.widgets.command_line import CommandLine
from memtui.bench.fake_model import FakeModel, Reply, chat_reply
from memtui.engine.api import Engine


@app_test
async def test_settings_pane_says_whether_the_endpoint_answers(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    with FakeModel().running() as fake:
        Engine(app.store, "alice").settings.update(model_base_url=fake.url,
                                                   extract_model="fake-extractor")
        async with app.run_test(size=(160, 60)) as pilot:
            await settle(pilot)
            await press(pilot, "6")
            await until(pilot, lambda: "answers (1 model)" in screen_text(app))
            assert "model endpoint: answers (1 model)" in screen_text(app)
        assert [request.path for request in fake.requests] == ["/v1/models"]


@app_test
async def test_log_pane_shows_the_failure_its_next_try_and_the_ledger(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    with FakeModel(lambda request: Reply(503, {"error": {"message": "busy"}})).running() as fake:
        alice = Engine(app.store, "alice")
        alice.settings.update(extraction_mode="model", model_base_url=fake.url,
                              extract_model="fake-extractor")
        assert alice.extraction.run_round(force=True).errors >= 1
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "5")
        assert app.current_pane().PANE_ID == "log"
        text = screen_text(app)
        assert "the model endpoint answered with an HTTP error — http: the endpoint " \
               "answered HTTP 503" in text
        assert "next try" in text
        assert "model tokens today" in text
        await press(pilot, "$")
        shown = screen_text(app)
        assert "Model cost ledger" in shown and "per round" in shown and "calls" in shown


@app_test
async def test_memory_consolidate_in_model_mode_fills_the_inbox(tmp_path: Path) -> None:
    app = demo_app(tmp_path)

    def propose_one(request: dict[str, Any]) -> Reply:
        text = str(request["messages"][-1]["content"])
        new = [json.loads(line) for line in
               text.split("\n\nACTIVE:\n")[0].removeprefix("NEW:\n").splitlines() if line]
        return chat_reply(json.dumps({"supersedes": [
            {"old": new[0]["id"], "new": new[1]["id"], "text": "Merged: " + new[1]["text"],
             "why": "duplicate"}]}), request)

    with FakeModel(propose_one).running() as fake:
        alice = Engine(app.store, "alice")
        alice.settings.update(extraction_mode="model", model_base_url=fake.url,
                              extract_model="fake-extractor", review_new_memories=0)
        before = len(alice.review.items())
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            await press(pilot, "colon")
            app.screen.query_one(CommandLine).value = "/memory consolidate"
            await press(pilot, "enter")
            await until(pilot, lambda: app.runner.state.last_job == "consolidate")
            await settle(pilot)
            assert "proposed by the model for review" in status_text(app)
        assert len(alice.review.items()) > before
        assert fake.requests and all(r.path == "/v1/chat/completions" for r in fake.requests)
