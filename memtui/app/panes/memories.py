"""The User memories and Project memories panes: a paged list with search, filter, marks and
the curation keys; the filter's ``stale`` choice lists the stale memories with why."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Input, Static

from memtui.app.filter_choice import FilterChoice
from memtui.app.format import block, literal, local_time
from memtui.app.panes.base import Pane
from memtui.app.widgets.line_list import LineList
from memtui.app.widgets.memory_list import MemoryList
from memtui.app.widgets.paint_hold import paint_hold
from memtui.app.widgets.search_box import SearchBox
from memtui.app.widgets.text_view import TextView
from memtui.errors import MemtuiError
from memtui.store.models import Memory, MemoryFilter, Project

if TYPE_CHECKING:
    from memtui.app.curator import Step
    from memtui.app.messages import Written
    from memtui.engine.api import Engine
    from memtui.engine.staleness import StaleMemory

PREVIEW_LINES = 3
"""Lines of the selected memory's text shown under the list (more when it is taller)."""
SEARCH_PLACEHOLDER = "/ search (words; the last one may be a prefix)"
STALE_EMPTY = "No stale memories here — f changes the filter"
NO_SELECTION = "Select a memory first (the list is empty)."


class SearchPrompt(Static):
    """Stands where the search box goes until the search is first used (``/`` or a click,
    which calls ``activate``): it looks like the empty box, and the real ``Input`` (a dozen
    reactives and its own CSS) is made then, not for the first frame."""

    DEFAULT_CSS = """
    SearchPrompt { height: 1; margin: 0 1; background: $surface; color: $text-disabled;
                   text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, activate: Callable[[], object], *, id: str) -> None:
        super().__init__(SEARCH_PLACEHOLDER, id=id)
        self._activate = activate

    def on_click(self) -> None:
        """A click opens the search box."""
        self._activate()


class MemoriesPane(Pane):
    """The acting user's user-level memories (only they see them); the base of the Project
    pane, which sets ``SCOPE`` and how the list is chosen."""

    PANE_ID = "user"
    TITLE = "User"
    SCOPE: ClassVar[str] = "user"
    NO_MEMORIES: ClassVar[str] = ("No memories yet — press n to add one (the extractor "
                                  "writes project memories only)")
    """What a list without memories says (user memories are only written by hand)."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "note", "note", tooltip="New note (in this list's scope)",
                id="memory.note"),
        Binding("a", "add", "add", show=False, tooltip="Add a memory (pick its kind)",
                id="memory.add"),
        Binding("e", "correct", "edit",
                tooltip="Correct the selected memory (a supersede; History keeps the old text)",
                id="memory.correct"),
        Binding("d", "forget", "forget",
                tooltip="Forget the selected or marked memories and their history (asks)",
                id="memory.forget"),
        Binding("K", "keep", "keep",
                tooltip="Keep the selected or marked stale memories (marked used now: they "
                        "leave the unused list)", id="memory.keep"),
        Binding("c", "copy", "copy", tooltip="Copy the selected memory's text",
                id="memory.copy"),
        Binding("slash", "search", "search", tooltip="Search as you type (full text)",
                id="memory.search"),
        Binding("f", "filter", "filter", show=False,
                tooltip="Filter by kind, status (or stale), source",
                id="memory.filter"),
        Binding("h", "history", "history", show=False,
                tooltip="The selected memory's history", id="memory.history"),
        Binding("escape", "leave_search", "back", show=False,
                tooltip="Leave the search (clears it) / clear marks", id="memory.leave_search"),
    ]

    NOTHING_TO_COPY = NO_SELECTION
    WRITE_ACTIONS = frozenset({"note", "add", "correct", "forget", "keep"})

    def __init__(self) -> None:
        super().__init__()
        self.choice = FilterChoice()
        self._stale_items: dict[str, StaleMemory] = {}
        """The stale view's memories with why each is stale, by id (empty outside it)."""
        self._loaded_once = False
        self._said_error: str | None = None
        self._preview_for: tuple[Memory | None, int, object, tuple[str, ...]] | None = None
        """What the preview was last drawn for (memory, lines, time zone, stale reasons)."""
        self._title_for: tuple[object, ...] | None = None
        """What the title was last drawn from (``_update_title``)."""
        self._surroundings_due = False
        """Whether the title and preview wait to follow a change of the list."""
        # the parts, made once (every keystroke of a search reaches each of them)
        self._title = TextView(classes="pane-title", id=f"{self.PANE_ID}-title")
        self.memory_list = MemoryList(id=f"{self.PANE_ID}-list", empty_text="",
                                      on_change=self._list_changed)
        self._preview = TextView(classes="preview", id=f"{self.PANE_ID}-preview")
        self.search_box: SearchBox | None = None
        """The search input (None until the search is first used)."""

    def compose(self) -> ComposeResult:
        """Title line, search box, the list, a preview of the selected memory."""
        yield self._title
        # (the pane opens it: the prompt is removed meanwhile)
        yield SearchPrompt(partial(self.call_later, self.action_search),
                           id=f"{self.PANE_ID}-search-prompt")
        yield self.memory_list
        yield self._preview

    @property
    def search_text(self) -> str:
        """What the search box holds (stripped; empty before the search is used)."""
        box = self.search_box
        return box.value.strip() if box is not None else ""

    async def open_search_box(self) -> Input:
        """The search input, made in place of the prompt the first time."""
        box = self.search_box
        if box is None:
            box = self.search_box = SearchBox(  # before the awaits: it is made only once
                self._search_typed, placeholder=SEARCH_PLACEHOLDER,
                id=f"{self.PANE_ID}-search", classes="search", compact=True)
            prompt = self.query_one(SearchPrompt)
            await self.mount(box, after=prompt)
            await prompt.remove()
        return box

    def focus_target(self) -> Widget | None:
        """The list gets focus when the pane is shown."""
        return self.memory_list

    def project_arg(self) -> str | None:
        """The project the list belongs to (None for user memories)."""
        return None

    def empty_text(self) -> str:
        """What an empty list says."""
        if self.search_text or self.choice != FilterChoice():
            return "Nothing matches — esc clears the search, f changes the filter"
        return self.NO_MEMORIES

    def heading(self) -> str:
        """The first words of the title line: whose memories."""
        return f"User memories of {self.memtui.engine.actor}"

    def selected_memory(self) -> Memory | None:
        """The memory under the cursor."""
        return self.memory_list.current()

    def on_mount(self) -> None:
        """Set the time zone; the start pane reads its list now, not after the first frame."""
        self.memory_list.tz = self.memtui.tz
        if self.stale and self.memtui.config.start_pane == self.PANE_ID:
            self.refresh_data(first_page_now=True)

    def refresh_data(self, *, first_page_now: bool = False) -> None:
        """Read the list again (``first_page_now``: see ``MemoryList.show``)."""
        super().refresh_data()
        self.memory_list.tz = self.memtui.tz
        if self._loaded_once:
            self._follow_correction()
        self._load(keep_position=self._loaded_once,
                   first_page_now=first_page_now and not self._loaded_once)
        self._loaded_once = True

    def _follow_correction(self) -> None:
        """Once the list has reloaded, the cursor stands on the new version of its memory
        if that was corrected (unless the list shows superseded versions)."""
        current = self.memory_list.current()
        if current is None or self.choice.status_arg != "active":
            return
        try:
            newest = self.memtui.engine.identity.newest_version(current.id)
        except MemtuiError:  # forgotten: the list moves to a neighbour
            return
        if newest is not None and newest.id != current.id:
            self.memory_list.select_when_loaded(newest.id)

    def reset(self) -> None:
        """Forget position and marks (the list now shows something else)."""
        self._loaded_once = False
        self.memory_list.marked.clear()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keep (``K``) works in the stale view only."""
        return action != "keep" or self.choice.stale

    def _load(self, *, keep_position: bool, first_page_now: bool = False,
              typed: bool = False) -> None:
        """Read the list for the pane's filter and search; the title is drawn now (not for
        a typed key: it follows the rows)."""
        choice = self.choice
        if typed and choice.stale:
            return  # the stale view lists every stale memory: a search does not narrow it
        if not typed:  # a typed key changes no right to write: no queries on the key path
            self.check_writes(self.project_arg())
        self.memory_list.empty_text = STALE_EMPTY if choice.stale else self.empty_text()
        search = None if choice.stale else self.search_text or None
        try:
            flt = self.memtui.engine.identity.memory_filter(
                self.project_arg(), kind=choice.kind, status=choice.status_arg,
                source=choice.source, search=search)
        except MemtuiError as error:
            self.memtui.say(error.message, severity="error")
            return
        if self.SCOPE == "project" and self.project_arg() is None:
            return
        if choice.stale:
            self._read_stale(flt, keep_position)
        else:
            if self._stale_items:  # the stale view's marks go with it
                self._stale_items = {}
                self.memory_list.set_stale(frozenset())
            self.memory_list.show(self.memtui.engine, flt, keep_position=keep_position,
                                  first_page_now=first_page_now)
        if not typed:
            self._update_title()

    def _read_stale(self, flt: MemoryFilter, keep_position: bool) -> None:
        """The list's stale memories, newest first (a thread job: it reads the folder)."""
        from memtui.engine.staleness import MAX_STALE_LIST

        choice, staleness = self.choice, self.memtui.engine.staleness
        self.run_job("stale-view", lambda: staleness.stale(
            flt.project, MAX_STALE_LIST, kind=choice.kind, source=choice.source),
                     partial(self._stale_listed, flt, choice, keep_position))

    def _stale_listed(self, flt: MemoryFilter, choice: FilterChoice, keep_position: bool,
                      found: list[StaleMemory] | None, error: str | None) -> None:
        """Show the stale memories, each marked stale; marks of those no longer listed go."""
        if choice != self.choice or flt.project != self.project_arg():
            return  # the filter or the project changed since: a newer read follows
        if found is None:
            self.memory_list.pages_failed(error or "")
            return
        self._stale_items = {item.memory.id: item for item in found}
        self.memory_list.marked.intersection_update(self._stale_items)
        self.memory_list.set_stale(frozenset(self._stale_items))
        self.memory_list.show_rows(self.memtui.engine, flt, [item.memory for item in found],
                                   keep_position=keep_position)

    def _update_title(self) -> None:
        """The pane's name, the list's count, filter, marks and whether it is read only."""
        memory_list = self.memory_list
        count, at_least, heading = memory_list.count, memory_list.at_least, self.heading()
        shown_for = (heading, count, at_least, self.choice, len(memory_list.marked),
                     self.write_refusal is not None)
        if shown_for == self._title_for:
            return  # what the title says has not changed (typing on, say): nothing to do
        self._title_for = shown_for
        title = Text(heading, style="bold")
        title.append(" · ")
        if count is not None:
            title.append(f"{count:,}")
        elif at_least is not None:
            title.append(f"{at_least:,}+")  # a search's capped count
        else:
            title.append("counting…")
        title.append(f" · {self.choice.describe()}", style="dim")
        if memory_list.marked:
            title.append(f" · {len(memory_list.marked)} marked", style="bold")
        if self.write_refusal is not None:
            title.append(" · read only", style="bold")
        self._title.show(title)

    def _update_preview(self) -> None:
        preview = self._preview
        memory = self.selected_memory()
        item = self._stale_items.get(memory.id) if memory is not None else None
        reasons = item.reasons if item is not None else ()
        room = max(PREVIEW_LINES, preview.size.height - 1 - bool(reasons))
        shown_for = (memory, room, self.memtui.tz, reasons)
        if shown_for == self._preview_for:
            return  # the same memory, drawn the same: nothing to do (typing, counts)
        self._preview_for = shown_for
        if memory is None:
            preview.show(Text())
            return
        text = block(memory.content)
        lines = text.split(allow_blank=True)
        shown = Text("\n").join(lines[:room])
        if len(lines) > room:
            shown.append(" …")
        meta = Text(f"{memory.id} · {memory.kind} · {memory.source} · "
                    f"{local_time(memory.created_at, self.memtui.tz)} · used "
                    f"{memory.usage_count}× · enter details", style="dim")
        if reasons:
            meta.append("\nStale: ", style="bold yellow")
            meta.append_text(literal("; ".join(reasons), style="yellow"))
        preview.show(Text.assemble(meta, "\n", shown))

    def _list_changed(self, memory_list: MemoryList) -> None:
        """The list's rows, count, marks or error changed: errors are said once; the title
        and preview follow in a frame of their own, after the one showing the rows."""
        error = memory_list.error
        if error and error != self._said_error:
            self.memtui.say(f"Could not read the list: {error}", severity="error")
        self._said_error = error
        if not self._surroundings_due:
            self._surroundings_due = self.call_later(self._follow_list)

    def _follow_list(self) -> None:
        """The title and preview for the list as it is now, painted at once."""
        self._surroundings_due = False
        self._update_title()
        self._selection_changed()
        if self.is_attached:  # (a screen not on top is painted when it is)
            paint_hold(self.app).paint_soon(self.screen)

    def on_line_list_cursor_moved(self, message: LineList.CursorMoved) -> None:
        """The cursor moved: show the selected memory under the list."""
        message.stop()
        self._selection_changed()

    def _selection_changed(self) -> None:
        """Show the selected memory under the list, remember it for the History pane, and
        check the project memories on screen against the project's folder."""
        memory = self.selected_memory()
        if memory is not None:
            self.memtui.selected_memory_id = memory.id
        self._update_preview()
        shown = [row for row in self.memory_list.shown_rows() if row.project is not None]
        if shown and not self.choice.stale:  # (the stale view's rows are all stale)
            # which cite files, symbols or commands that are gone (it reads the folder)
            staleness = self.memtui.engine.staleness
            self.run_job("stale-marks", lambda: frozenset(staleness.check(shown)),
                         self._stale_checked)

    def _stale_checked(self, stale: frozenset[str] | None, _error: str | None) -> None:
        """Mark the stale rows (not in the stale view: a check from before it is dropped)."""
        if stale is not None and not self.choice.stale:
            self.memory_list.set_stale(stale)

    def _search_typed(self, text: str) -> None:
        """Search as you type, no debounce: a newer keystroke interrupts the older query,
        whose matches stay on screen until the new ones are read."""
        self._load(keep_position=False, typed=True)

    def on_input_submitted(self, message: Input.Submitted) -> None:
        """Enter in the search box: back to the list, keeping the search."""
        message.stop()
        self.screen.set_focus(self.memory_list)

    async def action_search(self) -> None:
        """Focus the search box."""
        self.screen.set_focus(await self.open_search_box())

    def action_leave_search(self) -> None:
        """Escape: clear the search (when in it) and go back to the list."""
        box = self.search_box
        if box is not None and box.has_focus:
            if box.value:
                box.value = ""
            self.screen.set_focus(self.memory_list)
        elif self.memory_list.marked:
            self.memory_list.action_clear_marks()

    def _need_memory(self) -> Memory | None:
        memory = self.selected_memory()
        if memory is None:
            self.memtui.say(NO_SELECTION, severity="warning")
        return memory

    def action_add(self) -> None:
        """New memory in this pane's scope (kind picker)."""
        from memtui.app.curator import add_memory

        self._new(add_memory)

    def action_note(self) -> None:
        """New note in this pane's scope."""
        from memtui.app.curator import add_note

        self._new(add_note)

    def _new(self, editor: Callable[[Engine, str | None], Step]) -> None:
        self.memtui.do(editor(self.memtui.engine, self.project_arg()))

    def action_correct(self) -> None:
        """Correct the selected memory (a supersede)."""
        from memtui.app.curator import correct

        memory = self._need_memory()
        if memory is not None:
            self.memtui.do(correct(self.memtui.engine, memory))

    correct_selected = action_correct

    def _marked_or_selected(self) -> list[str]:
        """The marked memories' ids, else the selected one's (none: says so)."""
        marked = sorted(self.memory_list.marked)
        if not marked:
            memory = self._need_memory()
            marked = [memory.id] if memory is not None else []
        return marked

    def forget_selected(self) -> None:
        """The marked memories, else the selected one (``d``; asks first)."""
        from memtui.app.curator import forget

        marked = self._marked_or_selected()
        if marked:
            self.memtui.do(forget(marked), self)

    action_forget = forget_selected

    def action_keep(self) -> None:
        """Keep the marked stale memories, else the selected one (``K``, stale view only):
        the Inbox's keep (asks for more than one); marked used now, they leave the list."""
        from memtui.app.curator import inbox_decide, refusal
        from memtui.app.inbox_sources import STALE_SOURCE, memory_entry

        entries = [memory_entry(STALE_SOURCE, "stale", self._stale_items[key])
                   for key in self._marked_or_selected() if key in self._stale_items]
        if entries:
            self.memtui.do(refusal(self.memtui.engine, self.project_arg()) or inbox_decide(
                self.memtui.inbox_sources, "approve", entries), self)

    def on_written(self, message: Written) -> None:
        """A forget this pane asked for is done: its memories' marks go."""
        self.memory_list.marked.difference_update(message.change.removed)

    def action_filter(self) -> None:
        """Choose kind, status (or the stale view) and source."""
        def chosen(choice: FilterChoice | None) -> None:
            if choice is not None and choice != self.choice:
                self.choice = choice
                self.refresh_bindings()  # (keep: the stale view's only)
                self._load(keep_position=False)

        from memtui.app.modals.filter import FilterModal

        self.app.push_screen(FilterModal(self.choice), chosen)

    def action_history(self) -> None:
        """The selected memory's history."""
        memory = self._need_memory()
        if memory is not None:
            self.memtui.show_history(memory.id)


class ProjectMemoriesPane(MemoriesPane):
    """The current project's memories, with a project switcher (``p``)."""

    PANE_ID = "project"
    TITLE = "Project"
    SCOPE = "project"
    NO_MEMORIES = "No memories yet — press n to add one, or turn on generate with g"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "switch_project", "project", show=False,
                tooltip="Choose the current project", id="memory.project"),
        Binding("P", "new_project", "new project", show=False,
                tooltip="Create a project (you own it; it becomes current)",
                id="memory.new_project"),
    ]

    def action_new_project(self) -> None:
        """Create a project in the app; it becomes current."""
        from memtui.app.curator import create_project

        def created(project: Project | None) -> None:
            if project is not None:
                self.set_project(project.id, say=False)  # the app says it was created

        self.app.push_screen(create_project(), created)

    def project_arg(self) -> str | None:
        """The app's current project."""
        return self.memtui.project

    def heading(self) -> str:
        """Which project, and the actor's role in it."""
        project = self.memtui.project
        if project is None:
            return "Project memories"
        role = self.memtui.engine.identity.role(project)
        return f"Project {project}" + (f" ({role})" if role else "")

    def empty_text(self) -> str:
        """Explain what to do."""
        if self.memtui.project is None:
            return ("You are not a member of any project yet — press P to create one "
                    "(or: memtui project add ID)")
        return super().empty_text()

    def refresh_data(self, *, first_page_now: bool = False) -> None:
        """Read the list, or explain there is no project."""
        if self.memtui.project is None:
            self.stale = False
            self.memory_list.empty_text = self.empty_text()
            self.memory_list.show_nothing()
            self._title.show(Text(self.heading(), style="bold"))
            return
        super().refresh_data(first_page_now=first_page_now)

    def _new(self, editor: Callable[[Engine, str | None], Step]) -> None:
        """A new memory or note goes in the current project: there must be one."""
        if self.memtui.project is None:
            self.memtui.say("No current project: you are not a member of any project yet.",
                            severity="warning")
            return
        super()._new(editor)

    def action_switch_project(self) -> None:
        """Pick the current project among those the user can read."""
        from memtui.app.modals.picker import PickerModal

        try:
            projects = self.memtui.engine.identity.list_projects()
        except MemtuiError as error:
            self.memtui.say(error.message, severity="error")
            return
        if not projects:
            self.memtui.say("You are not a member of any project yet.", severity="warning")
            return
        choices = [(project.id, f"{project.id} — {project.name} ({role})")
                   for project, role in projects]

        def chosen(project_id: str | None) -> None:
            if project_id:
                self.set_project(project_id)

        self.app.push_screen(PickerModal("Current project", choices, self.memtui.project),
                             chosen)

    def set_project(self, project_id: str, *, say: bool = True) -> None:
        """Make a project current: this list starts over, everything reads again."""
        if project_id == self.memtui.project:
            return
        self.memtui.project = project_id
        if self.is_mounted:
            self.reset()
        self.memtui.store_changed()
        if say:
            self.memtui.say(f"Current project: {project_id}", toast=False)
