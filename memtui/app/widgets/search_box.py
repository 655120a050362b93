"""``SearchBox``: the memory panes' search input, which never lays the screen out per key.

Textual's ``Input`` sets its ``virtual_size`` (the text's width, for scrolling sideways) on
every change of its value, and that reactive asks for a layout: a reflow of the whole
screen on every keystroke of a search as you type, for a box whose size never changes (it
is as wide as its pane, one line high). Here the reactive repaints only; the box still
scrolls sideways with its cursor, which reads ``virtual_size`` directly.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class SearchBox(Input):
    """An ``Input`` of fixed size whose typing repaints it without a layout (module doc)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)
