"""SQL for the service's data (interactions, bundles, consolidation records) and the recall
queries; the engine passes in the visible scope.

Every query is bounded by an index: "recent" lists merge a newest-first branch per visible
list; "related" lists count each word's matches (up to ``RANK_BUDGET``) and rank the rarest
words whose matches fit the budget together, else take the newest ``RECENT_SCAN_CAP`` rows
holding every word.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memtui.jsonable import JsonMixin
from memtui.store.dialect import marks, qualified
from memtui.store.memories import MEMORY_COLUMNS, row_to_memory
from memtui.store.models import BundleDocument, Interaction, Memory, Task
from memtui.store.paging import rows_in_order
from memtui.store.repository import Repository, row_maker, row_values
from memtui.store.tasks import TASK_COLUMNS, row_to_task

if TYPE_CHECKING:
    from memtui.store.backend import StoreBackend
    from memtui.store.dialect import Dialect

RANK_BUDGET = 1000
"""At most this many full-text matches are ranked (bm25) for one related list."""
RECENT_SCAN_CAP = 2000
"""When every query word is too common to rank, at most this many newest matches are read."""
MAX_RECALL_TERMS = 8
"""A recall query keeps at most this many distinct words."""
RECENT_SCORE = 1.0
"""The score of every row a "recent" plan finds (they are not ranked against each other)."""
COUNT_CACHE_SIZE = 4096
"""Words whose probed counts a thread keeps between two writes (more are counted each time)."""
BRANCHES_PER_QUERY = 100
"""Newest-first branches (one per visible list) merged in one compound SELECT."""

_TERM = re.compile(r"\w+(?:\|\w+)*", re.UNICODE)
_M_COLUMNS = qualified(MEMORY_COLUMNS, "m")
_T_COLUMNS = qualified(TASK_COLUMNS, "t")
_I_COLUMNS = "id, user_id, project_id, question, answer, source, created_at"
"""The interactions columns, in the order of ``Interaction``'s fields."""
_D_COLUMNS = "bundle_id, path, revision, content, updated_at, updated_by"
"""The bundle_documents columns, in the order of ``BundleDocument``'s fields."""
_interaction = row_maker(Interaction)
_document = row_maker(BundleDocument)


@dataclass(frozen=True)
class BundleSummary:
    """A bundle without its documents' content: each document's path and revision."""

    id: str
    project: str | None
    schedule: str | None
    created_by: str
    created_at: str
    updated_at: str
    documents: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class ConsolidationRecord(JsonMixin):
    """One row of ``consolidations``: a consolidation that happened, and how it went."""

    id: str
    user: str
    kind: str
    outcome: str
    detail: dict[str, Any]
    at: str


def recall_terms(text: str, dialect: Dialect) -> list[str]:
    """The distinct (case-folded) words of a recall query as full-text terms of ``dialect``,
    at most ``MAX_RECALL_TERMS``; ``lint|linter`` is one term matching either word."""
    seen: dict[str, str] = {}
    for group in _TERM.findall(text or ""):
        seen.setdefault(group.casefold(), dialect.any_of(group.split("|")))
    return list(seen.values())[:MAX_RECALL_TERMS]


class RecallRepository(Repository):
    """Interactions, bundles, bundle documents, consolidation records, recall queries."""

    # ---- full-text planning ---------------------------------------------------------------

    def __init__(self, store: StoreBackend) -> None:
        super().__init__(store)
        self._counted = threading.local()

    def _capped_counts(self, fts_table: str, phrases: Sequence[str]) -> list[int]:
        """Each phrase's match count (at most ``RANK_BUDGET + 1``), kept until the store changes."""
        stamp = self._store.change_stamp()
        kept = self._counted
        if stamp is None or getattr(kept, "stamp", None) != stamp:
            kept.stamp, kept.counts = stamp, {}
        counts: dict[tuple[str, str], int] = kept.counts
        found = []
        for phrase in phrases:
            count = counts.get((fts_table, phrase))
            if count is None:
                count = self._count(
                    f"SELECT count(*) FROM (SELECT rowid FROM {fts_table} WHERE {fts_table} "
                    "MATCH ? LIMIT ?)", (phrase, RANK_BUDGET + 1))
                if stamp is not None and len(counts) < COUNT_CACHE_SIZE:
                    counts[fts_table, phrase] = count
            found.append(count)
        return found

    def _plan(self, fts_table: str, text: str) -> tuple[str, str] | None:
        """``("rank", match)`` for the selective words, ``("recent", match)`` for the newest
        rows holding every (common) word, or None when no word is in the index."""
        phrases = recall_terms(text, self._store.dialect)
        counts = [(count, phrase) for count, phrase
                  in zip(self._capped_counts(fts_table, phrases), phrases, strict=True) if count]
        if not counts:
            return None
        counts.sort()
        chosen: list[str] = []
        total = 0
        for count, phrase in counts:
            if total + count > RANK_BUDGET:
                break
            chosen.append(phrase)
            total += count
        if chosen:
            return "rank", self._store.dialect.any_term.join(chosen)
        return "recent", self._store.dialect.all_terms.join(phrase for _count, phrase in counts)

    def _related(self, fts_table: str, table: str, alias: str, columns: str, where: str,
                 params: Sequence[Any], text: str, limit: int,
                 recent_limit: int | None = None) -> list[Sequence[Any]]:
        """Rows of ``table`` (as ``alias``) related to ``text`` satisfying ``where``, best
        first, each with its score last (a "recent" plan's: ``RECENT_SCORE``, at most
        ``recent_limit`` of them when given)."""
        plan = self._plan(fts_table, text)
        if plan is None:
            return []
        mode, match = plan
        if mode == "rank":
            sql = self._store.dialect.ranked(fts_table, table, alias, columns, where)
            return list(self._store.execute(sql, (match, *params, limit)).fetchall())
        return [(*row, RECENT_SCORE) for row in self._newest_matches(
            fts_table, table, alias, columns, where, params, match,
            limit if recent_limit is None else recent_limit)]

    def _newest_matches(self, fts_table: str, table: str, alias: str, columns: str,
                        where: str, params: Sequence[Any], match: str,
                        limit: int) -> list[Sequence[Any]]:
        """The first ``limit`` visible rows among the newest ``RECENT_SCAN_CAP`` matching ones."""
        sql = (f"SELECT f.rowid, ({where}) FROM {fts_table} f JOIN {table} {alias} "
               f"ON {alias}.seq = f.rowid WHERE {fts_table} MATCH ? ORDER BY f.rowid DESC")
        cursor = self._store.execute(sql, (*params, match))
        seqs: list[int] = []
        try:
            for scanned, (seq, visible) in enumerate(cursor, start=1):
                if visible:
                    seqs.append(seq)
                if len(seqs) >= limit or scanned >= RECENT_SCAN_CAP:
                    break
        finally:
            cursor.close()
        return rows_in_order(self._store.execute, table, alias, columns, seqs)

    # ---- memory recall --------------------------------------------------------------------

    def scored_memories(self, text: str, owner: str, projects: Sequence[str], limit: int,
                        recent_limit: int | None = None) -> list[tuple[Memory, float]]:
        """The owner's and ``projects``' active memories matching ``text``, with their scores."""
        visible = ("m.status = 'active' AND ((m.scope = 'user' AND m.owner = ?) "
                   f"OR m.project IN {self._store.dialect.json_values()})")
        rows = self._related("memories_fts", "memories", "m", _M_COLUMNS, visible,
                             (owner, json.dumps(list(projects))), text, limit, recent_limit)
        return [(row_to_memory(row[:-1]), float(row[-1])) for row in rows]

    def recent_memories(self, owner: str, projects: Sequence[str], limit: int) -> list[Memory]:
        """The newest active memories among the owner's user-level ones and ``projects``'."""
        rows = self._newest("memories", MEMORY_COLUMNS,
                            "owner = ? AND scope = 'user' AND status = 'active'", owner, "id",
                            "project = {project} AND status = 'active'", "id", projects, limit)
        return [row_to_memory(row) for row in rows]

    # ---- task cards -----------------------------------------------------------------------

    def related_tasks(self, text: str, user_id: str, projects: Sequence[str], limit: int,
                      project: str | None = None) -> list[Task]:
        """The user's and ``projects``' (or only ``project``'s) tasks matching ``text``."""
        params: tuple[str, ...]
        if project is not None:
            where, params = "t.project_id = ?", (project,)
        else:
            where = f"(t.user_id = ? OR t.project_id IN {self._store.dialect.json_values()})"
            params = (user_id, json.dumps(list(projects)))
        rows = self._related("tasks_fts", "tasks", "t", _T_COLUMNS, where, params, text, limit)
        return [row_to_task(row[:-1]) for row in rows]

    def recent_tasks(self, user_id: str, projects: Sequence[str], limit: int,
                     project: str | None = None) -> list[Task]:
        """The newest tasks of the user and ``projects`` (or only ``project``'s)."""
        if project is not None:
            rows = self._newest("tasks", TASK_COLUMNS, "project_id = ?", project, "seq",
                                "", "", [], limit)
        else:
            rows = self._newest("tasks", TASK_COLUMNS, "user_id = ?", user_id, "id",
                                "project_id = {project}", "seq", projects, limit)
        return [row_to_task(row) for row in rows]

    # ---- newest-first branches ------------------------------------------------------------

    def _newest(self, table: str, columns: str, own: str, own_value: str, own_order: str,
                each: str, each_order: str, projects: Sequence[str],
                limit: int) -> list[Sequence[Any]]:
        """``columns`` of the ``limit`` newest rows of ``table`` in the branch ``own`` (its
        parameter: ``own_value``) and the branch ``each`` per project (``{project}``), each
        read through its list's newest-first index."""
        branch = ("SELECT seq, created_at, id FROM {table} WHERE {where} "
                  "ORDER BY created_at DESC, {order} DESC LIMIT ?")
        branches = [(branch.format(table=table, where=own, order=own_order), (own_value, limit))]
        branches += [(branch.format(table=table, where=each.format(project="?"),
                                    order=each_order), (project, limit)) for project in projects]
        found: dict[int, tuple[str, str]] = {}
        for start in range(0, len(branches), BRANCHES_PER_QUERY):
            part = branches[start:start + BRANCHES_PER_QUERY]
            sql = " UNION ALL ".join(f"SELECT * FROM ({sql}) AS b{index}"
                                     for index, (sql, _) in enumerate(part))
            params = [value for _, values in part for value in values]
            for seq, created_at, row_id in self._store.execute(sql, params).fetchall():
                found[seq] = (created_at, row_id)
        ordered = sorted(found.items(), key=lambda item: item[1], reverse=True)
        seqs = [seq for seq, _key in ordered[:limit]]
        return rows_in_order(self._store.execute, table, "r", columns, seqs)

    # ---- interactions ---------------------------------------------------------------------

    def insert_interaction(self, interaction: Interaction) -> bool:
        """Insert a question/answer pair; False when the user already has one with this id."""
        return self._store.execute(
            f"INSERT INTO interactions({_I_COLUMNS}) VALUES ({marks(_I_COLUMNS.split(','))}) "
            "ON CONFLICT(user_id, id) DO NOTHING", row_values(interaction)).rowcount == 1

    def get_interaction(self, user_id: str, interaction_id: str) -> Interaction | None:
        """The user's interaction with this id, or None."""
        return self._one(_interaction, f"SELECT {_I_COLUMNS} FROM interactions WHERE user_id = ? "
                         "AND id = ?", (user_id, interaction_id))

    def recent_interactions(self, user_id: str, limit: int,
                            project: str | None = None) -> list[Interaction]:
        """The user's newest interactions (only ``project``'s when given)."""
        extra, params = ("AND project_id = ? ", (project,)) if project is not None else ("", ())
        return self._all(_interaction, f"SELECT {_I_COLUMNS} FROM interactions WHERE user_id = ? "
                         f"{extra}ORDER BY created_at DESC, seq DESC LIMIT ?",
                         (user_id, *params, limit))

    def related_interactions(self, text: str, user_id: str, limit: int,
                             project: str | None = None) -> list[Interaction]:
        """The user's interactions whose question or answer matches ``text``, best first."""
        where, params = "x.user_id = ?", [user_id]
        if project is not None:
            where += " AND x.project_id = ?"
            params.append(project)
        rows = self._related("interactions_fts", "interactions", "x",
                             qualified(_I_COLUMNS, "x"), where, params, text, limit)
        return [_interaction(row) for row in rows]

    # ---- bundles --------------------------------------------------------------------------

    def _summaries(self, sql: str, params: Sequence[Any]) -> list[BundleSummary]:
        """The bundles ``sql`` (``_BUNDLE_SELECT``'s columns) finds, with their documents."""
        rows = self._store.execute(sql, params).fetchall()
        if not rows:
            return []
        ids = [row[0] for row in rows]
        docs: dict[str, list[tuple[str, int]]] = {bundle_id: [] for bundle_id in ids}
        for bundle_id, path, revision in self._store.execute(
                f"SELECT bundle_id, path, revision FROM bundle_documents WHERE bundle_id IN "
                f"({marks(ids)}) ORDER BY bundle_id, path", ids):
            docs[bundle_id].append((path, revision))
        return [BundleSummary(id=row[0], project=row[1], schedule=row[2], created_by=row[3],
                              created_at=row[4], updated_at=row[5] or row[4],
                              documents=tuple(docs[row[0]])) for row in rows]

    _BUNDLE_SELECT = ("SELECT b.id, b.project_id, b.schedule, b.created_by, b.created_at, "
                      "(SELECT max(d.updated_at) FROM bundle_documents d WHERE d.bundle_id = b.id) "
                      "AS updated FROM bundles b ")

    def get_bundle(self, bundle_id: str) -> BundleSummary | None:
        """One bundle's summary, or None."""
        found = self._summaries(self._BUNDLE_SELECT + "WHERE b.id = ?", (bundle_id,))
        return found[0] if found else None

    def visible_bundles(self, owner: str, projects: Sequence[str],
                        limit: int) -> list[BundleSummary]:
        """The owner's schedule bundles and ``projects``' bundles, last changed first."""
        return self._summaries(
            "SELECT * FROM (" + self._BUNDLE_SELECT
            + "WHERE (b.schedule IS NOT NULL AND b.created_by = ?) "
            f"OR b.project_id IN {self._store.dialect.json_values()}) AS v "
            "ORDER BY coalesce(v.updated, v.created_at) DESC, v.id LIMIT ?",
            (owner, json.dumps(list(projects)), limit))

    def ensure_bundle(self, bundle_id: str, project: str | None, schedule: str | None,
                      created_by: str, at: str) -> None:
        """Create the bundle row if it is missing."""
        self._store.execute(
            "INSERT INTO bundles(id, project_id, schedule, created_by, created_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING",
            (bundle_id, project, schedule, created_by, at))

    def documents(self, bundle_id: str) -> list[BundleDocument]:
        """Every document of a bundle, by path."""
        return self._all(_document, f"SELECT {_D_COLUMNS} FROM bundle_documents "
                         "WHERE bundle_id = ? ORDER BY path", (bundle_id,))

    def document(self, bundle_id: str, path: str) -> BundleDocument | None:
        """One document, or None."""
        return self._one(_document, f"SELECT {_D_COLUMNS} FROM bundle_documents "
                         "WHERE bundle_id = ? AND path = ?", (bundle_id, path))

    def document_revision(self, bundle_id: str, path: str) -> int:
        """A document's current revision; 0 when it does not exist."""
        return self._count("SELECT coalesce(max(revision), 0) FROM bundle_documents "
                           "WHERE bundle_id = ? AND path = ?", (bundle_id, path))

    def count_documents(self, bundle_id: str) -> int:
        """How many documents a bundle holds."""
        return self._count("SELECT count(*) FROM bundle_documents WHERE bundle_id = ?",
                           (bundle_id,))

    def put_document(self, bundle_id: str, path: str, content: str, expected_revision: int,
                     at: str, by: str) -> int | None:
        """Compare-and-set one document (``expected_revision`` 0: create); None when stale."""
        if expected_revision == 0:
            cursor = self._store.execute(
                f"INSERT INTO bundle_documents({_D_COLUMNS}) VALUES (?, ?, 1, ?, ?, ?) "
                "ON CONFLICT(bundle_id, path) DO NOTHING", (bundle_id, path, content, at, by))
            return 1 if cursor.rowcount == 1 else None
        cursor = self._store.execute(
            "UPDATE bundle_documents SET content = ?, revision = revision + 1, updated_at = ?, "
            "updated_by = ? WHERE bundle_id = ? AND path = ? AND revision = ?",
            (content, at, by, bundle_id, path, expected_revision))
        return expected_revision + 1 if cursor.rowcount == 1 else None

    # ---- consolidation records ------------------------------------------------------------

    def insert_consolidation(self, record: ConsolidationRecord) -> None:
        """Record a consolidation that happened."""
        self._store.execute(
            "INSERT INTO consolidations(id, user_id, kind, outcome, detail, at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (record.id, record.user, record.kind, record.outcome,
             json.dumps(record.detail, sort_keys=True, ensure_ascii=False), record.at))

    def consolidations(self, user_id: str, limit: int) -> list[ConsolidationRecord]:
        """The user's consolidation records, newest first."""
        return self._all(
            lambda row: ConsolidationRecord(row[0], row[1], row[2], row[3], _object(row[4]),
                                            row[5]),
            "SELECT id, user_id, kind, outcome, detail, at FROM consolidations "
            "WHERE user_id = ? ORDER BY at DESC, seq DESC LIMIT ?", (user_id, limit))


def _object(text: str) -> dict[str, Any]:
    """A stored JSON object (anything else, or text that is not JSON: empty)."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}
