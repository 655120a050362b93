"""``SearchBox``: the memory panes' search input, which never lays the screen out per key and
hands each new text straight to its pane.

Textual's ``Input`` sets its ``virtual_size`` (the text's width, for scrolling sideways) on
every change of its value, and that reactive asks for a layout: a reflow of the whole
screen on every keystroke of a search as you type, for a box whose size never changes (it
is as wide as its pane, one line high). Here the reactive repaints only; the box still
scrolls sideways with its cursor, which reads ``virtual_size`` directly.

A new value is given to ``on_typed`` at once, from the value's watcher, instead of as an
``Input.Changed`` message: the message would reach the pane two event-loop turns later (the
box's queue, then the pane's), and every turn before the key's query starts is added to the
time the key takes to show its rows.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class SearchBox(Input):
    """An ``Input`` of fixed size whose typing repaints it without a layout, and whose new
    values go to ``on_typed`` (module doc); it posts no ``Input.Changed``."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(self, on_typed: Callable[[str], None], *, placeholder: str = "",
                 id: str | None = None, classes: str | None = None,
                 compact: bool = False) -> None:
        super().__init__(placeholder=placeholder, id=id, classes=classes, compact=compact)
        self._on_typed = on_typed
        self.disable_messages(Input.Changed)  # the pane hears of a new text at once instead

    def watch_value(self, value: str) -> None:
        """A new text: to ``on_typed``, now (Textual calls this once the value changed)."""
        self._on_typed(value)
