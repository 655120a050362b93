"""Keep an FTS5 index's level count far below the point where FTS5 calls it corrupt: SQLite
3.40 adds a level on each negative ``'merge'`` or ``'optimize'`` and never removes one, so past
``MAX_LEVELS`` the index is rebuilt from its content table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.store.backend import StoreBackend

STRUCTURE_ROWID = 10
"""The ``<table>_data`` row that holds the structure record (FTS5_STRUCTURE_ROWID)."""
FTS5_LEVEL_LIMIT = 2000
"""Most levels FTS5 accepts in a structure record (FTS5_MAX_SEGMENT)."""
MAX_LEVELS = FTS5_LEVEL_LIMIT // 2
"""Levels past which the index is rebuilt (a merge adds at most two)."""
COOKIE_BYTES = 4
"""The configuration cookie that starts a structure record."""
V2_MARKER = b"\xff\x00\x00\x01"
"""What follows the cookie in the second format of the record (before the level count)."""
_VARINT_MAX_BYTES = 9


def _varint(data: bytes, start: int) -> int | None:
    """The SQLite varint at ``start`` (None when the record ends inside it)."""
    value = 0
    for index in range(start, min(start + _VARINT_MAX_BYTES, len(data))):
        byte = data[index]
        if index == start + _VARINT_MAX_BYTES - 1:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value
    return None


def structure_levels(record: bytes) -> int | None:
    """The level count of an FTS5 structure record, or None when it cannot be read."""
    start = COOKIE_BYTES
    if record[start:start + len(V2_MARKER)] == V2_MARKER:
        start += len(V2_MARKER)
    return _varint(record, start)


def index_levels(store: StoreBackend, table: str) -> int | None:
    """The level count of the FTS5 index ``table`` (None: no structure record yet)."""
    row = store.execute(f"SELECT block FROM {table}_data WHERE id = ?",
                        (STRUCTURE_ROWID,)).fetchone()
    if row is None or not isinstance(row[0], bytes):
        return None
    return structure_levels(row[0])


def keep_levels_bounded(store: StoreBackend, table: str) -> bool:
    """Rebuild the FTS5 index ``table`` past ``MAX_LEVELS`` levels; True when it rebuilt."""
    levels = index_levels(store, table)
    if levels is None or levels <= MAX_LEVELS:
        return False
    store.execute(f"INSERT INTO {table}({table}) VALUES ('rebuild')")
    return True
