"""``PaintHold``: let a keystroke's echo and the results it asked for share one frame, painted
the moment the results are there.

Search as you type reads each key's page in a worker; left alone, Textual paints the typed
character at once and the rows in a later frame (up to two frame intervals later, redrawing
much of the screen again). So the screen's paints are held (Textual's own batch, as
``App.batch_update`` uses) from the keystroke until the results are applied, and
``paint_now`` paints them in the caller's turn. The hold only delays painting: the query runs
at once either way, and the echo is painted when the hold runs out (``ECHO_HOLD_SECONDS``).
Only a change that needs a layout or a scroll first waits (``PAINT_WAIT_TURNS``); what the
rows' owner draws for them follows in the next frame (``paint_soon``). The echo is not
painted beside the query on purpose: a frame painted meanwhile takes the GIL from the query.

The garbage collector is paused for the same stretch (at most ``GC_PAUSE_MAX_SECONDS``,
ended on unmount; a collector already off stays off), so the frame's short-lived objects are
collected after it, not in the middle of it.
"""

from __future__ import annotations

import asyncio
import gc
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from memtui.app.textual_compat import (
    batch_held,
    begin_batch,
    end_batch,
    hand_over_repaints,
    paint_screen,
    report_error,
)

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
    """One app's paint hold (see module doc): ``hold()`` on a keystroke that starts a read,
    ``paint_now()`` when its rows are applied (``release()``: paint what was held, e.g.
    after a failed read). Holds do not nest: a hold already running keeps its deadline, so
    no echo waits longer than ``ECHO_HOLD_SECONDS``."""

    def __init__(self, app: App[object], seconds: float | None = None) -> None:
        self._app = app
        self._seconds = seconds
        """The hold's deadline (``ECHO_HOLD_SECONDS`` when not given)."""
        self._timer: asyncio.TimerHandle | None = None
        """The hold's deadline: the event loop's own timer (a Textual ``Timer`` started a
        task on every keystroke, which ran while the key's query was starting and competed
        with it for the GIL)."""
        self._screen: Screen[object] | None = None
        self.holds = 0
        """How many holds were started (for tests)."""
        self._collector_paused = False
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
        begin_batch(self._app)  # what App.batch_update does
        self._screen = self._app.screen
        seconds = ECHO_HOLD_SECONDS if self._seconds is None else self._seconds
        self._timer = loop.call_later(seconds, self._deadline)

    def _deadline(self) -> None:
        """The hold ran out: paint what was held; an error goes to the app, as from any of
        its callbacks (not to asyncio's log)."""
        try:
            self.release()
        except Exception as error:  # the app shows it and exits, as Textual's timers do
            report_error(self._app, error)

    def _unhold(self) -> bool:
        """End the running hold (its deadline and Textual's batch); False when none runs."""
        timer, self._timer = self._timer, None
        if timer is None:
            return False
        timer.cancel()
        end_batch(self._app)
        return True

    def release(self) -> None:
        """Paint what was held now (nothing when no hold is running)."""
        screen, self._screen = self._screen, None
        if not self._unhold():
            return
        if screen is not None:
            # after the messages already posted (the list's owner updating its title): the
            # screen's own paint step, at once (see module doc)
            screen.call_later(self._paint, screen)
        else:
            self.resume_collector()

    def close(self) -> None:
        """The app is closing: end a running hold without painting (its deadline will not
        fire on a closed app) and the collector's pause."""
        self._screen = None
        self._unhold()
        self.resume_collector()

    @property
    def collector_paused(self) -> bool:
        """Whether a hold has the garbage collector paused now."""
        return self._collector_paused

    def _pause_collector(self) -> None:
        """Turn the garbage collector off for the hold (if it is on), at most
        ``GC_PAUSE_MAX_SECONDS`` from when it was turned off (a hold that starts while an
        earlier one's pause still runs keeps that deadline: the bound is hard)."""
        if self._collector_paused or not gc.isenabled():
            return
        loop = asyncio.get_running_loop()  # first: without a loop, nothing is turned off
        gc.disable()
        self._collector_paused = True
        # the event loop's own timer (no task): it fires even if the screen that should
        # paint is gone; the app's unmount resumes the collector too
        self._collector_deadline = loop.call_later(GC_PAUSE_MAX_SECONDS,
                                                   self.resume_collector)

    def resume_collector(self) -> None:
        """Turn the garbage collector back on if a hold turned it off (the young objects
        are collected at the next allocation, after the frame)."""
        deadline, self._collector_deadline = self._collector_deadline, None
        if deadline is not None:
            deadline.cancel()
        if self._collector_paused:
            self._collector_paused = False
            gc.enable()

    def paint_now(self, screen: Screen[object]) -> None:
        """Paint what changed on ``screen`` now, in this turn of the event loop (see module
        doc), not on its next timer tick; a hold still running is released."""
        self._screen = None
        self._unhold()
        self._paint(screen)

    def paint_soon(self, screen: Screen[object]) -> None:
        """Paint what changed on ``screen`` in the next turns of the event loop, as
        ``release`` does, not on the screen's next timer tick; nothing while a hold runs
        (the held key's frame carries the change)."""
        if self._timer is None:
            screen.call_later(self._paint, screen)

    def _paint(self, screen: Screen[object], waited: int = 0) -> None:
        """Paint, once every widget of the screen that changed has told the screen: the
        repaints are handed over here; a pending layout or scroll is waited for (the
        widget's idle step asks for it), a few loop turns at most."""
        if not screen.is_current or batch_held(self._app):
            if self._timer is None:  # a newer key's hold keeps its pause until its paint
                self.resume_collector()
            return
        if not hand_over_repaints(screen) and waited < PAINT_WAIT_TURNS:
            # through the event loop: the screen's own queue would run it again at once,
            # before those widgets' tasks had a turn
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
