"""Model extraction (extraction_mode = model) against a fake OpenAI-compatible endpoint on
127.0.0.1 that records every request: what is sent (redacted, within the budget), what is
written (validated, redacted, review), the no-op, every failure mode with its retries, the
token caps and the ledger, and one optional test against a real endpoint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fixtures_auto import Team, add_done, make_team

from memtui.bench.fake_model import FakeModel, Reply, chat_reply
from memtui.engine import model_client
from memtui.engine.api import Engine
from memtui.engine.model_client import estimate_tokens
from memtui.engine.model_extraction import EXTRACT_SYSTEM, INPUT_BUDGET_CHARS, render_task
from memtui.engine.model_phase import MAX_ATTEMPTS
from memtui.errors import InvalidInput
from memtui.store.database import Store
from memtui.store.timeutil import FixedClock

SECRET = "api_key=ZXhhbXBsZS1rZXktMTIzNDU2Nzg5"
SECRET_VALUE = "ZXhhbXBsZS1rZXktMTIzNDU2Nzg5"
KEY_ENV = "MEMTUI_TEST_FAKE_KEY"
Answer = Callable[[dict[str, Any]], Reply]


@pytest.fixture
def team(store: Store, clock: FixedClock, engine_for: Callable[[str], Engine]) -> Team:
    """alice owns web and api, generate on."""
    return make_team(store, clock, engine_for)


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    """The fake endpoint, running."""
    with FakeModel().running() as running:
        yield running


def _model_mode(team: Team, fake: FakeModel, **more: Any) -> None:
    team.alice.settings.update(extraction_mode="model", model_base_url=fake.url,
                               extract_model="fake-extractor", **more)


def _answering(content: Any) -> Answer:
    return lambda request: chat_reply(content if isinstance(content, str) or content is None
                                      else json.dumps(content), request)


def _log(team: Team, task_id: str) -> Any:
    return {entry.task_id: entry for entry in team.alice.extraction.log(100)}[task_id]


def test_default_mode_never_calls_nor_imports_a_model(team: Team, fake: FakeModel,
                                                      tmp_path: Path) -> None:
    team.alice.settings.update(model_base_url=fake.url, extract_model="fake-extractor")
    add_done(team.alice, team.clock)
    assert team.alice.extraction.run_round().extracted == 1
    assert fake.requests == []
    script = ("import sys; from memtui.store.database import open_store; "
              "from memtui.engine.api import Engine; "
              f"s = open_store({str(tmp_path / 'x.db')!r}); e = Engine(s, 'u'); "
              "e.identity.create_project('p'); e.settings.update(generate_memories=1); "
              "e.tasks.add_task('p', 'Fix it', 'fix', 'r' * 300, '2026-01-01T00:00:00Z', "
              "'2026-01-01T01:00:00Z'); "
              "print(e.extraction.run_round(force=True).extracted, 'openai' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "1 False"


def test_one_task_becomes_memories_keeping_its_task(team: Team, fake: FakeModel) -> None:
    fake.answer = _answering({"memories": [
        {"kind": "decision", "scope": "project", "text": "Retries use tenacity.",
         "evidence": "Replaced the hand-rolled retry loop with tenacity"},
        {"kind": "convention", "scope": "project", "text": "Log timeouts with the request id.",
         "evidence": "timeouts are logged with the request id"}]})
    _model_mode(team, fake)
    task = add_done(team.alice, team.clock)
    summary = team.alice.extraction.run_round()
    assert (summary.extracted, summary.errors) == (1, 0)
    memories = team.store.execute("SELECT kind, content, status FROM memories WHERE "
                                  "source_thread_id = ? AND project = 'web'",
                                  (task.id,)).fetchall()
    assert sorted(tuple(m) for m in memories) == [
        ("convention", "Log timeouts with the request id.\n\nEvidence: timeouts are logged "
                       "with the request id", "active"),
        ("decision", "Retries use tenacity.\n\nEvidence: Replaced the hand-rolled retry loop "
                     "with tenacity", "active")]
    entry = _log(team, task.id)
    assert entry.outcome == "extracted" and entry.detail is None
    request = fake.requests[0].body
    assert request["model"] == "fake-extractor"
    assert request["response_format"] == {"type": "json_object"}
    # once per task: a second round asks nothing
    assert team.alice.extraction.run_round(force=True).scanned == 0
    assert len(fake.requests) == 1


def test_no_secret_reaches_the_endpoint_and_the_key_stays_in_the_environment(
        team: Team, fake: FakeModel, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
    monkeypatch.setenv(KEY_ENV, key)
    fake.answer = _answering({"memories": [{"kind": "fact", "scope": "project",
                                            "text": f"deploy with {SECRET}",
                                            "evidence": f"token {SECRET}"}]})
    _model_mode(team, fake, model_api_key_env=KEY_ENV)
    task = add_done(team.alice, team.clock, goal=f"Deploy with {SECRET}",
                    prompt=f"use password=hunter2hunter2 and {SECRET}")
    team.store.execute("UPDATE tasks SET result = ? WHERE id = ?",
                       (f"Done. {SECRET} and Bearer abcdefghijklmnopqrstuvwxyz123456 "
                        + "x" * 300, task.id))
    team.alice.extraction.run_round()
    raw = b"".join(request.raw for request in fake.requests)
    assert SECRET_VALUE.encode() not in raw and b"hunter2hunter2" not in raw
    assert b"abcdefghijklmnopqrstuvwxyz123456" not in raw
    assert {k.lower(): v for k, v in fake.requests[0].headers.items()}["authorization"] == \
        f"Bearer {key}"
    memory = team.store.memories.get(_log(team, task.id).memory_id)
    assert memory is not None and SECRET_VALUE not in memory.content
    stored = team.store.execute("SELECT settings FROM user_settings").fetchone()[0]
    assert key not in stored and KEY_ENV in stored


def test_the_budget_holds_on_a_huge_transcript(team: Team, fake: FakeModel,
                                               tmp_path: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    with transcript.open("w") as out:
        out.write(json.dumps({"type": "user", "message": {"role": "user",
                                                          "content": "Fix the flaky test"}}) + "\n")
        for i in range(3000):
            out.write(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "text", "text": f"step {i} " + "reasoning " * 300},
                {"type": "tool_use", "name": "Bash", "input": {"command": "x" * 50_000}}]}}) + "\n")
            out.write(json.dumps({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "content": "output " * 20_000}]}}) + "\n")
        out.write(json.dumps({"type": "assistant", "message": {
            "role": "assistant", "content": "FINAL: the test waits for the port now"}}) + "\n")
    _model_mode(team, fake)
    add_done(team.alice, team.clock, goal="Fix the flaky test", result="y" * 500_000,
             source="claude-code", source_ref="sess-huge")
    with team.store.transaction():
        team.store.sessions.upsert("claude-code", "sess-huge", "alice", str(transcript),
                                   "/tmp", "SessionEnd", True, team.store.now())
    team.alice.extraction.run_round()
    sent = fake.requests[0].body["messages"][-1]["content"]
    assert len(sent) <= INPUT_BUDGET_CHARS
    assert "Conversation:" in sent and "FINAL: the test waits" in sent and "step 0" in sent
    assert "turns left out" in sent and "chars cut" in sent


def test_review_path_and_user_scope_always_waits(team: Team, fake: FakeModel) -> None:
    fake.answer = _answering({"memories": [
        {"kind": "preference", "scope": "user", "text": "Prefers small commits.",
         "evidence": "asked for small commits", "reason": "it is how alice works anywhere"},
        {"kind": "fact", "scope": "project", "text": "CI runs on the runners.",
         "evidence": "CI runners"}]})
    _model_mode(team, fake)
    task = add_done(team.alice, team.clock)
    team.alice.extraction.run_round()
    rows = team.store.execute("SELECT scope, status, content FROM memories "
                              "WHERE source_thread_id = ? ORDER BY scope",
                              (task.id,)).fetchall()
    assert [(r[0], r[1]) for r in rows] == [("project", "active"), ("user", "pending")]
    assert rows[1][2] == ("Prefers small commits.\n\nEvidence: asked for small commits\n"
                          "For every project because: it is how alice works anywhere")
    team.alice.settings.update(review_new_memories=1)
    second = add_done(team.alice, team.clock, goal="Another thing")
    team.alice.extraction.run_round()
    assert {r[0] for r in team.store.execute(
        "SELECT status FROM memories WHERE source_thread_id = ?", (second.id,))} == {"pending"}


def test_user_scope_without_reason_is_refused_whole(team: Team, fake: FakeModel) -> None:
    fake.answer = _answering({"memories": [
        {"kind": "preference", "scope": "user", "text": "Tabs.", "evidence": "tabs"}]})
    _model_mode(team, fake)
    task = add_done(team.alice, team.clock)
    team.alice.extraction.run_round()
    entry = _log(team, task.id)
    assert (entry.outcome, entry.reason) == ("error", "model_invalid_json")
    assert "reason" in entry.detail


def test_an_empty_answer_is_a_no_op_never_asked_again(team: Team, fake: FakeModel) -> None:
    fake.answer = _answering({"memories": []})
    _model_mode(team, fake)
    task = add_done(team.alice, team.clock)
    summary = team.alice.extraction.run_round()
    assert dict(summary.skipped) == {"model_nothing": 1}
    assert (_log(team, task.id).outcome, _log(team, task.id).reason) == ("skipped",
                                                                         "model_nothing")
    team.clock.advance(86_400)
    team.alice.extraction.run_round()
    assert len(fake.requests) == 1
    assert team.store.execute("SELECT count(*) FROM memories").fetchone()[0] == 0


FAILURES: dict[str, tuple[Answer, str]] = {
    "http": (lambda request: Reply(500, {"error": {"message": "boom"}}), "HTTP 500"),
    "refusal": (lambda request: chat_reply(None, request, refusal="I can't help"), "declined"),
    "invalid_json": (_answering("Sure! Here are the memories: ..."), "not JSON"),
    "cut_off": (lambda request: chat_reply('{"memories": [', request, finish_reason="length"),
                "token limit"),
}


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_each_failure_is_logged_in_words_and_retried_with_backoff(
        team: Team, fake: FakeModel, kind: str) -> None:
    fake.answer, words = FAILURES[kind]
    _model_mode(team, fake)
    task = add_done(team.alice, team.clock)
    assert team.alice.extraction.run_round().errors == 1
    entry = _log(team, task.id)
    assert (entry.outcome, entry.reason) == ("error", f"model_{kind}")
    assert words in entry.detail and f"try 1 of {MAX_ATTEMPTS}" in entry.detail
    assert entry.retry_at is not None and entry.retry_at > team.store.now()
    team.alice.extraction.run_round()  # backoff: not asked again yet
    assert len(fake.requests) == 1
    for attempt in range(2, MAX_ATTEMPTS + 1):
        team.clock.advance(86_400)
        team.alice.extraction.run_round()
        assert len(fake.requests) == attempt
    entry = _log(team, task.id)
    assert (entry.reason, entry.retry_at) == ("model_gave_up", None)
    assert f"try {MAX_ATTEMPTS} of {MAX_ATTEMPTS}" in entry.detail
    team.clock.advance(86_400)
    team.alice.extraction.run_round()
    assert len(fake.requests) == MAX_ATTEMPTS  # left with its reason


def test_a_timeout_is_an_error_and_the_round_goes_on(team: Team, fake: FakeModel,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_client, "CALL_TIMEOUT_S", 0.3)
    fake.answer = lambda request: Reply(200, {}, delay_s=2.0)
    _model_mode(team, fake)
    task = add_done(team.alice, team.clock)
    assert team.alice.extraction.run_round().errors == 1
    entry = _log(team, task.id)
    assert entry.reason == "model_timeout" and "did not answer in time" in entry.detail


def test_an_unreachable_or_unset_endpoint(team: Team, fake: FakeModel) -> None:
    team.alice.settings.update(extraction_mode="model")
    task = add_done(team.alice, team.clock)
    assert dict(team.alice.extraction.run_round().skipped) == {"model_not_ready": 1}
    assert "model_base_url" in _log(team, task.id).detail
    team.alice.settings.update(model_base_url="http://127.0.0.1:9/v1", extract_model="m")
    team.alice.extraction.run_round()
    assert _log(team, task.id).reason == "model_connection"
    team.alice.settings.update(model_base_url=fake.url, model_api_key_env="MEMTUI_UNSET_VAR_X")
    team.clock.advance(86_400)
    team.alice.extraction.run_round()
    assert "MEMTUI_UNSET_VAR_X" in _log(team, task.id).detail and fake.requests == []


def test_caps_stop_calls_fail_closed_and_the_ledger_counts(team: Team, fake: FakeModel) -> None:
    first = add_done(team.alice, team.clock, goal="First thing")
    second = add_done(team.alice, team.clock, goal="Second thing")
    cap = max(estimate_tokens(EXTRACT_SYSTEM, render_task(task, None)) for task in (first, second))
    _model_mode(team, fake, model_daily_token_cap=cap)  # one call fits, two do not
    summary = team.alice.extraction.run_round()
    assert (summary.extracted, dict(summary.skipped)) == (1, {"model_cap_day": 1})
    assert len(fake.requests) == 1
    capped = _log(team, second.id if _log(team, first.id).outcome == "extracted" else first.id)
    assert f"model_daily_token_cap is {cap}" in capped.detail
    cost = team.alice.extraction.cost()
    assert cost["today"]["calls"] == 1 and cost["today"]["tokens_in"] > 0
    assert cost["by_task"][0]["tokens_out"] > 0 and len(cost["by_round"]) == 1
    team.alice.settings.update(model_daily_token_cap=10**6, model_monthly_token_cap=0)
    team.alice.extraction.run_round()
    assert len(fake.requests) == 1
    assert _log(team, capped.task_id).reason == "model_cap_month"
    team.store.execute("DROP TABLE model_usage")
    team.alice.settings.update(model_monthly_token_cap=10**6)
    team.alice.extraction.run_round()
    assert _log(team, capped.task_id).reason == "model_cap_unreadable"
    assert len(fake.requests) == 1


def test_settings_are_checked(team: Team) -> None:
    with pytest.raises(InvalidInput, match="user or password"):
        team.alice.settings.update(model_base_url="https://bob:pw@example.com/v1")
    for value in ("sk-abc123", "sk_live_51HxYzAbCdEfGhIjKlMnOpQr"):  # a key, not its name
        with pytest.raises(InvalidInput, match="NAME of an environment variable"):
            team.alice.settings.update(model_api_key_env=value)
    with pytest.raises(InvalidInput, match="http"):
        team.alice.settings.update(model_base_url="ftp://example.com")
    with pytest.raises(InvalidInput, match="extraction_mode"):
        team.alice.settings.update(extraction_mode="magic")
    with pytest.raises(InvalidInput, match="did you mean model_base_url"):
        team.alice.settings.set_many({"model_base_ur": "http://x"})
    assert team.alice.settings.endpoint_status() is None


def test_endpoint_status_says_whether_it_answers(team: Team, fake: FakeModel) -> None:
    _model_mode(team, fake)
    assert team.alice.settings.endpoint_status() == "answers (1 model)"
    team.alice.settings.update(extract_model="other")
    assert "has no model 'other'" in str(team.alice.settings.endpoint_status())
    team.alice.settings.update(model_base_url="http://127.0.0.1:9/v1")
    assert str(team.alice.settings.endpoint_status()).startswith("does not answer")


@pytest.mark.skipif(not os.environ.get("MEMTUI_TEST_MODEL_URL"),
                    reason="no real endpoint: set MEMTUI_TEST_MODEL_URL (and "
                           "MEMTUI_TEST_MODEL, MEMTUI_TEST_MODEL_KEY_ENV)")
def test_against_a_real_endpoint(team: Team) -> None:
    team.alice.settings.update(
        extraction_mode="model", model_base_url=os.environ["MEMTUI_TEST_MODEL_URL"],
        extract_model=os.environ.get("MEMTUI_TEST_MODEL", "llama"),
        model_api_key_env=os.environ.get("MEMTUI_TEST_MODEL_KEY_ENV"))
    task = add_done(team.alice, team.clock)
    team.alice.extraction.run_round()
    entry = _log(team, task.id)
    assert entry.outcome in ("extracted", "skipped"), entry.detail
    assert team.alice.extraction.cost()["today"]["calls"] == 1


def test_cli_log_shows_words_retry_and_the_cost(cli: Any, fake: FakeModel) -> None:
    as_alice = ("--user", "alice")
    assert cli(*as_alice, "project", "add", "web").code == 0
    assert cli(*as_alice, "settings", "set", "generate_memories=on", "extraction_mode=model",
               f"model_base_url={fake.url}", "extract_model=fake-extractor").code == 0
    shown = cli(*as_alice, "--json", "settings", "show").json
    assert shown["model_endpoint"] == "answers (1 model)"
    fake.answer = lambda request: Reply(503, {"error": {"message": "busy"}})
    assert cli(*as_alice, "task", "add", "--project", "web", "--goal", "Fix it",
               "--result", "r" * 300, "--started", "2026-01-01T00:00:00Z",
               "--finished", "2026-01-01T01:00:00Z").code == 0
    assert cli(*as_alice, "run", "--force").code == 0
    out = " ".join(cli(*as_alice, "log").out.split())
    assert "HTTP 503" in out and "next try" in out
    entry = cli(*as_alice, "--json", "log").json["items"][0]
    assert entry["reason"] == "model_http" and entry["retry_at"]
    ledger = cli(*as_alice, "--json", "log", "--cost").json
    assert ledger["today"]["calls"] == 1 and ledger["by_task"][0]["calls"] == 1
    assert "Model cost ledger" in cli(*as_alice, "log", "--cost").out


def _supersede_first_pair(request: dict[str, Any]) -> Reply:
    """Propose that the first NEW memory replace the oldest memory shown."""
    text = str(request["messages"][-1]["content"])
    new_part, active_part = text.split("\n\nACTIVE:\n")
    new = [json.loads(line) for line in new_part.removeprefix("NEW:\n").splitlines() if line]
    active = [json.loads(line) for line in active_part.splitlines() if line]
    old = (active or new)[0]
    mine = next(item for item in new if item["id"] != old["id"])
    return chat_reply(json.dumps({"supersedes": [
        {"old": old["id"], "new": mine["id"], "text": mine["text"],
         "why": "correction: the project moved to pytest"}]}), request)


def test_consolidation_proposes_supersedes_into_the_inbox(team: Team, fake: FakeModel) -> None:
    old = team.alice.identity.add_memory("Tests run with unittest.", project="web")
    team.clock.advance(60)
    new = team.alice.identity.add_memory("Tests run with pytest, never unittest.",
                                         project="web")
    fake.answer = _supersede_first_pair
    _model_mode(team, fake)
    result = team.alice.extraction.consolidate()
    assert result.proposed == 1 and result.count == 0
    items = team.alice.review.items()
    assert len(items) == 1 and items[0].replaces == old.id
    assert items[0].memory.content == new.content and items[0].memory.status == "pending"
    assert [part.text for part in items[0].diff if part.op == "added"] == ["pytest, never "]
    assert team.store.memories.get(old.id).status == "active"  # nothing rewritten silently
    assert result.to_json()["model"][0]["words"] == "nothing new to compare"  # project api
    assert team.alice.extraction.cost()["by_round"][0]["calls"] == 1
    # the next pass sees nothing new: no call
    assert team.alice.extraction.consolidate().proposed == 0
    assert len(fake.requests) == 1


def test_consolidation_failure_and_cap_write_nothing(team: Team, fake: FakeModel) -> None:
    team.alice.identity.add_memory("One.", project="web")
    team.alice.identity.add_memory("Two.", project="web")
    fake.answer = _answering({"supersedes": [{"old": "mem_nope", "new": "mem_x", "text": "t",
                                              "why": "w"}]})
    _model_mode(team, fake)
    result = team.alice.extraction.consolidate()
    assert result.proposed == 0 and "invalid_json" in result.to_json()["model"][1]["words"]
    team.alice.settings.update(model_daily_token_cap=0)
    result = team.alice.extraction.consolidate()
    assert "model_daily_token_cap is 0" in result.to_json()["model"][1]["words"]
    assert len(fake.requests) == 1 and team.alice.review.items() == []


def test_a_round_stops_asking_when_its_model_time_is_spent(
        team: Team, fake: FakeModel, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.engine import extraction

    monkeypatch.setattr(extraction, "MODEL_ROUND_SECONDS", -1.0)  # spent before the first call
    _model_mode(team, fake)
    task = add_done(team.alice, team.clock)
    assert team.alice.extraction.run_round().scanned == 0 and fake.requests == []
    assert team.alice.extraction.pending() == 1 and team.store.tasks.get_log(task.id) is None
    monkeypatch.undo()
    assert team.alice.extraction.run_round().extracted == 1


def _codex_rollout_lines() -> bytes:
    lines = [{"type": "response_item", "payload": {"type": "message", "role": "user", "content": [
                 {"type": "input_text", "text": "Move CI to Forgejo"}]}},
             {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                                   "content": [{"type": "output_text",
                                                                "text": "CI runs on Forgejo now"}]}}]
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def test_a_compressed_codex_rollout_is_read_like_a_plain_one(tmp_path: Path) -> None:
    import zstandard

    from memtui.engine.conversation import read_conversation

    plain = tmp_path / "rollout-1.jsonl"
    plain.write_bytes(_codex_rollout_lines())
    packed = tmp_path / "rollout-2.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(_codex_rollout_lines()))
    read_plain, read_packed = read_conversation(plain), read_conversation(packed)
    assert read_plain is not None and read_packed == read_plain
    assert "CI runs on Forgejo now" in "\n".join(read_packed.lines())
    damaged = tmp_path / "rollout-3.jsonl.zst"
    damaged.write_bytes(b"\x28\xb5\x2f\xfd" + b"not zstd at all" * 10)
    assert read_conversation(damaged) is None
    assert read_conversation(tmp_path / "notes.txt") is None


def test_a_transcript_is_read_only_as_a_regular_file_inside_its_folder(tmp_path: Path) -> None:
    from memtui.engine.conversation import read_conversation

    outside = tmp_path / "elsewhere" / "private.jsonl"
    outside.parent.mkdir()
    outside.write_text(json.dumps({"type": "user", "message": {"role": "user",
                                                               "content": "private plans"}}))
    folder = tmp_path / "claude" / "projects" / "-app"
    folder.mkdir(parents=True)
    (folder / "link.jsonl").symlink_to(outside)
    (folder / "folder.jsonl").mkdir()
    os.mkfifo(folder / "pipe.jsonl")
    assert read_conversation(outside) is not None  # the file itself is readable
    for name in ("link.jsonl", "folder.jsonl", "pipe.jsonl", "gone.jsonl"):
        assert read_conversation(folder / name) is None, name


@pytest.mark.parametrize("token", ["ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
                                   "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa0123456"])
def test_a_secret_split_by_a_cut_never_leaves_in_part(token: str) -> None:
    from memtui.engine.conversation import TOOL_CHARS, cut

    for inside in range(len(token) + 1):
        text = "x" * (TOOL_CHARS - inside - 1) + " " + token + " and more output " * 50
        sent = cut(text, TOOL_CHARS)
        assert not any(token[i:i + 8] in sent for i in range(len(token) - 7)), (inside, sent)


def test_tool_arguments_are_redacted_before_they_are_cut(tmp_path: Path) -> None:
    from memtui.engine.conversation import TOOL_CHARS, read_conversation

    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    transcript = tmp_path / "session.jsonl"
    call = {"command": "x" * (TOOL_CHARS - 60) + f" export GITHUB_TOKEN={token}"}
    transcript.write_text(json.dumps({"type": "assistant", "message": {"role": "assistant",
                          "content": [{"type": "tool_use", "name": "Bash", "input": call}]}}) + "\n")
    read = read_conversation(transcript)
    assert read is not None
    sent = "\n".join(read.lines())
    assert not any(token[i:i + 8] in sent for i in range(len(token) - 7)), sent


def test_failure_words_quoting_the_model_are_redacted(team: Team, fake: FakeModel) -> None:
    token = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa0123456"
    fake.answer = _answering({"memories": [{"kind": token, "scope": "project", "text": "t",
                                            "evidence": "e"}]})
    _model_mode(team, fake)
    task = add_done(team.alice, team.clock)
    team.alice.extraction.run_round()
    entry = _log(team, task.id)
    assert entry.reason == "model_invalid_json" and "unknown memory kind" in entry.detail
    stored = " ".join(str(row[0]) for row in team.store.execute(
        "SELECT detail FROM extraction_details"))
    for text in (entry.detail, stored):
        assert not any(token[i:i + 8] in text for i in range(len(token) - 7)), text


@pytest.mark.parametrize(("url", "sent"), [
    ("http://example.com/v1", False), ("http://10.0.0.5:8080/v1", False),
    ("https://example.com/v1", True), ("http://127.0.0.1:8080/v1", True),
    ("http://localhost:11434/v1", True), ("http://[::1]:8080/v1", True)])
def test_no_key_over_plain_http_to_another_host(url: str, sent: bool,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test-key")
    endpoint = model_client.Endpoint(url, "m", KEY_ENV)
    if sent:
        assert endpoint.api_key() == "sk-test-key"
    else:
        with pytest.raises(model_client.ModelFailure, match="plain http"):
            endpoint.api_key()
    assert model_client.Endpoint(url, "m").api_key() == model_client.NO_KEY


def test_settings_set_never_probes_the_endpoint(cli: Any, fake: FakeModel) -> None:
    as_alice = ("--user", "alice")
    assert cli(*as_alice, "settings", "set", f"model_base_url={fake.url}",
               "extract_model=fake-extractor").code == 0
    assert "model_endpoint" not in cli(*as_alice, "--json", "settings", "set",
                                       "idle_seconds=60").json
    assert fake.requests == []
    assert "answers" in cli(*as_alice, "settings", "show").out
    assert len(fake.requests) == 1


def test_lost_write_access_is_checked_before_any_call(team: Team, fake: FakeModel) -> None:
    team.bob.settings.update(generate_memories=1, extraction_mode="model",
                             model_base_url=fake.url, extract_model="fake-extractor")
    task = add_done(team.bob, team.clock)
    team.alice.identity.set_member("web", "bob", "reader")
    assert team.bob.extraction.run_round().errors == 1
    entry = team.store.tasks.get_log(task.id)
    assert (entry.outcome, entry.reason) == ("error", "PermissionDenied")
    assert fake.requests == []


def test_an_error_after_the_call_waits_out_the_backoff(team: Team, fake: FakeModel,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.engine.extraction import ExtractionApi

    def refuse(*_args: Any) -> str:
        raise InvalidInput("the memory is not valid")

    monkeypatch.setattr(ExtractionApi, "_insert_proposed", refuse)
    _model_mode(team, fake)
    task = add_done(team.alice, team.clock)
    assert team.alice.extraction.run_round().errors == 1
    entry = _log(team, task.id)
    assert entry.reason == "InvalidInput" and entry.retry_at is not None
    assert "not valid" in entry.detail and f"try 1 of {MAX_ATTEMPTS}" in entry.detail
    team.alice.extraction.run_round()
    assert len(fake.requests) == 1  # not asked again before its retry time
    for _attempt in range(2, MAX_ATTEMPTS + 1):
        team.clock.advance(86_400)
        team.alice.extraction.run_round()
    assert len(fake.requests) == MAX_ATTEMPTS
    assert (_log(team, task.id).reason, _log(team, task.id).retry_at) == ("model_gave_up", None)


def test_a_call_that_could_pass_the_cap_is_not_made(team: Team, fake: FakeModel) -> None:
    task = add_done(team.alice, team.clock)
    estimate = estimate_tokens(EXTRACT_SYSTEM, render_task(task, None))
    _model_mode(team, fake, model_daily_token_cap=estimate - 1)  # nothing spent yet
    assert dict(team.alice.extraction.run_round().skipped) == {"model_cap_day": 1}
    assert fake.requests == [] and f"may take {estimate}" in _log(team, task.id).detail
    team.alice.settings.update(model_daily_token_cap=estimate)
    team.clock.advance(60)
    assert team.alice.extraction.run_round().extracted == 1


def test_cap_settings_say_that_zero_stops_every_call() -> None:
    from memtui.engine.settings import SETTING_SPECS

    meanings = {spec.name: spec.meaning for spec in SETTING_SPECS}
    for name in ("model_daily_token_cap", "model_monthly_token_cap"):
        assert "0 stops every model call" in meanings[name] and "none" not in meanings[name]


def test_injected_context_is_not_sent_as_conversation(tmp_path: Path) -> None:
    from memtui.engine.conversation import read_conversation

    claude = tmp_path / "session.jsonl"
    claude.write_text("".join(json.dumps(record) + "\n" for record in [
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": "META context"}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "text", "text": "<system-reminder>REMINDER text</system-reminder>"},
            {"type": "text", "text": "Fix the flaky test"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": "Fixed it"}}]))
    codex = tmp_path / "rollout-1.jsonl"
    user = [{"type": "input_text", "text": text} for text in (
        "# AGENTS.md instructions for /repo\n\nAGENTS rules", "<environment_context>ENV"
        "</environment_context>", "<user_instructions>USER INSTR</user_instructions>",
        "IDE CONTEXT\n## My request for Codex:\nMove CI to Forgejo")]
    codex.write_text("".join(json.dumps(record) + "\n" for record in [
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": user}},
        {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text",
                                                           "text": "CI runs on Forgejo"}]}}]))
    claude_read, codex_read = read_conversation(claude), read_conversation(codex)
    assert claude_read is not None and codex_read is not None
    assert claude_read.lines() == ["user: Fix the flaky test", "assistant: Fixed it"]
    assert codex_read.lines() == ["user: Move CI to Forgejo", "assistant: CI runs on Forgejo"]


def _two_projects_to_consolidate(team: Team, fake: FakeModel) -> None:
    for project in ("web", "api"):
        team.alice.identity.add_memory(f"{project}: tests run with unittest.", project=project)
        team.alice.identity.add_memory(f"{project}: tests run with pytest.", project=project)
    fake.answer = _answering({"supersedes": []})
    _model_mode(team, fake)


def _model_words(result: Any) -> list[str]:
    return [done["words"] for done in result.to_json()["model"]]


def test_consolidation_stops_when_asked_or_when_its_time_is_spent(
        team: Team, fake: FakeModel, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.engine import extraction

    _two_projects_to_consolidate(team, fake)
    result = team.alice.extraction.consolidate(should_stop=lambda: True)
    assert _model_words(result) == ["not asked: the pass was stopped"] * 2
    monkeypatch.setattr(extraction, "MODEL_ROUND_SECONDS", -1.0)
    assert _model_words(team.alice.extraction.consolidate()) == [
        "not asked: the pass's time with the model is spent"] * 2
    assert fake.requests == []
    monkeypatch.undo()
    assert _model_words(team.alice.extraction.consolidate()) == ["nothing to change"] * 2


def test_consolidation_ends_after_a_timeout(team: Team, fake: FakeModel,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _two_projects_to_consolidate(team, fake)
    monkeypatch.setattr(model_client, "CALL_TIMEOUT_S", 0.3)
    fake.answer = lambda request: Reply(200, {}, delay_s=2.0)
    words = _model_words(team.alice.extraction.consolidate())
    assert len(fake.requests) == 1
    assert words[0].startswith("timeout") and words[1] == "not asked: the endpoint failed (timeout)"


def test_consolidation_reads_no_rows_of_a_project_with_nothing_new(
        team: Team, fake: FakeModel, monkeypatch: pytest.MonkeyPatch) -> None:
    _two_projects_to_consolidate(team, fake)
    team.alice.extraction.consolidate()
    read: list[str | None] = []
    original = team.store.tasks.active_memories

    def counted(*, owner: str | None = None, project: str | None = None) -> Any:
        read.append(project)
        return original(owner=owner, project=project)

    monkeypatch.setattr(team.store.tasks, "active_memories", counted)
    assert _model_words(team.alice.extraction.consolidate()) == ["nothing new to compare"] * 2
    assert sorted(map(str, read)) == ["None", "api", "web"]  # the dedupe pass only
    assert len(fake.requests) == 2


def _claude_session(home: Path, session: str, cwd: Path) -> Path:
    path = home / "projects" / "-work-shop" / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"cwd": str(cwd), "timestamp": stamp, "type": kind,
                                        "message": {"role": kind, "content": text}}) + "\n"
                            for kind, text, stamp in (
        ("user", "Move CI to Forgejo", "2026-12-01T08:00:00.000Z"),
        ("assistant", "Looking at the runners first", "2026-12-01T08:10:00.000Z"),
        ("assistant", "CI runs on Forgejo runners now", "2026-12-01T08:30:00.000Z"))))
    return path


def test_an_imported_claude_code_session_is_found_where_the_import_read_it(
        team: Team, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.engine.model_phase import conversation_for

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "default-claude-home"))
    session, home = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b", tmp_path / "custom-claude-home"
    _claude_session(home, session, tmp_path / "shop")
    [item] = team.alice.agents.import_transcripts(home).items
    task = team.alice.tasks.get_task(str(item.target_id))
    found = conversation_for(team.store, task)
    assert found is not None and "assistant: Looking at the runners first" in found.lines()
    row = team.store.sessions.get("claude", session)
    assert row is not None and row.processed_at and row.task_id == task.id
    assert team.alice.sessions.process_waiting().processed == 0  # never made a task again
    others = [add_done(engine, team.clock, source="claude", source_ref=ref)
              for engine, ref in ((team.bob, session), (team.alice, "../../etc/passwd"))]
    assert [conversation_for(team.store, other) for other in others] == [None, None]


def test_a_session_imported_before_gets_its_transcript_on_the_next_import(
        team: Team, tmp_path: Path) -> None:
    from memtui.engine.model_phase import conversation_for

    session, home = "1f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b", tmp_path / "claude-home"
    _claude_session(home, session, tmp_path / "shop")
    task = add_done(team.alice, team.clock, source="claude", source_ref=session)
    assert conversation_for(team.store, task) is None
    again = team.alice.agents.import_transcripts(home)
    assert again.skipped == {"already_imported": 1}
    found = conversation_for(team.store, task)
    assert found is not None and "user: Move CI to Forgejo" in found.lines()


def test_the_cost_summary_counts_today_and_this_month_only(team: Team) -> None:
    from memtui.store.model_ledger import UsageRow

    now = team.store.now()
    month_start = now[:7] + "-01T00:00:00.000Z"
    with team.store.transaction():
        for at, tokens in ((now, 100), (month_start, 20), ("2020-01-15T10:00:00.000Z", 5000)):
            team.store.model_ledger.add_usage(UsageRow("alice", "extract", "round-1", None, None,
                                                       "m", tokens, 1, "ok", at))
        team.store.model_ledger.add_usage(UsageRow("bob", "extract", "round-2", None, None, "m",
                                                   700, 1, "ok", now))
    summary, full = team.alice.extraction.cost_summary(), team.alice.extraction.cost()
    assert summary["today"] == full["today"] and summary["month"] == full["month"]
    assert summary["month"]["tokens_in"] == 120  # last month's and other users' calls left out
    assert summary["today"]["tokens_in"] == (120 if now[:10] == month_start[:10] else 100)
    assert summary["by_day"] == summary["by_round"] == summary["by_task"] == []
    assert [day["key"] for day in full["by_day"]][-1] == "2020-01-15"
