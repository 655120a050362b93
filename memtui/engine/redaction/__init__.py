"""Secret redaction (spec 20, "Redaction").

Applied to every text before it is stored. ``redact(text)`` replaces secrets with
``[REDACTED]``; ``scan(text)`` also says which kinds were found and where (spans in the
original text, never the values). Standard library only: no store, no UI.

Coverage: keyword assignments (``password=...``, ``"api_key": "..."``, ``--token ...``),
``Authorization:`` headers and ``Bearer`` tokens, ~130 provider token formats (GitHub,
GitLab, AWS, Google, Stripe, Slack, OpenAI, Anthropic, npm, PyPI, Twilio, SendGrid,
Discord, Telegram, ...), JWTs, PEM private key blocks, passwords in URLs and curl
options, Kubernetes Secret data. Idempotent, linear time, and ordinary text (prose,
code, paths, UUIDs, hashes) comes through unchanged.
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
