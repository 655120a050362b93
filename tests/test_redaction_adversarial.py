"""Adversarial inputs must redact in linear time (no catastrophic backtracking).

Each input is about 1 MB; the bound is generous (the bar is "well under a second" on an
idle machine) but still catches quadratic or exponential behaviour by orders of magnitude.
"""

from __future__ import annotations

import time

import pytest

from memtui.engine.redaction import redact

MB = 1_000_000
BOUND_SECONDS = 2.0


def _repeat(unit: str, size: int = MB) -> str:
    return (unit * (size // len(unit) + 1))[:size]


ADVERSARIAL = {
    "a=": _repeat("a="),
    "aaaa": "a" * MB,
    "Bearer ": _repeat("Bearer "),
    "unterminated PEM": _repeat("-----BEGIN RSA PRIVATE KEY-----\n"),
    "unterminated PEM no newline": _repeat("-----BEGIN RSA PRIVATE KEY-----"),
    "nested quotes": '"' * MB,
    "nested single quotes": _repeat("'\""),
    "password=": _repeat("password="),
    "token: ": _repeat("token: "),
    "api_key=\"": _repeat('api_key="'),
    "key-value pairs": _repeat("key=value&"),
    "url userinfo": _repeat("https://user:pass@"),
    "colons and at": _repeat(":@"),
    "curl -u": _repeat("curl -u a:"),
    "long token run": _repeat("ghp_abc123"),
    "long base64": _repeat("QWxhZGRpbjpvcGVuIHNlc2FtZQ"),
    "dashes": "-" * MB,
    "brackets": _repeat("[{(<"),
    "eyJ dots": _repeat("eyJhbGci."),
    "Authorization": _repeat("Authorization: Basic "),
    "k8s secret data": "kind: Secret\ndata:\n" + _repeat("  k: YWJjZGVmZ2hpamts\n"),
    "xml": _repeat("<token>"),
    "reverse compare": _repeat('"x" == password '),
    "flags": _repeat("--token --password "),
    "unicode": _repeat("пароль=секрет🙂 "),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_input_is_fast(name: str) -> None:
    text = ADVERSARIAL[name]
    start = time.perf_counter()
    out = redact(text)
    elapsed = time.perf_counter() - start
    assert elapsed < BOUND_SECONDS, f"{name}: {elapsed:.2f}s"
    assert isinstance(out, str)
