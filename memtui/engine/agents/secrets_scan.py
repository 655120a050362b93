"""Secrets in an agent's files, found by memtui's redaction engine (``redaction.scan``).

A finding names the file, the line and the kind of secret, never the value.
"""

from __future__ import annotations

from bisect import bisect_right

from memtui.engine.agents.models import SecretFinding
from memtui.engine.redaction import scan


def line_starts(text: str) -> list[int]:
    """Offsets where each line of ``text`` starts."""
    starts = [0]
    position = text.find("\n")
    while position >= 0:
        starts.append(position + 1)
        position = text.find("\n", position + 1)
    return starts


def find_secrets(path: str, text: str) -> tuple[SecretFinding, ...]:
    """Every secret in ``text`` as (path, 1-based line, kind)."""
    result = scan(text)
    if not result.findings:
        return ()
    starts = line_starts(text)
    return tuple(SecretFinding(path, bisect_right(starts, finding.start), finding.kind)
                 for finding in result.findings)
