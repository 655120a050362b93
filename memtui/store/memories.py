"""SQL for identity memories, their full-text index, chains and forgotten-source tombstones."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from memtui.store.dialect import marks, qualified
from memtui.store.fts_levels import keep_levels_bounded
from memtui.store.models import Memory, MemoryFilter, PageCursor
from memtui.store.paging import keyset_page, position_page
from memtui.store.repository import Repository, columns_of, row_maker, row_values
from memtui.store.search_terms import fts_query, narrowing_matcher

if TYPE_CHECKING:
    from memtui.store.search_pages import SearchPages

MEMORY_COLUMNS = columns_of(Memory)
"""The memories columns a ``Memory`` is made of, in the order of its fields."""
row_to_memory = row_maker(Memory)
"""A memories row (in MEMORY_COLUMNS order, then any other columns) as a Memory."""
_M_COLUMNS = qualified(MEMORY_COLUMNS, "m")
_INSERT = (f"INSERT INTO memories({MEMORY_COLUMNS}, goal_key, replaces) "
           f"VALUES ({marks(MEMORY_COLUMNS.split(','))}, ?, ?)")
MAX_CHAIN_STEPS = 100_000
"""A chain walk stops after this many versions (a cycle in a damaged store ends)."""
FTS_MERGE_PAGES_AFTER_FORGET = 64
"""Index pages merged after a forget, so the forgotten words leave older segments now."""
T = TypeVar("T")


class MemoryRepository(Repository):
    """Memories, chains, full-text search, tombstones."""

    # single rows
    def get(self, memory_id: str) -> Memory | None:
        """One memory by id (no visibility check: the engine does that)."""
        return self._one(row_to_memory, f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ?",
                         (memory_id,))

    def insert(self, memory: Memory, goal_key: str | None = None,
               replaces: str | None = None) -> None:
        """Insert a memory (``replaces``: the memory a pending correction would supersede)."""
        self._store.execute(_INSERT, (*row_values(memory), goal_key, replaces))

    def insert_many(self, rows: Iterable[tuple[Memory, str | None]]) -> None:
        """Insert many memories at once (demo, bench, import)."""
        self._store.conn.executemany(
            _INSERT, ((*row_values(memory), goal, None) for memory, goal in rows))

    def mark_superseded(self, memory_id: str, replaced_by: str, at: str) -> None:
        """Make an active memory superseded by another."""
        self._store.execute(
            "UPDATE memories SET status = 'superseded', superseded_by = ?, updated_at = ? "
            "WHERE id = ?", (replaced_by, at, memory_id))

    # review (pending memories)
    def replaces(self, memory_id: str) -> str | None:
        """The memory a pending correction would supersede (None for a plain new one)."""
        return self._text("SELECT replaces FROM memories WHERE id = ?", (memory_id,))

    def chain_head(self, memory_id: str) -> str | None:
        """The newest version of ``memory_id``'s chain (None: no such memory)."""
        return self._text(
            """
            WITH RECURSIVE newer(id, depth) AS (
                SELECT id, 0 FROM memories WHERE id = ?
                UNION ALL
                SELECT m.superseded_by, n.depth + 1 FROM memories m JOIN newer n ON m.id = n.id
                    WHERE m.superseded_by IS NOT NULL AND n.depth < ?
            )
            SELECT id FROM newer ORDER BY depth DESC LIMIT 1
            """, (memory_id, MAX_CHAIN_STEPS))

    def pending_for(self, user_id: str, source: str | None,
                    limit: int) -> list[tuple[Memory, str | None]]:
        """Pending memories ``user_id`` may see, oldest first, with what each would replace."""
        clauses, params = self._pending_where(user_id, source)
        return self._all(lambda row: (row_to_memory(row), row[-1]),
                         f"SELECT {_M_COLUMNS}, m.replaces FROM memories m"
                         f"{self._store.dialect.indexed_by('memories_pending')} "
                         f"WHERE {clauses} ORDER BY m.created_at, m.id LIMIT ?", (*params, limit))

    def count_pending(self, user_id: str, source: str | None = None) -> int:
        """How many pending memories ``user_id`` may see."""
        clauses, params = self._pending_where(user_id, source)
        return self._count(
            f"SELECT count(*) FROM memories m{self._store.dialect.indexed_by('memories_pending')} "
            f"WHERE {clauses}", params)

    @staticmethod
    def _pending_where(user_id: str, source: str | None) -> tuple[str, list[Any]]:
        clauses = ("m.status = 'pending' AND ((m.scope = 'user' AND m.owner = ?) OR "
                   "(m.scope = 'project' AND m.project IN "
                   "(SELECT project_id FROM project_members WHERE user_id = ?)))")
        params: list[Any] = [user_id, user_id]
        if source is not None:
            clauses += " AND m.source = ?"
            params.append(source)
        return clauses, params

    def pending_replacing(self, memory_ids: Sequence[str]) -> list[str]:
        """Pending corrections that would replace any of these memories."""
        if not memory_ids:
            return []
        return self._texts(f"SELECT id FROM memories WHERE replaces IN ({marks(memory_ids)}) "
                           "AND status = 'pending'", tuple(memory_ids))

    def activate(self, memory_id: str, content: str, kind: str, at: str) -> None:
        """A pending memory becomes active (approved), with its text as approved."""
        self._store.execute(
            "UPDATE memories SET status = 'active', replaces = NULL, content = ?, kind = ?, "
            "updated_at = ? WHERE id = ? AND status = 'pending'", (content, kind, at, memory_id))

    def revise_pending(self, memory_id: str, content: str, kind: str, at: str) -> None:
        """A pending memory's text revised in place by the agent that wrote it."""
        self._store.execute(
            "UPDATE memories SET content = ?, kind = ?, updated_at = ? "
            "WHERE id = ? AND status = 'pending'", (content, kind, at, memory_id))

    def bump_usage(self, memory_ids: Sequence[str], at: str) -> None:
        """Count one more use of each memory (an injection)."""
        self._store.conn.executemany(
            "UPDATE memories SET usage_count = usage_count + 1, last_used_at = ? WHERE id = ?",
            ((at, memory_id) for memory_id in memory_ids))

    def touch(self, memory_ids: Sequence[str], at: str) -> None:
        """Mark each memory used at ``at`` without counting a use (kept after a review)."""
        self._store.conn.executemany("UPDATE memories SET last_used_at = ? WHERE id = ?",
                                     ((at, memory_id) for memory_id in memory_ids))

    def unused(self, flt: MemoryFilter, before: str, limit: int, scan: int) -> list[Memory]:
        """The list's memories last used (or made) before ``before``, among its ``scan`` newest."""
        clauses, params = self._where(flt)
        return self._all(
            row_to_memory,
            f"SELECT * FROM (SELECT {_M_COLUMNS} FROM memories m WHERE {' AND '.join(clauses)} "
            "AND m.created_at < ? ORDER BY m.created_at DESC, m.id DESC LIMIT ?) AS s "
            "WHERE coalesce(s.last_used_at, s.created_at) < ? "
            "ORDER BY s.created_at DESC, s.id DESC LIMIT ?", (*params, before, scan, before, limit))

    def goal_key(self, memory_id: str) -> str | None:
        """The normalised goal an auto memory was extracted for."""
        return self._text("SELECT goal_key FROM memories WHERE id = ?", (memory_id,))

    # chains
    def chain_ids(self, memory_id: str) -> list[str]:
        """Every id connected to this memory by supersede links (both directions)."""
        return self._texts(self._store.dialect.chain_walk, (memory_id,))

    def get_many(self, memory_ids: Sequence[str]) -> list[Memory]:
        """Memories by id, oldest first (ties by id)."""
        if not memory_ids:
            return []
        return self._all(row_to_memory, f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id IN "
                         f"({marks(memory_ids)}) ORDER BY created_at, id", tuple(memory_ids))

    def delete_many(self, memory_ids: Sequence[str]) -> int:
        """Physically delete memories (their full-text rows go by trigger)."""
        if not memory_ids:
            return 0
        in_list = marks(memory_ids)
        ids = tuple(memory_ids)
        # Unlink first so no surviving row points into the deleted set.
        self._store.execute(
            f"UPDATE memories SET superseded_by = NULL WHERE superseded_by IN ({in_list})", ids)
        return self._store.execute(f"DELETE FROM memories WHERE id IN ({in_list})", ids).rowcount

    def merge_fulltext(self) -> None:
        """A bounded full-text index merge after a forget (nothing on PostgreSQL)."""
        if not self._store.dialect.is_sqlite:
            return
        self._store.execute("INSERT INTO memories_fts(memories_fts, rank) VALUES ('merge', ?)",
                            (-FTS_MERGE_PAGES_AFTER_FORGET,))
        keep_levels_bounded(self._store, "memories_fts")

    # lists
    def _where(self, flt: MemoryFilter) -> tuple[list[str], list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        if flt.scope == "user":
            clauses += ["m.owner = ?", "m.scope = 'user'"]
            params.append(flt.owner)
        else:
            clauses.append("m.project = ?")
            params.append(flt.project)
        for column, value in (("status", flt.status), ("kind", flt.kind), ("source", flt.source)):
            if value:
                clauses.append(f"m.{column} = ?")
                params.append(value)
        return clauses, params

    def _searched(self, flt: MemoryFilter, run: Callable[[SearchPages], T]) -> T | None:
        """``run`` on a planner for a searched list on SQLite (``search_pages``), in one
        snapshot (fast at any size); None without a search word and on PostgreSQL, whose
        planner picks its index by its statistics."""
        query = fts_query(flt.search) if flt.search and self._store.dialect.is_sqlite else None
        if query is None:
            return None
        from memtui.store.search_pages import SearchPages

        with self._store.snapshot():
            return run(SearchPages(self, flt, query, _M_COLUMNS))

    def _filtered(self, flt: MemoryFilter) -> tuple[list[str], list[Any]]:
        """``_where`` and the search's full-text clause (no searchable word: nothing matches)."""
        clauses, params = self._where(flt)
        if flt.search:
            query = self._store.dialect.search_query(flt.search)
            if query is None:
                clauses.append("1 = 0")
            else:
                clauses.append(self._store.dialect.matches("memories_fts", "m"))
                params.append(query)
        return clauses, params

    def page(self, flt: MemoryFilter, limit: int, after: PageCursor | None = None,
             before: PageCursor | None = None) -> list[Memory]:
        """A page of the list, newest first, by keyset (``paging``)."""
        if (found := self._searched(flt, lambda s: s.page(limit, after, before))) is not None:
            return found
        clauses, params = self._filtered(flt)
        page = keyset_page("m.created_at", "m.id", after, before)
        sql = (f"SELECT {_M_COLUMNS} FROM memories m "
               f"WHERE {' AND '.join((*clauses, *page.clauses))} ORDER BY {page.order} LIMIT ?")
        return page.in_list_order(self._all(row_to_memory, sql, (*params, *page.params, limit)))

    def list_at(self, flt: MemoryFilter, offset: int, limit: int, *,
                from_end: bool = False) -> list[Memory]:
        """A page by position (``from_end``: ``offset`` counted from the bottom)."""
        if (found := self._searched(flt, lambda s: s.at(offset, limit, from_end))) is not None:
            return found
        clauses, params = self._filtered(flt)
        page = position_page("m.created_at", "m.id", from_end)
        sql = (f"SELECT {_M_COLUMNS} FROM memories m WHERE {' AND '.join(clauses)} "
               f"ORDER BY {page.order} LIMIT ? OFFSET ?")
        return page.in_list_order(self._all(row_to_memory, sql,
                                            (*params, limit, max(0, offset))))

    def count(self, flt: MemoryFilter) -> int:
        """How many rows the list holds."""
        if (total := self._searched(flt, lambda s: s.count())) is not None:
            return total
        clauses, params = self._filtered(flt)
        sql = f"SELECT count(*) FROM memories m WHERE {' AND '.join(clauses)}"
        return self._count(sql, params)

    def count_at_most(self, flt: MemoryFilter, cap: int) -> int:
        """How many rows the list holds, counting no further than ``cap`` (cheap at any size)."""
        if (total := self._searched(flt, lambda s: s.count_at_most(cap))) is not None:
            return total
        clauses, params = self._filtered(flt)
        sql = (f"SELECT count(*) FROM (SELECT 1 FROM memories m WHERE {' AND '.join(clauses)} "
               "LIMIT ?) AS capped")
        return self._count(sql, (*params, cap))

    def narrowing(self, old_search: str | None,
                  new_search: str) -> Callable[[str], bool | None] | None:
        """``search_terms.narrowing_matcher``; None on PostgreSQL (its parser is not mirrored)."""
        if not self._store.dialect.is_sqlite:
            return None
        return narrowing_matcher(old_search, new_search)

    def latest_active_user(self, owner: str, limit: int) -> list[Memory]:
        """The owner's newest active user memories."""
        return self.page(MemoryFilter(scope="user", owner=owner), limit)

    def latest_active_project(self, project: str, limit: int) -> list[Memory]:
        """The project's newest active memories."""
        return self.page(MemoryFilter(scope="project", project=project), limit)

    def ids_for_thread(self, thread_id: str) -> list[str]:
        """Memories extracted or imported from this task/thread."""
        return self._texts("SELECT id FROM memories WHERE source_thread_id = ?", (thread_id,))

    # tombstones
    def add_forgotten_source(self, thread_id: str, at: str, by: str) -> None:
        """Remember (without content) that this task's memory was forgotten."""
        self._store.execute(
            self._store.dialect.insert_ignore(
                "forgotten_sources(source_thread_id, forgotten_at, forgotten_by) "
                "VALUES (?, ?, ?)"), (thread_id, at, by))

    def is_forgotten_source(self, thread_id: str) -> bool:
        """Whether this task's memory was forgotten."""
        return self._store.execute(
            "SELECT 1 FROM forgotten_sources WHERE source_thread_id = ?",
            (thread_id,)).fetchone() is not None
