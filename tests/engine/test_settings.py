"""Auto-memory settings: defaults, strict validation, all-or-nothing, CLI parsing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memtui.engine.api import Engine
from memtui.engine.settings import DEFAULTS, parse_cli_pairs
from memtui.errors import InvalidInput
from memtui.store.database import Store

EngineFor = Callable[[str], Engine]

SPEC_DEFAULTS = {
    "generate_memories": 0, "use_memories": 0, "disable_on_external_context": 1,
    "min_rate_limit_remaining_percent": 20, "idle_seconds": 900, "min_duration_seconds": 30,
    "min_result_chars": 200, "extract_model": None, "consolidation_model": None,
    "agents_may_forget": 0,
    "review_new_memories": 0,  # off by default, as in the source documents
    "claude_memory_gate": "review",  # acts only once the gate's hook is installed (issue 38)
    "max_unused_days": 90,  # stale memories are shown for review, never deleted (issue 40)
    "skip_stale_memories": 0,
    "extraction_mode": "deterministic", "model_base_url": None, "model_api_key_env": None,
    "model_daily_token_cap": 200_000, "model_monthly_token_cap": 2_000_000,  # issue 39
}


def test_defaults_match_the_spec(engine_for: EngineFor) -> None:
    assert DEFAULTS == SPEC_DEFAULTS
    assert engine_for("alice").settings.get() == SPEC_DEFAULTS


def test_update_changes_only_the_actor(engine_for: EngineFor) -> None:
    alice, bob = engine_for("alice"), engine_for("bob")
    after = alice.settings.update(generate_memories=True, idle_seconds=60,
                                  extract_model="gpt-x")
    assert after["generate_memories"] == 1 and after["idle_seconds"] == 60
    assert after["extract_model"] == "gpt-x"
    assert alice.settings.get() == after
    assert bob.settings.get() == SPEC_DEFAULTS
    alice.settings.set_many({"extract_model": None, "min_rate_limit_remaining_percent": 100})
    assert alice.settings.get()["extract_model"] is None
    assert alice.settings.get()["min_rate_limit_remaining_percent"] == 100


@pytest.mark.parametrize("changes", [
    {"generate_memories": "yes"},
    {"generate_memories": 2},
    {"generate_memories": None},
    {"idle_seconds": "1.5"},
    {"idle_seconds": 1.5},
    {"idle_seconds": True},
    {"idle_seconds": -1},
    {"min_result_chars": "200"},
    {"min_rate_limit_remaining_percent": 101},
    {"min_rate_limit_remaining_percent": -3},
    {"extract_model": 7},
    {"extract_model": "two\nlines"},
    {"agents_may_forget": "sometimes"},
    {"agents_may_forget": 2},
    {"agents_may_forget": None},
    {"unknown_key": 1},
    {},
    {"review_new_memories": 2},
    {"review_new_memories": "on"},
    {"review_new_memories": None, "use_memories": 1},
])
def test_bad_changes_are_refused_whole(engine_for: EngineFor, changes: dict) -> None:
    alice = engine_for("alice")
    with pytest.raises(InvalidInput):
        alice.settings.set_many({"use_memories": 1, **changes} if changes else changes)
    assert alice.settings.get() == SPEC_DEFAULTS
    assert [e for e in alice.identity.audit() if e.action == "settings_updated"] == []


def test_error_names_the_key(engine_for: EngineFor) -> None:
    with pytest.raises(InvalidInput, match="idle_seconds"):
        engine_for("alice").settings.update(idle_seconds=-5)
    with pytest.raises(InvalidInput, match="no_such"):
        engine_for("alice").settings.update(no_such=1)


def test_update_is_audited_with_keys_only(engine_for: EngineFor) -> None:
    alice = engine_for("alice")
    alice.settings.update(use_memories=1, extract_model="secret-model-name")
    entry = next(e for e in alice.identity.audit() if e.action == "settings_updated")
    assert entry.detail == {"keys": ["extract_model", "use_memories"]}
    assert "secret-model-name" not in str(entry.detail)


def test_cli_pairs_convert_types() -> None:
    assert parse_cli_pairs(["generate_memories=on", "use_memories=1",
                            "disable_on_external_context=false", "idle_seconds=0",
                            "extract_model=null", "consolidation_model=big-model"]) == {
        "generate_memories": 1, "use_memories": 1, "disable_on_external_context": 0,
        "idle_seconds": 0, "extract_model": None, "consolidation_model": "big-model"}
    assert parse_cli_pairs(["generate_memories=OFF", "use_memories=True"]) == {
        "generate_memories": 0, "use_memories": 1}


@pytest.mark.parametrize("pair", [
    "generate_memories=yes", "idle_seconds=1.5", "idle_seconds=yes", "idle_seconds=-3",
    "min_rate_limit_remaining_percent=150", "nonsense=1", "idle_seconds", "=1",
])
def test_cli_pairs_refuse_bad_values(pair: str) -> None:
    with pytest.raises(InvalidInput):
        parse_cli_pairs([pair])


def test_cli_pairs_refuse_a_key_given_twice() -> None:
    with pytest.raises(InvalidInput, match="twice"):
        parse_cli_pairs(["idle_seconds=1", "idle_seconds=2"])


def test_hand_edited_row_falls_back_to_defaults(store: Store, engine_for: EngineFor) -> None:
    alice = engine_for("alice")
    alice.settings.update(generate_memories=1, idle_seconds=5)
    store.execute("UPDATE user_settings SET settings = ? WHERE user_id = 'alice'",
                  ('{"generate_memories": "yes", "idle_seconds": 5, "stray": 1}',))
    assert alice.settings.get() == SPEC_DEFAULTS | {"idle_seconds": 5}
    store.execute("UPDATE user_settings SET settings = 'not json' WHERE user_id = 'alice'")
    assert alice.settings.get() == SPEC_DEFAULTS
    assert alice.settings.update(use_memories=1) == SPEC_DEFAULTS | {"use_memories": 1}


def test_agents_may_forget_is_off_by_default_and_switches_on(engine_for: EngineFor) -> None:
    alice = engine_for("alice")
    assert alice.settings.get()["agents_may_forget"] == 0
    assert alice.settings.set_many(parse_cli_pairs(["agents_may_forget=on"]))[
        "agents_may_forget"] == 1
    with pytest.raises(InvalidInput, match="agents_may_forget"):
        parse_cli_pairs(["agents_may_forget=maybe"])
