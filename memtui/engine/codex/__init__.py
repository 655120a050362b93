"""Codex interoperability (spec/40): read a Codex home and its rollouts, curate, export.

Everything here is logic over files and plain dataclasses; the only SQL against Codex's
``memories_1.sqlite`` lives in ``memtui.store.codex_db``.
"""
