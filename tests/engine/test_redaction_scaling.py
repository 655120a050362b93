"""The detectors added for issue 13 (prose passwords, credential pairs, command lines,
Markdown tables, URL passwords and keys, SAS signatures, FlyV1, Twilio, JSON next-line
values) stay linear on hostile input.

No wall-clock bound (a busy machine slows everything): each input is redacted at two sizes,
eight times apart, and the CPU time must grow like the size, not like its square. A
linear detector gives a ratio near 8; a quadratic one near 64. The bound leaves room for
noise and still catches the latter.
"""

from __future__ import annotations

import time

import pytest

from memtui.engine.redaction import redact

SMALL = 20_000
GROWTH = 8
#: Largest accepted CPU-time ratio between the large and the small input (linear: ~8).
MAX_RATIO = 24
#: Below this many CPU seconds the small run is too short to time; it is repeated.
MIN_TIMED = 0.005
RUNS = 3


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


HOSTILE = {
    "password is": "password is ",
    "password for words is": "password for a b c is ",
    "passphrase's": "passphrase's ",
    "credentials pair": "credentials are a / ",
    "creds slash": "creds: a/",
    "dash p": "-p ",
    "docker login -p": "docker login -p ",
    "mysql -p glued": "mysql -pX",
    "password-stdin": "echo a | docker login --password-stdin ",
    "sshpass": "sshpass -p ",
    "pipes and -p": "| -p ",
    "table separators": "|---",
    "table rows": "| token |\n|---|\n",
    "url userinfo": "https://u:p@",
    "url long user": "://" + "a" * 200,
    "url key user": "https://" + "a" * 20 + "@",
    "url at signs": "https://u:@@@@",
    "sas sig": "&sig=%2B",
    "flyv1": "FlyV1 fm2_",
    "fly commas": "FlyV1 fm2_" + "Ab1+" * 6 + ",",
    "auth token": "auth token ",
    "auth token newline": "auth token\n",
    "json next line": '"password":\n  ',
    "json next line quote": '"password":\n"',
    "telegram path": "/bot123456:",
    "ya29 dots": "ya29.aB3.",
}


def _cpu(text: str) -> float:
    best = float("inf")
    for _ in range(RUNS):
        reps = 1
        while True:
            start = time.process_time()
            for _ in range(reps):
                redact(text)
            spent = time.process_time() - start
            if spent >= MIN_TIMED or reps >= 64:
                break
            reps *= 4
        best = min(best, spent / reps)
    return max(best, 1e-6)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_scales_linearly(name: str) -> None:
    unit = HOSTILE[name]
    small = _repeat(unit, SMALL)
    large = _repeat(unit, SMALL * GROWTH)
    ratio = _cpu(large) / _cpu(small)
    assert ratio < MAX_RATIO, f"{name}: {GROWTH}x the input took {ratio:.1f}x the CPU time"


def test_unterminated_table_and_long_rows_are_bounded() -> None:
    # One header, a separator, then a very long body of rows: every cell is looked at once.
    body = _repeat("| x | " + "aB3$xY9zQ" + " |\n", SMALL * GROWTH)
    text = "| user | password |\n|---|---|\n" + body
    out = redact(text)
    assert "aB3$xY9zQ" not in out
