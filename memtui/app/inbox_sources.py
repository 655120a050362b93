"""Where the Inbox pane's rows come from (``inbox_sources``): each source lists what waits
and approves or rejects it through the engine (worker threads); ``detail`` and ``question``
draw what was read (UI thread). Nothing here touches a widget."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol, TypeVar, cast
from zoneinfo import ZoneInfo

from rich.text import Text

from memtui.app.format import block, local_time
from memtui.engine.agents.frontmatter import parse_front_matter
from memtui.engine.agents.plans import diff_body
from memtui.engine.review import ADDED, REMOVED, InboxItem, RejectResult, memory_where
from memtui.errors import MemtuiError
from memtui.textsafe import one_line

if TYPE_CHECKING:
    from memtui.engine.agents.gemini_review import PatchReview
    from memtui.engine.agents.write_gate import HeldWrite
    from memtui.engine.api import Engine
    from memtui.engine.staleness import StaleMemory

MEMORY_SOURCE = "memtui"
GEMINI_SOURCE = "gemini"
CLAUDE_SOURCE = "claude-code"
WORD_STYLES = {REMOVED: "red strike", ADDED: "bold green underline"}
"""A correction's word diff: removed words struck through, added words underlined."""
DIFF_STYLES = (("+", "green"), ("-", "red"), ("@@", "dim"))
"""A diff line's style by how it starts (else none)."""
MAX_DIFF_LINES = 40
"""Diff lines a Gemini patch's details show (the rest is counted)."""
MAX_QUESTION_DIFF_LINES = 12
"""Diff lines the confirm before applying shows, over every patch asked about."""
MAX_QUESTION_ROWS = 3
"""Patches a confirm names one by one (then "… and N more")."""
ROW_TEXT_CHARS = 200
P = TypeVar("P")
Part = tuple[str, str] | Text | None
"""A piece of a drawn text: ``(store text, style)`` (literal, control characters escaped), a
ready ``Text``, or None (left out)."""


@dataclass(frozen=True)
class InboxEntry:
    """One row of the Inbox pane, whatever its source: ``key`` is unique across sources,
    ``origin`` names its source, ``label`` the writer, ``payload`` the source's own record."""

    key: str
    origin: str
    label: str
    where: str
    text: str
    created_at: str | None
    correction: bool
    can_act: bool
    payload: object = field(compare=False, default=None)
    problem: str | None = None
    """Why it cannot be approved (a malformed patch): it can only be rejected."""

    @property
    def name(self) -> str:
        """How messages name it (the key without its source)."""
        return self.key.split(":", 1)[-1]


@dataclass
class Outcome:
    """What a bulk decision did: keys done, (key, message) for each refused, and what was
    done in the source's words (``past``: ``Applied``; empty for the default)."""

    done: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    past: str = ""


@dataclass(frozen=True)
class Question:
    """What a confirm before a decision says; ``required`` False: it may go on without."""

    title: str
    body: Text
    label: str
    required: bool


class InboxSource(Protocol):
    """A kind of inbox row: list, count, show, approve (optionally edited), reject."""

    name: str
    nouns: tuple[str, str] | None = None
    """How the pane's title names one and several of this source's rows (None: not named)."""

    def entries(self, engine: Engine) -> list[InboxEntry]:
        """What waits now (worker thread)."""

    def count(self, engine: Engine) -> int:
        """How many wait (worker thread; the pane bar's and the header's count)."""

    def detail(self, entry: InboxEntry, tz: ZoneInfo) -> Text:
        """The entry in full, with the diff of a correction (UI thread; literal text)."""

    def editable_text(self, entry: InboxEntry) -> str | None:
        """The text edit-and-approve starts from (None: this source cannot be edited)."""
        return None

    def question(self, verb: str, entries: Sequence[InboxEntry]) -> Question:
        """What to ask before approving or rejecting these entries (UI thread)."""

    def approve(self, engine: Engine, entries: Sequence[InboxEntry],
                edited: str | None = None) -> Outcome:
        """Approve these entries (``edited``: the new text of a single entry)."""

    def reject(self, engine: Engine, entries: Sequence[InboxEntry]) -> Outcome:
        """Reject these entries (final)."""


def _styled(*parts: Part) -> Text:
    """One text from its parts, in order: how the Inbox draws details and confirms."""
    out = Text()
    for part in parts:
        if part is not None:
            out.append_text(part if isinstance(part, Text) else block(*part))
    return out


def memory_entry(origin: str, label: str, item: InboxItem | StaleMemory,
                  correction: bool = False, can_act: bool = True) -> InboxEntry:
    """A row of one of memtui's own memories (pending, or stale: also what ``K`` keeps)."""
    memory = item.memory
    return InboxEntry(key=f"{origin}:{memory.id}", origin=origin, label=label,
                      where=memory_where(memory), text=memory.content,
                      created_at=memory.created_at, correction=correction, can_act=can_act,
                      payload=item)


def _each(entries: Sequence[InboxEntry], act: Callable[[InboxEntry], object],
          past: str = "") -> Outcome:
    """``act`` on each entry; what was done and what was refused, with why."""
    outcome = Outcome(past=past)
    for entry in entries:
        try:
            act(entry)
        except MemtuiError as error:
            outcome.failed.append((entry.key, error.message))
        except OSError as error:
            outcome.failed.append((entry.key, f"{error.strerror or error}; nothing was "
                                              "written"))
        else:
            outcome.done.append(entry.key)
    return outcome


def _more(count: int) -> Part:
    return (f"… and {count - MAX_QUESTION_ROWS} more\n", "dim") if count > MAX_QUESTION_ROWS \
        else None


class MemtuiMemories(InboxSource):
    """memtui's own memories (pending or stale): edit starts from the memory's text; the
    confirms say ``asks[verb]``: the button, what becomes of the rows, and a bold warning."""

    plural: str
    asks: ClassVar[dict[str, tuple[str, str, str]]]

    def editable_text(self, entry: InboxEntry) -> str | None:
        """The memory's text."""
        return cast("InboxItem | StaleMemory", entry.payload).memory.content

    def question(self, verb: str, entries: Sequence[InboxEntry]) -> Question:
        """Reject always asks (it is final); approve asks for more than one."""
        count = len(entries)
        rows = f"{count} {self.plural}" if count != 1 else entries[0].name
        label, says, warning = self.asks[verb]
        return Question(f"{label} {rows}?", Text.assemble(f"{rows} {says}", (warning, "bold")),
                        label, verb == "reject" or count > 1)


class PendingMemories(MemtuiMemories):
    """memtui's own pending memories (``engine.review``)."""

    name = MEMORY_SOURCE
    plural = "rows"
    asks: ClassVar[dict[str, tuple[str, str, str]]] = {
        "approve": ("Approve", "become active: they can be injected and recalled; corrections "
                    "replace the text they correct.", ""),
        "reject": ("Reject", "will be deleted for good. ", "This cannot be undone; a task they "
                   "came from is never extracted again.")}

    def entries(self, engine: Engine) -> list[InboxEntry]:
        """Every pending memory the user may see, oldest first."""
        return [memory_entry(MEMORY_SOURCE, item.memory.source, item, item.is_correction,
                              item.can_act) for item in engine.review.items()]

    def count(self, engine: Engine) -> int:
        """How many pending memories the user may see."""
        return engine.review.count()

    def detail(self, entry: InboxEntry, tz: ZoneInfo) -> Text:
        """Who wrote it, where, when; a correction as a diff against the text it replaces."""
        item = cast("InboxItem", entry.payload)
        memory = item.memory
        if item.target is not None:
            what = Text.assemble((f"Corrects {item.target.id} — approving it replaces that "
                                  "text (History keeps the old one):\n", "bold"), _styled(
                *((part.text, WORD_STYLES.get(part.op, "")) for part in item.diff)))
        elif item.target_state == "forgotten":
            what = Text.assemble((f"Corrects {item.replaces}, which was forgotten since: reject "
                                  "it.\n", "bold yellow"), block(memory.content))
        else:
            what = Text.assemble(("New memory:\n", "bold"), block(memory.content))
        return _styled(
            Text(memory.id, style="bold"),
            Text(f" · {memory.kind} · from {memory.source} · {entry.where} · by "
                 f"{memory.owner} · {local_time(memory.created_at, tz)}", style="dim"),
            (f" · task {memory.source_thread_id}", "dim") if memory.source_thread_id else None,
            Text("\n"), what, None if item.can_act else Text(
                "\nYou may read this project but not approve or reject its memories.",
                style="dim"))

    def approve(self, engine: Engine, entries: Sequence[InboxEntry],
                edited: str | None = None) -> Outcome:
        """Approve each (as shown: a memory changed since is refused)."""
        return _each(entries, lambda entry: engine.review.approve(
            entry.name, content=edited, expected=cast("InboxItem", entry.payload).version))

    def reject(self, engine: Engine, entries: Sequence[InboxEntry]) -> Outcome:
        """Reject each (deleted for good; the task it came from is never extracted again)."""
        items = [cast("InboxItem", entry.payload) for entry in entries]
        result = engine.review.reject_many([item.id for item in items],
                                           expected={item.id: item.version for item in items})
        keys = {item.id: entry.key for item, entry in zip(items, entries, strict=True)}
        return Outcome([keys[done.memory_id] for done in result.done
                        if isinstance(done, RejectResult)],
                       [(keys[memory_id], error.message) for memory_id, error in result.errors])


def _diff_text(lines: Sequence[str], limit: int) -> Text:
    out = Text()
    for line in lines[:limit]:
        style = next((style for sign, style in DIFF_STYLES if line.startswith(sign)), "")
        out.append(one_line(line, ROW_TEXT_CHARS), style=style)
        out.append("\n")
    if len(lines) > limit:
        out.append(f"… {len(lines) - limit} more diff lines\n", style="dim")
    return out


def _writes(words: str, files: str, diff: str, limit: int) -> Text:
    """``words`` and the ``files`` in bold, then the body of the ``diff`` (``limit`` lines)."""
    return Text.assemble((words, "bold"), block(files, style="bold"), (":\n", "bold"),
                         _diff_text(diff_body(diff), limit))


def _summary(review: PatchReview) -> str:
    """One line: the file it changes and its first added (else removed) line."""
    targets = ", ".join(review.patch.targets) or "?"
    lines = diff_body(review.diff)
    for sign, verb in (("+", ""), ("-", "removes ")):
        changed = [line[1:].strip() for line in lines if line.startswith(sign)]
        if changed:
            more = f" (+{len(changed) - 1} more lines)" if len(changed) > 1 else ""
            return f"{targets}: {verb}{changed[0]}{more}"
    return f"{targets}: no change"


def _gemini_home(read: Callable[[Path | None], P], home: Path | None) -> P:
    """``read(home)``, a file error said as the engine's error."""
    from memtui.engine.agents.errors import AgentError

    try:
        return read(home)
    except OSError as error:
        raise AgentError(f"cannot read the Gemini CLI home ({error})") from None


class GeminiPatches(InboxSource):
    """Gemini CLI's inbox patches: approve applies a patch to the memory file it names,
    reject dismisses it; both ask first, and write what was shown or nothing."""

    name = GEMINI_SOURCE
    nouns = ("Gemini CLI patch", "Gemini CLI patches")

    def __init__(self, home: Path | None) -> None:
        self.home = home
        """``--gemini-home`` (None: the default, resolved when read)."""

    def entries(self, engine: Engine) -> list[InboxEntry]:
        """Every patch waiting in the Gemini home, oldest first (none without a home)."""
        from memtui.engine.agents.gemini_review import review_gemini_inbox

        return [self._entry(item) for item in _gemini_home(review_gemini_inbox, self.home)]

    def count(self, engine: Engine) -> int:
        """How many patches wait (malformed ones included: they are rows too)."""
        from memtui.engine.agents.gemini_review import count_gemini_inbox

        return _gemini_home(count_gemini_inbox, self.home)

    @staticmethod
    def _entry(review: PatchReview) -> InboxEntry:
        where = "global" if review.tier == "global" else f"project {review.project_slug}"
        return InboxEntry(key=f"{GEMINI_SOURCE}:{review.name}", origin=GEMINI_SOURCE,
                          label=GEMINI_SOURCE, where=where,
                          text=review.problem if review.problem else _summary(review),
                          created_at=review.proposed_at,
                          correction=review.problem is None and review.changes_lines,
                          can_act=True, payload=review, problem=review.problem)

    def detail(self, entry: InboxEntry, tz: ZoneInfo) -> Text:
        """The patch: the file it changes and its diff (or why it cannot be applied)."""
        review = cast("PatchReview", entry.payload)
        blocked = review.problem is not None or review.apply is None
        tier = "global memory" if review.tier == "global" else "private project memory"
        project = f"project {review.project_slug}" if review.project_slug else "the home"
        if review.project_path:
            project += f" ({review.project_path})"
        return _styled(
            (review.name, "bold"),
            Text(f" · Gemini CLI · proposed {local_time(review.proposed_at, tz)}\n", style="dim"),
            Text.assemble(("Cannot be applied: ", "bold yellow"),
                          block(review.problem or "unknown"), "\n") if blocked else
            _writes("Applying it writes ", ", ".join(review.files), review.diff, MAX_DIFF_LINES),
            Text(f"It adds a secret ({', '.join(review.secrets)}) to a memory file.\n",
                 style="bold red") if review.secrets and not blocked else None,
            (f"Gemini CLI's {tier}, proposed in {project}; ", "dim"),
            Text("a applies it and removes the patch, x dismisses it — both ask first; refused "
                 "if a file changes meanwhile." if review.apply is not None else "only x acts "
                 "on it: it dismisses the patch unapplied (asks first).", style="dim"))

    def question(self, verb: str, entries: Sequence[InboxEntry]) -> Question:
        """Always asked: the decision writes to Gemini CLI's files. Approve shows the diff."""
        reviews = [cast("PatchReview", entry.payload) for entry in entries]
        count = len(reviews)
        what = reviews[0].name if count == 1 else f"{count} Gemini CLI patches"
        if verb == "reject":
            return Question(f"Dismiss {what}?", _styled(
                *(Text.assemble(block(f"{review.name} ({review.relative})"), "\n")
                  for review in reviews[:MAX_QUESTION_ROWS]), _more(count),
                Text("Removed from Gemini CLI's inbox without being applied. This cannot be "
                     "undone.", style="bold")), "Dismiss", True)
        asks: list[Part] = []
        room = MAX_QUESTION_DIFF_LINES
        for review in reviews[:MAX_QUESTION_ROWS]:
            if review.apply is None:
                asks.append((f"{review.name} cannot be applied ({review.problem}); it stays in "
                             "the inbox.\n", "yellow"))
                continue
            lines = diff_body(review.diff)
            asks += [(f"Write {', '.join(review.files)} in Gemini CLI's home ({review.name}), "
                      "then remove the patch:\n", "bold"), _diff_text(lines, max(room, 0))]
            room -= len(lines)
            if review.secrets:
                asks.append(Text(f"It adds a secret ({', '.join(review.secrets)}).\n",
                                 style="bold red"))
        return Question(f"Apply {what}?", _styled(*asks, _more(count), Text(
            "Refused if Gemini CLI changes the file meanwhile.", style="dim")), "Apply", True)

    def approve(self, engine: Engine, entries: Sequence[InboxEntry],
                edited: str | None = None) -> Outcome:
        """Apply each patch as it was read (refused: malformed, or a file changed since)."""
        from memtui.engine.agents.gemini_review import apply_reviewed

        return _each(entries, lambda entry: apply_reviewed(cast("PatchReview", entry.payload)),
                     "Applied")

    def reject(self, engine: Engine, entries: Sequence[InboxEntry]) -> Outcome:
        """Dismiss each patch (refused when it changed since it was read)."""
        from memtui.engine.agents.gemini_review import dismiss_reviewed

        return _each(entries, lambda entry: dismiss_reviewed(cast("PatchReview", entry.payload)),
                     "Dismissed")


STALE_WORDS = ("the file changed since the proposal: approving redoes the diff against it "
               "first (nothing is written then)")


def _asked(held: HeldWrite) -> Text:
    """A held write in the approve confirm: its diff, or why it is not written as shown."""
    if held.stale or held.problem:
        return block(f"{held.row.path}: {held.problem or STALE_WORDS}.\n", style="yellow")
    return _styled((f"Write {held.row.path}:\n", "bold"),
                   _diff_text(diff_body(held.row.diff), MAX_QUESTION_DIFF_LINES),
                   None if held.index is None else (held.index.words() + "\n", "dim"))


class ClaudeWrites(InboxSource):
    """Claude Code's memory writes held by its write gate: approve writes the file (and its
    ``MEMORY.md`` line), or redoes the diff of a file changed since; reject deletes the held
    write for good. Both ask first."""

    name = CLAUDE_SOURCE
    nouns = ("Claude Code write", "Claude Code writes")

    def entries(self, engine: Engine) -> list[InboxEntry]:
        """Every held write, oldest first."""
        return [self._entry(held) for held in engine.gate.items()]

    def count(self, engine: Engine) -> int:
        """How many writes are held."""
        return engine.gate.count()

    @staticmethod
    def _entry(held: HeldWrite) -> InboxEntry:
        row = held.row
        project = f"project {Path(row.project_dir).name}" if row.project_dir else "memory"
        parsed = parse_front_matter(row.content)
        first = next((line.strip() for line in parsed.body.splitlines() if line.strip()), "")
        return InboxEntry(key=f"{CLAUDE_SOURCE}:{row.id}", origin=CLAUDE_SOURCE,
                          label="claude", where=project,
                          text=f"{Path(row.path).name}: "
                               f"{parsed.fields.get('description') or first or '(empty)'}",
                          created_at=row.created_at, correction=row.base_sha256 is not None,
                          can_act=True, payload=held, problem=held.problem)

    def detail(self, entry: InboxEntry, tz: ZoneInfo) -> Text:
        """Who proposed it, the file, the diff, what approving does to the index."""
        held = cast("HeldWrite", entry.payload)
        row, index = held.row, held.index
        return _styled(
            (row.id, "bold"), (f" · Claude Code {row.tool} · session {row.session_id or '?'} · "
                               f"{local_time(row.created_at, tz)}\n", "dim"),
            (f"{held.problem or STALE_WORDS}\n", "bold yellow")
            if held.problem or held.stale else None,
            _writes("Approving writes ", row.path, row.diff, MAX_DIFF_LINES),
            None if index is None else (index.words() + (
                f"\nand gains the line {index.added}" if index.added else ""), "dim"))

    def editable_text(self, entry: InboxEntry) -> str | None:
        """The file as it would be written."""
        return cast("HeldWrite", entry.payload).row.content

    def question(self, verb: str, entries: Sequence[InboxEntry]) -> Question:
        """Always asked: approving writes Claude Code's files, rejecting is final."""
        helds = [cast("HeldWrite", entry.payload) for entry in entries]
        what = Path(helds[0].row.path).name if len(helds) == 1 else \
            f"{len(helds)} Claude Code writes"
        if verb == "reject":
            return Question(f"Reject {what}?", Text(
                "Deleted for good; the same write is refused from now on. Claude Code's files "
                "are not touched."), "Reject", True)
        body = _styled(*map(_asked, helds[:MAX_QUESTION_ROWS]), _more(len(helds)),
                       Text("Refused if the file changes meanwhile.", style="dim"))
        stale = all(held.stale and not held.problem for held in helds)
        return Question(f"{'Redo the diff of' if stale else 'Write'} {what}?", body,
                        "Redo diff" if stale else "Write", True)

    def approve(self, engine: Engine, entries: Sequence[InboxEntry],
                edited: str | None = None) -> Outcome:
        """Write each held file as shown (``edited``: one's new text); a stale one is re-diffed."""
        def act(entry: InboxEntry) -> None:
            held = cast("HeldWrite", entry.payload)
            if held.stale and not held.problem:
                engine.gate.redo(held.id)
                raise MemtuiError("the file changed since the proposal; its diff was redone "
                                  "against the file as it is now: look at it and approve again")
            engine.gate.approve(held.id, content=edited, expected=held.version)

        return _each(entries, act, "Wrote")

    def reject(self, engine: Engine, entries: Sequence[InboxEntry]) -> Outcome:
        """Delete each held write for good."""
        return _each(entries, lambda entry: engine.gate.reject(entry.name))


STALE_SOURCE = "stale"
MAX_STALE_ROWS = 200
"""Stale memories the Inbox lists (and counts) at most."""
STALE_COUNT_SECONDS = 60.0
"""How long the header's count of stale memories is reused (a check reads each project)."""


class StaleMemories(MemtuiMemories):
    """Active memories gone stale: approve keeps them, edit corrects one, reject forgets them."""

    name = STALE_SOURCE
    nouns = ("stale memory", "stale memories")
    plural = "memories"
    asks: ClassVar[dict[str, tuple[str, str, str]]] = {
        "approve": ("Keep", "stay as they are and count as used now.", ""),
        "reject": ("Forget", "and every older version will be deleted for good.", "")}

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._counted: tuple[str, float, int, int] | None = None  # actor, when, count, and
        self._decisions = 0  # the app's writes before it (a newer one: count again)
        self._counting = threading.Lock()

    def entries(self, engine: Engine) -> list[InboxEntry]:
        """Every stale memory, newest first per list (user-level, then each project)."""
        decisions = self._decisions
        found = engine.staleness.everywhere(MAX_STALE_ROWS)
        self._counted = (engine.actor, self._clock(), len(found), decisions)
        return [memory_entry(STALE_SOURCE, "stale", item) for item in found]

    def count(self, engine: Engine) -> int:
        """How many stale memories (at most ``MAX_STALE_ROWS``): the last count while it is
        under ``STALE_COUNT_SECONDS`` old and no write came since, or another one counts
        (after a write: once that one is done, counted again unless it began after it)."""
        last = self._last_count(engine)
        if last is not None:
            return last
        written = self._counted is not None and self._counted[3] != self._decisions
        if not self._counting.acquire(blocking=written):  # a worker thread: it may wait
            return self._counted[2] if self._counted and self._counted[0] == engine.actor else 0
        try:
            last = self._last_count(engine)  # the one it waited for may have begun after
            return last if last is not None else len(self.entries(engine))
        finally:
            self._counting.release()

    def _last_count(self, engine: Engine) -> int | None:
        last = self._counted
        if last is not None and last[0] == engine.actor and last[3] == self._decisions and \
                self._clock() - last[1] < STALE_COUNT_SECONDS:
            return last[2]
        return None

    def detail(self, entry: InboxEntry, tz: ZoneInfo) -> Text:
        """The memory, why it is stale, and what each decision does."""
        item = cast("StaleMemory", entry.payload)
        memory = item.memory
        return Text.assemble(
            (memory.id, "bold"), (f" · {memory.kind} · {entry.where} · made "
                                  f"{local_time(memory.created_at, tz)} · used "
                                  f"{memory.usage_count}×", "dim"), ("\nStale: ", "bold yellow"),
            block("; ".join(item.reasons) + "\n", style="yellow"), block(memory.content),
            ("\n\nApprove keeps it, edit corrects it, reject forgets it.", "dim"))

    def approve(self, engine: Engine, entries: Sequence[InboxEntry],
                edited: str | None = None) -> Outcome:
        """Keep them (approve, the memory panes' ``K``); with ``edited``, correct the one."""
        outcome = Outcome(past="Kept" if edited is None else "Corrected")
        try:
            if edited is not None:
                for entry in entries:
                    engine.identity.supersede(entry.name, edited)
            else:
                engine.staleness.keep([entry.name for entry in entries])
            outcome.done += [entry.key for entry in entries]
        except MemtuiError as error:
            outcome.failed += [(entry.key, error.message) for entry in entries]
        return outcome

    def reject(self, engine: Engine, entries: Sequence[InboxEntry]) -> Outcome:
        """Forget each (for good, with its older versions)."""
        return _each(entries, lambda entry: engine.identity.forget(entry.name), "Forgot")

    def memories_changed(self) -> None:
        """The app wrote (a keep, correction, forget...): the next count is taken anew."""
        self._decisions += 1


@dataclass(frozen=True)
class InboxSources:
    """The app's inbox sources, in the order the pane lists them."""

    sources: tuple[InboxSource, ...]

    def named(self, name: str) -> InboxSource:
        """The source that made entries with this ``origin``."""
        return {source.name: source for source in self.sources}[name]

    def count(self, engine: Engine) -> int:
        """How many entries wait in every source (a source that fails counts 0)."""
        total = 0
        for source in self.sources:
            with suppress(MemtuiError):
                total += source.count(engine)
        return total

    def memories_changed(self) -> None:
        """The app wrote: counts that depend on memtui's memories are taken anew."""
        for source in self.sources:
            if isinstance(source, StaleMemories):
                source.memories_changed()


def inbox_sources(gemini_home: Path | None = None) -> InboxSources:
    """The sources in Inbox order: pending memories, Claude and Gemini writes, stale ones."""
    return InboxSources((PendingMemories(), ClaudeWrites(), GeminiPatches(gemini_home),
                         StaleMemories()))

