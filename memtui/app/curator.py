"""Every store-changing action of the app: confirm, write through the engine, say what
happened, keep an undo.

Writes run off the UI thread (the app's ``write_worker``, a ``@work(thread=True)`` method
that posts ``WriteFinished`` / ``WriteFailed``; the thread only calls the engine, never a
widget). A failed write calls the form's ``on_error`` so the form
keeps what was typed; otherwise the error becomes a notification. Nothing here writes SQL
or repeats an engine rule: the engine checks and refuses, the app reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from rich.text import Text

from memtui.app.commands import MemoryCommand
from memtui.app.modals.confirm import ConfirmModal
from memtui.app.modals.detail import MemoryDetailModal
from memtui.app.modals.editor import MemoryDraft, MemoryEditor
from memtui.app.modals.text import TextModal
from memtui.app.widgets.detail import memory_detail, task_fields
from memtui.engine.jobs import BACKFILL, CONSOLIDATE, ROUND
from memtui.engine.task_flags import flag_word
from memtui.errors import MemtuiError
from memtui.store.models import LogEntry, Memory
from memtui.textsafe import one_line

if TYPE_CHECKING:
    from memtui.app.app import MemtuiApp
    from memtui.app.inbox_sources import InboxEntry, Outcome
    from memtui.app.messages import ForgetSizes, WriteRequest
    from memtui.engine.api import Engine

T = TypeVar("T")

UNDO_DEPTH = 20
"""How many actions ``ctrl+z`` can step back through."""
WRITE_GROUP = "store-write"
FORGET_EXCERPTS = 3
"""How many memories' text the forget question shows (then "… and N more")."""
FORGET_EXCERPT_CHARS = 120
"""How much of each memory's text the forget question shows."""


@dataclass(frozen=True)
class UndoEntry:
    """One undoable action: what it was, and the engine call that reverses it."""

    label: str
    run: Callable[[], object]
    needs: tuple[str, ...] = ()
    """The memories the reversal works on: once one is forgotten the entry cannot run."""


class Curator:
    """The app's store-changing flows (add, note, correct, restore, forget, settings, flags,
    profile, undo) and the ``/memory`` command dispatcher."""

    def __init__(self, app: MemtuiApp) -> None:
        self.app = app
        self.undo_stack: list[UndoEntry] = []

    @property
    def engine(self) -> Engine:
        """The app's engine."""
        return self.app.engine

    # ---- the write path -----------------------------------------------------------------

    def perform(self, label: str, work: Callable[[], T], *,
                done: Callable[[T], None] | None = None,
                failed: Callable[[str], None] | None = None,
                unchanged: Callable[[str], None] | None = None) -> None:
        """Run ``work`` (engine calls only) in the app's write thread worker; then, on the UI
        thread, refresh the views and call ``done``; on a MemtuiError call ``failed`` (or
        notify); when the engine found nothing to change, call ``unchanged`` (else
        ``failed``)."""
        from memtui.app.messages import WriteRequest

        self.app.write_worker(WriteRequest(label, work, done, failed, unchanged))

    def write_finished(self, request: WriteRequest, result: object) -> None:
        """A write ended (UI thread): refresh, then its ``done``."""
        self.app.after_write()
        if request.done is not None:
            request.done(result)

    def write_failed(self, request: WriteRequest, error: str, unchanged: bool = False) -> None:
        """A write was refused (UI thread): its ``failed``, and the status line. A write
        that found nothing to change is said calmly, never as a failure."""
        if unchanged:
            answer = request.unchanged or request.failed
            if answer is not None:
                answer(error)
            self.app.say(f"{request.label}: {error}", toast=answer is None)
            return
        self._failed(request.label, error, request.failed)

    def _failed(self, label: str, message: str, failed: Callable[[str], None] | None) -> None:
        if failed is not None:
            failed(message)
            self.app.say(f"{label} failed: {message}", severity="error", toast=False)
        else:
            self.app.say(f"{label} failed: {message}", severity="error")

    def push_undo(self, label: str, run: Callable[[], object],
                  needs: tuple[str, ...] = ()) -> None:
        """Remember how to reverse an action (``needs``: the memories it works on)."""
        self.undo_stack.append(UndoEntry(label, run, needs))
        del self.undo_stack[:-UNDO_DEPTH]

    def drop_undo_for(self, memory_ids: tuple[str, ...]) -> int:
        """Forget is final: drop the undo steps that work on a forgotten memory (they
        could only fail). Returns how many were dropped."""
        gone = set(memory_ids)
        kept = [entry for entry in self.undo_stack if not gone.intersection(entry.needs)]
        dropped = len(self.undo_stack) - len(kept)
        self.undo_stack = kept
        return dropped

    def _still_possible(self, entry: UndoEntry) -> bool:
        for memory_id in entry.needs:
            try:
                self.engine.identity.get_memory(memory_id)
            except MemtuiError:  # forgotten (here or by another process) or no longer visible
                return False
        return True

    def undo(self) -> None:
        """Reverse the last undoable action (forget is final and never on the stack).
        Steps whose memories were forgotten since (by another process) are skipped, with
        one message, never replayed into errors."""
        skipped = 0
        while self.undo_stack and not self._still_possible(self.undo_stack[-1]):
            self.undo_stack.pop()
            skipped += 1
        note = (f" (skipped {skipped} step{'s' if skipped != 1 else ''} whose memory was "
                "forgotten)") if skipped else ""
        if not self.undo_stack:
            self.app.say(f"Nothing to undo{note}.", severity="warning")
            return
        entry = self.undo_stack.pop()
        self.perform(f"Undo {entry.label}", entry.run,
                     done=lambda _result: self.app.say(f"Undone: {entry.label}{note}"))

    # ---- memories -----------------------------------------------------------------------

    def refused(self, project: str | None) -> bool:
        """Whether the actor may not write memories in a scope; if so, say why (the
        engine's permission rule, asked before an editor or a question opens)."""
        try:
            reason = self.engine.identity.write_refusal(project)
        except MemtuiError as error:
            reason = error.message
        if reason is not None:
            self.app.say(f"Read only: {reason}", severity="warning")
        return reason is not None

    def _scope_words(self, project: str | None) -> str:
        return f"project {project}" if project else "your user memories (only you see them)"

    def add_memory(self, project: str | None, kind: str = "fact") -> None:
        """Open the editor with a kind picker; add the memory on save."""
        if self.refused(project):
            return
        def submit(draft: MemoryDraft, editor: MemoryEditor) -> None:
            self.perform(
                "Add memory",
                lambda: self.engine.identity.add_memory(draft.content, draft.kind, project),
                done=lambda memory: self._added(memory, editor),
                failed=editor.failed)

        self.app.push_screen(MemoryEditor("New memory", kind=kind,
                                          context=f"in {self._scope_words(project)}",
                                          submit=submit))

    def add_note(self, project: str | None, text: str | None = None) -> None:
        """A note (``source = note``): from text given, or from the editor."""
        if self.refused(project):
            return
        if text is not None:
            self.perform("Add note", lambda: self.engine.identity.add_note(text, project),
                         done=lambda memory: self._added(memory, None))
            return

        def submit(draft: MemoryDraft, editor: MemoryEditor) -> None:
            self.perform("Add note",
                         lambda: self.engine.identity.add_note(draft.content, project,
                                                               draft.kind),
                         done=lambda memory: self._added(memory, editor),
                         failed=editor.failed)

        self.app.push_screen(MemoryEditor("New note", show_kind=False,
                                          context=f"in {self._scope_words(project)}",
                                          submit=submit))

    def _added(self, memory: Memory, editor: MemoryEditor | None) -> None:
        if editor is not None:
            editor.saved()
        self.app.select_memory(memory.id)
        self.push_undo(f"add {memory.id}", lambda: self.engine.identity.forget(memory.id),
                       needs=(memory.id,))
        self.app.say(f"Added {memory.id} ({memory.kind}, {memory.source}) — ctrl+z undoes")

    def correct(self, memory: Memory) -> None:
        """Open the editor pre-filled; save supersedes the memory (history is kept)."""
        if self.refused(memory.project):
            return
        if memory.status == "pending":
            self.app.say(f"{memory.id} is waiting for review: edit and approve it in the "
                         "Inbox (e).", severity="warning")
            return
        if memory.status != "active":
            self.app.say(f"{memory.id} is an old version; correct the current one "
                         f"({memory.superseded_by}).", severity="warning")
            return

        def submit(draft: MemoryDraft, editor: MemoryEditor) -> None:
            self.perform(
                f"Correct {memory.id}",
                lambda: self.engine.identity.supersede(memory.id, draft.content, draft.kind),
                done=lambda new: self._superseded(memory, new, editor, "Corrected"),
                failed=editor.failed)

        self.app.push_screen(MemoryEditor(f"Correct {memory.id}", kind=memory.kind,
                                          content=memory.content,
                                          context="saving keeps the old text in History",
                                          submit=submit))

    def restore(self, head: Memory, version: Memory) -> None:
        """Make an old version current again: supersede the head with its text."""
        if self.refused(head.project):
            return
        self.perform(
            f"Restore {version.id}",
            lambda: self.engine.identity.supersede(head.id, version.content, version.kind),
            done=lambda new: self._superseded(head, new, None, f"Restored {version.id} as"))

    def _superseded(self, old: Memory, new: Memory, editor: MemoryEditor | None,
                    verb: str) -> None:
        if editor is not None:
            editor.saved()
        self.app.select_memory(new.id)
        if self.app.history_memory_id == old.id:
            self.app.history_memory_id = new.id
        self.push_undo(f"correct {old.id}",
                       lambda: self.engine.identity.supersede(new.id, old.content, old.kind),
                       needs=(new.id,))
        self.app.say(f"{verb} {new.id} (replaces {old.id}) — ctrl+z undoes")

    def forget(self, memory_ids: list[str],
               on_done: Callable[[tuple[str, ...]], None] | None = None) -> None:
        """Ask (saying how many versions go), then forget for good. The memories, the
        permission and the sizes are read off the UI thread first (``read_forget``); a
        forget the user's role does not allow is refused then, saying why, before anything
        is counted."""
        self.app.forget_sizes_worker(tuple(memory_ids), on_done)

    def confirm_forget(self, counted: ForgetSizes) -> None:
        """The forget's facts were read (UI thread): say why not, or ask, then forget."""
        if counted.error is not None:
            self.app.say(counted.error, severity="error")
            return
        if counted.refusal is not None:
            self.app.say(f"Read only: {counted.refusal}", severity="warning")
            return
        memory_ids, on_done = list(counted.memory_ids), counted.on_done
        total = sum(counted.sizes.values())
        if len(memory_ids) == 1:
            memory_id = memory_ids[0]
            title = f"Forget {memory_id}?"
            older = total - 1
            body = _forget_excerpts(counted.shown, len(memory_ids))
            body.append(f"{memory_id}" + (f" and its {older} other version"
                                         f"{'s' if older != 1 else ''}" if older else "")
                        + f" will be deleted for good ({total} version"
                        f"{'s' if total != 1 else ''} in all).\n")
        else:
            title = f"Forget {len(memory_ids)} memories?"
            body = _forget_excerpts(counted.shown, len(memory_ids))
            body.append(f"{len(memory_ids)} marked memories will be deleted for good, "
                        f"{total} versions in all.\n")
        body.append("This cannot be undone. A task they came from will not be extracted "
                    "again.", style="bold")

        def answered(yes: bool | None) -> None:
            if not yes:
                self.app.say("Nothing was forgotten.")
                return
            self.perform(
                "Forget", lambda: self.engine.identity.forget_many(list(memory_ids)),
                done=lambda results: self._forgotten(results, on_done))

        self.app.push_screen(ConfirmModal(title, body), answered)

    def _forgotten(self, results: list[Any],
                   on_done: Callable[[tuple[str, ...]], None] | None) -> None:
        removed = tuple(memory_id for result in results for memory_id in result.removed_ids)
        if on_done is not None:
            on_done(removed)
        self.app.forgot(removed)
        dropped = self.drop_undo_for(removed)
        note = (f"; {dropped} undo step{'s' if dropped != 1 else ''} on them dropped"
                if dropped else "")
        words = (f"Forgot {len(results)} memor{'y' if len(results) == 1 else 'ies'} "
                 f"({len(removed)} version{'s' if len(removed) != 1 else ''}) — final, "
                 f"no undo{note}")
        if all(result.purged for result in results):
            self.app.say(words)
            return
        reason = next(result.purge_reason for result in results if not result.purged)
        self.app.say(f"{words}; not yet erased from the database files: {reason}",
                     severity="warning")
        self.app.purges.start()

    # ---- the review inbox ---------------------------------------------------------------

    def inbox_decide(self, verb: str, entries: list[InboxEntry],
                     on_done: Callable[[Outcome], None] | None = None) -> None:
        """Approve or reject inbox rows (any source). Each source says what to ask first
        (reject is final; another agent's files are written only after a confirm); more
        than one row is always asked about."""
        from memtui.app.inbox_sources import Outcome

        sources = self.app.inbox_sources
        groups = [(sources.named(origin), [entry for entry in entries if entry.origin == origin])
                  for origin in dict.fromkeys(entry.origin for entry in entries)]

        def run() -> Outcome:
            outcome = Outcome()
            pasts: set[str] = set()
            for source, group in groups:
                part = source.approve(self.engine, group) if verb == "approve" else \
                    source.reject(self.engine, group)
                outcome.done += part.done
                outcome.failed += part.failed
                pasts.add(part.past)
            outcome.past = pasts.pop() if len(pasts) == 1 else ""
            return outcome

        def go() -> None:
            self.perform(verb.capitalize(), run,
                         done=lambda outcome: self._inbox_done(verb, outcome, on_done))

        questions = [source.question(verb, group) for source, group in groups]
        if len(entries) <= 1 and not any(question.required for question in questions):
            go()
            return
        if len(questions) == 1:
            title, body, label = questions[0].title, questions[0].body, questions[0].label
        else:
            count = len(entries)
            title = f"{verb.capitalize()} {count} rows?"
            label = verb.capitalize()
            body = Text("\n\n").join(question.body for question in questions)
        self._confirm_then(title, body, label, go)

    def _confirm_then(self, title: str, body: Text, label: str, go: Callable[[], None]) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                go()
            else:
                self.app.say("Nothing was changed.")

        self.app.push_screen(ConfirmModal(title, body, confirm_label=label), answered)

    def _inbox_done(self, verb: str, outcome: Outcome,
                    on_done: Callable[[Outcome], None] | None) -> None:
        if on_done is not None:
            on_done(outcome)
        past = outcome.past or ("Approved" if verb == "approve" else "Rejected")
        done = len(outcome.done)
        words = f"{past} {done}" if done != 1 else f"{past} {outcome.done[0].split(':', 1)[-1]}"
        if verb == "reject" and done:
            words += " — final, no undo"
        if outcome.failed:
            key, message = outcome.failed[0]
            more = f" (and {len(outcome.failed) - 1} more)" if len(outcome.failed) > 1 else ""
            self.app.say(f"{words}; {key.split(':', 1)[-1]} refused: {message}{more}",
                         severity="warning" if done else "error")
        else:
            self.app.say(words)

    def inbox_edit_approve(self, entry: InboxEntry,
                           on_done: Callable[[Outcome], None] | None = None) -> None:
        """Open the editor on an inbox row's text; saving approves the edited text (checked
        and redacted by the engine; an error keeps the editor open with what was typed)."""
        source = self.app.inbox_sources.named(entry.origin)
        text = source.editable_text(entry)
        if text is None:
            self.app.say("This row cannot be edited; approve (a) or reject (x) it as it is.",
                         severity="warning")
            return

        def submit(draft: MemoryDraft, editor: MemoryEditor) -> None:
            def run() -> Outcome:
                outcome = source.approve(self.engine, [entry], edited=draft.content)
                if outcome.failed:
                    raise MemtuiError(outcome.failed[0][1])
                return outcome

            def done(outcome: Outcome) -> None:
                editor.saved()
                self._inbox_done("approve", outcome, on_done)

            self.perform("Approve", run, done=done, failed=editor.failed)

        name = entry.key.split(":", 1)[-1]
        self.app.push_screen(MemoryEditor(
            f"Edit and approve {name}", content=text, show_kind=False,
            context=f"from {entry.label} · {entry.where} · saving approves this text",
            submit=submit))

    def inbox_ids(self, verb: str, memory_ids: list[str] | None) -> None:
        """``/memory approve|reject ID`` or ``… all``: pending memories by id (all: every one
        the user may decide on)."""
        from memtui.app.inbox_sources import PendingMemories

        def entries() -> list[InboxEntry]:
            wanted = None if memory_ids is None else set(memory_ids)
            found = [entry for entry in PendingMemories().entries(self.engine)
                     if entry.can_act and (wanted is None
                                           or entry.key.split(":", 1)[1] in wanted)]
            if wanted is not None:
                missing = wanted - {entry.key.split(":", 1)[1] for entry in found}
                if missing:
                    self.engine.review.item(sorted(missing)[0])  # raises the right error
                    raise MemtuiError(f"you may not decide on {sorted(missing)[0]}")
            return found

        def chosen(found: list[InboxEntry]) -> None:
            if not found:
                self.app.say("Nothing waits for review.", severity="warning")
                return
            self.inbox_decide(verb, found)

        self.perform("Read the inbox", entries, done=chosen)

    def set_review(self, on: bool) -> None:
        """``/memory review on|off``: whether agents' memories wait in the inbox."""
        self.set_settings({"review_new_memories": 1 if on else 0},
                          label=f"review of new memories {'on' if on else 'off'}")

    # ---- projects -----------------------------------------------------------------------

    def create_project(self) -> None:
        """Ask for an id, a name and a root folder; create the project (the user owns it)
        and make it current."""
        from memtui.app.modals.project import ProjectDialog, ProjectDraft

        def submit(draft: ProjectDraft, dialog: ProjectDialog) -> None:
            def done(project: Any) -> None:
                dialog.saved()
                self.app.set_project(project.id)
                self.app.say(f"Created project {project.id} (you own it); it is current now")

            self.perform("Create project", lambda: self.engine.identity.create_project(
                draft.project_id, draft.name or None, draft.root or None),
                done=done, failed=dialog.failed)

        self.app.push_screen(ProjectDialog(submit))

    # ---- settings, flags, profile -------------------------------------------------------

    def set_settings(self, changes: dict[str, Any],
                     on_error: Callable[[str], None] | None = None, label: str | None = None,
                     on_done: Callable[[], None] | None = None) -> None:
        """Change settings (all or nothing); undo puts the old values back."""
        try:
            before = self.engine.settings.get()
        except MemtuiError as error:
            self.app.say(error.message, severity="error")
            return
        old = {name: before.get(name) for name in changes}
        words = label or ", ".join(f"{name} = {_shown(value)}" for name, value in changes.items())

        def done(_result: object) -> None:
            self.push_undo(words, lambda: self.engine.settings.set_many(old))
            self.app.say(f"Set {words} — ctrl+z undoes")
            if on_done is not None:
                on_done()

        self.perform("Change settings", lambda: self.engine.settings.set_many(changes),
                     done=done, failed=on_error)

    def toggle(self, name: str) -> None:
        """Flip a switch setting (``g`` generate, ``u`` use)."""
        try:
            current = self.engine.settings.get()[name]
        except (MemtuiError, KeyError) as error:
            self.app.say(f"Cannot read {name}: {error}", severity="error")
            return
        self.set_settings({name: 0 if current else 1})

    def switch_both(self, on: bool) -> None:
        """``/memory on|off``: generate and use together."""
        value = 1 if on else 0
        self.set_settings({"generate_memories": value, "use_memories": value},
                          label=f"generate and use {'on' if on else 'off'}")

    def set_task_flags(self, task_id: str, *, use: str | None = None,
                       generate: str | None = None,
                       on_error: Callable[[str], None] | None = None) -> None:
        """Override use/generate for one task (``follow``/``on``/``off``)."""
        try:
            task = self.engine.tasks.get_task(task_id)
        except MemtuiError as error:
            self.app.say(error.message, severity="error")
            return
        back = {"use": flag_word(task.use_memories) if use is not None else None,
                "generate": flag_word(task.generate_memories) if generate is not None
                else None}
        words = ", ".join(f"{name} {value}" for name, value in (("use", use),
                                                                ("generate", generate)) if value)

        def done(_task: object) -> None:
            self.push_undo(f"flags of {task_id}",
                           lambda: self.engine.tasks.set_flags(task_id, **back))
            self.app.say(f"Task {task_id}: {words} — ctrl+z undoes")

        self.perform("Set task flags",
                     lambda: self.engine.tasks.set_flags(task_id, use=use, generate=generate),
                     done=done, failed=on_error)

    def update_profile(self, *, display_name: str, timezone: str,
                       preferences: dict[str, Any],
                       on_error: Callable[[str], None] | None = None,
                       on_done: Callable[[], None] | None = None,
                       on_unchanged: Callable[[str], None] | None = None) -> None:
        """Save the profile (the engine refuses secret keys and unknown zones)."""
        try:
            old = self.engine.identity.profile()
        except MemtuiError as error:
            self.app.say(error.message, severity="error")
            return

        def done(_profile: object) -> None:
            self.push_undo("profile change", lambda: self.engine.identity.update_profile(
                display_name=old.display_name, timezone=old.timezone,
                preferences=old.preferences))
            self.app.profile_changed()
            if on_done is not None:
                on_done()
            self.app.say("Profile saved — ctrl+z undoes")

        self.perform("Save profile", lambda: self.engine.identity.update_profile(
            display_name=display_name, timezone=timezone, preferences=preferences,
            require_change=True), done=done, failed=on_error, unchanged=on_unchanged)

    # ---- views --------------------------------------------------------------------------

    def open_detail(self, memory_id: str) -> None:
        """The detail view of a memory (provenance: the task, the source, the use)."""
        identity = self.engine.identity
        try:
            memory = identity.get_memory(memory_id)
            versions = identity.chain_size(memory_id)
        except MemtuiError as error:
            self.app.say(f"{error.message} (it may have been forgotten)", severity="warning")
            return
        task, note = None, None
        if memory.source_thread_id:
            try:
                task = self.engine.tasks.get_task(memory.source_thread_id)
            except MemtuiError:
                note = "that task is not in this store"
        body = memory_detail(memory, self.app.tz, task=task, task_note=note,
                             versions=versions)

        def chosen(action: str | None) -> None:
            if action == "history":
                self.app.show_history(memory.id)
            elif action == "correct":
                self.correct(memory)
            elif action == "copy":
                self.app.copy_text(memory.content, f"memory {memory.id}")

        self.app.push_screen(MemoryDetailModal(f"Memory {memory.id}", body), chosen)

    def open_task(self, task_id: str, entry: LogEntry | None = None) -> None:
        """A task's detail (goal, times, result excerpt, extraction outcome)."""
        try:
            task = self.engine.tasks.get_task(task_id)
        except MemtuiError as error:
            self.app.say(error.message, severity="warning")
            return
        self.app.push_screen(TextModal(f"Task {task.id}", task_fields(task, self.app.tz, entry),
                                       copy_text=task.result))

    def status_text(self) -> Text:
        """``/memory status``: settings, worker state, counts per scope and status, last run."""
        engine = self.engine
        out = Text()
        settings = engine.settings.get()
        out.append("Settings\n", style="bold")
        switches = {spec.name for spec in engine.settings.specs() if spec.kind == "switch"}
        for name, value in settings.items():
            shown = ("on" if value else "off") if name in switches else _shown(value)
            out.append(f"  {name:<34}{shown}\n")
        out.append("\nWorker\n", style="bold")
        out.append(f"  {self.app.worker_status()}\n")
        out.append("\nMemories\n", style="bold")
        scopes: list[tuple[str, str | None]] = [("user", None)]
        scopes += [(f"project {project.id}", project.id)
                   for project, _role in engine.identity.list_projects()]
        identity = engine.identity
        for label, project in scopes:
            counts = [f"{status} "
                      f"{identity.count_memories(identity.memory_filter(project, status=status))}"
                      for status in ("active", "superseded", "pending")]
            out.append(f"  {label:<24}" + "  ".join(counts) + "\n")
        out.append("\nExtraction log\n", style="bold")
        out.append("  " + ("  ".join(f"{k} {v}" for k, v in sorted(
            engine.extraction.log_counts().items())) or "empty") + "\n")
        try:
            out.append(f"  pending tasks {engine.extraction.pending()}\n")
        except MemtuiError:
            pass
        return out

    # ---- /memory ------------------------------------------------------------------------

    def run_command(self, command: MemoryCommand) -> None:
        """Do a parsed ``/memory`` command (the command line and the palette come here)."""
        name = command.name
        app = self.app
        if name == "status":
            app.push_screen(TextModal("Memory status", self.status_text()))
        elif name == "show":
            memory_id = command.argument or app.current_memory_id()
            if memory_id is None:
                app.say("No memory selected: /memory show <id>", severity="warning")
            else:
                self.open_detail(memory_id)
        elif name == "extract":
            app.start_extraction(ROUND, force=command.force)
        elif name == "backfill":
            app.start_extraction(BACKFILL)
        elif name == "consolidate":
            app.start_extraction(CONSOLIDATE)
        elif name == "forget":
            self.forget([command.argument or ""])
        elif name in ("on", "off"):
            self.switch_both(name == "on")
        elif name == "note":
            self.add_note(app.current_scope_project(), command.argument or "")
        elif name == "inbox":
            app.show_pane("inbox")
        elif name in ("approve", "reject"):
            if command.argument == "all":
                self.inbox_ids(name, None)
            elif command.argument:
                self.inbox_ids(name, [command.argument])
            else:
                app.inbox_action(name)
        elif name == "review":
            self.set_review(command.argument == "on")


def read_forget(engine: Engine, memory_ids: tuple[str, ...],
                on_done: Callable[[tuple[str, ...]], None] | None) -> ForgetSizes:
    """What a forget's question needs, read through the engine (in the app's thread worker,
    never on the UI thread): the memories (the first few are shown), whether the user may
    forget them (checked first: a refused forget counts nothing), the versions each would
    remove."""
    from memtui.app.messages import ForgetSizes

    identity = engine.identity
    try:
        memories = [identity.get_memory(memory_id) for memory_id in memory_ids]
        for project in sorted({memory.project for memory in memories}, key=str):
            try:
                refusal = identity.write_refusal(project)
            except MemtuiError as error:
                refusal = error.message
            if refusal is not None:
                return ForgetSizes(memory_ids, {}, None, on_done, refusal=refusal)
        sizes = {memory_id: identity.chain_size(memory_id) for memory_id in memory_ids}
    except MemtuiError as error:
        return ForgetSizes(memory_ids, {}, error.message, on_done)
    except Exception as error:  # said, never raised into the app
        return ForgetSizes(memory_ids, {}, f"{error.__class__.__name__}: {error}", on_done)
    return ForgetSizes(memory_ids, sizes, None, on_done,
                       shown=tuple(memories[:FORGET_EXCERPTS]))


def _forget_excerpts(shown: tuple[Memory, ...], total: int) -> Text:
    """What is about to be forgotten, in words: each memory's text on a line (the first
    few), so the question is never only about ids."""
    out = Text()
    for memory in shown:
        out.append(f"{memory.kind}: ", style="dim")
        out.append(one_line(memory.content, FORGET_EXCERPT_CHARS))
        out.append("\n")
    more = total - FORGET_EXCERPTS
    if more > 0:
        out.append(f"… and {more} more\n", style="dim")
    if out:
        out.append("\n")
    return out


def _shown(value: object) -> str:
    return "none" if value is None else str(value)


