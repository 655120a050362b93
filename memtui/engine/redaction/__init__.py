"""Secret redaction, applied to every text before it is stored.

``redact(text)`` replaces secrets with ``[REDACTED]``; ``scan(text)`` also says which kinds
were found and where (spans in the original text, never the values). Standard library only:
no store, no UI. What it covers is listed in docs/redaction.md. Idempotent, linear time, and
ordinary text (prose, code, paths, UUIDs, hashes) comes through unchanged.
"""

from .engine import Finding, RedactionResult, findings_as_json, redact, scan
from .entropy import PLACEHOLDER

__all__ = [
    "PLACEHOLDER",
    "Finding",
    "RedactionResult",
    "findings_as_json",
    "redact",
    "scan",
]
