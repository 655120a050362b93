"""``PaintHold``: let a keystroke's echo and the results it asked for share one frame, painted
the moment the results are there.

Left alone, Textual paints the typed character at once and the rows a frame or two later. So
the screen's paints are held (Textual's own batch) from the keystroke until the results are
applied, and ``paint_now`` paints them in the caller's turn, or when the hold runs out
(``ECHO_HOLD_SECONDS``). The echo is not painted beside the query: a frame takes the GIL from
it. The garbage collector is paused for the same stretch (at most ``GC_PAUSE_MAX_SECONDS``),
so the frame's short-lived objects are collected after it."""

from __future__ import annotations

import asyncio
import gc
from contextlib import ExitStack
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from memtui.app.textual_compat import batch_held, hand_over_repaints, paint_screen

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

PAINT_WAIT_TURNS = 5
"""At most this many event-loop turns a paint waits for changed widgets to reach the screen."""
ECHO_HOLD_SECONDS = 0.04
"""The longest a keystroke's echo waits for its results to share a frame with them (under
the 50 ms in which typing still feels immediate)."""
GC_PAUSE_MAX_SECONDS = 0.2
"""The longest the garbage collector stays paused for one hold (a slow read's rows are
painted without the pause)."""


class PaintHold:
    """One app's paint hold: ``hold()`` on a keystroke that starts a read, ``paint_now()``
    when its rows are applied (``release()``: paint what was held). Holds do not nest."""

    def __init__(self, app: App[object], seconds: float | None = None) -> None:
        self._app = app
        self._seconds = seconds
        """The hold's deadline (``ECHO_HOLD_SECONDS`` when not given)."""
        self._batch = ExitStack()
        """Textual's update batch while a hold runs (``App.batch_update``)."""
        self._timer: asyncio.TimerHandle | None = None
        """The hold's deadline (the event loop's own timer: a Textual ``Timer`` is a task,
        which competed with the key's query)."""
        self._screen: Screen[object] | None = None
        self.holds = 0
        """How many holds were started (for tests)."""
        self.collector_paused = False
        """Whether this hold turned the garbage collector off (and must turn it back on)."""
        self._collector_deadline: asyncio.TimerHandle | None = None

    @property
    def active(self) -> bool:
        """Whether the screen's paints are being held now."""
        return self._timer is not None

    def hold(self) -> None:
        """Hold the screen's paints until ``release()`` or the deadline."""
        if self._timer is not None:
            return
        loop = asyncio.get_running_loop()  # first: without a loop, nothing is held
        self.holds += 1
        self._pause_collector()
        self._batch.enter_context(self._app.batch_update())
        self._screen = self._app.screen
        seconds = ECHO_HOLD_SECONDS if self._seconds is None else self._seconds
        # (run out as the app's own callback: an error in it is the app's)
        self._timer = loop.call_later(seconds, self._app.call_later, self._run_out, self.holds)

    def _run_out(self, hold: int) -> None:
        """The hold ran out: paint what was held (unless a newer hold runs now)."""
        if hold == self.holds:
            self.release()

    def _unhold(self) -> bool:
        """End the running hold (its deadline and Textual's batch); False when none runs."""
        timer, self._timer = self._timer, None
        if timer is None:
            return False
        timer.cancel()
        self._batch.close()
        return True

    def release(self) -> None:
        """Paint what was held now (nothing when no hold is running)."""
        screen, self._screen = self._screen, None
        if not self._unhold():
            return
        if screen is not None:  # after the messages already posted
            screen.call_later(self._paint, screen)
        else:
            self.resume_collector()

    def close(self) -> None:
        """The app is closing: end a running hold without painting, and the pause."""
        self._screen = None
        self._unhold()
        self.resume_collector()

    def _pause_collector(self) -> None:
        """Turn the garbage collector off for the hold (if it is on), at most
        ``GC_PAUSE_MAX_SECONDS`` from when it was turned off."""
        if self.collector_paused or not gc.isenabled():
            return
        loop = asyncio.get_running_loop()  # first: without a loop, nothing is turned off
        gc.disable()
        self.collector_paused = True
        self._collector_deadline = loop.call_later(GC_PAUSE_MAX_SECONDS,
                                                   self.resume_collector)

    def resume_collector(self) -> None:
        """Turn the garbage collector back on if a hold turned it off."""
        deadline, self._collector_deadline = self._collector_deadline, None
        if deadline is not None:
            deadline.cancel()
        if self.collector_paused:
            self.collector_paused = False
            gc.enable()

    def paint_now(self, screen: Screen[object]) -> None:
        """Paint what changed on ``screen`` now, not on its next timer tick (a hold still
        running ends)."""
        self._screen = None
        self._unhold()
        self._paint(screen)

    def paint_soon(self, screen: Screen[object]) -> None:
        """Paint what changed on ``screen`` in the next turns of the event loop; nothing
        while a hold runs (its frame carries the change)."""
        if self._timer is None:
            screen.call_later(self._paint, screen)

    def _paint(self, screen: Screen[object], waited: int = 0) -> None:
        """Paint, once the changed widgets' repaints are handed over; a pending layout or
        scroll is waited for, ``PAINT_WAIT_TURNS`` at most."""
        if not screen.is_current or batch_held(self._app):
            if self._timer is None:  # a newer key's hold keeps its pause until its paint
                self.resume_collector()
            return
        if not hand_over_repaints(screen) and waited < PAINT_WAIT_TURNS:
            # through the event loop, so the widgets' own tasks have a turn first
            asyncio.get_running_loop().call_soon(screen.call_later, self._paint, screen,
                                                 waited + 1)
            return
        try:
            paint_screen(screen)
        finally:
            self.resume_collector()


_HOLDS: WeakKeyDictionary[App[object], PaintHold] = WeakKeyDictionary()


def paint_hold(app: App[object]) -> PaintHold:
    """The app's one ``PaintHold`` (made on first use)."""
    hold = _HOLDS.get(app)
    if hold is None:
        hold = _HOLDS[app] = PaintHold(app)
    return hold
