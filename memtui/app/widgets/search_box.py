"""``SearchBox``: the memory panes' search input, which never lays the screen out per key
(``Input`` does, for its ``virtual_size``) and hands each new text straight to its pane.
The typed text is drawn straight from ``rich.text.Text``; other cases (placeholder,
suggestion, password, tabs) are drawn by ``Input`` itself."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.geometry import Size
from textual.reactive import Reactive
from textual.strip import Strip
from textual.widgets import Input

from memtui.app.textual_compat import input_suggestion


class SearchBox(Input):
    """An ``Input`` of fixed size whose new values go to ``on_typed``."""

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

    def render_line(self, y: int) -> Strip:
        """The box's line: the typed text, its selection and cursor (module doc)."""
        value = self.value
        if y != 0 or not value or self.password or self.highlighter is not None \
                or input_suggestion(self) or "\t" in value or "\n" in value:
            return super().render_line(y)
        text = Text(value, no_wrap=True, overflow="ignore", end="")
        if self.has_focus:
            if not self.selection.is_empty:
                start, end = sorted(self.selection)
                text.stylize_before(self.get_component_rich_style("input--selection"),
                                    start, end)
            if self._cursor_visible:
                cursor = self.cursor_position
                if self.cursor_at_end:
                    text.pad_right(1)
                text.stylize(self.get_component_rich_style("input--cursor"), cursor,
                             cursor + 1)
        width = self.scrollable_content_region.width
        scroll_x, _ = self.scroll_offset
        strip = Strip(list(text.render(self.app.console)))
        return strip.crop(scroll_x, scroll_x + width + 1).extend_cell_length(
            width + 1).apply_style(self.rich_style)
