"""What each store change of the app is -- the dialog or question first, the engine calls,
the words said after, how ``ctrl+z`` reverses it -- as steps for ``MemtuiApp.do``; nothing
here touches the app or a widget."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.screen import Screen

from memtui.app.modals.editor import MemoryDraft, MemoryEditor
from memtui.engine.task_flags import flag_word
from memtui.errors import MemtuiError
from memtui.store.models import Memory
from memtui.textsafe import one_line

if TYPE_CHECKING:
    from memtui.app.inbox_sources import InboxEntry, InboxSources, Outcome
    from memtui.engine.api import Engine
    from memtui.engine.identity import ForgetResult

UNDO_DEPTH = 20
"""How many actions ``ctrl+z`` can step back through."""
FORGET_EXCERPTS = 3
"""How many memories' text the forget question shows (then "… and N more")."""
FORGET_EXCERPT_CHARS = 120
"""How much of each memory's text the forget question shows."""


@dataclass(frozen=True)
class UndoStep:
    """One undoable action: its name, the engine call that reverses it, the memories it needs."""

    label: str
    run: Callable[[Engine], object]
    needs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Notice:
    """Words instead of a dialog or a write: why nothing is asked or written."""

    text: str
    severity: str = "warning"


@dataclass(frozen=True)
class Change:
    """What a write did, in the app's terms (made in the write's thread)."""

    said: str = ""
    severity: str = "information"
    undo: UndoStep | None = None
    memory: Memory | None = None
    """The memory the write made (selected)."""
    replaced: str | None = None
    """The memory it replaced (the History pane follows the new version)."""
    removed: tuple[str, ...] = ()
    """Memories forgotten."""
    said_after: str = ""
    """Words after the note of dropped undo steps."""
    unpurged: bool = False
    """Forgotten text is still in the database files: the purge retry starts."""
    result: Any = None
    """The engine's own result, for whoever asked."""
    next: Callable[[], Step] | None = None
    """What comes next, made on the UI thread from what the thread read."""


@dataclass(frozen=True)
class Write:
    """A store write (or a read the next step needs: ``changes_store`` False) for the app's
    write worker; ``form``: the form that asked (it shows a refusal itself)."""

    label: str
    work: Callable[[Engine], Change]
    form: str | None = None
    changes_store: bool = True


@dataclass(frozen=True)
class Ask:
    """A yes/no question before a write that cannot be undone."""

    title: str
    body: Text
    label: str
    write: Write
    declined: str = "Nothing was changed."


Step = Notice | Write | Ask | Screen[Any]
"""What ``MemtuiApp.do`` takes."""


def record(steps: list[UndoStep], change: Change) -> str:
    """Keep a change's undo step, drop those on a memory it removed; returns what to say."""
    if change.undo is not None:
        steps.append(change.undo)
        del steps[:-UNDO_DEPTH]
    gone = set(change.removed)
    kept = [step for step in steps if not gone.intersection(step.needs)]
    dropped = len(steps) - len(kept)
    steps[:] = kept
    note = f"; {dropped} undo step{'s' if dropped != 1 else ''} on them dropped" if dropped else ""
    return change.said + note + change.said_after


def undo(steps: list[UndoStep], engine: Engine) -> Step:
    """The write reversing the last step (steps on memories forgotten since are skipped)."""
    skipped = 0
    while steps and not _still_possible(engine, steps[-1]):
        steps.pop()
        skipped += 1
    note = (f" (skipped {skipped} step{'s' if skipped != 1 else ''} whose memory was "
            "forgotten)") if skipped else ""
    if not steps:
        return Notice(f"Nothing to undo{note}.")
    step = steps.pop()
    return Write(f"Undo {step.label}", lambda engine: Change(
        f"Undone: {step.label}{note}", result=step.run(engine)))


def _still_possible(engine: Engine, step: UndoStep) -> bool:
    for memory_id in step.needs:
        try:
            engine.identity.get_memory(memory_id)
        except MemtuiError:  # forgotten (here or by another process) or no longer visible
            return False
    return True


def refusal(engine: Engine, project: str | None) -> Notice | None:
    """Why the actor may not write memories in a scope (the engine's rule), or None."""
    try:
        reason = engine.identity.write_refusal(project)
    except MemtuiError as error:
        reason = error.message
    return None if reason is None else Notice(f"Read only: {reason}")


def _scope_words(project: str | None) -> str:
    return f"in project {project}" if project else "in your user memories (only you see them)"


def _added(memory: Memory) -> Change:
    return Change(f"Added {memory.id} ({memory.kind}, {memory.source}) — ctrl+z undoes",
                  undo=UndoStep(f"add {memory.id}", lambda engine: engine.identity.forget(
                      memory.id), needs=(memory.id,)), memory=memory, result=memory)


def _on_save(label: str, save: Callable[[Engine, MemoryDraft], Change]
             ) -> Callable[[MemoryDraft], Write]:
    """What an editor's save writes: ``save(engine, draft)`` in the write worker."""
    return lambda draft: Write(label, lambda engine: save(engine, draft), form="editor")


def add_memory(engine: Engine, project: str | None, kind: str = "fact") -> Step:
    """The editor of a new memory (with a kind picker)."""
    return refusal(engine, project) or MemoryEditor(
        "New memory", kind=kind, context=_scope_words(project),
        write=_on_save("Add memory", lambda engine, draft: _added(
            engine.identity.add_memory(draft.content, draft.kind, project))))


def add_note(engine: Engine, project: str | None, text: str | None = None) -> Step:
    """A note (``source = note``): of the text given, else the editor."""
    return refusal(engine, project) or (
        Write("Add note", lambda engine: _added(engine.identity.add_note(text, project)))
        if text is not None else MemoryEditor(
            "New note", show_kind=False, context=_scope_words(project),
            write=_on_save("Add note", lambda engine, draft: _added(
                engine.identity.add_note(draft.content, project, draft.kind)))))


def _superseded(old: Memory, new: Memory, verb: str) -> Change:
    return Change(f"{verb} {new.id} (replaces {old.id}) — ctrl+z undoes",
                  undo=UndoStep(f"correct {old.id}", lambda engine: engine.identity.supersede(
                      new.id, old.content, old.kind), needs=(new.id,)),
                  memory=new, replaced=old.id, result=new)


def correct(engine: Engine, memory: Memory) -> Step:
    """The editor, pre-filled; saving supersedes the memory (History keeps the old text)."""
    refused = refusal(engine, memory.project)
    if refused is not None:
        return refused
    if memory.status == "pending":
        return Notice(f"{memory.id} is waiting for review: edit and approve it in the "
                      "Inbox (e).")
    if memory.status != "active":
        return Notice(f"{memory.id} is an old version; correct the current one "
                      f"({memory.superseded_by}).")
    return MemoryEditor(f"Correct {memory.id}", kind=memory.kind, content=memory.content,
                        context="saving keeps the old text in History",
                        write=_on_save(f"Correct {memory.id}", lambda engine, draft: _superseded(
                            memory, engine.identity.supersede(memory.id, draft.content,
                                                              draft.kind), "Corrected")))


def correct_by_id(engine: Engine, memory_id: str | None) -> Step:
    """``correct`` of a memory named by id (the palette's "correct selected")."""
    if memory_id is None:
        return Notice("No memory selected.")
    try:
        return correct(engine, engine.identity.get_memory(memory_id))
    except MemtuiError as error:
        return Notice(error.message, "error")


def restore(engine: Engine, head: Memory, version: Memory) -> Step:
    """Make an old version current again: supersede the head with its text."""
    return refusal(engine, head.project) or Write(
        f"Restore {version.id}", lambda engine: _superseded(head, engine.identity.supersede(
            head.id, version.content, version.kind), f"Restored {version.id} as"))


def forget(memory_ids: Sequence[str]) -> Write:
    """Read the memories, permission and sizes off the UI thread, ask, then forget."""
    ids = tuple(memory_ids)
    return Write("Forget", lambda engine: _read_forget(engine, ids), changes_store=False)


def _read_forget(engine: Engine, memory_ids: tuple[str, ...]) -> Change:
    identity = engine.identity
    try:
        memories = [identity.get_memory(memory_id) for memory_id in memory_ids]
        for project in sorted({memory.project for memory in memories}, key=str):
            refused = refusal(engine, project)
            if refused is not None:
                return _then(refused)
        total = sum(identity.chain_size(memory_id) for memory_id in memory_ids)
    except MemtuiError as error:
        return _then(Notice(error.message, "error"))
    return Change(next=lambda: _forget_question(memory_ids, total, memories[:FORGET_EXCERPTS]))


def _then(step: Step) -> Change:
    """A read that found what comes next."""
    return Change(next=lambda: step)


def _forget_question(memory_ids: tuple[str, ...], total: int, shown: list[Memory]) -> Ask:
    body = Text()
    for memory in shown:  # what is about to go, in words: never only ids
        body.append(f"{memory.kind}: ", style="dim")
        body.append(one_line(memory.content, FORGET_EXCERPT_CHARS))
        body.append("\n")
    more = len(memory_ids) - FORGET_EXCERPTS
    if more > 0:
        body.append(f"… and {more} more\n", style="dim")
    if body:
        body.append("\n")
    if len(memory_ids) == 1:
        memory_id, older = memory_ids[0], total - 1
        title = f"Forget {memory_id}?"
        body.append(f"{memory_id}" + (f" and its {older} other version"
                                     f"{'s' if older != 1 else ''}" if older else "")
                    + f" will be deleted for good ({total} version"
                    f"{'s' if total != 1 else ''} in all).\n")
    else:
        title = f"Forget {len(memory_ids)} memories?"
        body.append(f"{len(memory_ids)} marked memories will be deleted for good, "
                    f"{total} versions in all.\n")
    body.append("This cannot be undone. A task they came from will not be extracted "
                "again.", style="bold")
    write = Write("Forget", lambda engine: _forgotten(engine.identity.forget_many(
        list(memory_ids))))
    return Ask(title, body, "Forget", write, declined="Nothing was forgotten.")


def _forgotten(results: list[ForgetResult]) -> Change:
    removed = tuple(memory_id for result in results for memory_id in result.removed_ids)
    words = (f"Forgot {len(results)} memor{'y' if len(results) == 1 else 'ies'} "
             f"({len(removed)} version{'s' if len(removed) != 1 else ''}) — final, no undo")
    reason = next((result.purge_reason for result in results if not result.purged), None)
    if reason is None:
        return Change(words, removed=removed, result=results)
    return Change(words, "warning", removed=removed, unpurged=True, result=results,
                  said_after=f"; not yet erased from the database files: {reason}")


def inbox_decide(sources: InboxSources, verb: str, entries: list[InboxEntry]) -> Step:
    """Approve or reject inbox rows of any source, asking what each asks (always for many)."""
    from memtui.app.inbox_sources import Outcome

    groups = [(sources.named(origin), [entry for entry in entries if entry.origin == origin])
              for origin in dict.fromkeys(entry.origin for entry in entries)]

    def run(engine: Engine) -> Change:
        parts = [source.approve(engine, group) if verb == "approve" else
                 source.reject(engine, group) for source, group in groups]
        pasts = {part.past for part in parts}
        return _decided(verb, Outcome([key for part in parts for key in part.done],
                                      [failed for part in parts for failed in part.failed],
                                      pasts.pop() if len(pasts) == 1 else ""))

    write = Write(verb.capitalize(), run)
    questions = [source.question(verb, group) for source, group in groups]
    if len(entries) <= 1 and not any(question.required for question in questions):
        return write
    if len(questions) == 1:
        title, body, label = questions[0].title, questions[0].body, questions[0].label
    else:
        title, label = f"{verb.capitalize()} {len(entries)} rows?", verb.capitalize()
        body = Text("\n\n").join(question.body for question in questions)
    return Ask(title, body, label, write)


def _decided(verb: str, outcome: Outcome) -> Change:
    past = outcome.past or ("Approved" if verb == "approve" else "Rejected")
    done = len(outcome.done)
    words = f"{past} {done}" if done != 1 else f"{past} {outcome.done[0].split(':', 1)[-1]}"
    if verb == "reject" and done:
        words += " — final, no undo"
    if not outcome.failed:
        return Change(words, result=outcome)
    key, message = outcome.failed[0]
    more = f" (and {len(outcome.failed) - 1} more)" if len(outcome.failed) > 1 else ""
    return Change(f"{words}; {key.split(':', 1)[-1]} refused: {message}{more}",
                  "warning" if done else "error", result=outcome)


def inbox_edit(sources: InboxSources, entry: InboxEntry) -> Step:
    """The editor on an inbox row's text; saving approves the edited text."""
    source = sources.named(entry.origin)
    text = source.editable_text(entry)
    if text is None:
        return Notice("This row cannot be edited; approve (a) or reject (x) it as it is.")

    def save(engine: Engine, draft: MemoryDraft) -> Change:
        outcome = source.approve(engine, [entry], edited=draft.content)
        if outcome.failed:
            raise MemtuiError(outcome.failed[0][1])
        return _decided("approve", outcome)

    return MemoryEditor(
        f"Edit and approve {entry.name}", content=text, show_kind=False,
        context=f"from {entry.label} · {entry.where} · saving approves this text",
        write=_on_save("Approve", save))


def inbox_ids(sources: InboxSources, verb: str, memory_ids: list[str] | None) -> Write:
    """``/memory approve|reject ID`` or ``… all``: pending memories read by id, then decided."""
    from memtui.app.inbox_sources import PendingMemories

    def run(engine: Engine) -> Change:
        wanted = None if memory_ids is None else set(memory_ids)
        found = [entry for entry in PendingMemories().entries(engine)
                 if entry.can_act and (wanted is None or entry.name in wanted)]
        if wanted is not None:
            missing = wanted - {entry.name for entry in found}
            if missing:
                engine.review.item(sorted(missing)[0])  # raises the right error
                raise MemtuiError(f"you may not decide on {sorted(missing)[0]}")
        return Change(next=lambda: inbox_decide(sources, verb, found) if found
                      else Notice("Nothing waits for review."))

    return Write("Read the inbox", run, changes_store=False)


def create_project() -> Screen[Any]:
    """Ask for an id, a name and a root folder; create the project (the user owns it)."""
    from memtui.app.modals.project import ProjectDialog, ProjectDraft

    def write(draft: ProjectDraft) -> Write:
        def run(engine: Engine) -> Change:
            project = engine.identity.create_project(draft.project_id, draft.name or None,
                                                     draft.root or None)
            return Change(f"Created project {project.id} (you own it); it is current now",
                          result=project)

        return Write("Create project", run, form="project")

    return ProjectDialog(write)


def change_settings(engine: Engine, changes: dict[str, Any], *, label: str | None = None,
                    form: str | None = None) -> Step:
    """Change settings (all or nothing); undo puts the old values back."""
    try:
        before = engine.settings.get()
    except MemtuiError as error:
        return Notice(error.message, "error")
    old = {name: before.get(name) for name in changes}
    words = label or ", ".join(f"{name} = {'none' if value is None else value}"
                               for name, value in changes.items())

    def run(engine: Engine) -> Change:
        engine.settings.set_many(changes)
        return Change(f"Set {words} — ctrl+z undoes", result=changes,
                      undo=UndoStep(words, lambda engine: engine.settings.set_many(old)))

    return Write("Change settings", run, form=form)


def toggle(engine: Engine, name: str) -> Step:
    """Flip a switch setting (``g`` generate, ``u`` use)."""
    try:
        current = engine.settings.get()[name]
    except (MemtuiError, KeyError) as error:
        return Notice(f"Cannot read {name}: {error}", "error")
    return change_settings(engine, {name: 0 if current else 1})


def task_flags(engine: Engine, task_id: str, *, use: str | None = None,
               generate: str | None = None) -> Step:
    """Override use/generate for one task (``follow``/``on``/``off``)."""
    try:
        task = engine.tasks.get_task(task_id)
    except MemtuiError as error:
        return Notice(error.message, "error")
    back = {"use": flag_word(task.use_memories) if use is not None else None,
            "generate": flag_word(task.generate_memories) if generate is not None else None}
    words = ", ".join(f"{name} {value}" for name, value in (("use", use),
                                                            ("generate", generate)) if value)

    def run(engine: Engine) -> Change:
        engine.tasks.set_flags(task_id, use=use, generate=generate)
        return Change(f"Task {task_id}: {words} — ctrl+z undoes", undo=UndoStep(
            f"flags of {task_id}", lambda engine: engine.tasks.set_flags(task_id, **back)))

    return Write("Set task flags", run, form="flags")


def update_profile(engine: Engine, *, display_name: str, timezone: str,
                   preferences: dict[str, Any]) -> Step:
    """Save the profile (the engine refuses secret keys and unknown zones)."""
    try:
        old = engine.identity.profile()
    except MemtuiError as error:
        return Notice(error.message, "error")

    def run(engine: Engine) -> Change:
        profile = engine.identity.update_profile(
            display_name=display_name, timezone=timezone, preferences=preferences,
            require_change=True)
        return Change("Profile saved — ctrl+z undoes", result=profile, undo=UndoStep(
            "profile change", lambda engine: engine.identity.update_profile(
                display_name=old.display_name, timezone=old.timezone,
                preferences=old.preferences)))

    return Write("Save profile", run, form="profile")
