"""``LoadMailbox``: the newest request for one long-lived loader thread, and its waits (which
end the moment a newer request comes). No Textual here."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class LoadMailbox(Generic[T]):
    """One slot holding the newest request (a ``put`` replaces what waits), shared by the
    UI thread (``put``, ``wake``, ``close``) and one loader thread (``take``, ``quiet_for``)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._waiting: T | None = None
        self._closed = False
        self._running = False
        """Whether the loader is running a request it took (until it asks for the next)."""

    @property
    def idle(self) -> bool:
        """Whether nothing waits and the loader runs nothing (it waits for a request)."""
        with self._changed:
            return self._waiting is None and not self._running

    @property
    def closed(self) -> bool:
        """Whether the box is closed (its list is gone: the loader ends)."""
        return self._closed

    def put(self, request: T) -> None:
        """Make ``request`` the one waiting (dropping an older one) and wake the loader."""
        with self._changed:
            if self._closed:
                return
            self._waiting = request
            self._changed.notify_all()

    def take(self, timeout: float) -> T | None:
        """The waiting request, taken out (waits up to ``timeout`` seconds for one); None
        when the time ran out or the box is closed."""
        with self._changed:
            self._running = False
            self._changed.wait_for(lambda: self._waiting is not None or self._closed,
                                   timeout)
            request, self._waiting = self._waiting, None
            if self._closed:
                return None
            self._running = request is not None
            return request

    def quiet_for(self, seconds: float, until: Callable[[], bool] | None = None) -> bool:
        """Wait up to ``seconds`` for ``until`` (re-checked on every ``wake``); False as soon
        as a request waits or the box is closed, else True."""
        deadline = time.monotonic() + seconds
        with self._changed:
            while True:
                if self._waiting is not None or self._closed:
                    return False
                if until is not None and until():
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return True
                self._changed.wait(left)

    def wake(self) -> None:
        """Have a ``quiet_for`` look at its condition again (it was made true)."""
        with self._changed:
            self._changed.notify_all()

    def close(self) -> None:
        """End the loader: drop what waits and wake every wait."""
        with self._changed:
            self._closed = True
            self._waiting = None
            self._running = False
            self._changed.notify_all()
