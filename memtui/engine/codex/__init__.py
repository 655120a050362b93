"""Codex interoperability: read a Codex home and its rollouts, curate, export (the door:
``api.CodexApi``). Writes need the caller's explicit consent; the SQL is in ``store.codex_db``.
"""
