"""Pages of a searched memory list (full-text match inside a list), fast at any size.

A searched list is the list's rows (newest first) whose content matches the search. SQLite
has one plan for it: materialise every full-text match, then walk the list's index checking
each row, which costs the whole match set plus the whole list (tens of milliseconds at a
million rows, for a common word or for no match at all). This module picks one of two
plans by how many rows match, found by a capped count of the full-text matches:

- few matches (at most ``DRIVE_MAX_MATCHES``): read them from the full-text index, look each
  row up, sort (cost grows with the matches, bounded by the cap);
- many matches: walk the list's own index in list order in growing batches, and ask the
  full-text index only for matches inside each batch's ``seq`` range (rows are mostly
  inserted in time order, so that range is narrow); stop when the page is full (cost grows
  with the page, not the list). A walk that visits ``WALK_MAX_ROWS`` rows without filling
  the page (the matches lie elsewhere) finishes with SQLite's own plan.

Both give exactly the rows, in exactly the order, of the plain SQL; only the cost differs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memtui.store.memories import row_to_memory
from memtui.store.models import Memory, MemoryFilter, PageCursor

if TYPE_CHECKING:
    from memtui.store.memories import MemoryRepository

DRIVE_MAX_MATCHES = 5_000
"""Up to this many full-text matches, a page is read from the matches."""
WALK_FIRST_BATCH = 256
WALK_MAX_BATCH = 8_192
WALK_MAX_ROWS = 60_000
"""A walk gives up (and lets SQLite finish) after visiting this many list rows."""
WALK_AT_MAX = 5_000
"""A page by position this near an end is walked; farther ones are left to SQLite."""
MAX_RANGES = 8
"""At most this many seq ranges are asked of the full-text index per batch."""
_MATCH = "memories_fts MATCH ?"


def match_count_capped(repo: MemoryRepository, query: str, cap: int) -> int:
    """How many rows match ``query`` in the whole store, counting no further than ``cap``."""
    row = repo._store.execute(
        f"SELECT count(*) FROM (SELECT rowid FROM memories_fts WHERE {_MATCH} LIMIT ?)",
        (query, cap)).fetchone()
    return int(row[0])


def _ranges(seqs: list[int], batch: int) -> list[tuple[int, int]]:
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
        self.repo = repo
        self.store = repo._store
        self.flt = flt
        self.query = query
        self.columns = columns
        clauses, params = repo._where(flt)
        self.clauses = clauses
        self.params = params
        self._matches: int | None = None

    @property
    def few(self) -> bool:
        """Whether the store holds few enough matches to read the page from them."""
        if self._matches is None:
            self._matches = match_count_capped(self.repo, self.query, DRIVE_MAX_MATCHES + 1)
        return self._matches <= DRIVE_MAX_MATCHES

    # ---- plans ----------------------------------------------------------------------------

    def _driven(self, select: str, extra: list[str], extra_params: list[Any],
                tail: str, tail_params: list[Any]) -> list[Any]:
        # The unary + keeps SQLite from driving the join from the list's index.
        where = [c.replace("m.", "+m.", 1) for c in self.clauses] + extra
        sql = (f"SELECT {select} FROM memories_fts f CROSS JOIN memories m ON m.seq = f.rowid "
               f"WHERE f.{_MATCH} AND {' AND '.join(where)} {tail}")
        return self.store.execute(sql, (self.query, *self.params, *extra_params,
                                        *tail_params)).fetchall()

    def _plain(self, select: str, extra: list[str], extra_params: list[Any],
               tail: str, tail_params: list[Any]) -> list[Any]:
        where = [*self.clauses, f"m.seq IN (SELECT rowid FROM memories_fts WHERE {_MATCH})",
                 *extra]
        sql = f"SELECT {select} FROM memories m WHERE {' AND '.join(where)} {tail}"
        return self.store.execute(sql, (*self.params, self.query, *extra_params,
                                        *tail_params)).fetchall()

    def _walk(self, need: int, descending: bool,
              cursor: tuple[str, str] | None) -> tuple[list[int], tuple[str, str] | None]:
        """Seqs of the first ``need`` matching rows in walk order after ``cursor``.

        Returns (seqs, None) when done (fewer than ``need`` seqs: the list ended), or
        (seqs found so far, the last row visited) when the walk gave up.
        """
        order = "DESC" if descending else "ASC"
        compare = "<" if descending else ">"
        found: list[int] = []
        batch = WALK_FIRST_BATCH
        visited = 0
        execute = self.store.execute
        while True:
            clauses = list(self.clauses)
            params = list(self.params)
            if cursor is not None:
                clauses.append(f"(m.created_at, m.id) {compare} (?, ?)")
                params += list(cursor)
            rows = execute(
                f"SELECT m.seq, m.created_at, m.id FROM memories m WHERE {' AND '.join(clauses)} "
                f"ORDER BY m.created_at {order}, m.id {order} LIMIT ?",
                (*params, batch)).fetchall()
            if not rows:
                return found, None
            matched: set[int] = set()
            for low, high in _ranges([row[0] for row in rows], batch):
                matched.update(row[0] for row in execute(
                    f"SELECT rowid FROM memories_fts WHERE {_MATCH} AND rowid BETWEEN ? AND ?",
                    (self.query, low, high)))
            for seq, _created, _id in rows:
                if seq in matched:
                    found.append(seq)
                    if len(found) >= need:
                        return found, None
            if len(rows) < batch:
                return found, None
            cursor = (rows[-1][1], rows[-1][2])
            visited += len(rows)
            if visited >= WALK_MAX_ROWS:
                return found, cursor
            batch = min(batch * 2, WALK_MAX_BATCH)

    def _rows(self, seqs: list[int]) -> list[Memory]:
        if not seqs:
            return []
        marks = ", ".join("?" for _ in seqs)
        rows = self.store.execute(
            f"SELECT m.seq, {self.columns} FROM memories m WHERE m.seq IN ({marks})",
            seqs).fetchall()
        by_seq = {row[0]: row_to_memory(row[1:]) for row in rows}
        return [by_seq[seq] for seq in seqs if seq in by_seq]

    def _walked(self, skip: int, limit: int, descending: bool,
                cursor: tuple[str, str] | None) -> list[Memory]:
        """Rows ``skip..skip+limit`` of the walk after ``cursor``, in walk order."""
        found, stopped = self._walk(skip + limit, descending, cursor)
        taken = self._rows(found[skip:skip + limit])
        if stopped is None or len(found) >= skip + limit:
            return taken
        # The walk gave up (the matches lie elsewhere): SQLite finishes from there.
        order = "DESC" if descending else "ASC"
        compare = "<" if descending else ">"
        rows = self._plain(self.columns, [f"(m.created_at, m.id) {compare} (?, ?)"],
                           list(stopped),
                           f"ORDER BY m.created_at {order}, m.id {order} LIMIT ? OFFSET ?",
                           [limit - len(taken), max(0, skip - len(found))])
        return taken + [row_to_memory(row) for row in rows]

    # ---- the list's queries ---------------------------------------------------------------

    def page(self, limit: int, after: PageCursor | None,
             before: PageCursor | None) -> list[Memory]:
        """``MemoryRepository.list`` for a searched list (same rows, same order)."""
        ascending = before is not None
        if self.few:
            extra: list[str] = []
            extra_params: list[Any] = []
            if after is not None:
                extra.append("(m.created_at, m.id) < (?, ?)")
                extra_params += [after.created_at, after.id]
            if before is not None:
                extra.append("(m.created_at, m.id) > (?, ?)")
                extra_params += [before.created_at, before.id]
            order = "ASC" if ascending else "DESC"
            rows = self._driven(self.columns, extra, extra_params,
                                f"ORDER BY m.created_at {order}, m.id {order} LIMIT ?", [limit])
            memories = [row_to_memory(row) for row in rows]
        elif after is not None and before is not None:  # between two rows: rare, plain SQL
            rows = self._plain(self.columns, ["(m.created_at, m.id) < (?, ?)",
                                              "(m.created_at, m.id) > (?, ?)"],
                               [after.created_at, after.id, before.created_at, before.id],
                               "ORDER BY m.created_at ASC, m.id ASC LIMIT ?", [limit])
            memories = [row_to_memory(row) for row in rows]
        else:
            edge = before if ascending else after
            cursor = (edge.created_at, edge.id) if edge is not None else None
            memories = self._walked(0, limit, not ascending, cursor)
        if ascending:
            memories.reverse()
        return memories

    def at(self, offset: int, limit: int, from_end: bool) -> list[Memory]:
        """``MemoryRepository.list_at`` for a searched list."""
        order = "ASC" if from_end else "DESC"
        offset = max(0, offset)
        if not self.few and offset + limit <= WALK_AT_MAX:
            memories = self._walked(offset, limit, not from_end, None)
        else:
            tail = f"ORDER BY m.created_at {order}, m.id {order} LIMIT ? OFFSET ?"
            plan = self._driven if self.few else self._plain
            memories = [row_to_memory(row)
                        for row in plan(self.columns, [], [], tail, [limit, offset])]
        if from_end:
            memories.reverse()
        return memories

    def count(self) -> int:
        """``MemoryRepository.count`` for a searched list (exact: costs the whole match set
        when many rows match)."""
        if self.few:
            return int(self._driven("count(*)", [], [], "", [])[0][0])
        return int(self._plain("count(*)", [], [], "", [])[0][0])
