"""A memory's detail view (provenance: the task it came from, its source, its use)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast
from zoneinfo import ZoneInfo

from rich.console import RenderableType
from textual.binding import Binding

from memtui.app.modals.text import ScrollTextDialog
from memtui.errors import MemtuiError
from memtui.store.models import Memory

if TYPE_CHECKING:
    from memtui.app.app import MemtuiApp
    from memtui.app.curator import Step
    from memtui.engine.api import Engine


class MemoryDetailModal(ScrollTextDialog[None]):
    """Shows one memory; ``h`` its history, ``e`` correct it, ``c`` copy its text."""

    BOX = "detail"
    BINDINGS = [
        Binding("escape,q", "close", "close", tooltip="Close", id="detail.close"),
        Binding("h", "choose('history')", "history", tooltip="The memory's history",
                id="detail.history"),
        Binding("e", "choose('correct')", "correct", tooltip="Correct it", id="detail.correct"),
        Binding("c", "choose('copy')", "copy", tooltip="Copy its text", id="detail.copy"),
    ]

    def __init__(self, memory: Memory, body: RenderableType) -> None:
        super().__init__(f"Memory {memory.id}", body,
                         "esc close · h history · e correct · c copy")
        self.memory = memory

    def action_close(self) -> None:
        """Close."""
        self.dismiss(None)

    def action_choose(self, action: str) -> None:
        """Close, then show the memory's history, correct it or copy its text."""
        from memtui.app.curator import correct

        app, memory = cast("MemtuiApp", self.app), self.memory
        self.dismiss(None)
        if action == "history":
            app.show_history(memory.id)
        elif action == "correct":
            app.do(correct(app.engine, memory))
        elif action == "copy":
            app.copy_text(memory.content, f"memory {memory.id}")


def memory_detail_view(engine: Engine, memory_id: str, tz: ZoneInfo) -> Step:
    """The detail view of a memory (with its task, when the store has it), or why not."""
    from memtui.app.curator import Notice
    from memtui.app.widgets.detail import memory_detail

    identity = engine.identity
    try:
        memory = identity.get_memory(memory_id)
        versions = identity.chain_size(memory_id)
    except MemtuiError as error:
        return Notice(f"{error.message} (it may have been forgotten)")
    task, note = None, None
    if memory.source_thread_id:
        try:
            task = engine.tasks.get_task(memory.source_thread_id)
        except MemtuiError:
            note = "that task is not in this store"
    return MemoryDetailModal(memory, memory_detail(memory, tz, task=task, task_note=note,
                                                   versions=versions))
