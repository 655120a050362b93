"""The newest visible memories a recall compares by vector, reused until the store changes.

Rules decided here:
- A window is the ``size`` newest active memories an actor sees in a set of projects, kept
  per thread (each thread reads through its own connection, whose ``change_stamp`` is its
  own); it is read again when the stamp moved (any connection wrote) and otherwise reused,
  so a long-lived server reads it once between writes.
- A window may still be older than the store by a moment (another machine's write whose
  notice has not arrived): whatever recall takes from it alone is read again by id before it
  is returned (``fresh``), and a memory no longer active, or changed, sends recall back to
  a window read now.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memtui.store.backend import StoreBackend
from memtui.store.models import Memory

ACTIVE = "active"
WINDOWS_PER_STORE = 64
"""Windows (thread, actor, projects and size) a store keeps at most; the oldest is dropped
first."""

_Key = tuple[int, str, tuple[str, ...], int]


@dataclass
class Window:
    """A window's memories, newest first, and what recall derived from them (``vectors``:
    their embeddings, filled by the first recall that needs them)."""

    memories: list[Memory]
    vectors: Any = None


class NewestWindows:
    """The windows of every open store of the process (weakly: a closed store's go)."""

    def __init__(self) -> None:
        self._windows: weakref.WeakKeyDictionary[
            StoreBackend, dict[_Key, tuple[tuple[int, int], Window]]] = \
            weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def newest(self, store: StoreBackend, actor: str, projects: Sequence[str],
               size: int) -> Window:
        """The ``size`` newest active memories ``actor`` sees in ``projects`` (and its own),
        newest first: the last read while the store has not changed since."""
        key = (threading.get_ident(), actor, tuple(projects), size)
        stamp = store.change_stamp()
        with self._lock:
            known = self._windows.get(store, {}).get(key)
        if known is not None and known[0] == stamp:
            return known[1]
        window = Window(store.recall.recent_memories(actor, projects, size))
        with self._lock:
            windows = self._windows.setdefault(store, {})
            windows.pop(key, None)
            windows[key] = (stamp, window)
            while len(windows) > WINDOWS_PER_STORE:
                del windows[next(iter(windows))]
        return window

    def forget(self, store: StoreBackend) -> None:
        """Drop every window of ``store`` (the next recall reads them again)."""
        with self._lock:
            self._windows.pop(store, None)


def fresh(store: StoreBackend, memories: Sequence[Memory]) -> bool:
    """Whether each of ``memories`` is still active with the same content."""
    if not memories:
        return True
    now = {memory.id: memory for memory in store.memories.get_many([m.id for m in memories])}
    return all(memory.id in now and now[memory.id].status == ACTIVE
               and now[memory.id].content == memory.content for memory in memories)


WINDOWS = NewestWindows()
"""The process's windows."""

__all__ = ["WINDOWS", "NewestWindows", "Window", "fresh"]
