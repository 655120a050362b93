"""Recall on PostgreSQL, whose plan differs as a whole: how it counts and scans full-text
matches. Every method returns what its SQLite original returns, in the same order (but the
``simple`` configuration keeps diacritics, which FTS5 folds).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memtui.errors import StoreError
from memtui.store import recall as recall_data
from memtui.store.recall import RecallRepository

if TYPE_CHECKING:
    from memtui.store.postgres.store import PostgresStore


class PgRecallRepository(RecallRepository):
    """``RecallRepository`` with ``ts_rank``, where a GIN index is slow (it reads all of a word's
    matches first): a word more common than the budget is remembered with its table's epoch
    (``common_terms``); "recent" reads the newest ``RECENT_WINDOW`` rows by key first."""

    _TABLES = {"memories_fts": "memories", "tasks_fts": "tasks",
               "interactions_fts": "interactions"}
    RECENT_WINDOW = 4000
    """Newest rows read first for a "recent" list (see the class doc)."""
    _store: PostgresStore

    def _capped_counts(self, fts_table: str, phrases: Sequence[str]) -> list[int]:
        """Each phrase's match count (at most ``RANK_BUDGET + 1``); common words are remembered."""
        if not phrases:
            return []
        table = self._TABLES[fts_table]
        cap = recall_data.RANK_BUDGET + 1
        rows = self._store.execute(
            "WITH words AS (SELECT u.ord, q.tq, numnode(q.tq) AS nodes, q.tq::text AS key "
            "FROM unnest(CAST(? AS text[])) WITH ORDINALITY AS u(phrase, ord) "
            "CROSS JOIN LATERAL (SELECT to_tsquery('simple', u.phrase) AS tq) q), "
            "here AS (SELECT e.epoch FROM term_epochs e WHERE e.source = ?) "
            "SELECT w.key, here.epoch, c.query IS NOT NULL, "
            "CASE WHEN w.nodes = 0 THEN 0 WHEN c.query IS NOT NULL THEN ? "
            f"ELSE (SELECT count(*) FROM (SELECT 1 FROM {table} x WHERE x.fts @@ w.tq "
            "LIMIT ?) AS capped) END "
            "FROM words w CROSS JOIN here LEFT JOIN common_terms c ON c.source = ? "
            "AND c.query = w.key AND c.epoch = here.epoch AND c.at_least >= ? "
            "ORDER BY w.ord",
            (list(phrases), table, cap, cap, table, cap)).fetchall()
        fresh = sorted({row[0] for row in rows if row[3] >= cap and not row[2]})
        if fresh:
            self._remember_common(table, fresh, cap, int(rows[0][1]))
        return [min(int(row[3]), cap) for row in rows]

    def _remember_common(self, table: str, queries: Sequence[str], at_least: int,
                         epoch: int) -> None:
        """Remember that ``queries`` matched at least ``at_least`` rows of ``table`` at
        ``epoch`` (dropping older epochs' facts), outside the caller's transaction; a failure
        only leaves the words to be counted again."""
        with contextlib.suppress(StoreError):
            self._store.execute_apart(
                "INSERT INTO common_terms(source, query, at_least, epoch) "
                "SELECT ?, q, ?, ? FROM unnest(CAST(? AS text[])) q "
                "ON CONFLICT (source, query) DO UPDATE SET at_least = excluded.at_least, "
                "epoch = excluded.epoch WHERE common_terms.epoch < excluded.epoch "
                "OR (common_terms.epoch = excluded.epoch "
                "AND common_terms.at_least < excluded.at_least)",
                (table, at_least, epoch, list(queries)))
            self._store.execute_apart(
                "DELETE FROM common_terms WHERE source = ? AND epoch < ?", (table, epoch))

    def _newest(self, table: str, columns: str, own: str, own_value: str, own_order: str,
                each: str, each_order: str, projects: Sequence[str],
                limit: int) -> list[Sequence[Any]]:
        """``RecallRepository._newest`` in one plan whatever the projects (planning a branch
        per list costs PostgreSQL more than running it): ``each`` runs per project
        (``LATERAL``)."""
        select = f"SELECT created_at AS k_at, id AS k_id, {columns} FROM {table}"
        sql = f"({select} WHERE {own} ORDER BY created_at DESC, {own_order} DESC LIMIT ?)"
        params: list[Any] = [own_value, limit]
        if projects:
            sql += (f" UNION (SELECT b.* FROM (SELECT DISTINCT unnest(CAST(? AS text[])) "
                    f"AS project) p CROSS JOIN LATERAL ({select} WHERE "
                    f"{each.format(project='p.project')} ORDER BY "
                    f"created_at DESC, {each_order} DESC LIMIT ?) b)")
            params += [list(projects), limit]
        return self._all(lambda row: row[2:], f"SELECT * FROM ({sql}) AS u "
                         "ORDER BY k_at DESC, k_id DESC LIMIT ?", (*params, limit))

    def _newest_matches(self, fts_table: str, table: str, alias: str, columns: str,
                        where: str, params: Sequence[Any], match: str,
                        limit: int) -> list[Sequence[Any]]:
        """``RecallRepository._newest_matches`` through the newest ``RECENT_WINDOW`` rows first."""
        scan_cap = recall_data.RECENT_SCAN_CAP
        window = max(1, self.RECENT_WINDOW)
        matches = self._store.dialect.matches
        # the newest rows, newest first through the primary key: a match's row is read once
        found = self._all(
            lambda row: row[1:],
            f"SELECT * FROM (SELECT ({where}) AS visible_, {columns} FROM (SELECT * FROM {table} "
            f"ORDER BY seq DESC LIMIT ?) {alias} WHERE {matches(fts_table, alias)} "
            f"ORDER BY {alias}.seq DESC LIMIT ?) AS s WHERE s.visible_ LIMIT ?",
            (*params, window, match, scan_cap, limit))
        if len(found) >= limit:
            return found
        # Too few in the window: unless it held the whole table or RECENT_SCAN_CAP matches,
        # the older rows follow (the planner picks the GIN index or the key for them).
        return found + self._all(
            lambda row: row[1:],
            f"WITH w AS MATERIALIZED (SELECT count(*) AS rows_, min(seq) AS low, "
            f"count(*) FILTER (WHERE {matches(fts_table, 'b')}) AS hits FROM (SELECT seq, fts "
            f"FROM {table} ORDER BY seq DESC LIMIT ?) b) "
            f"SELECT * FROM (SELECT ({where}) AS visible_, {columns} FROM {table} {alias}, w "
            f"WHERE w.rows_ = ? AND w.hits < ? AND {alias}.seq < w.low "
            f"AND {matches(fts_table, alias)} ORDER BY {alias}.seq DESC "
            f"LIMIT (SELECT greatest(? - hits, 0) FROM w)) AS s WHERE s.visible_ LIMIT ?",
            (match, window, *params, window, scan_cap, match, scan_cap, limit - len(found)))
