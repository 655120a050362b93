"""The History pane: the selected memory's supersede chain, oldest to newest; restore a
version (as a new version), open any version's detail, forget the whole chain."""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType

from memtui.app.format import block, local_time
from memtui.app.panes.base import DETAIL_BINDINGS
from memtui.app.panes.list_pane import ListPane
from memtui.app.widgets.line_list import ItemList
from memtui.errors import MemtuiError
from memtui.store.models import Memory
from memtui.textsafe import one_line

EMPTY_TEXT = ("No memory selected — pick one in the User or Project pane and press h "
              "(or just come back here).")


class HistoryPane(ListPane[ItemList[Memory]]):
    """The supersede chain of the memory last selected in a memory pane."""

    PANE_ID = "history"
    COPY_LABEL = "version"
    WRITE_ACTIONS = frozenset({"restore", "forget_chain"})
    TITLE = "History"
    EMPTY_TEXT = EMPTY_TEXT
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "restore", "restore version",
                tooltip="Restore the selected version (a new version with its text)",
                id="history.restore"),
        Binding("d", "forget_chain", "forget chain",
                tooltip="Forget the whole chain (asks)", id="history.forget"),
        Binding("c", "copy", "copy", tooltip="Copy the version's text", id="history.copy"),
        *DETAIL_BINDINGS,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.memory_id: str | None = None
        self.versions: list[Memory] = []

    def on_mount(self) -> None:
        """Follow the target: the memory asked for (``h``), else the one last selected in
        a memory pane (the app's reactives); a change makes the pane read again."""
        def moved(asked: bool) -> None:
            if asked or self.memtui.history_memory_id is None:
                self.stale = True

        self.watch(self.app, "history_memory_id", lambda: moved(True), init=False)
        self.watch(self.app, "selected_memory_id", lambda: moved(False), init=False)

    def _row(self, memory: Memory, width: int) -> Text:
        """One version: number, when, source, author, state, text."""
        number = self.versions.index(memory) + 1 if memory in self.versions else 0
        state = "current" if memory.status == "active" else "old"
        row = Text(no_wrap=True, overflow="ellipsis")
        row.append(f"v{number:<3}", style="bold" if state == "current" else "")
        row.append(f"{local_time(memory.created_at, self.memtui.tz, with_year=False):<12}",
                   style="dim")
        row.append(f"{memory.source:<7}{memory.owner[:10]:<11}{state:<8}", style="dim")
        row.append(one_line(memory.content))
        return row

    def selected_memory(self) -> Memory | None:
        """The version under the cursor."""
        return self.item_list.current()

    def head(self) -> Memory | None:
        """The current (active) version of the chain."""
        active = [m for m in self.versions if m.status == "active"]
        return active[-1] if active else (self.versions[-1] if self.versions else None)

    def refresh_data(self) -> None:
        """Read the chain of the selected memory again (the cursor stays on its version)."""
        super().refresh_data()
        target = self.memtui.history_memory_id or self.memtui.selected_memory_id
        keep = self.selected_memory()
        versions: list[Memory] | None = None
        self.item_list.empty_text = EMPTY_TEXT
        if target is not None:
            try:
                versions = self.memtui.engine.identity.history(target)
            except MemtuiError as error:
                self.item_list.empty_text = f"{error.message} — it may have been forgotten."
        self.versions = versions or []
        heading = Text("History", style="bold")
        if versions is None or target is None:
            self.item_list.set_items([])
        else:
            self.memory_id = target
            kept = keep.id if keep is not None and keep.id in {m.id for m in versions} \
                else target
            self.item_list.set_items(versions, key=lambda version: version.id, keep=kept)
            head = self.head()
            heading = Text("History of ", style="bold")
            heading.append(head.id if head else target, style="bold")
            count = len(versions)
            heading.append(f" · {count} version{'s' if count != 1 else ''}, oldest first",
                           style="dim")
        self.show_title(heading)
        self._update_preview()
        head = self.head()
        self.check_writes(head.project if head else None, asked=head is not None)

    def preview(self) -> RenderableType:
        """The selected version's text and where it stands."""
        memory = self.selected_memory()
        if memory is None:
            return ""
        meta = Text(f"{memory.id} · {memory.kind} · {memory.source} · by {memory.owner} · "
                    f"{local_time(memory.created_at, self.memtui.tz)}"
                    + (f" · replaced by {memory.superseded_by}" if memory.superseded_by else
                       " · current"), style="dim")
        return Text.assemble(meta, "\n", block(memory.content))

    def action_restore(self) -> None:
        """Make the selected version current again (a supersede of the current head)."""
        version, head = self.selected_memory(), self.head()
        if version is None or head is None:
            self.memtui.say("No version selected.", severity="warning")
            return
        if version.id == head.id:
            self.memtui.say("That is already the current version.", severity="warning")
            return
        from memtui.app.curator import restore

        self.memtui.do(restore(self.memtui.engine, head, version))

    def forget_selected(self) -> None:
        """Forget the whole chain shown (``d``; asks first)."""
        from memtui.app.curator import Notice, forget

        head = self.head()
        self.memtui.do(forget([head.id]) if head else Notice("No memory selected."))

    action_forget_chain = forget_selected
