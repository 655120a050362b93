"""Codex interoperability: read a Codex home and its rollouts, curate, export.

The engine's door is ``api.CodexApi`` (``engine.codex``); each job has its own module
(import them from their modules; this package imports nothing eagerly):

- ``paths`` / ``config.codex_sqlite_home``: where the home and its databases are;
- ``layout``: which of Codex's three database layouts a home has, in words;
- ``reader.read_codex_home`` / ``browse``: everything in a home, read-only, with one
  ``Problem`` per bad item and ``diagnosis`` (``diagnosis.diagnose_jobs``, Codex's claim rules);
- ``import_memories``, ``import_rollouts`` (``rollouts`` reads the files): into memtui;
- ``export``: memtui's store as a Codex folder (``export_format`` + ``export_writer``);
- ``notes.write_note`` and ``curation.forget_thread`` / ``curation.plan_forget_thread``:
  the only writes, each refused without the caller's explicit consent.

The only SQL against Codex's sqlite files lives in ``memtui.store.codex_db``.
"""
