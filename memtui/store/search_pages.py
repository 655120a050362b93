"""Pages of a searched memory list on SQLite, fast at any size.

SQLite's own plan materialises every match, then walks the list. Here the list's index is
first **walked** in growing ``seq`` batches, asking the full-text index only for matches in
each batch's range, until the page is full or looks far away; then, by the store's match
count: **few** -- sort the matches; **some** -- SQLite's plan; **dense** -- walk on. Every
plan returns exactly the rows of the plain SQL, in its order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memtui.store.models import Memory, MemoryFilter, PageCursor
from memtui.store.paging import keyset_page, rows_in_order
from memtui.store.repository import row_maker

if TYPE_CHECKING:
    from memtui.store.memories import MemoryRepository

FEW_MATCHES = 1_500
"""Up to this many full-text matches in the store, a page is read from the matches."""
DENSE_MATCHES = 40_000
"""How far the store's matches are counted to pick a plan."""
WALK_MIN_BATCH = 256
WALK_MAX_BATCH = 16_384
WALK_ROWS_PER_RESULT = 25
"""The first batch of a walk: this many list rows per row wanted (a dense match is at least
one row in 25 of a million-row store)."""
WALK_MAX_ROWS = 40_000
"""A walk that would need more list rows than this (by the matches met so far) gives up."""
WALK_AT_MAX = 5_000
"""A page by position this near an end of the list is walked first; farther ones are SQL."""
SPARSE_SPAN = 16
"""A list whose batch spans more than this many seqs per row is walked by SQLite instead."""
MAX_RANGES = 8
"""At most this many seq ranges are asked of the full-text index per batch."""
ESTIMATE_MIN_SEQS = 4_096
"""A walk's seq ranges this wide (or wider) are a sample to estimate the store's match count
from, instead of counting the matches..."""
ESTIMATE_MIN_MATCHES = 32
"""...and hold at least this many matches (fewer say too little about the whole store)."""
ESTIMATE_FEW_MARGIN = 2
"""An estimate below this many times ``FEW_MATCHES`` is checked by counting."""
COUNT_PROBE_FACTOR = 20
"""``count_at_most`` on a common word first looks at this many matches per row wanted."""
_MATCH = "memories_fts MATCH ?"
row_to_memory = row_maker(Memory)
"""``memories.row_to_memory`` (the same cached function; this module does not import that one)."""


def match_count_capped(repo: MemoryRepository, query: str, cap: int) -> int:
    """How many rows match ``query`` in the whole store, counting no further than ``cap``."""
    return repo._count(
        f"SELECT count(*) FROM (SELECT rowid FROM memories_fts WHERE {_MATCH} LIMIT ?)",
        (query, cap))


def seq_ranges(seqs: list[int], batch: int) -> list[tuple[int, int]]:
    """Cover the seqs with at most MAX_RANGES ranges, splitting at the widest gaps."""
    ordered = sorted(seqs)
    if len(ordered) < 2:
        return [(ordered[0], ordered[0])] if ordered else []
    min_gap = max(64, 4 * batch)
    gaps = sorted(((ordered[i + 1] - ordered[i], i) for i in range(len(ordered) - 1)),
                  reverse=True)[:MAX_RANGES - 1]
    cuts = sorted(i for gap, i in gaps if gap > min_gap)
    out: list[tuple[int, int]] = []
    start = 0
    for cut in cuts:
        out.append((ordered[start], ordered[cut]))
        start = cut + 1
    out.append((ordered[start], ordered[-1]))
    return out


class SearchPages:
    """Plans and runs the page, position and count queries of one searched list."""

    def __init__(self, repo: MemoryRepository, flt: MemoryFilter, query: str,
                 columns: str) -> None:
        self.store = repo._store
        self.repo = repo
        self.query = query
        self.columns = columns
        self.clauses, self.params = repo._where(flt)
        self.clauses_off_index = [c.replace("m.", "+m.", 1) for c in self.clauses]
        """The list's clauses with a unary + on their column, so SQLite uses no index for them
        (the parameters are all text: dropping the column's affinity changes no row)."""
        self._plan: str | None = None
        self._sampled_seqs = 0
        self._sampled_matches = 0

    @property
    def plan(self) -> str:
        """``few``, ``some`` or ``dense`` (remembered): estimated from the seq ranges a walk
        already asked about when they cover enough of the store, else a capped count."""
        if self._plan is None:
            matches = self._estimated_matches()
            if matches is None:
                matches = match_count_capped(self.repo, self.query, DENSE_MATCHES + 1)
            self._plan = ("few" if matches <= FEW_MATCHES
                          else "some" if matches <= DENSE_MATCHES else "dense")
        return self._plan

    def _estimated_matches(self) -> int | None:
        """The store's match count as the walk's sample says (None: too small a sample)."""
        if not self._sampled_seqs or self._sampled_seqs < ESTIMATE_MIN_SEQS or \
                self._sampled_matches < ESTIMATE_MIN_MATCHES:
            return None
        top = self.store.execute("SELECT max(seq) FROM memories").fetchone()[0] or 0
        estimate = round(self._sampled_matches / self._sampled_seqs * top)
        # "few" reads every match: chosen only on a real count, never on a guess
        return estimate if estimate > ESTIMATE_FEW_MARGIN * FEW_MATCHES else None

    # ---- the plans --------------------------------------------------------------------

    def _sql(self, select: str, extra: list[str], extra_params: list[Any],
             tail: str, tail_params: list[Any]) -> list[Any]:
        """One SQL plan by the store's match count: ``few``, from the matches (CROSS JOIN
        fixes the order; the unary + keeps the list's index out); else SQLite's own plan."""
        if self.plan == "few":
            sql = (f"SELECT {select} FROM memories_fts f CROSS JOIN memories m ON m.seq = f.rowid "
                   f"WHERE f.{_MATCH} AND {' AND '.join(self.clauses_off_index + extra)} {tail}")
            params = (self.query, *self.params, *extra_params, *tail_params)
        else:
            where = [*self.clauses, self.store.dialect.matches("memories_fts", "m"), *extra]
            sql = f"SELECT {select} FROM memories m WHERE {' AND '.join(where)} {tail}"
            params = (*self.params, self.query, *extra_params, *tail_params)
        return self.store.execute(sql, params).fetchall()

    def _walk(self, need: int, descending: bool, cursor: tuple[str, str] | None, *,
              found: list[int] | None = None, visited: int = 0,
              batches: int | None = None) -> tuple[list[int], str, tuple[str, str] | None, int]:
        """(seqs of the first ``need`` matching rows in walk order after ``cursor``, state,
        the last row taken into account, rows visited); ``state`` is ``done`` (the page is
        full or the list ended), ``paused`` (after ``batches`` batches), ``far`` (the page lies
        more than ``WALK_MAX_ROWS`` rows away, or no match was met) or ``sparse`` (the list's
        seq ranges would hold mostly other lists' matches)."""
        order = "DESC" if descending else "ASC"
        compare = "<" if descending else ">"
        execute = self.store.execute
        found = [] if found is None else found
        batch = min(WALK_MAX_BATCH, max(WALK_MIN_BATCH, need * WALK_ROWS_PER_RESULT))
        if visited:
            batch = min(WALK_MAX_BATCH, batch * 4)
        while True:
            clauses = list(self.clauses)
            params = list(self.params)
            if cursor is not None:
                clauses.append(f"(m.created_at, m.id) {compare} (?, ?)")
                params += list(cursor)
            seqs = [row[0] for row in execute(
                f"SELECT m.seq FROM memories m WHERE {' AND '.join(clauses)} "
                f"ORDER BY m.created_at {order}, m.id {order} LIMIT ?", (*params, batch))]
            if not seqs:
                return found, "done", None, visited
            ranges = seq_ranges(seqs, batch)
            if sum(high - low + 1 for low, high in ranges) > SPARSE_SPAN * len(seqs):
                return found, "sparse", cursor, visited
            matched: set[int] = set()
            for low, high in ranges:
                matched.update(row[0] for row in execute(
                    f"SELECT rowid FROM memories_fts WHERE {_MATCH} AND rowid BETWEEN ? AND ?",
                    (self.query, low, high)))
                self._sampled_seqs += high - low + 1
            self._sampled_matches += len(matched)
            for seq in seqs:
                if seq in matched:
                    found.append(seq)
                    if len(found) >= need:
                        return found, "done", None, visited
            if len(seqs) < batch:
                return found, "done", None, visited
            last = execute("SELECT created_at, id FROM memories WHERE seq = ?",
                           (seqs[-1],)).fetchone()
            cursor = (last[0], last[1])
            visited += len(seqs)
            if not found or visited + (need - len(found)) * visited / len(found) > WALK_MAX_ROWS:
                return found, "far", cursor, visited
            if batches is not None:
                batches -= 1
                if batches <= 0:
                    return found, "paused", cursor, visited
            batch = min(batch * 4, WALK_MAX_BATCH)

    def _rows(self, seqs: list[int]) -> list[Memory]:
        return [row_to_memory(row) for row in rows_in_order(self.store.execute, "memories",
                                                            "m", self.columns, seqs)]

    def _walked(self, skip: int, limit: int, descending: bool,
                cursor: tuple[str, str] | None) -> list[Memory]:
        """Rows ``skip..skip+limit`` after ``cursor``, in walk order: one batch walked first, on
        only for a ``dense`` word; the rest is SQL."""
        need = skip + limit
        found, state, stopped, visited = self._walk(need, descending, cursor, batches=1)
        if state == "paused":
            if self.plan == "dense":
                found, state, stopped, visited = self._walk(need, descending, stopped,
                                                            found=found, visited=visited)
            else:
                state = "far"
        taken = self._rows(found[skip:need])
        if state == "done" or len(found) >= need:
            return taken
        # The walk stopped: the store's match count picks the plan for the rest.
        order = "DESC" if descending else "ASC"
        compare = "<" if descending else ">"
        extra, extra_params = ([], []) if stopped is None else (
            [f"(m.created_at, m.id) {compare} (?, ?)"], list(stopped))
        rows = self._sql(self.columns, extra, extra_params,
                         f"ORDER BY m.created_at {order}, m.id {order} LIMIT ? OFFSET ?",
                         [limit - len(taken), max(0, skip - len(found))])
        return taken + [row_to_memory(row) for row in rows]

    # ---- the list's queries ---------------------------------------------------------------

    def page(self, limit: int, after: PageCursor | None,
             before: PageCursor | None) -> list[Memory]:
        """``MemoryRepository.list`` for a searched list (same rows, same order)."""
        if after is not None and before is not None:  # between two rows: rare, plain SQL
            between = keyset_page("m.created_at", "m.id", after, before)
            rows = self._sql(self.columns, list(between.clauses), list(between.params),
                             f"ORDER BY {between.order} LIMIT ?", [limit])
            return between.in_list_order([row_to_memory(row) for row in rows])
        ascending = before is not None
        edge = before if ascending else after
        cursor = (edge.created_at, edge.id) if edge is not None else None
        memories = self._walked(0, limit, not ascending, cursor)
        if ascending:
            memories.reverse()
        return memories

    def at(self, offset: int, limit: int, from_end: bool) -> list[Memory]:
        """``MemoryRepository.list_at`` for a searched list."""
        offset = max(0, offset)
        if offset + limit <= WALK_AT_MAX:
            memories = self._walked(offset, limit, not from_end, None)
        else:
            order = "ASC" if from_end else "DESC"
            rows = self._sql(self.columns, [], [],
                             f"ORDER BY m.created_at {order}, m.id {order} LIMIT ? OFFSET ?",
                             [limit, offset])
            memories = [row_to_memory(row) for row in rows]
        if from_end:
            memories.reverse()
        return memories

    def count(self) -> int:
        """``MemoryRepository.count`` for a searched list (exact: it costs every match)."""
        return int(self._sql("count(*)", [], [], "", [])[0][0])

    def count_at_most(self, cap: int) -> int:
        """The count, at most ``cap``, all in SQL (the GIL stays with the UI): for a ``dense``
        word the first ``COUNT_PROBE_FACTOR * cap`` matches usually hold ``cap`` rows; else
        the capped count runs on ``count``'s plan."""
        if self.plan == "dense" and self.repo._count(
                "SELECT count(*) FROM (SELECT 1 FROM (SELECT rowid AS r FROM memories_fts "
                f"WHERE {_MATCH} LIMIT ?) f CROSS JOIN memories m ON m.seq = f.r "
                f"WHERE {' AND '.join(self.clauses_off_index)} LIMIT ?)",
                (self.query, COUNT_PROBE_FACTOR * cap, *self.params, cap)) >= cap:
            return cap
        return int(self._sql("count(*) FROM (SELECT 1", [], [], "LIMIT ?)", [cap])[0][0])
