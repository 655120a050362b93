"""Running a test's body in a thread of its own and keeping what it ended with."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def in_thread(body: Callable[[], object]) -> tuple[threading.Thread, list[BaseException | None]]:
    """Run ``body`` in a started thread; the list gets its outcome (None, or what it
    raised)."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            body()
            outcome.append(None)
        except BaseException as error:  # noqa: BLE001 - recorded for the assertion
            outcome.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


INSIDE_WAIT_S = 60
"""How long a test waits for its reader thread to be inside its read (a safety net)."""


def reading_in_thread(store: Any, then: Callable[[Any], object]
                      ) -> tuple[Any, threading.Thread, list[BaseException | None]]:
    """A reader on ``store``'s query lane in a thread of its own (``in_thread``): it takes
    the lane's ticket, runs a first statement, then ``then(lane)``, all inside the read.
    Returns (the lane, the thread, its outcome) once the reader is inside."""
    lane = store.lane()
    ticket = lane.begin()
    inside = threading.Event()

    def reader() -> None:
        with lane.reading(ticket):
            store.execute("SELECT 1").fetchone()
            inside.set()
            then(lane)

    thread, outcome = in_thread(reader)
    assert inside.wait(timeout=INSIDE_WAIT_S)
    return lane, thread, outcome
