"""Codex interoperability (spec/40): read a Codex home and its rollouts, curate, export.

Entry points (import them from their modules; this package imports nothing eagerly):

- ``paths.resolve_codex_home`` / ``paths.resolve_codex_sqlite_home``: where things are;
- ``reader.read_codex_home``: everything in a home, read-only, with one ``Problem`` per bad
  item and ``diagnosis`` (``diagnosis.diagnose_jobs``) of a stuck consolidation;
- ``rollouts.read_rollouts``: session rollouts as finished tasks (``RolloutTask``);
- ``notes.write_note`` and ``curation.forget_thread`` / ``curation.plan_forget_thread``:
  the only writes, each refused without the caller's explicit consent;
- ``export_format.render_export`` + ``export_writer.write_export``: memtui's store written
  out in Codex's folder format.

The only SQL against Codex's ``memories_1.sqlite`` lives in ``memtui.store.codex_db``.
"""
