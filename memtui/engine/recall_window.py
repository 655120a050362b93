"""The newest visible memories a recall compares by vector, kept per thread until the store's
``change_stamp`` moves; what recall takes from a kept window alone is read again by id
(``fresh``), as it may lag another machine's write by a moment.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memtui.engine.review_rules import ACTIVE
from memtui.store.backend import StoreBackend
from memtui.store.models import Memory

WINDOWS_PER_STORE = 16
"""Windows a thread keeps per store at most (the oldest dropped first)."""

_Key = tuple[str, tuple[str, ...], int]


@dataclass
class Window:
    """A window's memories, newest first, and their embeddings once a recall needed them."""

    memories: list[Memory]
    vectors: Any = None


class NewestWindows:
    """Each thread's windows of every open store (weakly: a closed store's go)."""

    def __init__(self) -> None:
        self._local = threading.local()

    def _windows(self) -> weakref.WeakKeyDictionary[
            StoreBackend, dict[_Key, tuple[tuple[int, ...], Window]]]:
        found = getattr(self._local, "windows", None)
        if found is None:
            found = self._local.windows = weakref.WeakKeyDictionary()
        return found

    def newest(self, store: StoreBackend, actor: str, projects: Sequence[str], size: int,
               stamp: tuple[int, ...] | None) -> tuple[Window, bool]:
        """The ``size`` newest active memories ``actor`` sees in ``projects`` (and its own):
        the kept window while the store's stamp is still ``stamp`` (then True: ``fresh``
        applies), else read now (False)."""
        key = (actor, tuple(projects), size)
        windows = self._windows().setdefault(store, {})
        known = windows.get(key)
        if stamp is not None and known is not None and known[0] == stamp:
            return known[1], True
        window = Window(store.recall.recent_memories(actor, projects, size))
        windows.pop(key, None)
        if stamp is not None:
            windows[key] = (stamp, window)
            while len(windows) > WINDOWS_PER_STORE:
                del windows[next(iter(windows))]
        return window, False

    def forget(self, store: StoreBackend) -> None:
        """Drop this thread's windows of ``store`` (the next recall reads them again)."""
        self._windows().pop(store, None)


def fresh(store: StoreBackend, memories: Sequence[Memory]) -> bool:
    """Whether each of ``memories`` is still active with the same content."""
    if not memories:
        return True
    now = {memory.id: memory for memory in store.memories.get_many([m.id for m in memories])}
    return all(memory.id in now and now[memory.id].status == ACTIVE
               and now[memory.id].content == memory.content for memory in memories)


WINDOWS = NewestWindows()
