"""Secrets never reach the database file, its WAL, or the audit log, on any write path."""

from __future__ import annotations

from pathlib import Path

import pytest

GITHUB_TOKEN = "ghp_" + "R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s12"
AWS_KEY = "AKIA" + "QWERTYUIOPASDFGH"
PASSWORD_LINE = "password=" + "Tr0ub4dor&3xyz!"
SECRETS = (GITHUB_TOKEN, AWS_KEY, "Tr0ub4dor&3xyz!")


def _file_bytes(db: Path) -> bytes:
    data = b""
    for suffix in ("", "-wal"):
        path = Path(str(db) + suffix)
        if path.exists():
            data += path.read_bytes()
    return data


def _assert_clean(db: Path) -> None:
    data = _file_bytes(db)
    for secret in SECRETS:
        assert secret.encode() not in data, secret


@pytest.fixture
def web(cli) -> None:
    assert cli("--user", "alice", "project", "add", "web").code == 0


PLANTED = f"deploy with {GITHUB_TOKEN} and {AWS_KEY}; {PASSWORD_LINE}"

PATHS = {
    "memory add": lambda cli: cli("--user", "alice", "memory", "add", PLANTED, "--kind", "fact"),
    "project memory": lambda cli: cli("--user", "alice", "memory", "add", PLANTED, "--kind",
                                      "fact", "--project", "web"),
    "note": lambda cli: cli("--user", "alice", "note", PLANTED, "--project", "web"),
    "supersede": lambda cli: cli("--user", "alice", "memory", "supersede", cli(
        "--user", "alice", "--json", "memory", "add", "plain", "--kind", "fact").json["id"],
        PLANTED),
    "profile value": lambda cli: cli("--user", "alice", "profile", "set", "--name", PLANTED,
                                     "--pref", f'deploy="{GITHUB_TOKEN} {AWS_KEY} {PASSWORD_LINE}"'),
    "task": lambda cli: cli("--user", "alice", "task", "add", "--project", "web", "--goal",
                            PLANTED, "--prompt", PLANTED, "--result", PLANTED * 10,
                            "--started", "2026-11-01T10:00:00Z",
                            "--finished", "2026-11-01T10:10:00Z"),
}


@pytest.mark.parametrize("path", sorted(PATHS))
def test_secret_planted_through_each_path_never_reaches_the_file(cli, web, db_path, path) -> None:
    result = PATHS[path](cli)
    assert result.code == 0, result.err
    _assert_clean(db_path)


def test_extracted_memory_is_redacted(cli, web, db_path) -> None:
    cli("--user", "alice", "settings", "set", "generate_memories=1")
    cli("--user", "alice", "quota", "set", "--unlimited")
    task = cli("--user", "alice", "--json", "task", "add", "--project", "web", "--goal",
               f"rotate {GITHUB_TOKEN}", "--prompt", "p", "--result",
               (PLANTED + " ") * 10, "--started", "2026-11-01T10:00:00Z", "--finished",
               "2026-11-01T10:10:00Z")
    assert task.code == 0, task.err
    assert cli("--user", "alice", "run", "--force").code == 0
    listed = cli("--user", "alice", "--json", "memory", "list", "--project", "web",
                 "--source", "auto").json
    assert listed["count"] == 1 and "[REDACTED]" in listed["items"][0]["content"]
    _assert_clean(db_path)


def test_forgotten_content_leaves_no_bytes_behind(cli, web, db_path) -> None:
    phrase = "Vermilion-Okapi-Cipher rendezvous at pier nine"
    first = cli("--user", "alice", "--json", "memory", "add", phrase, "--kind", "fact",
                "--project", "web").json["id"]
    cli("--user", "alice", "memory", "supersede", first, phrase + " moved to pier ten")
    assert phrase.encode() in _file_bytes(db_path)
    assert cli("--user", "alice", "memory", "forget", first, "--yes").code == 0
    data = _file_bytes(db_path)
    assert phrase.encode() not in data
    assert b"Vermilion-Okapi-Cipher" not in data
    audit = cli("--user", "alice", "--json", "audit", "--limit", "50").out
    assert "Vermilion" not in audit
