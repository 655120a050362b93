"""Secret redaction, applied to every text before it is stored (docs/redaction.md).

``redact(text)`` replaces secrets with ``[REDACTED]``; ``scan(text)`` also says which kinds
were found where (never the values). Standard library only; idempotent, linear time, and
ordinary text (prose, code, paths, UUIDs, hashes) comes through unchanged."""

from .engine import Finding, RedactionResult, findings_as_json, redact, scan
from .entropy import PLACEHOLDER

__all__ = ["PLACEHOLDER", "Finding", "RedactionResult", "findings_as_json", "redact", "scan"]
