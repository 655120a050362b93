"""Running a test's body in a thread of its own and keeping what it ended with."""

from __future__ import annotations

import threading
from collections.abc import Callable


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
