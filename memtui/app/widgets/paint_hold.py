"""``PaintHold``: let a keystroke's echo and the results it asked for share one frame.

Search as you type reads each key's page in a worker. Left alone, Textual paints the typed
character at once, and the rows a few milliseconds later in a second frame -- which its frame
pacing then starts up to two frame intervals after the first, and which redraws most of the
screen again. Holding the screen's paints from the keystroke until the results are applied
(or ``ECHO_HOLD_SECONDS`` has passed, whichever comes first) paints both in one frame as
soon as the rows are there. The hold only delays painting: the query runs once either way,
at once, and a slow one never waits for it (the echo is painted when the hold runs out, the
rows when they come).

The hold is Textual's own batch (``App.batch_update`` / ``App.delay_update`` use it): while
it is held, the screen keeps collecting changes and paints none of them. The release paints
the held frame at once, as the screen's update timer does on a tick: a tick that came during
the hold found nothing it could paint, and Textual's timer then waits one to two frame
intervals before its next tick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen
    from textual.timer import Timer

ECHO_HOLD_SECONDS = 0.04
"""The longest a keystroke's echo waits for its results to share a frame with them (under
the 50 ms in which typing still feels immediate)."""


class PaintHold:
    """One app's paint hold (see module doc): ``hold()`` on a keystroke that starts a read,
    ``release()`` when its results are applied. Holds do not nest: a hold already running
    keeps its deadline, so no echo waits longer than ``ECHO_HOLD_SECONDS``."""

    def __init__(self, app: App[object], seconds: float | None = None) -> None:
        self._app = app
        self._seconds = seconds
        """The hold's deadline (``ECHO_HOLD_SECONDS`` when not given)."""
        self._timer: Timer | None = None
        self._screen: Screen[object] | None = None
        self.holds = 0
        """How many holds were started (for tests)."""

    @property
    def active(self) -> bool:
        """Whether the screen's paints are being held now."""
        return self._timer is not None

    def hold(self) -> None:
        """Hold the screen's paints until ``release()`` or the deadline."""
        if self._timer is not None:
            return
        self.holds += 1
        self._app._begin_batch()  # what App.batch_update does
        self._screen = self._app.screen
        seconds = ECHO_HOLD_SECONDS if self._seconds is None else self._seconds
        self._timer = self._app.set_timer(seconds, self.release, name="paint-hold")

    def release(self) -> None:
        """Paint what was held now (nothing when no hold is running)."""
        timer, self._timer = self._timer, None
        if timer is None:
            return
        timer.stop()
        screen, self._screen = self._screen, None
        self._app._end_batch()
        if screen is not None:
            # after the messages already posted (the list's owner updating its title): the
            # screen's own paint step, at once (see module doc)
            screen.call_later(self._paint, screen)

    def _paint(self, screen: Screen[object]) -> None:
        if screen.is_current and not self._app._batch_count:
            screen._on_timer_update()


_HOLDS: WeakKeyDictionary[App[object], PaintHold] = WeakKeyDictionary()


def paint_hold(app: App[object]) -> PaintHold:
    """The app's one ``PaintHold`` (made on first use)."""
    hold = _HOLDS.get(app)
    if hold is None:
        hold = _HOLDS[app] = PaintHold(app)
    return hold
