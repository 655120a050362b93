"""The key bar: one line of the keys that work here (``n note e edit d forget …``): what
Textual's ``Footer`` shows, as one widget drawn as text (``Footer`` builds a widget per key,
again on every focus change). Clicking a key presses it; a disabled key is dim."""

from __future__ import annotations

from typing import NamedTuple

from rich.text import Text
from textual.binding import Binding
from textual.screen import Screen

from memtui.app.widgets.clickable_line import ClickableLine

GAP = " "
"""Between two keys."""


class KeyItem(NamedTuple):
    """One key on the bar."""

    key: str
    display: str
    """How the key is shown (after the keymap)."""
    description: str
    enabled: bool
    tooltip: str


class KeyBar(ClickableLine[KeyItem]):
    """One line of the shown bindings (``Binding.show``), one per action."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description", "key-bar--hover"}
    DEFAULT_CSS = """
    KeyBar { height: 1; dock: bottom; background: $footer-background;
             color: $footer-foreground; }
    KeyBar > .key-bar--key { color: $footer-key-foreground;
                             background: $footer-key-background; text-style: bold; }
    KeyBar > .key-bar--description { color: $footer-description-foreground; }
    KeyBar > .key-bar--hover { background: $block-hover-background; }
    """

    def on_mount(self) -> None:
        """Follow the top screen's bindings (in a dialog, the dialog's own keys)."""
        self._followed: Screen | None = None
        self.app.screen_change_signal.subscribe(self, self._screen_changed)
        self._screen_changed(self.app.screen)

    def on_unmount(self) -> None:
        """Stop following them."""
        self.app.screen_change_signal.unsubscribe(self)
        if self._followed is not None:
            self._followed.bindings_updated_signal.unsubscribe(self)
            self._followed = None

    def _screen_changed(self, screen: Screen) -> None:
        if self._followed is not None and self._followed is not screen:
            self._followed.bindings_updated_signal.unsubscribe(self)
        self._followed = screen
        screen.bindings_updated_signal.subscribe(self, lambda _screen: self.refresh())
        self.refresh()

    def shown_screen(self) -> Screen:
        """The screen whose keys the bar shows: the top one (a dialog when one is open)."""
        try:
            return self.app.screen
        except Exception:  # no screen (shutting down)
            return self.screen

    def items(self) -> list[KeyItem]:
        """The keys to show, in binding order, the first binding of each action."""
        seen: set[str] = set()
        items: list[KeyItem] = []
        for active in self.shown_screen().active_bindings.values():
            binding: Binding = active.binding
            if not binding.show or binding.action in seen:
                continue
            offers = getattr(active.node, "offers", None)
            if callable(offers) and not offers(binding.action):
                continue  # not allowed here (a reader's writes): not offered
            seen.add(binding.action)
            items.append(KeyItem(binding.key, self.app.get_key_display(binding),
                                 binding.description, active.enabled,
                                 active.tooltip or binding.tooltip or binding.description))
        return items

    def render(self) -> Text:
        """The keys, cut at the right edge; remembers where each one is drawn."""
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        hover_style = self.get_component_rich_style("key-bar--hover", partial=True)
        line = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, KeyItem]] = []
        width = self.size.width or 80
        for item in self.items():
            cells = len(GAP) * bool(spans) + Text(item.display).cell_len + \
                (1 + Text(item.description).cell_len if item.description else 0)
            if line.cell_len + cells > width:
                break  # whole keys only: never half a word at the edge
            if spans:
                line.append(GAP)
            start = line.cell_len
            line.append(item.display, style=key_style)
            if item.description:
                line.append(" " + item.description, style=description_style)
            if not item.enabled:
                line.stylize("dim", start)
            if self.is_hovered(item):
                line.stylize(hover_style, start)
            spans.append((start, line.cell_len, item))
        self.remember_spans(spans)
        return line

    def tooltip_for(self, item: KeyItem) -> str | None:
        """What the key does."""
        return item.tooltip

    def clicked(self, item: KeyItem) -> None:
        """Clicking a key presses it (a disabled one rings the bell)."""
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()
