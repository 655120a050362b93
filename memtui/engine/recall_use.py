"""Memories an agent was given by recall, marked used (``last_used_at``) in the background:
one thread per store writes the marks, each memory at most once per
``USE_RECORD_INTERVAL_S`` (a failure is logged); recall never waits or fails for it.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Sequence

from memtui.store.backend import StoreBackend
from memtui.store.models import Memory

USE_RECORD_INTERVAL_S = 3600.0
"""A memory given again within this many seconds is not marked again."""
MAX_USE_RECORDS = 50_000
MAX_WAITING = 1000
"""Hand-overs waiting to be written at most; more are dropped (a later recall marks them)."""
CLOSE_FLUSH_S = 5.0
IDLE_EXIT_S = 5.0
"""The recorder's thread ends after this long with nothing to write."""

log = logging.getLogger(__name__)


class UseRecorder:
    """Marks the memories recall gave agents used, in a daemon thread of its own."""

    def __init__(self, store: StoreBackend) -> None:
        self._store = weakref.ref(store)  # weakly: the registry below is keyed by the store
        self._marked: OrderedDict[str, float] = OrderedDict()
        self._waiting: queue.Queue[list[str]] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def given(self, memories: Sequence[Memory]) -> None:
        """Hand over the memories an agent was given (returns at once)."""
        now = time.monotonic()
        with self._lock:
            due = [m.id for m in memories if now - self._marked.get(m.id, -USE_RECORD_INTERVAL_S)
                   >= USE_RECORD_INTERVAL_S]
            if not due or self._waiting.qsize() >= MAX_WAITING:
                return
            for memory_id in due:  # marked now: a failure is not retried every recall
                self._marked[memory_id] = now
                self._marked.move_to_end(memory_id)
            while len(self._marked) > MAX_USE_RECORDS:
                self._marked.popitem(last=False)
            self._waiting.put(due)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="memtui-recall-use",
                                                daemon=True)
                self._thread.start()

    def flush(self, timeout_s: float = CLOSE_FLUSH_S) -> bool:
        """Wait up to ``timeout_s`` until every handed-over mark is written (or failed)."""
        deadline = time.monotonic() + timeout_s
        while self._waiting.unfinished_tasks:
            if time.monotonic() > deadline:
                log.warning("recall marks not written within %.0f s", timeout_s)
                return False
            time.sleep(0.01)
        return True

    def _run(self) -> None:
        while True:
            try:
                ids = self._waiting.get(timeout=IDLE_EXIT_S)
            except queue.Empty:
                with self._lock:
                    if self._waiting.empty():
                        self._thread = None
                        return
                continue
            store = self._store()
            try:
                if store is not None:  # a store nobody holds any more is not written
                    with store.transaction():
                        store.memories.touch(ids, store.now())
            except Exception as error:  # never let a mark hurt recall: logged, dropped
                log.warning("could not mark %d recalled memories used: %s", len(ids), error)
            finally:
                store = None  # not kept alive while the thread waits for more
                self._waiting.task_done()


_RECORDERS: weakref.WeakKeyDictionary[StoreBackend, UseRecorder] = weakref.WeakKeyDictionary()
_RECORDERS_LOCK = threading.Lock()


def recorder_for(store: StoreBackend) -> UseRecorder:
    """The store's recorder (one per open store), flushed before the store closes."""
    with _RECORDERS_LOCK:
        found = _RECORDERS.get(store)
        if found is None:
            found = _RECORDERS[store] = UseRecorder(store)
            store.before_close.append(found.flush)
        return found
