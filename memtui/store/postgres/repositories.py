"""The repository methods whose plan differs on PostgreSQL as a whole: searched lists
(``tsvector`` columns and ``to_tsquery('simple', ...)`` instead of FTS5 tables) and how
recall counts and scans full-text matches. Smaller differences are ``store.dialect``'s.

Every method returns what its SQLite original returns, in the same order, so the engine
and the tests see one behaviour. Full-text matching differs in one documented way: the
``simple`` configuration lowercases but keeps diacritics (FTS5's ``remove_diacritics``
folds them).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from memtui.errors import StoreError
from memtui.store import recall as recall_data
from memtui.store.memories import MemoryRepository
from memtui.store.memory_rows import MEMORY_COLUMNS, row_to_memory
from memtui.store.models import Memory, MemoryFilter, PageCursor
from memtui.store.paging import keyset_page, position_page
from memtui.store.recall import RecallRepository
from memtui.store.search_terms import MAX_QUERY_TERMS

if TYPE_CHECKING:
    from memtui.store.postgres.store import PostgresStore

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

    def narrowing(self, old_search: str | None,
                  new_search: str) -> Callable[[str], bool | None] | None:
        """None: PostgreSQL's ``simple`` text search parser (URLs, e-mail addresses,
        hyphenated words) is not mirrored in Python, so its lists always wait for the
        query."""
        return None

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


class PgRecallRepository(RecallRepository):
    """``RecallRepository`` with PostgreSQL's ranking (``ts_rank``): the same plan as on SQLite,
    carried out another way where a GIN index is slow (it reads all of a word's matches first).

    A word found to match more rows than the budget is remembered (``common_terms``) with its
    table's epoch, and a later recall at the same epoch takes the fact instead of counting (only
    a delete or a text change can lower a count, and each moves the epoch on). "Recent" reads the
    newest ``RECENT_WINDOW`` rows through the primary key first, and the GIN index only when the
    window holds too few matches (PostgreSQL would otherwise sort every match of words that come
    together)."""

    _TABLES = {"memories_fts": "memories", "tasks_fts": "tasks",
               "interactions_fts": "interactions"}
    RECENT_WINDOW = 4000
    """Newest rows read first for a "recent" list (see the class doc)."""

    def __init__(self, store: PostgresStore) -> None:
        super().__init__(store)
        self._pg = store

    def _capped_counts(self, fts_table: str, phrases: Sequence[str]) -> list[int]:
        """Each phrase's match count capped at ``RANK_BUDGET + 1`` (see the class doc), in
        one statement; the words found that common are remembered afterwards."""
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
        """Remember that each of ``queries`` matched at least ``at_least`` rows of
        ``table`` in a snapshot that saw ``epoch``; drop the facts of older epochs. After
        the count and outside the caller's transaction (so a reader that sees a fact began
        after the count); a failure (a role that may not write, say) only leaves the words
        to be counted again next time."""
        with contextlib.suppress(StoreError):
            self._pg.execute_apart(
                "INSERT INTO common_terms(source, query, at_least, epoch) "
                "SELECT ?, q, ?, ? FROM unnest(CAST(? AS text[])) q "
                "ON CONFLICT (source, query) DO UPDATE SET at_least = excluded.at_least, "
                "epoch = excluded.epoch WHERE common_terms.epoch < excluded.epoch "
                "OR (common_terms.epoch = excluded.epoch "
                "AND common_terms.at_least < excluded.at_least)",
                (table, at_least, epoch, list(queries)))
            self._pg.execute_apart(
                "DELETE FROM common_terms WHERE source = ? AND epoch < ?", (table, epoch))

    def _newest(self, table: str, columns: str, own: str, own_value: str, own_order: str,
                each: str, each_order: str, projects: Sequence[str],
                limit: int) -> list[Sequence[Any]]:
        """``RecallRepository._newest`` in one plan whatever the projects: SQLite's statement
        (a branch per list) planned afresh for every call costs PostgreSQL more than running
        it, so here the branch ``each`` runs for each project (``LATERAL``)."""
        select = f"SELECT created_at AS k_at, id AS k_id, {columns} FROM {table}"
        sql = f"({select} WHERE {own} ORDER BY created_at DESC, {own_order} DESC LIMIT ?)"
        params: list[Any] = [own_value, limit]
        if projects:
            sql += (f" UNION (SELECT b.* FROM (SELECT DISTINCT unnest(CAST(? AS text[])) "
                    f"AS project) p CROSS JOIN LATERAL ({select} WHERE "
                    f"{each.format(project='p.project')} ORDER BY "
                    f"created_at DESC, {each_order} DESC LIMIT ?) b)")
            params += [list(projects), limit]
        rows = self._store.execute(
            f"SELECT * FROM ({sql}) AS u ORDER BY k_at DESC, k_id DESC LIMIT ?",
            (*params, limit)).fetchall()
        return [row[2:] for row in rows]

    def _newest_matches(self, fts_table: str, table: str, alias: str, columns: str,
                        where: str, params: Sequence[Any], match: str,
                        limit: int) -> list[Sequence[Any]]:
        """``RecallRepository._newest_matches`` through the newest ``RECENT_WINDOW`` rows
        first (see the class doc)."""
        scan_cap = recall_data.RECENT_SCAN_CAP
        window = max(1, self.RECENT_WINDOW)
        # the newest rows, newest first through the primary key: a match's row is read once
        rows = self._store.execute(
            f"SELECT * FROM (SELECT ({where}) AS visible_, {columns} FROM (SELECT * FROM {table} "
            f"ORDER BY seq DESC LIMIT ?) {alias} WHERE {MATCHES.format(alias=alias)} "
            f"ORDER BY {alias}.seq DESC LIMIT ?) AS s WHERE s.visible_ LIMIT ?",
            (*params, window, match, scan_cap, limit)).fetchall()
        found = [row[1:] for row in rows]
        if len(found) >= limit:
            return found
        # Too few in the window: unless it held the whole table or RECENT_SCAN_CAP matches,
        # the older rows follow (the planner picks the GIN index or the key for them).
        rest = self._store.execute(
            f"WITH w AS MATERIALIZED (SELECT count(*) AS rows_, min(seq) AS low, "
            f"count(*) FILTER (WHERE {MATCHES.format(alias='b')}) AS hits FROM (SELECT seq, fts "
            f"FROM {table} ORDER BY seq DESC LIMIT ?) b) "
            f"SELECT * FROM (SELECT ({where}) AS visible_, {columns} FROM {table} {alias}, w "
            f"WHERE w.rows_ = ? AND w.hits < ? AND {alias}.seq < w.low "
            f"AND {MATCHES.format(alias=alias)} ORDER BY {alias}.seq DESC "
            f"LIMIT (SELECT greatest(? - hits, 0) FROM w)) AS s WHERE s.visible_ LIMIT ?",
            (match, window, *params, window, scan_cap, match, scan_cap,
             limit - len(found))).fetchall()
        return found + [row[1:] for row in rest]
