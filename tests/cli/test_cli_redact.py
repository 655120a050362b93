"""``memtui redact``: stdin to stdout, and the JSON Lines mode with findings (never values)."""

from __future__ import annotations

import io
import json

import pytest

from memtui.cli.main import main

PEM = ("-----BEGIN RSA PRIVATE KEY-----\n"
       + "\n".join("MIIEowIBAAKCAQEA7x9k2Qw3ZpLm8RtY5vN1cB4aH6jK0sD2fG8hJ3kL9mN4pQ7r" for _ in range(6))
       + "\n-----END RSA PRIVATE KEY-----\n")
TOKEN = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa99"


def _run(monkeypatch: pytest.MonkeyPatch, stdin: str, *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    out, err = io.StringIO(), io.StringIO()
    code = main(["redact", *args], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_plain_mode_redacts_multiline_secrets_and_keeps_the_rest(monkeypatch) -> None:
    text = f"build ok\nexport GITHUB_TOKEN={TOKEN}\n{PEM}see /usr/lib/x.so\n"
    code, out, _ = _run(monkeypatch, text)
    assert code == 0
    assert TOKEN not in out and "MIIEowIBAAKCAQEA" not in out
    assert out.startswith("build ok\n") and out.endswith("see /usr/lib/x.so\n")
    assert "[REDACTED]" in out


def test_ordinary_text_passes_unchanged(monkeypatch) -> None:
    text = "def f(x):\n    return x + 1  # 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b\n"
    assert _run(monkeypatch, text)[1] == text


def test_jsonl_mode_adds_redacted_and_findings_without_values(monkeypatch) -> None:
    lines = json.dumps({"text": f"token {TOKEN} here", "id": 7}) + "\n" + \
        json.dumps({"text": "nothing secret"}) + "\n"
    code, out, _ = _run(monkeypatch, lines, "--jsonl")
    assert code == 0
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["id"] == 7 and TOKEN not in first["redacted"]
    assert first["findings"] and all(set(f) == {"kind", "start", "end"} for f in first["findings"])
    span = first["findings"][0]
    original = f"token {TOKEN} here"
    assert original[span["start"]:span["end"]] == TOKEN  # spans point into the input
    assert TOKEN not in out  # the output never holds the original text
    assert first["text"] == first["redacted"]
    assert second["redacted"] == "nothing secret" and second["findings"] == []


def test_jsonl_mode_skips_bad_lines_and_says_so(monkeypatch) -> None:
    lines = "not json\n" + json.dumps([1]) + "\n" + json.dumps({"text": 5}) + "\n" + \
        "[" * 10000 + "\n" + json.dumps({"text": "ok"}) + "\n"
    code, out, err = _run(monkeypatch, lines, "--jsonl")
    assert code == 5
    assert [json.loads(line)["redacted"] for line in out.splitlines()] == ["ok"]
    assert err.count("skipped") == 4


def test_json_mode_is_one_object_without_the_original(monkeypatch) -> None:
    text = f"build ok\nexport GITHUB_TOKEN={TOKEN}\n{PEM}"
    code, out, _ = _run(monkeypatch, text, "--json")
    assert code == 0
    result = json.loads(out)
    assert set(result) == {"redacted", "findings"}
    assert TOKEN not in out and "MIIEowIBAAKCAQEA" not in out
    assert result["redacted"].startswith("build ok\n")
    assert {f["kind"] for f in result["findings"]} and all(
        set(f) == {"kind", "start", "end"} for f in result["findings"])


def test_usage_errors_name_the_program_once() -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["memory", "add", "x", "--kind"], stdout=out, stderr=err)
    assert code == 2
    line = err.getvalue().strip()
    assert line.startswith("memtui: error: memory add: ") and line.count("memtui") == 1
