"""Forget that really forgets: a forget records a content-free pending purge with its delete,
and ``finish`` retries the truncating checkpoint of the write-ahead log (a reader can prevent
it) within a bound, else the record stays for the worker, ``doctor --repair`` or the next one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from memtui.jsonable import JsonMixin

if TYPE_CHECKING:
    from memtui.store.backend import StoreBackend

FORGET_PURGE_WAIT_S = 3.0
"""How long a forget waits for readers of the store before reporting the purge pending."""
PURGE_RETRY_WAIT_S = 0.5
"""How long one later retry (the worker, ``doctor --repair``) waits for readers."""


@dataclass(frozen=True)
class PurgeStatus(JsonMixin):
    """Whether forgotten text is gone from the database files, or how many forgets wait."""

    purged: bool
    pending: int = 0
    reason: str | None = None
    cleared: int = 0


def readers_reason(store: StoreBackend) -> str:
    """Why a purge is pending, in words a person can act on."""
    return (f"another connection holds a read transaction on the store (a running `memtui "
            f"serve`, the app or an agent), so older copies of the deleted text are still in "
            f"{store.purge_location()}; they are erased once it lets go (the background worker "
            f"retries; `memtui doctor --repair` retries now)")


def pending(store: StoreBackend) -> PurgeStatus:
    """The current state, without trying anything."""
    waiting = store.purges.pending()
    if waiting is None:
        return PurgeStatus(purged=True)
    return PurgeStatus(purged=False, pending=waiting.count, reason=readers_reason(store))


def finish(store: StoreBackend, wait_s: float) -> PurgeStatus:
    """Truncate the WAL (waiting up to ``wait_s``), dropping the purges it completed."""
    waiting = store.purges.pending()
    if waiting is None:
        return PurgeStatus(purged=True)
    if not store.purge_deleted(wait_s):
        return PurgeStatus(purged=False, pending=waiting.count, reason=readers_reason(store))
    with store.transaction():
        cleared = store.purges.clear_through(waiting.last_seq)
    return replace(pending(store), cleared=cleared)
