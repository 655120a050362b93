"""Every stored string a person typed is redacted (one helper, validation.clean_text): project
name and root, the model settings, preference keys, interaction sources, detail keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.engine.validation import clean_text, redact_values

GITHUB_TOKEN = "ghp_" + "Fr33T3xtT0k3nV4lu3F0rT3st1ngPurp0s3x"
AWS_KEY = "AKIA" + "ZXCVBNMASDFGHJKL"
SECRETS = (GITHUB_TOKEN, AWS_KEY)


def _assert_clean(db: Path) -> None:
    data = b"".join(Path(str(db) + suffix).read_bytes() for suffix in ("", "-wal")
                    if Path(str(db) + suffix).exists())
    for secret in SECRETS:
        assert secret.encode() not in data, secret


PATHS = {
    "project name": lambda cli, tmp: cli("--user", "alice", "project", "add", "p2", "--name",
                                         f"deploy {GITHUB_TOKEN}"),
    "project root": lambda cli, tmp: cli("--user", "alice", "project", "add", "p3", "--root",
                                         str(tmp / GITHUB_TOKEN / AWS_KEY)),
    "extract_model": lambda cli, tmp: cli("--user", "alice", "settings", "set",
                                          f"extract_model=gpt {GITHUB_TOKEN}"),
    "consolidation_model": lambda cli, tmp: cli("--user", "alice", "settings", "set",
                                                f"consolidation_model={AWS_KEY}"),
    "preference key": lambda cli, tmp: cli("--user", "alice", "profile", "set", "--pref",
                                           f"{GITHUB_TOKEN}=1", "--pref", f'note="{AWS_KEY}"'),
}


@pytest.mark.parametrize("path", sorted(PATHS))
def test_free_text_planted_through_each_path_never_reaches_the_file(cli, db_path: Path,
                                                                    tmp_path: Path,
                                                                    path: str) -> None:
    assert cli("--user", "alice", "project", "add", "web").code == 0
    result = PATHS[path](cli, tmp_path)
    assert result.code == 0, result.err
    _assert_clean(db_path)
    shown = "".join(cli("--user", "alice", "--json", *command).out for command in (
        ["project", "list"], ["settings", "show"], ["profile", "show"]))
    assert "[REDACTED]" in shown
    assert not any(secret in shown for secret in SECRETS)


@pytest.mark.sqlite_only  # reads the store file's bytes
def test_engine_paths_redact_labels_and_detail_keys(engine_for, db_path: Path) -> None:
    alice = engine_for("alice")
    alice.identity.create_project("web")
    alice.recall.remember_interaction("i1", "what?", "that.", source=AWS_KEY)
    record = alice.recall.record_consolidation("dedupe", "done", {GITHUB_TOKEN: {"k": AWS_KEY}})
    assert record.detail == {"[REDACTED]": {"k": "[REDACTED]"}}
    task = alice.tasks.add_task("web", "goal", "prompt", "result", "2026-11-01T10:00:00Z",
                                "2026-11-01T10:10:00Z")
    other = alice.tasks.add_task("web", "goal 2", "prompt", "result", "2026-11-01T10:00:00Z",
                                 "2026-11-01T10:10:00Z")
    alice.tasks.add_followup(task.id, other.id, f"use {GITHUB_TOKEN}")
    alice.store.checkpoint()
    _assert_clean(db_path)


def test_one_helper_checks_then_redacts_then_checks_again() -> None:
    assert clean_text(f"  key {GITHUB_TOKEN} ", "x", strip=True) == "key [REDACTED]"
    with pytest.raises(Exception, match="one line"):
        clean_text("a\nb", "name", one_line=True)
    with pytest.raises(Exception, match="too long"):
        clean_text("ab " + GITHUB_TOKEN, "label", max_bytes=len("ab " + GITHUB_TOKEN) - 30)
    with pytest.raises(Exception, match="must be text"):
        clean_text(7, "label")
    assert redact_values({GITHUB_TOKEN: [AWS_KEY, 1]}) == {"[REDACTED]": ["[REDACTED]", 1]}
