"""The repository methods whose SQL differs on PostgreSQL as a whole: full-text search
(``tsvector`` columns and ``to_tsquery('simple', ...)`` instead of FTS5 tables), the chain
walk (PostgreSQL allows one recursive reference per query) and extraction claiming.

Every method returns what its SQLite original returns, in the same order, so the engine
and the tests see one behaviour. Full-text matching differs in one documented way: the
``simple`` configuration lowercases but keeps diacritics (FTS5's ``remove_diacritics``
folds them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from memtui.store import recall as recall_data
from memtui.store.memories import MAX_QUERY_TERMS, MemoryRepository
from memtui.store.memory_rows import MEMORY_COLUMNS, row_to_memory
from memtui.store.models import Memory, MemoryFilter, PageCursor
from memtui.store.paging import keyset_page, position_page
from memtui.store.recall import MAX_RECALL_TERMS, RecallRepository
from memtui.store.tasks import DUE_FOR_SCAN, TaskRepository

_WORD = re.compile(r"\w+", re.UNICODE)
_M_COLUMNS = ", ".join("m." + c.strip() for c in MEMORY_COLUMNS.split(","))
MATCHES = "{alias}.fts @@ to_tsquery('simple', ?)"
"""A row whose full-text column matches the query parameter."""


def pg_tsquery(text: str, *, prefix_last: bool = True, any_term: bool = False) -> str | None:
    """What a person typed as a safe ``to_tsquery`` text: each word a quoted lexeme, the
    last one a prefix (``'migr':*``) unless the text ends with a space; all words must
    match (``&``), or any (``|``). None when there is no searchable word. The words are
    ``\\w+`` runs, so nothing typed is read as query syntax."""
    words = _WORD.findall(text or "")[:MAX_QUERY_TERMS]
    if not words:
        return None
    parts = [f"'{word}'" for word in words]
    if prefix_last and text and not text[-1].isspace():
        parts[-1] += ":*"
    return (" | " if any_term else " & ").join(parts)


def pg_terms(text: str) -> list[str]:
    """The distinct words of a recall query as ``to_tsquery`` lexemes (at most
    ``MAX_RECALL_TERMS``; no prefix matching)."""
    seen: dict[str, str] = {}
    for word in _WORD.findall(text or ""):
        seen.setdefault(word.casefold(), f"'{word}'")
    return list(seen.values())[:MAX_RECALL_TERMS]


class PgSearchPages:
    """A searched list's page, position and count queries: the list's own SQL with the
    full-text condition added (PostgreSQL's planner picks between the list's index and
    the GIN index by its statistics)."""

    def __init__(self, repo: MemoryRepository, flt: MemoryFilter, query: str) -> None:
        self.store = repo._store
        self.query = query
        self.clauses, self.params = repo._where(flt)

    def _select(self, select: str, extra: list[str], extra_params: list[Any],
                tail: str, tail_params: list[Any]) -> list[Any]:
        where = [*self.clauses, MATCHES.format(alias="m"), *extra]
        sql = f"SELECT {select} FROM memories m WHERE {' AND '.join(where)} {tail}"
        return list(self.store.execute(sql, (*self.params, self.query, *extra_params,
                                             *tail_params)).fetchall())

    def page(self, limit: int, after: PageCursor | None,
             before: PageCursor | None) -> list[Memory]:
        """``MemoryRepository.page`` for a searched list (same rows, same order)."""
        page = keyset_page("m.created_at", "m.id", after, before)
        rows = self._select(_M_COLUMNS, list(page.clauses), list(page.params),
                            f"ORDER BY {page.order} LIMIT ?", [limit])
        return page.in_list_order([row_to_memory(row) for row in rows])

    def at(self, offset: int, limit: int, from_end: bool) -> list[Memory]:
        """``MemoryRepository.list_at`` for a searched list."""
        page = position_page("m.created_at", "m.id", from_end)
        rows = self._select(_M_COLUMNS, [], [], f"ORDER BY {page.order} LIMIT ? OFFSET ?",
                            [limit, max(0, offset)])
        return page.in_list_order([row_to_memory(row) for row in rows])

    def count(self) -> int:
        """How many rows the searched list holds."""
        return int(self._select("count(*)", [], [], "", [])[0][0])

    def count_at_most(self, cap: int) -> int:
        """The count, or ``cap`` when the list holds at least that many rows."""
        rows = self._select("count(*) FROM (SELECT 1", [], [], "LIMIT ?) AS capped", [cap])
        return int(rows[0][0])


class PgMemoryRepository(MemoryRepository):
    """``MemoryRepository`` with PostgreSQL's full-text search and chain walk."""

    def _searched(self, flt: MemoryFilter) -> PgSearchPages | None:  # type: ignore[override]
        query = pg_tsquery(flt.search) if flt.search else None
        if query is None:
            return None
        return PgSearchPages(self, flt, query)

    MATCH_CLAUSE = MATCHES.format(alias="m")

    def search_query(self, text: str) -> str | None:
        """``pg_tsquery`` of the typed text."""
        return pg_tsquery(text)

    def search_ranked(self, flt: MemoryFilter, limit: int, *,
                      any_term: bool = False) -> list[Memory]:
        """Full-text matches in the list's scope, best first (``ts_rank``; ties newest
        first)."""
        query = pg_tsquery(flt.search or "", any_term=any_term)
        if query is None:
            return []
        clauses, params = self._where(flt)
        sql = (f"SELECT {_M_COLUMNS} FROM memories m, to_tsquery('simple', ?) q "
               f"WHERE m.fts @@ q AND {' AND '.join(clauses)} "
               "ORDER BY ts_rank(m.fts, q) DESC, m.seq DESC LIMIT ?")
        rows = self._store.execute(sql, (query, *params, limit)).fetchall()
        return [row_to_memory(row) for row in rows]

    def chain_ids(self, memory_id: str) -> list[str]:
        """Every id connected to this memory by supersede links (both directions)."""
        rows = self._store.execute(
            """
            WITH RECURSIVE chain(id) AS (
                SELECT CAST(? AS text) COLLATE "C"
                UNION
                SELECT n.id FROM chain c CROSS JOIN LATERAL (
                    SELECT m.superseded_by AS id FROM memories m
                        WHERE m.id = c.id AND m.superseded_by IS NOT NULL
                    UNION ALL
                    SELECT m.id FROM memories m WHERE m.superseded_by = c.id
                ) n
            )
            SELECT id FROM chain
            """, (memory_id,)).fetchall()
        return [row[0] for row in rows]

    def merge_fulltext(self) -> None:
        """Nothing to merge: a GIN index drops a deleted row's entries when it is vacuumed."""


class PgRecallRepository(RecallRepository):
    """``RecallRepository`` with PostgreSQL's full-text ranking (``ts_rank``)."""

    _TABLES = {"memories_fts": "memories", "tasks_fts": "tasks",
               "interactions_fts": "interactions"}

    def _capped_count(self, fts_table: str, phrase: str) -> int:
        table = self._TABLES[fts_table]
        row = self._store.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {table} x WHERE {MATCHES.format(alias='x')} "
            "LIMIT ?) AS capped", (phrase, recall_data.RANK_BUDGET + 1)).fetchone()
        return int(row[0])

    ANY_TERM = " | "
    ALL_TERMS = " & "

    def _terms(self, text: str) -> list[str]:
        """``to_tsquery`` terms: the selective words ranked together (``|``), or every
        (common) word required (``&``)."""
        return pg_terms(text)

    def _related(self, fts_table: str, table: str, alias: str, columns: str, where: str,
                 params: Sequence[Any], text: str, limit: int) -> list[Sequence[Any]]:
        plan = self._plan(fts_table, text)
        if plan is None:
            return []
        mode, match = plan
        if mode == "rank":
            sql = (f"SELECT {columns} FROM {table} {alias}, to_tsquery('simple', ?) q "
                   f"WHERE {alias}.fts @@ q AND {where} "
                   f"ORDER BY ts_rank({alias}.fts, q) DESC, {alias}.seq DESC LIMIT ?")
            return list(self._store.execute(sql, (match, *params, limit)).fetchall())
        sql = (f"SELECT {alias}.seq, ({where}) FROM {table} {alias} "
               f"WHERE {MATCHES.format(alias=alias)} ORDER BY {alias}.seq DESC LIMIT ?")
        seqs = [seq for seq, visible in self._store.execute(
            sql, (*params, match, recall_data.RECENT_SCAN_CAP)).fetchall() if visible][:limit]
        return self._rows_in_order(table, alias, columns, seqs)


class PgTaskRepository(TaskRepository):
    """``TaskRepository`` on PostgreSQL: extraction workers on several machines claim the
    tasks they scan (``FOR UPDATE SKIP LOCKED``) and take turns per goal."""

    def claim(self, task_ids: Sequence[str]) -> list[str]:
        """Lock the rows of ``task_ids`` that no other transaction holds and that are still
        due, skipping the held ones (another worker scans them) and the ones another worker
        scanned since the caller listed them (workers walking one round in the same order
        land on each other's finished batches); the claimed ids in the order given. The
        locks last until the transaction ends."""
        if not task_ids:
            return []
        rows = self._store.execute(
            "SELECT t.id FROM tasks t LEFT JOIN extraction_log l ON l.task_id = t.id "
            f"WHERE t.id = ANY(?) AND {DUE_FOR_SCAN} ORDER BY t.id FOR UPDATE OF t SKIP LOCKED",
            (list(task_ids),)).fetchall()
        claimed = {row[0] for row in rows}
        return [task_id for task_id in task_ids if task_id in claimed]

    def active_auto_for_goal(self, project: str, goal_key: str) -> str | None:
        """``TaskRepository.active_auto_for_goal``, after taking the goal's lock for the
        rest of the transaction: two workers extracting tasks of one goal take turns, so
        the goal's chain never forks.

        The goal's rows come from the goal index in a materialised step and are ordered
        after it: asked for the newest row directly, a planner short of fresh statistics
        (while a round is adding memories) walks the project's active memories newest
        first instead -- SQLite's ``INDEXED BY`` pins the same choice."""
        self._store.execute("SELECT pg_advisory_xact_lock(hashtext(?), hashtext(?))",
                            (project, goal_key))
        row = self._store.execute(
            "WITH goal AS MATERIALIZED (SELECT id, created_at FROM memories "
            "WHERE project = ? AND goal_key = ? AND status = 'active' AND source = 'auto') "
            "SELECT id FROM goal ORDER BY created_at DESC, id DESC LIMIT 1",
            (project, goal_key)).fetchone()
        return row[0] if row else None
