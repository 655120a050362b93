"""The Bundles pane (read-only): the documents agents write through the service
(``project:<id>``, the user's ``schedule:<name>``); ``c`` copies the selected one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType

from memtui.app.format import block, local_time
from memtui.app.panes.base import DETAIL_BINDINGS
from memtui.app.panes.list_pane import ListPane
from memtui.app.widgets.line_list import ItemList
from memtui.errors import MemtuiError
from memtui.textsafe import one_line

EMPTY_TEXT = ("No bundles yet — agents write them through the service "
              "(memtui serve; bundle.document.put).")
BUNDLE_COLUMN = 28
PATH_COLUMN = 30


@dataclass(frozen=True)
class DocumentRow:
    """One document of one bundle, as the list shows it."""

    bundle: str
    path: str
    revision: int


class BundlesPane(ListPane[ItemList[DocumentRow]]):
    """Every readable bundle's documents; the selected one's content below."""

    PANE_ID = "bundles"
    TITLE = "Bundles"
    EMPTY_TEXT = EMPTY_TEXT
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "copy", id="bundles.copy"),
        *DETAIL_BINDINGS,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.content = ""

    def _row(self, row: DocumentRow, width: int) -> Text:
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(f"{one_line(row.bundle, BUNDLE_COLUMN - 2):<{BUNDLE_COLUMN}}")
        line.append(f"{one_line(row.path, PATH_COLUMN - 2):<{PATH_COLUMN}}")
        line.append(f"rev {row.revision}", style="dim")
        return line

    def copy_text(self) -> tuple[str, str] | None:
        """The selected document's content."""
        row = self.item_list.current()
        if row is None or not self.content:
            return None
        return (f"{row.bundle} {row.path}", self.content)

    def refresh_data(self) -> None:
        """Read the bundles again, keeping the cursor on the same document."""
        super().refresh_data()
        try:
            bundles = self.memtui.engine.recall.list_bundles()
        except MemtuiError as error:
            self.memtui.say(f"Could not read the bundles: {error.message}", severity="error")
            return
        rows = [DocumentRow(info.bundle, path, revision)
                for info in bundles for path, revision in info.documents]
        self.item_list.set_items(rows, key=lambda row: (row.bundle, row.path))
        title = Text("Bundles", style="bold")
        title.append(f" · {len(bundles)} bundles · {len(rows)} documents · read-only "
                     "(agents write them) · c copies", style="dim")
        self.show_title(title)
        self._update_preview()

    def preview(self) -> RenderableType:
        """The selected document, read now."""
        row = self.item_list.current()
        self.content = ""
        if row is None:
            return ""
        try:
            document = self.memtui.engine.recall.get_document(row.bundle, row.path)
        except MemtuiError as error:
            return Text(f"{row.bundle} {row.path}: {error.message}", style="dim")
        self.content = document.content
        text = Text(f"{row.bundle} · {row.path} · revision {document.revision} · updated "
                    f"{local_time(document.updated_at, self.memtui.tz)} by ", style="bold")
        text.append(one_line(document.updated_by, 40), style="bold")
        text.append("\n\n")
        text.append_text(block(document.content))
        return text
