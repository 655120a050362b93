"""Redaction of the harder kinds (issue 13, item 9), driven by the repository's own corpus
``tests/data/redaction_extra.jsonl``: every labelled secret is removed (and only it), every
look-alike next to it comes through unchanged, and the benchmark reports each kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.bench.redaction import EXTRA_CORPUS, score_extra
from memtui.engine.redaction import PLACEHOLDER, findings_as_json, redact, scan

ROWS = [json.loads(line) for line in EXTRA_CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
SECRETS = [r for r in ROWS if r["secret"]]
NEGATIVES = [r for r in ROWS if not r["secret"]]

#: The kinds issue 13 asks for, each with cases that must be caught and look-alikes.
KINDS = {
    "prose-password",
    "provider-token",
    "url-secret",
    "command-line-password",
    "json-next-line",
    "markdown-table",
    "twilio-auth-token",
    "private-key-id",
    "quoted-passphrase",
}


def _ids(rows: list[dict]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for r in rows:
        base = f"{r['kind']}:{r['rule']}"
        seen[base] = seen.get(base, 0) + 1
        out.append(f"{base}:{seen[base]}")
    return out


def test_corpus_has_every_kind_with_secrets_and_lookalikes() -> None:
    assert EXTRA_CORPUS == Path(__file__).parents[1] / "data" / "redaction_extra.jsonl"
    assert {r["kind"] for r in ROWS} == KINDS
    for kind in KINDS:
        assert sum(1 for r in SECRETS if r["kind"] == kind) >= 4, kind
        assert sum(1 for r in NEGATIVES if r["kind"] == kind) >= 4, kind
    for r in SECRETS:
        assert r["spans"] and all(0 <= s < e <= len(r["text"]) for s, e in r["spans"]), r["rule"]


@pytest.mark.parametrize("row", SECRETS, ids=_ids(SECRETS))
def test_secret_is_removed_and_only_it(row: dict) -> None:
    text = row["text"]
    result = scan(text)
    for s, e in row["spans"]:
        assert text[s:e] not in result.text, row["rule"]
        # A finding covers the whole labelled secret...
        assert any(f.start <= s and e <= f.end for f in result.findings), (row["rule"], s, e)
    # ...and every finding is one of the labelled secrets (nothing else in the row is touched).
    for f in result.findings:
        assert any(s <= f.start and f.end <= e for s, e in row["spans"]), (row["rule"], f.kind)
    assert redact(result.text) == result.text


@pytest.mark.parametrize("row", NEGATIVES, ids=_ids(NEGATIVES))
def test_lookalike_is_untouched(row: dict) -> None:
    result = scan(row["text"])
    assert result.findings == (), (row["rule"], findings_as_json(result.findings))
    assert result.text == row["text"]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("printed " + "whsec_" + "Q3vL9xT2mK8pR4wZ7nB1cY6dF0gH5jS2", "stripe-webhook-secret"),
        ("GOCSPX-" + "Lq9xT2mK8pR4wZ7nB1cY6dF0gH5j", "google-oauth-client-secret"),
        ("dckr_pat_" + "Lq9xT2mK8pR4wZ7nB1cY6dF0gH5", "docker-pat"),
        ("Root Token: hvs." + "Lq9xT2mK8pR4wZ7nB1cY6dF0", "hashicorp-vault-token"),
        ("https://api.telegram.org/bot" + "5829301746:AAH3kLq9ZpX2mW7vR4tY8uN1bC6dE0fGhJk" + "/getMe", "telegram-bot-token"),
        ("https://" + "7d34fa6492edca0ee7b9b90e25700e3c" + "@o450123.ingest.sentry.io/5501234", "sentry-dsn"),
        ("auth token " + "718ddd6d9b6c8df3856977da84999a05", "twilio-auth-token"),
        ("mysql -uroot -p" + "T7vLq2Zx9m" + " shop", "command-line-password"),
        ("my password is " + "Tr0ub4dor&3x", "password-in-prose"),
        ("credentials are admin / " + "Vx93-kLpq!7", "credential-pair"),
        ("| user | password |\n|---|---|\n| app | " + "Qx7#mLp2" + " |", "markdown-table-secret"),
    ],
)
def test_finding_kind_names_the_secret(text: str, kind: str) -> None:
    result = scan(text)
    assert [f.kind for f in result.findings] == [kind]
    assert PLACEHOLDER in result.text


def test_url_password_with_special_characters_keeps_user_and_host() -> None:
    out = redact("postgresql://app:" + "p#5Lq/9x@Z?w" + "@db.internal:5432/app?sslmode=require")
    assert out == f"postgresql://app:{PLACEHOLDER}@db.internal:5432/app?sslmode=require"


def test_port_and_path_with_at_sign_is_not_a_password() -> None:
    for text in ("http://localhost:5173/@vite/client", "https://medium.com:443/@someone/post"):
        assert redact(text) == text


def test_every_cell_of_a_secret_column_and_no_other() -> None:
    table = (
        "| env | user | password | note |\n"
        "|:----|------|:--------:|------|\n"
        "| dev | app | " + "Dv3$kLm9q" + " | x7Rk29Qm |\n"
        "| qa | app | `" + "Qa8!zPw2rT" + "` | rotated |\n"
        "| prod | app | <redacted> | vault |\n"
        "\n"
        "| after | the | table |\n"
    )
    out = redact(table)
    assert "Dv3$kLm9q" not in out and "Qa8!zPw2rT" not in out
    assert "x7Rk29Qm" in out  # the note column is not a secret column
    assert "<redacted>" in out and "| after | the | table |" in out
    assert out.count(PLACEHOLDER) == 2


def test_json_value_on_the_next_line_keeps_the_layout() -> None:
    text = '{\n  "password":\n    "' + "Vm3#qT8zLp2x" + '",\n  "user": "svc"\n}'
    assert redact(text) == '{\n  "password":\n    "' + PLACEHOLDER + '",\n  "user": "svc"\n}'


def test_docker_login_password_stdin_from_echo() -> None:
    text = "echo '" + "Pq9zL2xT7vK4" + "' | docker login -u me --password-stdin ghcr.io"
    assert redact(text) == f"echo '{PLACEHOLDER}' | docker login -u me --password-stdin ghcr.io"
    # -p after another command on the same line belongs to that command, not to docker login.
    assert redact("docker login ghcr.io && docker run -p 8080:80 nginx") == (
        "docker login ghcr.io && docker run -p 8080:80 nginx"
    )


def test_benchmark_reports_every_kind() -> None:
    score = score_extra()
    assert set(score["kinds"]) == KINDS
    for kind, k in score["kinds"].items():
        assert k["secret_rows"] >= 4 and k["negative_rows"] >= 4, kind
        assert k["recall"] == 1.0, (kind, score["missed"])
        assert k["false_positives"] == 0, (kind, score["false_positive_rows"])
    assert score["caught"] == score["secret_rows"] == len(SECRETS)
    assert score["negative_rows"] == len(NEGATIVES)
    # Results name rules, never values.
    dumped = json.dumps(score)
    for row in SECRETS:
        for s, e in row["spans"]:
            assert row["text"][s:e] not in dumped


def test_benchmark_scores_a_miss_and_a_false_positive(tmp_path: Path) -> None:
    rows = [
        {"text": "nothing secret here at all", "secret": True, "kind": "k", "rule": "r1", "spans": [[0, 7]]},
        {"text": "token: " + "Zx9pQ2mN4vKwL8rT", "secret": False, "kind": "k", "rule": "r2"},
        {"text": "The password field is required.", "secret": False, "kind": "k", "rule": "r3"},
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    score = score_extra(path)
    assert score["kinds"]["k"]["recall"] == 0.0 and score["missed"] == [("k", "r1")]
    assert score["false_positive_rows"] == [("k", "r2")]
    assert score["false_positive_rate"] == pytest.approx(0.5)
