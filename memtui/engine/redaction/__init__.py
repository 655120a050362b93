"""Secret redaction (spec 20, "Redaction").

Applied to every text before it is stored. ``redact(text)`` replaces secrets with
``[REDACTED]``; ``scan(text)`` also says which kinds were found and where (spans in the
original text, never the values). Standard library only: no store, no UI.

Coverage: keyword assignments (``password=...``, ``"api_key": "..."``, ``--token ...``,
a JSON value on the line after its key, quoted passphrases with spaces), passwords in
prose (``my password is ...``, ``credentials are admin / ...``), ``Authorization:`` headers
and ``Bearer`` tokens, ~140 provider token formats (GitHub, GitLab, AWS, Google incl.
``GOCSPX-``/``ya29.``, Stripe incl. ``whsec_``, Slack, OpenAI, Anthropic, Docker, age,
Sentry, Fly.io, Vault, npm, PyPI, Twilio, SendGrid, Discord, Telegram, ...), JWTs, PEM
private key blocks, secrets in URLs (passwords, even with ``# / ? @``; a key as the user,
as in a Sentry DSN; a Telegram bot token in the path; an Azure SAS ``sig=``), command-line
passwords (curl ``-u``, ``docker login -p``, ``mysql -p...``, ``sshpass -p``), Markdown
table columns headed password/secret/token, Kubernetes Secret data. Idempotent, linear
time, and ordinary text (prose, code, paths, UUIDs, hashes) comes through unchanged.
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
