"""Codex interoperability: read a Codex home and its rollouts, curate, export.

The engine's door is ``api.CodexApi`` (``engine.codex``); each job has its own module (this
package imports nothing eagerly). The only writes (``notes.write_note``, ``curation``) are
refused without the caller's explicit consent; the only SQL against Codex's sqlite files
lives in ``memtui.store.codex_db``.
"""
