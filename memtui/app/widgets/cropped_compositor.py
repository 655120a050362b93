"""``CroppedCompositor``: Textual's compositor, asking only the widgets a partial frame shows
for their lines.

A partial frame (a few widgets changed: the list's rows and the search box's echo on a
keystroke) is drawn from every widget that overlaps the region being updated. Textual picks
those widgets by their *clip* -- the part of the screen their parent lets them draw in --
not by the part they actually take: every widget whose parent is the screen has the whole
screen as its clip, so the header, the pane bar, the status line and the key bar are asked
for all their lines on every frame, and so are a pane's title and preview, whose clip is
the pane. None of those lines is used (the frame keeps only the lines inside the update),
but each such widget still walks its styles and hands over its cached lines: six widgets
of the twelve Textual asks for a search keystroke's frame at 120x40, about a quarter of
that frame's compositing when the widgets' lines are cached (0.98 ms against 0.75 ms, timed
over 300 frames on the benchmark's million-memory store).

``CroppedCompositor`` asks a widget only when the part of it that is visible (its region
cut to its clip) overlaps the update; the region, the clip and the lines it asks for are
Textual's, so the frame is the same (``tests/test_cropped_compositor.py`` renders both).
Every memtui screen uses it (``compose_cropped``: the main screen and the dialogs;
Textual's command palette keeps its own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual._compositor import Compositor
from textual.geometry import Region

if TYPE_CHECKING:
    from collections.abc import Iterable

    from textual.screen import Screen
    from textual.strip import Strip


class CroppedCompositor(Compositor):
    """A ``Compositor`` whose partial frames skip widgets they do not show (module doc)."""

    def _get_renders(self, crop: Region | None = None,
                     ) -> Iterable[tuple[Region, Region, list[Strip]]]:
        """Textual's (region, clip, lines) for each visible widget, front to back, with the
        lines of the widget's visible part; with ``crop``, only the widgets whose visible
        part overlaps it."""
        if not crop:
            yield from super()._get_renders(crop)
            return
        overlaps = crop.overlaps
        for widget, (region, clip) in self.visible_widgets.items():
            shown = region.intersection(clip)
            if shown.width and shown.height and overlaps(shown):
                yield region, clip, widget.render_lines(Region(
                    shown.x - region.x, shown.y - region.y, shown.width, shown.height))


def compose_cropped(screen: Screen[Any]) -> None:
    """Give ``screen`` a ``CroppedCompositor`` (from its ``__init__``, before it is laid
    out: the compositor holds no widgets yet)."""
    screen._compositor = CroppedCompositor()
