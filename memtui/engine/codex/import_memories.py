"""Codex memories -> memtui memories: each thread's stage-1 output and each ad-hoc note becomes
one memory (``source = import``, ``source_thread_id`` the thread id or ``codex-note:<file>``),
redacted and cut to the size limit. Importing twice adds nothing.
"""

from __future__ import annotations

import os
import re
from functools import partial
from pathlib import Path

from memtui.engine.codex.browse import database_problem
from memtui.engine.codex.export_format import one_line
from memtui.engine.codex.import_report import (
    KIND_NOTE,
    KIND_THREAD,
    NOTE_THREAD_PREFIX,
    OUTCOME_SKIPPED,
    REASON_DB_UNREADABLE,
    REASON_EMPTY,
    REASON_MEMORY_MODE,
    REASON_NOT_IN_DB,
    Importer,
    ImportItem,
    ImportReport,
)
from memtui.engine.codex.models import CodexHome, ThreadMemory, ThreadMeta
from memtui.engine.codex.naming import NOTE_NAME_RE
from memtui.engine.codex.parsers import first_line, parse_front_matter, strip_front_matter
from memtui.engine.codex.paths import NOTES_DIR_PARTS, RAW_MEMORIES_FILE, ROLLOUT_SUMMARIES_DIR
from memtui.engine.codex.reader import read_codex_home
from memtui.engine.project_picker import ProjectPicker, usable_cwd

ROLLOUT_SUMMARY_HEADING = "Rollout summary:"
FALLBACK_TITLE = "Codex thread {thread_id}"
_PREFERENCE_RE = re.compile(
    r"^\s*(?:(?:the\s+)?user\s+|i\s+)?(?:prefers?|likes?|dislikes?|wants?|would\s+rather)\b",
    re.IGNORECASE)
"""A first line that clearly states a preference ("prefers uv", "I like ...")."""
PREFERENCE_SLUG_PREFIX = "prefer"
"""A note whose file-name slug starts so is a preference too (``...-prefer-uv-over-pip.md``)."""


def thread_memory_text(thread_id: str, raw_memory: str, rollout_summary: str) -> str:
    """The memory text of a thread: a title line, the raw memory, then the rollout summary."""
    front = parse_front_matter(raw_memory)
    title = one_line(front.get("description") or front.get("task") or "") \
        or FALLBACK_TITLE.format(thread_id=thread_id)
    summary = rollout_summary.strip()
    parts = (title, strip_front_matter(raw_memory),
             f"{ROLLOUT_SUMMARY_HEADING}\n{summary}" if summary else "")
    return "\n\n".join(part for part in parts if part)


def note_kind(file_name: str, text: str) -> str:
    """``preference`` when a note clearly states one (slug or first line), else ``fact``."""
    match = NOTE_NAME_RE.match(file_name)
    by_slug = match is not None and match.group(2).startswith(PREFERENCE_SLUG_PREFIX)
    return "preference" if by_slug or _PREFERENCE_RE.match(first_line(text)) else "fact"


class MemoryImporter(Importer):
    """Stage-1 outputs and ad-hoc notes of a Codex home become memtui memories, as the
    engine's user and through the engine's rules (permissions, redaction, validation)."""

    def import_memories(self, home: str | os.PathLike[str], *,
                        db_busy_timeout_s: float | None = None) -> ImportReport:
        """Stage-1 outputs and ad-hoc notes of a home become memories. When the memory
        database exists but cannot be read, no thread is imported (``database_error`` says
        why); notes are imported all the same."""
        codex = read_codex_home(home, db_busy_timeout_s=db_busy_timeout_s)
        items: list[ImportItem] = []
        picker = ProjectPicker(self._engine)
        db_error = database_problem(codex)
        threads = codex.threads_by_id()
        for ref, found in codex.memory_by_thread().items():
            items.append(self._import_thread(codex, ref, found, threads.get(ref), db_error,
                                             picker))
        for note in codex.notes:
            path = str(Path(codex.memories_dir).joinpath(*NOTES_DIR_PARTS, note.file_name))
            ref = f"{NOTE_THREAD_PREFIX}{note.file_name}"
            if not note.text.strip():
                items.append(ImportItem(KIND_NOTE, ref, OUTCOME_SKIPPED, REASON_EMPTY,
                                        "the note is empty", path=path))
            else:  # a note has no cwd: no project is picked
                items.append(self._write_memory(KIND_NOTE, ref, note.text,
                                                note_kind(note.file_name, note.text), None,
                                                path, picker))
        report = ImportReport(codex.home, tuple(items), codex.problems, tuple(picker.created),
                              db_error)
        self._audit("codex_memories_imported", report)
        return report

    def _import_thread(self, codex: CodexHome, ref: str,
                       found: ThreadMemory, meta: ThreadMeta | None, db_error: str | None,
                       picker: ProjectPicker) -> ImportItem:
        """One thread from its database row, else from the markdown files."""
        row, entry, summary = found
        memories = Path(codex.memories_dir)
        path = (codex.sqlite_path if row else str(memories / RAW_MEMORIES_FILE) if entry
                else str(memories / ROLLOUT_SUMMARIES_DIR / summary.file) if summary else None)
        skip = partial(ImportItem, KIND_THREAD, ref, OUTCOME_SKIPPED, path=path)
        if meta is not None and not meta.memory_usable:
            return skip(REASON_MEMORY_MODE, f"memory_mode = {meta.memory_mode}, history_mode = "
                        f"{meta.history_mode}: Codex itself does not use this thread's memory")
        if db_error is not None:
            return skip(REASON_DB_UNREADABLE, "Codex's memory database could not be read (see "
                        "problems); import again when it can")
        if codex.database_read and row is None:
            return skip(REASON_NOT_IN_DB, "only in the markdown files, not in Codex's database "
                        "(forgotten or not yet indexed by Codex)")
        raw_memory = row.raw_memory if row else entry.body if entry else ""
        rollout_summary = row.rollout_summary if row else summary.body if summary else ""
        if not raw_memory.strip() and not rollout_summary.strip():
            return skip(REASON_EMPTY, "no raw memory and no rollout summary")
        if row is not None and not raw_memory.strip():
            # Codex 0.169 (the v2 layout) keeps no raw memory: the rollout summary is it
            text = rollout_summary.strip()
        else:
            text = thread_memory_text(ref, raw_memory, rollout_summary)
        cwd = row.cwd if row else (  # a row's cwd already falls back on the files'
            (entry.cwd if entry else None) or (summary.cwd if summary else None))
        return self._write_memory(KIND_THREAD, ref, text, "fact", usable_cwd(cwd), path, picker)
