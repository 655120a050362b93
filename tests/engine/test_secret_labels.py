"""Secrets that came in beside the free text: profile preference keys that name a password,
ids and labels (interaction ids, consolidation kinds, bundle and run names, new projects and
members), and error messages that quote a bad value. None of them reaches the store or a
message."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.engine.settings import parse_cli_pairs
from memtui.engine.validation import (
    check_id,
    check_kind,
    check_new_id,
    clean_preferences,
    echo,
    names_secret,
)
from memtui.errors import InvalidInput
from memtui.service.methods import METHODS, check_params
from memtui.service.protocol import ProtocolError

# Secrets are assembled from pieces so that this file does not itself look like a leak.
TOKEN = "ghp_" + "Y9w8Vb7Uc6Td5Se4Rf3Qg2Ph1Oi0Nj9Mk8Ll"
PASSWORD = "Kq8mZ2vP" + "9xWn3"
SECRETS = (TOKEN, PASSWORD)


def _store_bytes(db: Path) -> bytes:
    return b"".join(Path(str(db) + suffix).read_bytes() for suffix in ("", "-wal")
                    if Path(str(db) + suffix).exists())


# ---- preferences ---------------------------------------------------------------------------

PASSWORD_KEYS = ["db_pass", "passwd", "pwd", "passphrase", "pin", "sim_pin", "private_key",
                 "ssh_key", "sshKey", "auth", "apikey", "Password", "client_secret"]
PLAIN_KEYS = ["theme", "editor", "key_bindings", "leader_key", "hotkey", "author", "authority",
              "bypass_cache", "passive_mode", "compass", "pinned", "spin", "pw_length",
              "ssh_host", "ssh_key_path", "auth_method", "sort_key", "typing"]


@pytest.mark.parametrize("key", PASSWORD_KEYS)
def test_a_key_of_the_password_family_names_a_secret(key: str) -> None:
    assert names_secret(key)
    with pytest.raises(InvalidInput, match="looks like a secret"):
        clean_preferences({"db": {key: PASSWORD}})


@pytest.mark.parametrize("key", PLAIN_KEYS)
def test_a_plain_key_does_not(key: str) -> None:
    assert not names_secret(key)
    assert clean_preferences({key: "vim"}) == {key: "vim"}


def test_preference_values_are_redacted_with_their_key_as_context() -> None:
    prefs = {"zeta": 1, "openai_key": "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
             "conn": f"host=db user=app password={PASSWORD}", "alpha": "plain"}
    cleaned = clean_preferences(prefs)
    assert cleaned == {"zeta": 1, "openai_key": "[REDACTED]",
                       "conn": "host=db user=app password=[REDACTED]", "alpha": "plain"}
    assert list(cleaned) == list(prefs)  # the order the person gave


@pytest.mark.sqlite_only  # reads the store file's bytes
def test_profile_set_refuses_a_password_preference(cli, db_path: Path) -> None:
    result = cli("--user", "alice", "profile", "set", "--pref", f'db_pass="{PASSWORD}"')
    assert result.code != 0 and "looks like a secret" in result.err
    assert PASSWORD not in result.err
    assert cli("--user", "alice", "profile", "set", "--pref", 'editor="vim"').code == 0
    assert PASSWORD.encode() not in _store_bytes(db_path)
    exported = cli("--user", "alice", "export", "--jsonl", "-").out
    assert "editor" in exported and PASSWORD not in exported


# ---- ids and labels ------------------------------------------------------------------------

@pytest.mark.sqlite_only  # reads the store file's bytes
def test_ids_and_labels_holding_a_secret_are_refused_and_not_stored(engine_for,
                                                                    db_path: Path) -> None:
    alice = engine_for("alice")
    alice.identity.create_project("web")
    attempts = {
        "interaction_id": lambda: alice.recall.remember_interaction(TOKEN, "q?", "a."),
        "kind": lambda: alice.recall.record_consolidation(TOKEN, "done"),
        "outcome": lambda: alice.recall.record_consolidation("dedupe", f"x-{TOKEN}"),
        "schedule name": lambda: alice.recall.put_document(f"schedule:{TOKEN}", "state.json",
                                                           "{}", 0),
        "run id": lambda: alice.recall.put_document("project:web", f"runs/{TOKEN}/summary.md",
                                                    "done", 0),
        "project id": lambda: alice.identity.create_project(TOKEN),
        "user id": lambda: alice.identity.set_member("web", TOKEN, "reader"),
    }
    for what, attempt in attempts.items():
        with pytest.raises(InvalidInput, match="holds a secret") as raised:
            attempt()
        assert what in raised.value.message and TOKEN not in raised.value.message
    # Plain ids still work, and nothing of the token reached the file.
    assert alice.recall.remember_interaction("i-1", "q?", "a.").created
    alice.recall.record_consolidation("dedupe", "done")
    alice.recall.put_document("project:web", "runs/r-1/summary.md", "done", 0)
    assert TOKEN.encode() not in _store_bytes(db_path)


def test_new_id_keeps_the_id_rules() -> None:
    assert check_new_id("q-1", "interaction_id") == "q-1"
    with pytest.raises(InvalidInput, match="not a valid id"):
        check_new_id("a b", "interaction_id")


# ---- error messages ------------------------------------------------------------------------

def _message(call: object) -> str:
    assert callable(call)
    with pytest.raises((InvalidInput, ProtocolError)) as raised:
        call()
    return str(raised.value)


@pytest.mark.parametrize("call", [
    lambda: parse_cli_pairs([f"model_api_key_env={TOKEN}"]),
    lambda: parse_cli_pairs([f"model_base_url=ftp://api.example.org/?key={TOKEN}"]),
    lambda: parse_cli_pairs([TOKEN]),
    lambda: parse_cli_pairs([f"{TOKEN}=1"]),
    lambda: check_kind(TOKEN),
    lambda: check_id(f"{TOKEN} x", "memory id"),
    lambda: check_params(METHODS["memory.add"], {"content": "x", TOKEN: 1}),
], ids=["env-name", "url", "pair", "setting-name", "kind", "id", "service-param"])
def test_an_error_message_never_repeats_a_secret(call: object) -> None:
    message = _message(call)
    assert "[REDACTED]" in message
    assert TOKEN not in message and TOKEN[:20] not in message


def test_echo_quotes_plain_values_as_before() -> None:
    assert echo("nope") == repr("nope")
    assert echo("x" * 200, 40) == repr("x" * 40)
    assert echo(repr(1.5), quote=False) == "1.5"
    assert echo(f"{'a' * 70} {TOKEN}") == repr(f"{'a' * 70} [REDACTED]"[:80])


@pytest.mark.sqlite_only
def test_cli_messages_do_not_echo_a_secret(cli) -> None:
    for args in (["settings", "set", f"model_api_key_env={TOKEN}"],
                 ["memory", "add", "hello", "--kind", TOKEN],
                 ["profile", "set", "--pref", TOKEN]):
        result = cli("--user", "alice", *args)
        assert result.code != 0 and "[REDACTED]" in result.err
        assert not any(secret in result.err + result.out for secret in SECRETS)
