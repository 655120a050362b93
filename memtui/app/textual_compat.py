"""Every use of a private Textual name (a test refuses them anywhere else), each behind a
function saying what it does; importing it checks the installed Textual's version."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import textual
from textual.geometry import Size
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen
    from textual.scroll_view import ScrollView
    from textual.widgets import Input

TEXTUAL_VERSION = "8.2.8"
"""The Textual release this module was written against (pinned exactly in pyproject.toml)."""


class TextualVersionError(ImportError):
    """The installed Textual is not the one memtui's private uses were written for."""


def check_textual_version(found: str = textual.__version__) -> None:
    """Refuse, in one line, a Textual other than ``TEXTUAL_VERSION``."""
    if found != TEXTUAL_VERSION:
        raise TextualVersionError(
            f"memtui needs Textual {TEXTUAL_VERSION} (found {found}): "
            f"pip install 'textual=={TEXTUAL_VERSION}'")


check_textual_version()


def batch_held(app: App[Any]) -> bool:
    """Whether any update batch holds the screen's paints now."""
    return bool(app._batch_count)


def paint_screen(screen: Screen[Any]) -> None:
    """The screen's paint step, at once (what its update timer runs on a tick)."""
    screen._on_timer_update()


def hand_over_repaints(screen: Screen[Any]) -> bool:
    """Give the screen every visible widget's pending repaint, as the widget's idle step
    would; False, handing over nothing, while a widget still waits to lay out, scroll or
    restyle."""
    visible = screen._compositor.visible_widgets
    waiting: list[Widget] = []
    for widget in screen.walk_children(Widget):
        if widget._layout_required or widget._scroll_required or widget._refresh_styles_required:
            return False
        if widget._repaint_required and widget.display and widget in visible:
            waiting.append(widget)
    for widget in waiting:
        widget._repaint_required = False
        screen._dirty_widgets.add(widget)
    return True


def app_keymap(app: App[Any]) -> Mapping[str, str]:
    """The keymap the app runs with (binding id -> keys), as ``App.set_keymap`` left it."""
    return dict(app._keymap)


def update_scroll_size(view: ScrollView, size: Size) -> None:
    """Tell a scroll view its virtual size changed (its scroll bars follow, no layout)."""
    view._scroll_update(size)


def input_suggestion(widget: Input) -> str:
    """The completion an Input shows for its value now ("" for none)."""
    return str(widget._suggestion)


SCREEN_FRAME_METHOD = "_compositor_refresh"
"""The Screen method that composes and writes a frame (the benchmark wraps it to time each)."""


def send_key_as_driver(app: App[Any], key: str) -> None:
    """Send one key as a terminal driver does, without Pilot's waits (for the benchmark)."""
    import unicodedata

    from textual import events
    from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char: str | None = unicodedata.lookup(
            _get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        char = key if len(key) == 1 else None
    event = events.Key(key, char)
    event.set_sender(app)
    driver = app._driver
    if driver is not None:
        driver.send_message(event)
