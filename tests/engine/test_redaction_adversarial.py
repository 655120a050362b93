"""Adversarial inputs must redact in linear time (no catastrophic backtracking).

Each input is about 1 MB. The bound is a ratio of CPU times to redacting 1 MB of ordinary
prose measured in the same run (so a busy machine changes neither much): generous, since adversarial text is full of
near-matches, but it still catches quadratic or exponential behaviour, which on 1 MB would
take millions of times longer, by orders of magnitude.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from memtui.engine.redaction import redact

MB = 1_000_000
MAX_RATIO_TO_ORDINARY = 1000
"""An adversarial megabyte may take at most this many times an ordinary one (linear inputs
measure ~2-100x; a quadratic pass over 1 MB would be ~10^5x and more)."""
REFERENCE_RUNS = 3
"""Ordinary-text timings taken; the fastest is the reference (the least disturbed)."""
ORDINARY = "The deploy finished after the retry loop was fixed; see the notes in the handbook. "


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


def _timed(work: Callable[[], object]) -> float:
    """CPU seconds ``work`` took (other processes on a busy machine do not count)."""
    start = time.process_time()
    work()
    return max(time.process_time() - start, 1e-6)


@pytest.fixture(scope="module")
def ordinary_seconds() -> float:
    """CPU seconds to redact 1 MB of ordinary prose, on this machine, now."""
    text = _repeat(ORDINARY)
    return min(_timed(lambda: redact(text)) for _ in range(REFERENCE_RUNS))


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_input_is_linear(name: str, ordinary_seconds: float) -> None:
    text = ADVERSARIAL[name]
    out: list[str] = []
    elapsed = _timed(lambda: out.append(redact(text)))
    ratio = elapsed / ordinary_seconds
    assert ratio < MAX_RATIO_TO_ORDINARY, (
        f"{name}: {elapsed:.2f}s CPU, {ratio:.0f}x ordinary text ({ordinary_seconds:.3f}s)")
    assert isinstance(out[0], str)
